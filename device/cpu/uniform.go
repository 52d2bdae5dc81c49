package cpu

import "github.com/lucent-gpu/lucent/frontend/ir"

// The lane engine runs a kernel with barriers a whole block as one batch:
// every statement runs for all the block's lanes before the next, so a
// barrier needs no code. That is the per-thread engine's meaning of the
// barrier (every live thread reaches it, then all go on) only where all the
// live lanes of the block reach the barrier together: where every branch
// and loop around it decides alike for every lane. barriersUniform proves
// that, conservatively, or says where it cannot; the kernel then keeps the
// per-thread engine.
//
// A value is uniform when it is built from literals, uniform arguments,
// the block id, sizes, buffer lengths and locals that are; a local is
// uniform when every assignment to it stores a uniform value (at uniform
// indices) in uniform control flow. Control flow is uniform in the kernel
// body, in branches of a uniform condition and in loops of a uniform
// condition that no lane leaves or skips alone (a break or continue in
// control flow that is not uniform makes the loop's body not uniform;
// after the loop it is again). A return taken by some lanes only leaves
// the others uniform: lanes that have returned reach no barrier on either
// engine. Reads of shared memory and buffers are not uniform (proving them
// so would need the accesses' order).

// barriersUniform returns "" when every barrier of kernel f is in uniform
// control flow, else what is not.
func barriersUniform(f *ir.Function) string {
	u := &uniformity{varying: map[*ir.Var]bool{}}
	for {
		u.changed, u.bad = false, ""
		u.block(f.Body, true)
		if !u.changed {
			return u.bad
		}
	}
}

// uniformOf is the analysis run over kernel f: its expr says which
// expressions are the same in every lane of a block (the lane engine loads
// a buffer element at such an index once a batch).
func uniformOf(f *ir.Function) *uniformity {
	u := &uniformity{varying: map[*ir.Var]bool{}}
	for {
		u.changed, u.bad = false, ""
		u.block(f.Body, true)
		if !u.changed {
			return u
		}
	}
}

type uniformity struct {
	varying map[*ir.Var]bool // locals that may differ between a block's lanes
	changed bool
	bad     string
	loops   []*uniLoop // the enclosing loops and switches, innermost last
}

type uniLoop struct {
	isSwitch  bool
	divergent bool // some lanes leave or skip part of an iteration alone
}

func (u *uniformity) vary(v *ir.Var) {
	if !u.varying[v] {
		u.varying[v] = true
		u.changed = true
	}
}

func (u *uniformity) block(b *ir.Block, ctrl bool) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		u.stmt(s, ctrl)
	}
}

func (u *uniformity) stmt(s ir.Stmt, ctrl bool) {
	switch s := s.(type) {
	case *ir.Block:
		u.block(s, ctrl)
	case *ir.If:
		c := ctrl && u.expr(s.Cond)
		u.block(s.Then, c)
		u.block(s.Else, c)
	case *ir.For:
		u.loop(s.Cond, s.Body, s.Update, ctrl)
	case *ir.Loop:
		u.loop(nil, s.Body, nil, ctrl)
	case *ir.Switch:
		// Conservatively not uniform inside: a barrier in a case keeps
		// the kernel off the lane engine.
		u.loops = append(u.loops, &uniLoop{isSwitch: true})
		for _, cs := range s.Cases {
			u.block(cs.Body, false)
		}
		u.block(s.Default, false)
		u.loops = u.loops[:len(u.loops)-1]
	case *ir.Break:
		if !ctrl && len(u.loops) > 0 {
			u.loops[len(u.loops)-1].divergent = true
		}
	case *ir.Continue:
		if !ctrl {
			for i := len(u.loops) - 1; i >= 0; i-- {
				if !u.loops[i].isSwitch {
					u.loops[i].divergent = true
					break
				}
			}
		}
	case *ir.Assign:
		root := ir.PlaceRoot(s.Dst)
		if root == nil || root.Kind != ir.VarLocal {
			return
		}
		if !ctrl || !u.expr(s.Src) || !u.placeIndices(s.Dst) {
			u.vary(root)
		}
	case *ir.ExprStmt:
		if c, ok := s.X.(*ir.Call); ok && c.Func == nil && c.Op == ir.OpBarrier && !ctrl && u.bad == "" {
			u.bad = "a barrier in control flow not provably uniform"
			if p := ir.StmtPos(s); p != "" {
				u.bad += " (" + p + ")"
			}
		}
	case *ir.RayQuery:
		// Its body runs per candidate: nothing in it is uniform.
		u.block(s.Body, false)
		if v := ir.PlaceRoot(s.Result); v != nil && v.Kind == ir.VarLocal {
			u.vary(v)
		}
	}
}

