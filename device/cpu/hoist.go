package cpu

import fe "github.com/lucent-gpu/lucent/frontend"

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
func (c *compiler) hoist(parts ...any) (pre func(*th), added []fe.Expr) {
	found := hoistable(parts, func(e fe.Expr) bool { _, done := c.hoisted[e]; return done })
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
func hoistable(parts []any, done func(fe.Expr) bool) []fe.Expr {
	assigned := map[*fe.Var]bool{}
	for _, p := range parts {
		walkStmts(p, func(s fe.Stmt) {
			if a, ok := s.(*fe.Assign); ok {
				if v := fe.PlaceRoot(a.Dst); v != nil {
					assigned[v] = true
				}
			}
		}, func(e fe.Expr) {
			if call, ok := e.(*fe.Call); ok {
				for i, a := range call.Args {
					if call.Func != nil && call.Func.Params[i].Kind == fe.VarRefParam || call.Func == nil && i == 0 && call.Op >= fe.OpAtomicExchange && call.Op <= fe.OpAtomicMax {
						if v := fe.PlaceRoot(a); v != nil {
							assigned[v] = true
						}
					}
				}
			}
		})
	}
	var found []fe.Expr
	seen := map[fe.Expr]bool{}
	var visit func(e fe.Expr)
	visit = func(e fe.Expr) {
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
func invariant(e fe.Expr, assigned map[*fe.Var]bool) bool {
	switch e := e.(type) {
	case *fe.Literal, *fe.ConstArray:
		return true
	case *fe.Ref:
		switch e.Var.Kind {
		case fe.VarBuiltin:
			return true
		case fe.VarArg:
			return !e.Var.Type.IsResource()
		case fe.VarLocal, fe.VarParam:
			return !assigned[e.Var]
		}
		return false
	case *fe.Binary:
		if (e.Op == fe.Div || e.Op == fe.Rem) && !isFloat(e.T) {
			return false // may divide by zero where the loop would not
		}
	case *fe.Index:
		return false // a load, or a checked index
	case *fe.Call:
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

func isFloat(t *fe.Type) bool { return t.Scalar().Kind() == fe.KindFloat }

// pureOp reports the built-ins with no effects and no faults.
func pureOp(op fe.Op) bool {
	return op >= fe.OpAbs && op <= fe.OpBitReverse
}

// worth reports whether hoisting e saves work: not a plain read.
func worth(e fe.Expr) bool {
	switch e := e.(type) {
	case *fe.Literal, *fe.ConstArray, *fe.Ref:
		return false
	case *fe.Swizzle:
		_, ref := e.X.(*fe.Ref)
		return !ref
	case *fe.Cast:
		return worth(e.X) || !e.Bit
	}
	return true
}

func children(e fe.Expr) []fe.Expr {
	switch e := e.(type) {
	case *fe.Unary:
		return []fe.Expr{e.X}
	case *fe.Binary:
		return []fe.Expr{e.X, e.Y}
	case *fe.Member:
		return []fe.Expr{e.X}
	case *fe.Swizzle:
		return []fe.Expr{e.X}
	case *fe.Index:
		return []fe.Expr{e.X, e.I}
	case *fe.Call:
		return e.Args
	case *fe.Cast:
		return []fe.Expr{e.X}
	case *fe.Construct:
		return e.Args
	}
	return nil
}

// walkStmts calls stmt for every statement under p (a *fe.Block or an
// fe.Expr loop condition) and expr for the expressions the statements hold:
// with stmt set (the scan for assignments) every expression node, with stmt
// nil (hoisting, which descends itself) the top-level ones.
func walkStmts(p any, stmt func(fe.Stmt), expr func(fe.Expr)) {
	var exprs func(e fe.Expr)
	exprs = func(e fe.Expr) {
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
	var dst func(e fe.Expr)
	dst = func(e fe.Expr) { // a place: its index expressions are values
		switch x := e.(type) {
		case *fe.Index:
			dst(x.X)
			exprs(x.I)
		case *fe.Member:
			dst(x.X)
		}
	}
	var block func(b *fe.Block)
	var one func(s fe.Stmt)
	one = func(s fe.Stmt) {
		if stmt != nil {
			stmt(s)
		}
		switch s := s.(type) {
		case *fe.Block:
			block(s)
		case *fe.If:
			exprs(s.Cond)
			block(s.Then)
			block(s.Else)
		case *fe.Loop:
			block(s.Body)
		case *fe.For:
			exprs(s.Cond)
			block(s.Body)
			block(s.Update)
		case *fe.Switch:
			exprs(s.Tag)
			for _, cs := range s.Cases {
				block(cs.Body)
			}
			block(s.Default)
		case *fe.Return:
			exprs(s.Value)
		case *fe.Assign:
			exprs(s.Src)
			dst(s.Dst)
		case *fe.ExprStmt:
			exprs(s.X)
		}
	}
	block = func(b *fe.Block) {
		if b == nil {
			return
		}
		for _, s := range b.Stmts {
			one(s)
		}
	}
	switch p := p.(type) {
	case *fe.Block:
		block(p)
	case fe.Expr:
		exprs(p)
	}
}
