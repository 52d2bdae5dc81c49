package codegen

import (
	"github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/spirv"
)

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
func (g *gen) invariant(e frontend.Expr) bool {
	if v, ok := g.inv[e]; ok {
		return v
	}
	r := false
	switch e := e.(type) {
	case *frontend.Literal, *frontend.ConstArray:
		r = true
	case *frontend.Ref:
		k := e.Var.Kind
		r = k == frontend.VarBuiltin || k == frontend.VarParam || k == frontend.VarArg && !e.Var.Type.IsResource()
	case *frontend.Unary:
		r = g.invariant(e.X)
	case *frontend.Binary:
		r = g.invariant(e.X) && g.invariant(e.Y)
	case *frontend.Member:
		r = g.invariant(e.X)
	case *frontend.Swizzle:
		r = g.invariant(e.X)
	case *frontend.Index:
		r = e.X.Type().Kind() == frontend.KindVector && g.invariant(e.X) && g.invariant(e.I)
	case *frontend.Cast:
		r = g.invariant(e.X)
	case *frontend.Construct:
		r = true
		for _, a := range e.Args {
			r = r && g.invariant(a)
		}
	case *frontend.Call:
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
func pure(op frontend.Op) bool { return op >= frontend.OpAbs && op <= frontend.OpBitReverse }

// worthHoisting excludes leaves, which cost nothing to re-evaluate.
func worthHoisting(e frontend.Expr) bool {
	switch e.(type) {
	case *frontend.Literal, *frontend.ConstArray, *frontend.Ref:
		return false
	}
	return true
}

// hoist evaluates, in the current block, the maximal invariant subtrees of
// the statements about to be emitted inside a loop.
func (g *gen) hoist(cond frontend.Expr, blocks ...*frontend.Block) {
	var visit func(e frontend.Expr)
	visit = func(e frontend.Expr) {
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
		case *frontend.Unary:
			visit(e.X)
		case *frontend.Binary:
			visit(e.X)
			visit(e.Y)
		case *frontend.Member:
			visit(e.X)
		case *frontend.Swizzle:
			visit(e.X)
		case *frontend.Index:
			visit(e.X)
			visit(e.I)
		case *frontend.Call:
			for _, a := range e.Args {
				visit(a)
			}
		case *frontend.Cast:
			visit(e.X)
		case *frontend.Construct:
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
func walkBlockExprs(b *frontend.Block, fn func(frontend.Expr)) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *frontend.Block:
			walkBlockExprs(s, fn)
		case *frontend.If:
			fn(s.Cond)
			walkBlockExprs(s.Then, fn)
			walkBlockExprs(s.Else, fn)
		case *frontend.Loop:
			walkBlockExprs(s.Body, fn)
		case *frontend.For:
			fn(s.Cond)
			walkBlockExprs(s.Body, fn)
			walkBlockExprs(s.Update, fn)
		case *frontend.Switch:
			fn(s.Tag)
			for _, c := range s.Cases {
				walkBlockExprs(c.Body, fn)
			}
			walkBlockExprs(s.Default, fn)
		case *frontend.Return:
			fn(s.Value)
		case *frontend.Assign:
			fn(s.Dst)
			fn(s.Src)
		case *frontend.ExprStmt:
			fn(s.X)
		}
	}
}

// cached looks an invariant expression up in the enclosing scopes.
func (g *gen) cached(e frontend.Expr) (spirv.ID, bool) {
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
