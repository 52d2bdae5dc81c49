package codegen

import "github.com/lucent-gpu/lucent/frontend/ir"

// Loop exits in flag form (Options.LoopExitFlags, the loop-exit-flags
// driver workaround). A loop left by break or return is rewritten so that
// it ends on its condition alone, with no branch out of its body:
//
//	for c; u {                  brk = false
//	    a                       for !brk && !ret && c; (if !(brk || ret) { u }) {
//	    if p { v = x; break }       a
//	    b                           if p { v = x; brk = true }
//	    if q { return y }           if !brk {
//	    d                               b
//	}                                   if q { ret = true; res = y }
//	e                                   if !ret { d }
//	                                }
//	                            }
//	                            if ret { return res }
//	                            e
//
// Statements after a point that may set a flag are guarded by it; the flag
// of a return (ret, set once per call) is tested by every loop around it,
// and the return itself happens after the outermost one. A condition that
// calls something is tested at the top of the body instead (failing, it
// sets brk), so it never runs once more after an exit. A break out of a
// switch stays a break (it leaves the switch, not the loop); loops with
// neither exit are left alone.

// loopExits rewrites the loops of f's body per the scheme above. It returns
// the body to emit, the locals the rewrite added (the original body is not
// modified) and, for each statement made in place of one of f's, that one
// (so that it keeps its site, ir.Function.Sites).
func loopExits(f *ir.Function) (*ir.Block, []*ir.Var, map[ir.Stmt]ir.Stmt) {
	r := &exitRewriter{fn: f, from: map[ir.Stmt]ir.Stmt{}}
	body := r.block(f.Body, exitCtx{})
	if r.ret != nil {
		body.Stmts = append([]ir.Stmt{assignBool(r.ret, false)}, body.Stmts...)
	}
	return body, r.locals, r.from
}

type exitRewriter struct {
	fn     *ir.Function
	ret    *ir.Var // set by a return inside a loop
	res    *ir.Var // that return's value
	locals []*ir.Var
	from   map[ir.Stmt]ir.Stmt // a new statement: the one it replaces
}

// exitCtx is where a statement sits: brk is the innermost loop's flag (nil
// outside loops); inSwitch says a break leaves a switch.
type exitCtx struct {
	brk      *ir.Var
	inSwitch bool
}

func (c exitCtx) inLoop() bool { return c.brk != nil }

func (r *exitRewriter) local(name string, t *ir.Type) *ir.Var {
	v := &ir.Var{Name: name, Type: t, Kind: ir.VarLocal}
	r.locals = append(r.locals, v)
	return v
}

func assignBool(v *ir.Var, b bool) ir.Stmt {
	return &ir.Assign{Dst: &ir.Ref{Var: v}, Src: ir.LitBool(b)}
}

func not(e ir.Expr) ir.Expr { return &ir.Unary{Op: ir.Not, X: e, T: ir.TBool} }

func or(x, y ir.Expr) ir.Expr {
	if x == nil {
		return y
	}
	return &ir.Binary{Op: ir.LogicOr, X: x, Y: y, T: ir.TBool}
}

// sets says which flags a rewritten statement may have set.
type sets struct{ brk, ret bool }

func (s sets) any() bool { return s.brk || s.ret }

// exit is the condition that a statement of ctx has set one of s's flags.
func (r *exitRewriter) exit(c exitCtx, s sets) ir.Expr {
	var e ir.Expr
	if s.brk {
		e = &ir.Ref{Var: c.brk}
	}
	if s.ret {
		e = or(e, &ir.Ref{Var: r.ret})
	}
	return e
}

// block rewrites b in ctx c.
func (r *exitRewriter) block(b *ir.Block, c exitCtx) *ir.Block {
	out, _ := r.stmts(b, c)
	return out
}

// stmts rewrites b's statements in ctx c; once one may have set a flag, the
// rest run under `if !flag`.
func (r *exitRewriter) stmts(b *ir.Block, c exitCtx) (*ir.Block, sets) {
	out := &ir.Block{}
	if b == nil {
		return out, sets{}
	}
	var all sets
	for i, s := range b.Stmts {
		ns, st, term := r.stmt(s, c)
		for _, n := range ns {
			if _, ok := r.from[n]; !ok && n != s {
				r.from[n] = s
			}
		}
		out.Stmts = append(out.Stmts, ns...)
		all.brk, all.ret = all.brk || st.brk, all.ret || st.ret
		if term {
			return out, all // the rest is dead
		}
		if st.any() && c.inLoop() && i+1 < len(b.Stmts) {
			rest, rs := r.stmts(&ir.Block{Stmts: b.Stmts[i+1:]}, c)
			all.brk, all.ret = all.brk || rs.brk, all.ret || rs.ret
			if len(rest.Stmts) > 0 {
				out.Stmts = append(out.Stmts, &ir.If{Cond: not(r.exit(c, st)), Then: rest})
			}
			return out, all
		}
	}
	return out, all
}

