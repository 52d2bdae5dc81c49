package cpu

import (
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Shared memory on the lane engine: the batch is the whole block, so a
// shared variable is one array of leaves (as on the per-thread engine) that
// the lanes index. Only this worker runs the block, so atomics on it are
// plain read-modify-writes in lane order.

// sharedAt compiles place e under a shared variable: the variable's index,
// and the slot holding each lane's leaf offset in it once eval has run,
// every index checked as the per-thread engine checks it.
func (lc *laneCompiler) sharedAt(e ir.Expr) (k int, at lex) {
	switch e := e.(type) {
	case *ir.Ref:
		k, ok := lc.c.shared[e.Var]
		if !ok {
			noLanes("variable %s (%v) as storage", e.Var.Name, e.Var.Kind)
		}
		return k, lex{slot: lc.lit(0), n: 1}
	case *ir.Member:
		k, base := lc.sharedAt(e.X)
		off := uint64(0)
		for _, f := range e.X.Type().Fields()[:e.Field] {
			off += uint64(ir.Leaves(f.Type))
		}
		if off == 0 {
			return k, base
		}
		o := lc.tmp(1)
		bev, bs := base.eval, base.slot
		return k, lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
			if bev != nil {
				bev(t, act)
			}
			w := t.w
			rb, ro := t.r[bs*w:(bs+1)*w], t.r[o*w:(o+1)*w]
			for _, l := range act {
				ro[l] = rb[l] + off
			}
		}}
	case *ir.Index:
		xt := e.X.Type()
		if xt.Kind() != ir.KindArray && xt.Kind() != ir.KindVector {
			noLanes("index of shared %s", xt)
		}
		it := e.I.Type()
		if !it.IsInteger() || (it.Bits() != 32 && it.Bits() != 64) {
			noLanes("shared index of %s", it)
		}
		_, top := e.X.(*ir.Ref) // the variable itself: offset i*el
		k, base := lc.sharedAt(e.X)
		idx := lc.scalar(e.I, -1)
		n, el := uint64(xt.Len()), uint64(ir.Leaves(e.T))
		what := site{ir.IndexName(e), lc.c.pos}
		ext := it.Kind() == ir.KindInt && it.Bits() == 32 // sign-extended, as the per-thread engine's index
		pre := seq(base.eval, idx.eval)
		bs, is, o := base.slot, idx.slot, lc.tmp(1)
		return k, lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
			if pre != nil {
				pre(t, act)
			}
			w := t.w
			rb, ri, ro := t.r[bs*w:(bs+1)*w], t.r[is*w:(is+1)*w], t.r[o*w:(o+1)*w]
			if d := dense(act); d > 0 && top && !ext { // every lane of the variable itself: no list
				ri, ro := ri[:d], ro[:d]
				for l, i := range ri {
					if i >= n {
						t.faultKind(int32(l), what, device.FaultSharedIndex, i, n)
					}
					ro[l] = i * el
				}
				return
			}
			for _, l := range act {
				i := ri[l]
				if ext {
					i = uint64(int64(int32(uint32(i))))
				}
				if i >= n {
					t.faultKind(l, what, device.FaultSharedIndex, i, n)
				}
				if top {
					ro[l] = i * el
				} else {
					ro[l] = rb[l] + i*el
				}
			}
		}}
	}
	noLanes("%T as shared storage", e)
	return 0, lex{}
}

// selem is a scalar element of a shared array by an integer index, which
// the load, store or atomic checks and uses as it goes: no pass writes each
// lane's offset first. A fault is the same (the first lane in the list whose
// index is out of range); the shared memory it leaves is the failed block's.
type selem struct {
	k   int    // the variable
	idx lex    // the index
	n   uint64 // the array's length
	ext bool   // an i32 index, sign-extended
	lin bool   // the index is consecutive on a dense batch (linID)
	// mk: idx is x of an index x % 2^k, and mask 2^k-1 what makes the index
	// of it (sharedElemOf): the access masks it, one loop the fewer.
	mk   bool
	mask uint64
	// wk >= 0: x is buffer argument wk's 32-bit word at the x id held in
	// slot wid (linID), which an access on a dense batch may read itself
	// from the run of words, without x's pass.
	wk, wid int
	what    site
}

// run is, on a dense batch of d lanes whose indices ri are consecutive,
// the first index where all d are in range; false where not (the lanes'
// own checks then fault at the first out of range).
func (s *selem) run(ri []uint64, d int) (uint64, bool) {
	if !s.lin || s.ext {
		return 0, false
	}
	i0 := ri[0]
	return i0, i0 < s.n && uint64(d) <= s.n-i0
}

