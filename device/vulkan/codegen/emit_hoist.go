package codegen

import (
	"github.com/lucent-gpu/lucent/frontend/ir"
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
func (g *gen) invariant(e ir.Expr) bool {
	if v, ok := g.inv[e]; ok {
		return v
	}
	r := false
	switch e := e.(type) {
	case *ir.Literal, *ir.ConstArray:
		r = true
	case *ir.Ref:
		k := e.Var.Kind
		r = k == ir.VarBuiltin || k == ir.VarParam || k == ir.VarArg && !e.Var.Type.IsResource()
	case *ir.Unary:
		r = g.invariant(e.X)
	case *ir.Binary:
		r = g.invariant(e.X) && g.invariant(e.Y)
	case *ir.Member:
		r = g.invariant(e.X)
	case *ir.Swizzle:
		r = g.invariant(e.X)
	case *ir.Index:
		r = e.X.Type().Kind() == ir.KindVector && g.invariant(e.X) && g.invariant(e.I)
	case *ir.Cast:
		r = g.invariant(e.X)
	case *ir.Construct:
		r = true
		for _, a := range e.Args {
			r = r && g.invariant(a)
		}
	case *ir.Call:
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
func pure(op ir.Op) bool { return op >= ir.OpAbs && op <= ir.OpBitReverse }

// worthHoisting excludes leaves, which cost nothing to re-evaluate.
func worthHoisting(e ir.Expr) bool {
	switch e.(type) {
	case *ir.Literal, *ir.ConstArray, *ir.Ref:
		return false
	}
	return true
}

// hoist evaluates, in the current block, the maximal invariant subtrees of
// the statements about to be emitted inside a loop.
func (g *gen) hoist(cond ir.Expr, blocks ...*ir.Block) {
	var visit func(e ir.Expr)
	visit = func(e ir.Expr) {
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
		case *ir.Unary:
			visit(e.X)
		case *ir.Binary:
			visit(e.X)
			visit(e.Y)
		case *ir.Member:
			visit(e.X)
		case *ir.Swizzle:
			visit(e.X)
		case *ir.Index:
			visit(e.X)
			visit(e.I)
		case *ir.Call:
			for _, a := range e.Args {
				visit(a)
			}
		case *ir.Cast:
			visit(e.X)
		case *ir.Construct:
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
func walkBlockExprs(b *ir.Block, fn func(ir.Expr)) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ir.Block:
			walkBlockExprs(s, fn)
		case *ir.If:
			fn(s.Cond)
			walkBlockExprs(s.Then, fn)
			walkBlockExprs(s.Else, fn)
		case *ir.Loop:
			walkBlockExprs(s.Body, fn)
		case *ir.For:
			fn(s.Cond)
			walkBlockExprs(s.Body, fn)
			walkBlockExprs(s.Update, fn)
		case *ir.Switch:
			fn(s.Tag)
			for _, c := range s.Cases {
				walkBlockExprs(c.Body, fn)
			}
			walkBlockExprs(s.Default, fn)
		case *ir.Return:
			fn(s.Value)
		case *ir.Assign:
			fn(s.Dst)
			fn(s.Src)
		case *ir.ExprStmt:
			fn(s.X)
		}
	}
}

// cached looks an invariant expression up in the enclosing scopes.
func (g *gen) cached(e ir.Expr) (spirv.ID, bool) {
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
