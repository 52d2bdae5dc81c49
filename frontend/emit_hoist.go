package frontend

import "github.com/lucent-gpu/lucent/spirv"

// Loop-invariant code motion and reuse of invariant values.
//
// The DSL builds pure expressions as trees, so a value computed once in the
// source, such as
//
//	cx := float(x) / float(w) * 3 - 2      // before the loop
//	loop { … zx*zx - zy*zy + cx … }        // used inside
//
// reaches codegen as a subtree inside the loop. An expression is invariant
// when its leaves never change during a call (literals, uniform arguments,
// built-in variables, by-value parameters) and every node is pure; such a
// subtree is evaluated once in the loop's preheader and reused by node
// identity wherever the preheader dominates. Pure SPIR-V operations cannot
// trap, so evaluating one the source would have skipped is harmless.

// invariant reports whether e's value is fixed for the whole function call.
func (g *gen) invariant(e Expr) bool {
	if v, ok := g.inv[e]; ok {
		return v
	}
	r := false
	switch e := e.(type) {
	case *Literal, *ConstArray:
		r = true
	case *Ref:
		k := e.Var.Kind
		r = k == VarBuiltin || k == VarParam || k == VarArg && !e.Var.Type.IsResource()
	case *Unary:
		r = g.invariant(e.X)
	case *Binary:
		r = g.invariant(e.X) && g.invariant(e.Y)
	case *Member:
		r = g.invariant(e.X)
	case *Swizzle:
		r = g.invariant(e.X)
	case *Index:
		r = e.X.Type().kind == KindVector && g.invariant(e.X) && g.invariant(e.I)
	case *Cast:
		r = g.invariant(e.X)
	case *Construct:
		r = true
		for _, a := range e.Args {
			r = r && g.invariant(a)
		}
	case *Call:
		r = e.Func == nil && pure(e.Op)
		for _, a := range e.Args {
			r = r && g.invariant(a)
		}
	}
	g.inv[e] = r
	return r
}

// pure reports built-ins without effects whose result depends only on the
// operands (not on memory, other lanes or the active set).
func pure(op Op) bool { return op >= OpAbs && op <= OpBitReverse }

// worthHoisting excludes leaves, which cost nothing to re-evaluate.
func worthHoisting(e Expr) bool {
	switch e.(type) {
	case *Literal, *ConstArray, *Ref:
		return false
	}
	return true
}

// hoist evaluates, in the current block, the maximal invariant subtrees of
// the statements about to be emitted inside a loop.
func (g *gen) hoist(cond Expr, blocks ...*Block) {
	var visit func(e Expr)
	visit = func(e Expr) {
		if e == nil {
			return
		}
		if g.invariant(e) {
			if worthHoisting(e) {
				g.expr(e)
			}
			return
		}
		switch e := e.(type) {
		case *Unary:
			visit(e.X)
		case *Binary:
			visit(e.X)
			visit(e.Y)
		case *Member:
			visit(e.X)
		case *Swizzle:
			visit(e.X)
		case *Index:
			visit(e.X)
			visit(e.I)
		case *Call:
			for _, a := range e.Args {
				visit(a)
			}
		case *Cast:
			visit(e.X)
		case *Construct:
			for _, a := range e.Args {
				visit(a)
			}
		}
	}
	visit(cond)
	for _, b := range blocks {
		walkBlockExprs(b, visit)
	}
}

// walkBlockExprs calls fn on the top-level expressions of b's statements, recursively.
func walkBlockExprs(b *Block, fn func(Expr)) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *Block:
			walkBlockExprs(s, fn)
		case *If:
			fn(s.Cond)
			walkBlockExprs(s.Then, fn)
			walkBlockExprs(s.Else, fn)
		case *Loop:
			walkBlockExprs(s.Body, fn)
		case *For:
			fn(s.Cond)
			walkBlockExprs(s.Body, fn)
			walkBlockExprs(s.Update, fn)
		case *Switch:
			fn(s.Tag)
			for _, c := range s.Cases {
				walkBlockExprs(c.Body, fn)
			}
			walkBlockExprs(s.Default, fn)
		case *Return:
			fn(s.Value)
		case *Assign:
			fn(s.Dst)
			fn(s.Src)
		case *ExprStmt:
			fn(s.X)
		}
	}
}

// cached looks an invariant expression up in the enclosing scopes.
func (g *gen) cached(e Expr) (spirv.ID, bool) {
	for i := len(g.scopes) - 1; i >= 0; i-- {
		if id, ok := g.scopes[i][e]; ok {
			return id, true
		}
	}
	return 0, false
}

// enter opens a scope for values computed in a nested construct; leave
// drops them, as they do not dominate what follows the construct.
func (g *gen) enter() { g.scopes = append(g.scopes, nil) } // made on first use
func (g *gen) leave() { g.scopes = g.scopes[:len(g.scopes)-1] }