// sharedElem is e as an selem, where it is one.
func (lc *laneCompiler) sharedElem(e ir.Expr) (selem, bool) { return lc.sharedElemOf(e, false) }

// sharedElemOf is sharedElem; masked: an index u32 x % 2^k compiles x, for
// the access to mask.
func (lc *laneCompiler) sharedElemOf(e ir.Expr, masked bool) (selem, bool) {
	ix, ok := e.(*ir.Index)
	if !ok {
		return selem{}, false
	}
	r, ok := ix.X.(*ir.Ref)
	if !ok {
		return selem{}, false
	}
	k, ok := lc.c.shared[r.Var]
	xt, it := ix.X.Type(), ix.I.Type()
	if !ok || (xt.Kind() != ir.KindArray && xt.Kind() != ir.KindVector) || ir.Leaves(ix.T) != 1 ||
		!it.IsInteger() || (it.Bits() != 32 && it.Bits() != 64) {
		return selem{}, false
	}
	what := site{ir.IndexName(ix), lc.c.pos}
	if b, isBin := ix.I.(*ir.Binary); masked && isBin && b.Op == ir.Rem && b.T == ir.TU32 && b.X.Type() == ir.TU32 {
		if l, isLit := b.Y.(*ir.Literal); isLit {
			if d := ir.Truncate(l.Bits, l.T); d != 0 && d&(d-1) == 0 {
				se := selem{k: k, n: uint64(xt.Len()), mk: true, mask: d - 1, wk: -1, what: what}
				x := b.X
				if r, isRef := x.(*ir.Ref); isRef {
					if sv, sub := lc.subst[r.Var]; sub {
						x = sv.e
					}
				}
				if ld, isIx := x.(*ir.Index); isIx && fusableLoad(ld) && ld.T == ir.TU32 && lc.linID(ld.I) {
					if id := lc.expr(ld.I, -1); id.eval == nil {
						se.wk, se.wid = lc.c.params[ld.X.(*ir.Ref).Var], id.slot
					}
				}
				se.idx = lc.scalar(b.X, -1)
				return se, true
			}
		}
	}
	return selem{
		k: k, idx: lc.scalar(ix.I, -1), n: uint64(xt.Len()),
		ext:  it.Kind() == ir.KindInt && it.Bits() == 32,
		lin:  lc.linID(ix.I),
		wk:   -1,
		what: what,
	}, true
}

// at is lane l's checked element for index i.
func (s *selem) at(t *lth, l int32, i uint64) uint64 {
	if s.mk {
		i &= s.mask
	}
	if s.ext {
		i = uint64(int64(int32(uint32(i))))
	}
	if i >= s.n {
		t.faultKind(l, s.what, device.FaultSharedIndex, i, s.n)
	}
	return i
}

// sharedLoad reads place e of a shared variable.
func (lc *laneCompiler) sharedLoad(e ir.Expr, dst int) lex {
	if se, ok := lc.sharedElem(e); ok {
		iev, is, o := se.idx.eval, se.idx.slot, lc.out(dst)
		return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
			if iev != nil {
				iev(t, act)
			}
			w := t.w
			m, ri, ro := t.shared[se.k], t.r[is*w:(is+1)*w], t.r[o*w:(o+1)*w]
			if d := dense(act); d > 0 && !se.ext { // every lane: no list
				if i0, ok := se.run(ri, d); ok { // consecutive elements
					copy(ro[:d], m[i0:i0+uint64(d)])
					return
				}
				ri, ro := ri[:d], ro[:d]
				m := m[:se.n] // the array itself: its leaves are its elements
				for l, i := range ri {
					if i >= uint64(len(m)) {
						t.faultKind(int32(l), se.what, device.FaultSharedIndex, i, se.n)
						continue // not reached: a fault unwinds
					}
					ro[l] = m[i]
				}
				return
			}
			for _, l := range act {
				ro[l] = m[se.at(t, l, ri[l])]
			}
		}}
	}
	k, at := lc.sharedAt(e)
	n := ir.Leaves(e.Type())
	o := lc.tmp(n)
	if n == 1 {
		o = lc.out(dst)
	}
	aev, as := at.eval, at.slot
	return lex{slot: o, n: n, eval: func(t *lth, act []int32) {
		if aev != nil {
			aev(t, act)
		}
		w := t.w
		m, ra := t.shared[k], t.r[as*w:(as+1)*w]
		if n == 1 {
			ro := t.r[o*w : (o+1)*w]
			if d := dense(act); d > 0 {
				ra, ro := ra[:d], ro[:d]
				for l, a := range ra {
					ro[l] = m[a]
				}
				return
			}
			for _, l := range act {
				ro[l] = m[ra[l]]
			}
			return
		}
		for _, l := range act {
			off := ra[l]
			for j := range n {
				t.r[(o+j)*w+int(l)] = m[off+uint64(j)]
			}
		}
	}}
}

