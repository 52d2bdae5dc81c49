package cpu

import "github.com/lucent-gpu/lucent/frontend/ir"

// Loop-invariant code motion: an expression inside a loop that reads only
// values the loop does not change (uniforms, built-ins, locals it never
// assigns) and cannot fault is evaluated once before the loop into
// registers, and the loop reads those. The DSL writes such expressions into
// the loop (a Go variable holding an expression is the expression, not a
// register), so mandelbrot's per-pixel constants were recomputed every
// iteration.

// hoist finds the invariant expressions of loop body parts, compiles them
// into registers and returns the closure computing them, with the map
// entries to remove once the loop is compiled.
func (c *compiler) hoist(parts ...any) (pre func(*th), added []ir.Expr) {
	found := hoistable(parts, func(e ir.Expr) bool { _, done := c.hoisted[e]; return done })
	if len(found) == 0 {
		return nil, nil
	}
	var evals []func(*th)
	for _, e := range found {
		x := c.expr(e)
		o, ev := c.agg(x)
		evals = append(evals, ev)
		c.hoisted[e] = o
	}
	return func(t *th) {
		for _, ev := range evals {
			ev(t)
		}
	}, found
}

// hoistable lists the largest loop-invariant expressions worth computing
// before a loop made of parts, but for those done says are hoisted already.
func hoistable(parts []any, done func(ir.Expr) bool) []ir.Expr {
	assigned := map[*ir.Var]bool{}
	for _, p := range parts {
		walkStmts(p, func(s ir.Stmt) {
			if a, ok := s.(*ir.Assign); ok {
				if v := ir.PlaceRoot(a.Dst); v != nil {
					assigned[v] = true
				}
			}
		}, func(e ir.Expr) {
			if call, ok := e.(*ir.Call); ok {
				for i, a := range call.Args {
					if call.Func != nil && call.Func.Params[i].Kind == ir.VarRefParam || call.Func == nil && i == 0 && call.Op >= ir.OpAtomicExchange && call.Op <= ir.OpAtomicMax {
						if v := ir.PlaceRoot(a); v != nil {
							assigned[v] = true
						}
					}
				}
			}
		})
	}
	var found []ir.Expr
	seen := map[ir.Expr]bool{}
	var visit func(e ir.Expr)
	visit = func(e ir.Expr) {
		if e == nil || seen[e] || done(e) {
			return
		}
		if invariant(e, assigned) && worth(e) {
			seen[e] = true
			found = append(found, e)
			return
		}
		for _, ch := range children(e) {
			visit(ch)
		}
	}
	for _, p := range parts {
		walkStmts(p, nil, visit)
	}
	return found
}

// invariant reports whether e's value cannot change while the loop runs and
// evaluating it early cannot fault.
func invariant(e ir.Expr, assigned map[*ir.Var]bool) bool {
	switch e := e.(type) {
	case *ir.Literal, *ir.ConstArray:
		return true
	case *ir.Ref:
		switch e.Var.Kind {
		case ir.VarBuiltin:
			return true
		case ir.VarArg:
			return !e.Var.Type.IsResource()
		case ir.VarLocal, ir.VarParam:
			return !assigned[e.Var]
		}
		return false
	case *ir.Binary:
		if (e.Op == ir.Div || e.Op == ir.Rem) && !isFloat(e.T) {
			return false // may divide by zero where the loop would not
		}
	case *ir.Index:
		return false // a load, or a checked index
	case *ir.Call:
		if e.Func != nil || !pureOp(e.Op) {
			return false
		}
	}
	for _, ch := range children(e) {
		if !invariant(ch, assigned) {
			return false
		}
	}
	return true
}

func isFloat(t *ir.Type) bool { return t.Scalar().Kind() == ir.KindFloat }

// pureOp reports the built-ins with no effects and no faults.
func pureOp(op ir.Op) bool {
	return op >= ir.OpAbs && op <= ir.OpBitReverse
}

// worth reports whether hoisting e saves work: not a plain read.
func worth(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Literal, *ir.ConstArray, *ir.Ref:
		return false
	case *ir.Swizzle:
		_, ref := e.X.(*ir.Ref)
		return !ref
	case *ir.Cast:
		return worth(e.X) || !e.Bit
	}
	return true
}

func children(e ir.Expr) []ir.Expr {
	switch e := e.(type) {
	case *ir.Unary:
		return []ir.Expr{e.X}
	case *ir.Binary:
		return []ir.Expr{e.X, e.Y}
	case *ir.Member:
		return []ir.Expr{e.X}
	case *ir.Swizzle:
		return []ir.Expr{e.X}
	case *ir.Index:
		return []ir.Expr{e.X, e.I}
	case *ir.Call:
		return e.Args
	case *ir.Cast:
		return []ir.Expr{e.X}
	case *ir.Construct:
		return e.Args
	}
	return nil
}

// walkStmts calls stmt for every statement under p (a *ir.Block or an
// ir.Expr loop condition) and expr for the expressions the statements hold:
// with stmt set (the scan for assignments) every expression node, with stmt
// nil (hoisting, which descends itself) the top-level ones.
func walkStmts(p any, stmt func(ir.Stmt), expr func(ir.Expr)) {
	var exprs func(e ir.Expr)
	exprs = func(e ir.Expr) {
		if e == nil {
			return
		}
		expr(e)
		if stmt != nil { // the effects scan looks at every node
			for _, ch := range children(e) {
				exprs(ch)
			}
		}
	}
	var dst func(e ir.Expr)
	dst = func(e ir.Expr) { // a place: its index expressions are values
		switch x := e.(type) {
		case *ir.Index:
			dst(x.X)
			exprs(x.I)
		case *ir.Member:
			dst(x.X)
		}
	}
	var block func(b *ir.Block)
	var one func(s ir.Stmt)
	one = func(s ir.Stmt) {
		if stmt != nil {
			stmt(s)
		}
		switch s := s.(type) {
		case *ir.Block:
			block(s)
		case *ir.If:
			exprs(s.Cond)
			block(s.Then)
			block(s.Else)
		case *ir.Loop:
			block(s.Body)
		case *ir.For:
			exprs(s.Cond)
			block(s.Body)
			block(s.Update)
		case *ir.Switch:
			exprs(s.Tag)
			for _, cs := range s.Cases {
				block(cs.Body)
			}
			block(s.Default)
		case *ir.Return:
			exprs(s.Value)
		case *ir.Assign:
			exprs(s.Src)
			dst(s.Dst)
		case *ir.ExprStmt:
			exprs(s.X)
		}
	}
	block = func(b *ir.Block) {
		if b == nil {
			return
		}
		for _, s := range b.Stmts {
			one(s)
		}
	}
	switch p := p.(type) {
	case *ir.Block:
		block(p)
	case ir.Expr:
		exprs(p)
	}
}