// stmt rewrites s in ctx c: the statements replacing it, the flags they may
// set, and whether s always leaves (the statements after it are dead).
func (r *exitRewriter) stmt(s ir.Stmt, c exitCtx) ([]ir.Stmt, sets, bool) {
	switch s := s.(type) {
	case *ir.Block:
		b, st := r.stmts(s, c)
		return []ir.Stmt{b}, st, false
	case *ir.If:
		then, ts := r.stmts(s.Then, c)
		n := &ir.If{Cond: s.Cond, Then: then}
		st := ts
		if s.Else != nil {
			els, es := r.stmts(s.Else, c)
			n.Else = els
			st = sets{ts.brk || es.brk, ts.ret || es.ret}
		}
		return []ir.Stmt{n}, st, false
	case *ir.Loop:
		return r.loop(nil, nil, s.Body, c)
	case *ir.For:
		return r.loop(s.Cond, s.Update, s.Body, c)
	case *ir.Switch:
		sc := exitCtx{brk: c.brk, inSwitch: true}
		n := &ir.Switch{Tag: s.Tag, Cases: make([]ir.Case, len(s.Cases))}
		var st sets
		for i, cs := range s.Cases {
			body, bs := r.stmts(cs.Body, sc)
			n.Cases[i] = ir.Case{Values: cs.Values, Body: body}
			st.ret = st.ret || bs.ret
		}
		if s.Default != nil {
			body, bs := r.stmts(s.Default, sc)
			n.Default = body
			st.ret = st.ret || bs.ret
		}
		return []ir.Stmt{n}, st, false
	case *ir.Break:
		if c.inSwitch || !c.inLoop() {
			return []ir.Stmt{s}, sets{}, true
		}
		return []ir.Stmt{assignBool(c.brk, true)}, sets{brk: true}, true
	case *ir.Continue:
		return []ir.Stmt{s}, sets{}, true
	case *ir.Return:
		if !c.inLoop() {
			return []ir.Stmt{s}, sets{}, true
		}
		if r.ret == nil {
			r.ret = r.local("returned", ir.TBool)
			if r.fn.Result != nil && r.fn.Result != ir.TVoid {
				r.res = r.local("result", r.fn.Result)
			}
		}
		out := []ir.Stmt{assignBool(r.ret, true)}
		if s.Value != nil {
			out = append(out, &ir.Assign{Dst: &ir.Ref{Var: r.res}, Src: s.Value})
		}
		return out, sets{ret: true}, true
	case *ir.RayQuery:
		// Its body leaves by no break or return (Validate); loops inside
		// it are rewritten like any other.
		body, _ := r.stmts(s.Body, exitCtx{})
		return []ir.Stmt{&ir.RayQuery{Args: s.Args, Body: body, Result: s.Result}}, sets{}, false
	}
	return []ir.Stmt{s}, sets{}, false
}

// loop rewrites a loop (cond nil for Loop) in ctx c.
func (r *exitRewriter) loop(cond ir.Expr, update, body *ir.Block, c exitCtx) ([]ir.Stmt, sets, bool) {
	brk := r.local("broke", ir.TBool)
	nb, bs := r.stmts(body, exitCtx{brk: brk})
	nu, _ := r.stmts(update, exitCtx{brk: brk}) // an update holds no exits
	if !bs.any() {
		r.dropLocal(brk) // no exit: the flag is unused
		if cond == nil {
			return []ir.Stmt{&ir.Loop{Body: nb}}, sets{}, false
		}
		return []ir.Stmt{&ir.For{Cond: cond, Update: nu, Body: nb}}, sets{}, false
	}
	if cond != nil && hasCall(cond) {
		// A condition with effects runs only where the loop goes on, at
		// the top of the body: failing, it ends the loop like a break.
		nb = &ir.Block{Stmts: []ir.Stmt{&ir.If{Cond: cond, Then: nb,
			Else: &ir.Block{Stmts: []ir.Stmt{assignBool(brk, true)}}}}}
		bs.brk, cond = true, nil
	}
	exit := r.exit(exitCtx{brk: brk}, bs)
	stay := not(exit)
	if cond != nil {
		stay = &ir.Binary{Op: ir.LogicAnd, X: stay, Y: cond, T: ir.TBool}
	}
	if update != nil && len(nu.Stmts) > 0 {
		nu = &ir.Block{Stmts: []ir.Stmt{&ir.If{Cond: not(exit), Then: nu}}}
	} else {
		nu = nil
	}
	var out []ir.Stmt
	if bs.brk {
		out = append(out, assignBool(brk, false))
	} else {
		r.dropLocal(brk)
	}
	out = append(out, &ir.For{Cond: stay, Update: nu, Body: nb})
	if bs.ret && !c.inLoop() {
		// The outermost loop a return leaves: return now.
		var v ir.Expr
		if r.res != nil {
			v = &ir.Ref{Var: r.res}
		}
		out = append(out, &ir.If{Cond: &ir.Ref{Var: r.ret}, Then: &ir.Block{Stmts: []ir.Stmt{&ir.Return{Value: v}}}})
		return out, sets{}, false
	}
	return out, sets{ret: bs.ret}, false
}

func (r *exitRewriter) dropLocal(v *ir.Var) {
	for i, l := range r.locals {
		if l == v {
			r.locals = append(r.locals[:i], r.locals[i+1:]...)
			return
		}
	}
}

// hasCall reports whether e calls a callable or an op: a condition the
// rewrite must not evaluate once more after the loop's exit.
func hasCall(e ir.Expr) bool {
	found := false
	// ir.WalkExprs knows every expression node; it walks a function.
	holder := &ir.Function{Body: &ir.Block{Stmts: []ir.Stmt{&ir.ExprStmt{X: e}}}}
	ir.WalkExprs(holder, func(x ir.Expr) {
		if _, ok := x.(*ir.Call); ok {
			found = true
		}
	})
	return found
}