// sharedStore writes src into place dst of a shared variable: the value
// first, then the place, as on the per-thread engine.
func (lc *laneCompiler) sharedStore(dst, src ir.Expr) lstmt {
	v := lc.expr(src, -1)
	n := ir.Leaves(dst.Type())
	if v.n != n {
		noLanes("a store of %d leaves into %s", v.n, dst.Type())
	}
	if se, ok := lc.sharedElem(dst); ok && n == 1 {
		pre, is, vs := seq(v.eval, se.idx.eval), se.idx.slot, v.slot
		return func(t *lth, act []int32) []int32 {
			if pre != nil {
				pre(t, act)
			}
			w := t.w
			m, ri, rv := t.shared[se.k], t.r[is*w:(is+1)*w], t.r[vs*w:(vs+1)*w]
			if d := dense(act); d > 0 && !se.ext { // every lane: no list
				if i0, ok := se.run(ri, d); ok { // consecutive elements
					copy(m[i0:i0+uint64(d)], rv[:d])
					return act
				}
				ri, rv := ri[:d], rv[:d]
				m := m[:se.n] // the array itself: its leaves are its elements
				for l, i := range ri {
					if i >= uint64(len(m)) {
						t.faultKind(int32(l), se.what, device.FaultSharedIndex, i, se.n)
						continue // not reached: a fault unwinds
					}
					m[i] = rv[l]
				}
				return act
			}
			for _, l := range act {
				m[se.at(t, l, ri[l])] = rv[l]
			}
			return act
		}
	}
	k, at := lc.sharedAt(dst)
	pre := seq(v.eval, at.eval)
	vs, as := v.slot, at.slot
	return func(t *lth, act []int32) []int32 {
		if pre != nil {
			pre(t, act)
		}
		w := t.w
		m, ra := t.shared[k], t.r[as*w:(as+1)*w]
		if n == 1 {
			rv := t.r[vs*w : (vs+1)*w]
			if d := dense(act); d > 0 {
				ra, rv := ra[:d], rv[:d]
				for l, a := range ra {
					m[a] = rv[l]
				}
				return act
			}
			for _, l := range act {
				m[ra[l]] = rv[l]
			}
			return act
		}
		for _, l := range act {
			off := ra[l]
			for j := range n {
				m[off+uint64(j)] = t.r[(vs+j)*w+int(l)]
			}
		}
		return act
	}
}