func (u *uniformity) loop(cond ir.Expr, body, upd *ir.Block, ctrl bool) {
	c := ctrl && (cond == nil || u.expr(cond))
	l := &uniLoop{}
	u.loops = append(u.loops, l)
	u.block(body, c)
	u.block(upd, c)
	if c && l.divergent { // walked again as not uniform
		u.block(body, false)
		u.block(upd, false)
	}
	u.loops = u.loops[:len(u.loops)-1]
}

// placeIndices reports whether every index on the way to place e is uniform.
func (u *uniformity) placeIndices(e ir.Expr) bool {
	for {
		switch x := e.(type) {
		case *ir.Index:
			if !u.expr(x.I) {
				return false
			}
			e = x.X
		case *ir.Member:
			e = x.X
		default:
			return true
		}
	}
}

// expr reports whether e is provably the same in every lane of a block.
func (u *uniformity) expr(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Literal, *ir.ConstArray:
		return true
	case *ir.Ref:
		v := e.Var
		switch v.Kind {
		case ir.VarArg:
			return !v.Type.IsResource()
		case ir.VarLocal:
			return !u.varying[v]
		case ir.VarBuiltin:
			switch v.Builtin {
			case ir.BlockID, ir.DispatchSize, ir.BlockSize, ir.DispatchGroups, ir.SubgroupSize:
				return true
			}
		}
		return false
	case *ir.Index:
		if e.X.Type().Kind() == ir.KindBuffer {
			return false
		}
		if v := ir.PlaceRoot(e); v != nil && v.Kind == ir.VarShared {
			return false
		}
		return u.expr(e.X) && u.expr(e.I)
	case *ir.Member:
		return u.expr(e.X)
	case *ir.Swizzle:
		return u.expr(e.X)
	case *ir.Unary:
		return u.expr(e.X)
	case *ir.Binary:
		return u.expr(e.X) && u.expr(e.Y)
	case *ir.Cast:
		return u.expr(e.X)
	case *ir.Construct:
		return u.all(e.Args)
	case *ir.Call:
		if e.Func != nil {
			return false
		}
		if e.Op == ir.OpBufferSize {
			return true
		}
		in := e.Op.Info()
		switch {
		case in.F32 != nil || in.Int != nil,
			e.Op == ir.OpSelect, e.Op == ir.OpDot, e.Op == ir.OpLength, e.Op == ir.OpDistance:
			return u.all(e.Args)
		}
	}
	return false
}

func (u *uniformity) all(es []ir.Expr) bool {
	for _, a := range es {
		if !u.expr(a) {
			return false
		}
	}
	return true
}

// loopCond says whether loop condition cond is the same in every lane
// still in its loop: uniform, or uniform given a counter that is. The
// counter is a local the statement before the loop (prev) sets to a
// uniform value, that the body does not assign and the update assigns only
// at its top level, to values uniform given it: every lane in the loop has
// run as many updates (a lane that continues runs the update too; one that
// breaks or returns has left), though lanes leaving alone make the counter
// varying for the analysis above.
func (u *uniformity) loopCond(prev ir.Stmt, cond ir.Expr, body, upd *ir.Block) bool {
	if u.expr(cond) {
		return true
	}
	a, ok := prev.(*ir.Assign)
	if !ok || upd == nil {
		return false
	}
	r, ok := a.Dst.(*ir.Ref)
	if !ok || r.Var.Kind != ir.VarLocal || !u.expr(a.Src) || assigns(body, r.Var) {
		return false
	}
	c := r.Var
	given := &uniformity{varying: map[*ir.Var]bool{}}
	for v, on := range u.varying {
		given.varying[v] = on && v != c
	}
	for _, s := range upd.Stmts {
		if a, ok := s.(*ir.Assign); ok {
			if r, ok := a.Dst.(*ir.Ref); ok && r.Var == c {
				if !given.expr(a.Src) {
					return false
				}
				continue
			}
		}
		if assigns(s, c) {
			return false
		}
	}
	return given.expr(cond)
}

// assigns says whether statement s (a *ir.Block or any statement) may
// assign local v.
func assigns(s ir.Stmt, v *ir.Var) bool {
	if s == nil {
		return false
	}
	b, ok := s.(*ir.Block)
	if ok && b == nil {
		return false
	}
	if !ok {
		b = &ir.Block{Stmts: []ir.Stmt{s}}
	}
	found := false
	walkStmts(b, func(st ir.Stmt) {
		switch st := st.(type) {
		case *ir.Assign:
			if ir.PlaceRoot(st.Dst) == v {
				found = true
			}
		case *ir.RayQuery:
			if ir.PlaceRoot(st.Result) == v {
				found = true
			}
		}
	}, func(ir.Expr) {})
	return found
}