// sharedAtomic is an atomic on a shared scalar: the operands, then the
// place, then each lane's read-modify-write in lane order (the order the
// per-thread engine runs the block's threads in), each lane's old value in
// its slot.
func (lc *laneCompiler) sharedAtomic(e *ir.Call, dst int) lex {
	drop := lc.discard // the old values go nowhere
	lc.discard = false
	pt := e.Args[0].Type()
	if !pt.IsScalar() {
		noLanes("%s on shared %s", e.Op, pt)
	}
	var evs []func(*lth, []int32)
	var vals []int
	for _, a := range e.Args[1:] {
		x := lc.scalar(a, -1)
		evs = append(evs, x.eval)
		vals = append(vals, x.slot)
	}
	add32 := e.Op == ir.OpAtomicAdd && (pt == ir.TU32 || pt == ir.TI32)
	if se, ok := lc.sharedElemOf(e.Args[0], add32); ok && add32 { // the commonest (a histogram's bins)
		ops, iev, is, vs, o := seq(evs...), se.idx.eval, se.idx.slot, vals[0], lc.out(dst)
		konst := drop && lc.isConst(vs) // the same addend in every lane, old values unread
		words := konst && se.wk >= 0 && se.mask < se.n
		return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
			if ops != nil { // the operands, then the index
				ops(t, act)
			}
			w := t.w
			if d := dense(act); words && d > 0 {
				// The index's words read in this loop: every one in its
				// buffer, every masked index in the array, so nothing faults.
				i0 := t.r[se.wid*w]
				if u := words32(t.run.bufs[se.wk]); u != nil && i0 < uint64(len(u)) && uint64(d) <= uint64(len(u))-i0 {
					addAtMaskedWords(t.shared[se.k][:se.n], u[i0:i0+uint64(d)], t.r[vs*w], se.mask)
					return
				}
			}
			if iev != nil {
				iev(t, act)
			}
			m, ri, rv, ro := t.shared[se.k], t.r[is*w:(is+1)*w], t.r[vs*w:(vs+1)*w], t.r[o*w:(o+1)*w]
			if d := dense(act); d > 0 && !se.ext { // every lane: no list
				m := m[:se.n] // the array itself: its leaves are its elements
				if konst {
					if se.mk {
						if l := addAtMasked(m, ri[:d], rv[0], se.mask); l < d { // the lanes before it added
							t.faultKind(int32(l), se.what, device.FaultSharedIndex, ri[l]&se.mask, se.n)
						}
						return
					}
					if l := addAt32(m, ri[:d], rv[0]); l < d { // the lanes before it added
						t.faultKind(int32(l), se.what, device.FaultSharedIndex, ri[l], se.n)
					}
					return
				}
				ri, rv, ro := ri[:d], rv[:d], ro[:d]
				for l, i := range ri {
					if se.mk {
						i &= se.mask
					}
					if i >= uint64(len(m)) {
						t.faultKind(int32(l), se.what, device.FaultSharedIndex, i, se.n)
						continue // not reached: a fault unwinds
					}
					old := m[i]
					m[i] = uint64(uint32(old + rv[l]))
					ro[l] = old
				}
				return
			}
			for _, l := range act {
				p := &m[se.at(t, l, ri[l])]
				old := *p
				*p = uint64(uint32(old + rv[l]))
				ro[l] = old
			}
		}}
	}
	k, at := lc.sharedAt(e.Args[0])
	pre := seq(append(evs, at.eval)...)
	f := rmw(e.Op, pt)
	cas := e.Op == ir.OpAtomicCAS
	as, o := at.slot, lc.out(dst)
	return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
		if pre != nil {
			pre(t, act)
		}
		w := t.w
		m, ra, ro := t.shared[k], t.r[as*w:(as+1)*w], t.r[o*w:(o+1)*w]
		rv := t.r[vals[0]*w : (vals[0]+1)*w]
		if cas {
			rc, rn := rv, t.r[vals[1]*w:(vals[1]+1)*w]
			for _, l := range act {
				p := &m[ra[l]]
				old := *p
				if old == rc[l] {
					*p = rn[l]
				}
				ro[l] = old
			}
			return
		}
		if add32 { // the commonest (a histogram's bins), without a call a lane
			if d := dense(act); d > 0 {
				ra, rv, ro := ra[:d], rv[:d], ro[:d]
				for l, a := range ra {
					p := &m[a]
					old := *p
					*p = uint64(uint32(old + rv[l]))
					ro[l] = old
				}
				return
			}
			for _, l := range act {
				p := &m[ra[l]]
				old := *p
				*p = uint64(uint32(old + rv[l]))
				ro[l] = old
			}
			return
		}
		for _, l := range act {
			p := &m[ra[l]]
			old := *p
			*p = f(old, rv[l])
			ro[l] = old
		}
	}}
}

// constIndex is element i of a table of scalar constants.
func (lc *laneCompiler) constIndex(ca *ir.ConstArray, i ir.Expr, dst int) lex {
	vals := make([]uint64, len(ca.Values))
	for j, v := range ca.Values {
		vals[j] = ir.Truncate(v.Bits, v.T)
	}
	it := i.Type()
	if !it.IsInteger() || (it.Bits() != 32 && it.Bits() != 64) {
		noLanes("index of %s by %s", ca.Type(), it)
	}
	ext := it.Kind() == ir.KindInt && it.Bits() == 32
	idx := lc.scalar(i, -1)
	what := site{"index of " + ca.Type().String(), lc.c.pos}
	n := uint64(len(vals))
	iev, is, o := idx.eval, idx.slot, lc.out(dst)
	return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
		if iev != nil {
			iev(t, act)
		}
		w := t.w
		ri, ro := t.r[is*w:(is+1)*w], t.r[o*w:(o+1)*w]
		for _, l := range act {
			i := ri[l]
			if ext {
				i = uint64(int64(int32(uint32(i))))
			}
			if i >= n {
				t.faultKind(l, what, device.FaultArrayIndex, i, n)
			}
			ro[l] = vals[i]
		}
	}}
}
