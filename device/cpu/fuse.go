package cpu

import (
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Fusion: a tree of pure scalar operations on 32-bit values (float32,
// int32, uint32, bool), with the buffer loads among its leaves, compiles
// into one lane closure for the whole tree instead of one per node, and a
// store of such a tree into the store's closure. The tree runs over the
// batch column by column: each node is one typed loop over a compact
// column (position j holds lane act[j]), so a batch of scattered lanes
// runs the same dense loops as a full one; on a full contiguous batch
// (dense) the columns are the lanes' own registers and nothing is
// gathered. Leaves that are not fused (locals, ids, uniforms, anything the
// lane engine compiles otherwise) are read where they are: a register of
// the same value in every lane (literal, uniform) needs no gather at all. A
// load checks its index and reads the buffer as 32-bit words in one loop,
// and a store checks and writes in one: the faults name the lane, the
// argument, the index and the position as the unfused closures do, and the
// nodes run in the same order (operands left to right, a store's value
// before its index), so the first fault is the same one.
//
// Within one statement without atomics, a node the tree holds twice (the
// DSL's Go variables are expressions) is computed once.
//
// Vectors of 32-bit scalars fuse component by component: a node of a
// vector is one column a component (a swizzle, a component or a
// construct only renames its operands' columns, an operation runs one
// loop a component), and dot, length and distance sum in float64 as the
// unfused loops do.

// laneFuse says whether the lane engine fuses trees (tests compare).
var laneFuse = true

// fop is a fused operand: its register on a dense batch (lane-indexed) and
// on a sparse one (a compact column); the two are one for a column a node
// computes and for a register equal in every lane. lin: on a dense batch,
// lane j's value is lane 0's plus j (the x id of a one-dimensional block,
// plus or minus a uniform), so a load or store there is of consecutive
// words.
type fop struct {
	d, s  int
	lin   bool
	konst bool // the same value in every lane
	root  bool // the tree's value: d is the register it goes to
}

// mode is how a fused tree runs on a batch.
type mode uint8

const (
	mSparse mode = iota // on compact columns
	mDense              // on the lanes 0..n-1: the registers are the columns
	// mWide runs a tree that cannot fault and reads no buffer on every lane
	// below the last one of a batch of scattered lanes, most of them in it:
	// the registers are the columns, and the value goes only to the lanes
	// of the batch.
	mWide
)

func (o fop) at(m mode) int {
	if m == mDense || m == mWide && !o.root {
		return o.d
	}
	return o.s
}

// spanOf is the length of the columns of a batch act in mode m.
func spanOf(act []int32, m mode) int {
	if m == mWide {
		return int(act[len(act)-1]) + 1
	}
	return len(act)
}

// modeOf is the mode of a batch act, of a tree that may run wide or not.
func modeOf(act []int32, pure bool) mode {
	switch n := len(act); {
	case dense(act) > 0:
		return mDense
	case pure && 2*n >= int(act[n-1])+1:
		return mWide
	}
	return mSparse
}

// fstep is one step of a fused tree on the lanes act in mode m.
type fstep func(t *lth, act []int32, m mode)

type fuser struct {
	lc    *laneCompiler
	steps []fstep
	memo  map[ir.Expr][]fop // nil: no sharing (the statement has atomics)
	root  ir.Expr           // the node whose value goes to register out
	out   int
	pure  bool // no node reads a buffer or can fault: the tree may run wide
}

// result is the operand of component k node e computes: a new column,
// which for the root on a dense batch is the register its value goes to.
func (fu *fuser) result(e ir.Expr, k int) fop {
	c := fu.lc.tmp(1)
	if e == fu.root {
		return fop{d: fu.out + k, s: c, root: true}
	}
	return fop{d: c, s: c}
}

// col is register slot's first n entries.
func col(t *lth, slot, n int) []uint64 { return t.r[slot*t.w:][:n] }

// is32 is a scalar type the fused loops take.
func is32(t *ir.Type) bool {
	return t == ir.TF32 || t == ir.TU32 || t == ir.TI32 || t == ir.TBool
}

// val32 is a scalar or a vector of a type is32 takes.
func val32(t *ir.Type) bool {
	return is32(t) || t.Kind() == ir.KindVector && is32(t.Scalar())
}

// isF32 is float32 or a vector of float32.
func isF32(t *ir.Type) bool {
	return t.Scalar() == ir.TF32 && (t.IsScalar() || t.Kind() == ir.KindVector)
}

// fusable says whether e is a node of a fused tree.
func (lc *laneCompiler) fusable(e ir.Expr) bool {
	if _, ok := lc.hoisted[e]; ok {
		return false
	}
	switch e := e.(type) {
	case *ir.Ref:
		sv, ok := lc.subst[e.Var] // a local compiled as its value (substOf)
		return ok && lc.fusable(sv.e)
	case *ir.Binary:
		return e.Op != ir.LogicAnd && e.Op != ir.LogicOr && val32(e.T) && val32(e.X.Type()) && val32(e.Y.Type())
	case *ir.Unary:
		return val32(e.T) && val32(e.X.Type()) && (e.Op != ir.BitNot || e.T.Scalar() != ir.TBool)
	case *ir.Cast:
		return is32(e.T) && is32(e.X.Type()) && (!e.Bit || e.T.Bits() == e.X.Type().Bits())
	case *ir.Swizzle:
		// Of a leaf, a leaf: the lane engine's view of its registers (of an
		// id, only the components read are filled).
		return val32(e.X.Type()) && e.X.Type().Kind() == ir.KindVector && lc.fusable(e.X)
	case *ir.Construct:
		if e.T.Kind() != ir.KindVector || !val32(e.T) {
			return false
		}
		n := 0
		for _, a := range e.Args {
			if !val32(a.Type()) {
				return false
			}
			n += ir.Leaves(a.Type())
		}
		return n == 1 || n == ir.Leaves(e.T)
	case *ir.Call:
		if e.Func != nil {
			return false
		}
		switch e.Op {
		case ir.OpDot, ir.OpLength, ir.OpDistance:
			for _, a := range e.Args {
				if a.Type().Kind() != ir.KindVector || a.Type().Scalar() != ir.TF32 {
					return false
				}
			}
			return e.T == ir.TF32
		case ir.OpSqrt, ir.OpInverseSqrt, ir.OpAbs, ir.OpFloor:
			return len(e.Args) == 1 && isF32(e.T) && e.Args[0].Type() == e.T
		}
		if e.Op != ir.OpSelect || !is32(e.T) {
			return false
		}
		for _, a := range e.Args {
			if !is32(a.Type()) {
				return false
			}
		}
		return true
	case *ir.Index:
		if _, ok := vecComp(e); ok {
			return lc.fusable(e.X)
		}
		return fusableLoad(e)
	}
	return false
}

// vecComp is the component a literal index takes of a vector of 32-bit
// scalars.
func vecComp(e *ir.Index) (int, bool) {
	xt := e.X.Type()
	l, ok := e.I.(*ir.Literal)
	if !ok || xt.Kind() != ir.KindVector || !val32(xt) {
		return 0, false
	}
	i := ir.Truncate(l.Bits, l.T)
	if i >= uint64(xt.Len()) || l.T.Kind() != ir.KindUint && int64(ir.SignExtend(l.Bits, l.T)) < 0 {
		return 0, false
	}
	return int(i), true
}

// fusableLoad is a load of a 4-byte scalar from a buffer argument at a
// 32-bit index, as the lane engine's loads take.
func fusableLoad(e *ir.Index) bool {
	if e.X.Type().Kind() != ir.KindBuffer {
		return false
	}
	_, ok := e.X.(*ir.Ref)
	return ok && e.T.IsScalar() && e.T.Size() == 4 && e.I.Type().IsInteger() && e.I.Type().Bits() == 32
}

// fusedNodes counts the fused nodes of the tree under e.
func (lc *laneCompiler) fusedNodes(e ir.Expr) int {
	if r, ok := e.(*ir.Ref); ok {
		if sv, ok := lc.subst[r.Var]; ok {
			return lc.fusedNodes(sv.e)
		}
	}
	if !lc.fusable(e) {
		return 0
	}
	n := 1
	for _, ch := range children(e) {
		n += lc.fusedNodes(ch)
	}
	return n
}

// hasAtomic says whether an atomic operation is under e.
func hasAtomic(e ir.Expr) bool {
	if c, ok := e.(*ir.Call); ok && c.Func == nil && c.Op >= ir.OpAtomicExchange && c.Op <= ir.OpAtomicMax {
		return true
	}
	if c, ok := e.(*ir.Call); ok && c.Func != nil {
		return true
	}
	for _, ch := range children(e) {
		if hasAtomic(ch) {
			return true
		}
	}
	return false
}

func (lc *laneCompiler) newFuser(roots ...ir.Expr) *fuser {
	fu := &fuser{lc: lc, memo: map[ir.Expr][]fop{}, pure: true}
	for _, r := range roots {
		if hasAtomic(r) {
			fu.memo = nil
		}
	}
	return fu
}

// run is the fused closure of the steps.
func (fu *fuser) run() func(*lth, []int32) {
	steps, pure := fu.steps, fu.pure
	return func(t *lth, act []int32) {
		m := modeOf(act, pure)
		for _, s := range steps {
			s(t, act, m)
		}
	}
}

// fuseExpr compiles the tree e into one closure writing its value into
// dst (or new registers).
func (lc *laneCompiler) fuseExpr(e ir.Expr, dst int) lex {
	fu := lc.newFuser(e)
	nc := ir.Leaves(e.Type())
	if nc > 1 && dst >= 0 && lc.reads(e, dst, nc) {
		// A component written before a later one reads the variable.
		dst = -1
	}
	o := dst
	if o < 0 {
		o = lc.tmp(nc)
	}
	fu.root, fu.out = e, o
	rs := fu.comps(e)
	if nc == 1 {
		fu.steps = append(fu.steps, rootStep(rs[0], o))
	} else {
		steps := make([]fstep, nc)
		for k, r := range rs {
			steps[k] = rootStep(r, o+k)
		}
		fu.steps = append(fu.steps, func(t *lth, act []int32, m mode) {
			for _, s := range steps {
				s(t, act, m)
			}
		})
	}
	return lex{eval: fu.run(), slot: o, n: nc}
}

// rootStep puts operand r, a component of the tree's value, into register
// o for the lanes of the batch.
func rootStep(r fop, o int) fstep {
	return func(t *lth, act []int32, m mode) {
		n := len(act)
		ro := t.r[o*t.w : (o+1)*t.w]
		switch m {
		case mDense:
			if r.d != o { // a leaf, or a component of another
				copy(ro[:n], col(t, r.d, n))
			}
		case mWide:
			rs := t.r[r.at(m)*t.w : (r.at(m)+1)*t.w]
			for _, l := range act {
				ro[l] = rs[l]
			}
		default:
			rs := col(t, r.s, n)
			for j, l := range act {
				ro[l] = rs[j]
			}
		}
	}
}

// reads says whether e reads a variable held in slots [s, s+n).
func (lc *laneCompiler) reads(e ir.Expr, s, n int) bool {
	if r, ok := e.(*ir.Ref); ok {
		if v, ok := lc.slots[r.Var]; ok && v < s+n && s < v+ir.Leaves(r.Var.Type) {
			return true
		}
	}
	for _, ch := range children(e) {
		if lc.reads(ch, s, n) {
			return true
		}
	}
	return false
}

// leaf is an operand the tree does not fuse, compiled as the lane engine
// compiles it: one operand a component.
func (fu *fuser) leaf(e ir.Expr) []fop {
	lc := fu.lc
	x := lc.expr(e, -1)
	if x.n != ir.Leaves(e.Type()) {
		noLanes("%d leaves of %s", x.n, e.Type())
	}
	if x.eval != nil {
		ev := x.eval
		fu.steps = append(fu.steps, func(t *lth, act []int32, _ mode) { ev(t, act) })
	}
	ops := make([]fop, x.n)
	for k := range ops {
		row := x.slot + k
		if x.eval == nil && lc.isConst(row) {
			ops[k] = fop{d: row, s: row, konst: true}
			continue
		}
		lin := x.n == 1 && x.eval == nil && lc.linear && lc.p.ids >= 0 && row == lc.p.ids
		c := lc.tmp(1)
		fu.steps = append(fu.steps, func(t *lth, act []int32, m mode) {
			if m != mSparse {
				return
			}
			rc, rr := col(t, c, len(act)), t.r[row*t.w:(row+1)*t.w]
			for j, l := range act {
				rc[j] = rr[l]
			}
		})
		ops[k] = fop{d: row, s: c, lin: lin}
	}
	return ops
}

// isConst says whether slot holds the same value in every lane.
func (lc *laneCompiler) isConst(slot int) bool {
	for _, c := range lc.p.consts {
		if c.slot == slot {
			return true
		}
	}
	return false
}

// node is the operand of scalar e.
func (fu *fuser) node(e ir.Expr) fop { return fu.comps(e)[0] }

// comps is the operands of e's components (one for a scalar).
func (fu *fuser) comps(e ir.Expr) []fop {
	if o, ok := fu.memo[e]; ok {
		return o
	}
	var o []fop
	if !fu.lc.fusable(e) {
		o = fu.leaf(e)
	} else {
		o = fu.op(e)
	}
	if fu.memo != nil {
		fu.memo[e] = o
	}
	return o
}

// comp is component k of operands ops: a scalar's one broadcast.
func comp(ops []fop, k int) fop {
	if len(ops) == 1 {
		return ops[0]
	}
	return ops[k]
}

// kern is a fused node's loop over compact columns: operands x, y, z (as
// many as it has), o out, all of one length; t and act for the lane a
// fault names.
type kern = func(t *lth, act []int32, x, y, z, o []uint64)

func (fu *fuser) op(e ir.Expr) []fop {
	lc := fu.lc
	var args []ir.Expr
	var k kern
	switch e := e.(type) {
	case *ir.Ref:
		sv := lc.subst[e.Var]
		var o []fop
		sv.at(lc, func() { o = fu.comps(sv.e) })
		return o
	case *ir.Index:
		if i, ok := vecComp(e); ok {
			return []fop{fu.comps(e.X)[i]}
		}
		return []fop{fu.load(e)}
	case *ir.Swizzle:
		xs := fu.comps(e.X)
		ops := make([]fop, len(e.Comps))
		for i, c := range e.Comps {
			ops[i] = xs[c]
		}
		return ops
	case *ir.Construct:
		var ops []fop
		for _, a := range e.Args {
			ops = append(ops, fu.comps(a)...)
		}
		for len(ops) < ir.Leaves(e.T) { // a splat
			ops = append(ops, ops[0])
		}
		return ops
	case *ir.Cast:
		if e.Bit {
			return fu.comps(e.X)
		}
		args, k = []ir.Expr{e.X}, castKern(e.X.Type(), e.T)
		fu.pure = fu.pure && e.T == ir.TF32 && (e.X.Type() == ir.TU32 || e.X.Type() == ir.TI32) // the others through castFn, conservatively
	case *ir.Unary:
		args, k = []ir.Expr{e.X}, unaryKern(e.Op, e.T.Scalar())
	case *ir.Binary:
		var pure bool
		k, pure = binaryKern(e.Op, e.X.Type().Scalar(), e.Y.Type().Scalar(), lc.c.pos)
		if pk := pow2Kern(e); pk != nil {
			k, pure = pk, true
		} else if uk := uniDivKern(e, fu.lc, lc.c.pos); uk != nil {
			k = uk
		}
		args, fu.pure = []ir.Expr{e.X, e.Y}, fu.pure && pure
		if m, ok := fu.mulOf(e.X, e); ok { // x*y + z: one loop
			args, k = []ir.Expr{m.X, m.Y, e.Y}, maddKern(e.T.Scalar())
		} else if m, ok := fu.mulOf(e.Y, e); ok { // z + x*y, z first
			mk := maddKern(e.T.Scalar())
			args, k = []ir.Expr{e.X, m.X, m.Y}, func(t *lth, act []int32, x, y, z, o []uint64) { mk(t, act, y, z, x, o) }
		}
	case *ir.Call:
		switch e.Op {
		case ir.OpDot, ir.OpLength, ir.OpDistance:
			return []fop{fu.norm(e)}
		case ir.OpSqrt, ir.OpInverseSqrt, ir.OpAbs, ir.OpFloor:
			args, k = e.Args, unaryF32Kern(e.Op)
		}
		if k != nil {
			break
		}
		// select
		args, k = e.Args, func(_ *lth, _ []int32, x, y, z, o []uint64) {
			c, a, b := x[:len(o)], y[:len(o)], z[:len(o)]
			for j := range o {
				if c[j] != 0 {
					o[j] = a[j]
				} else {
					o[j] = b[j]
				}
			}
		}
	}
	argOps := make([][]fop, len(args))
	for i, a := range args {
		argOps[i] = fu.comps(a)
	}
	nc := ir.Leaves(e.Type())
	if nc > 1 {
		lc.p.fusedV++
	}
	out := make([]fop, nc)
	ops := make([]fop, len(args))
	for j := range out {
		for i := range ops {
			ops[i] = comp(argOps[i], j)
		}
		c := fu.result(e, j)
		if b, ok := e.(*ir.Binary); ok && nc == 1 && len(ops) == 2 && b.T.IsInteger() && (b.Op == ir.Add && (ops[0].lin && ops[1].konst || ops[0].konst && ops[1].lin) || b.Op == ir.Sub && ops[0].lin && ops[1].konst) {
			c.lin = true // consecutive, as long as it does not wrap (the loads check)
		}
		fu.steps = append(fu.steps, opStep(k, ops, c))
		out[j] = c
	}
	return out
}

// norm is dot, length or distance of float32 vectors: each lane's sum in
// float64, the components in order, as normF32 adds them.
func (fu *fuser) norm(e *ir.Call) fop {
	xs := fu.comps(e.Args[0])
	ys := xs
	if len(e.Args) > 1 {
		ys = fu.comps(e.Args[1])
	}
	c := fu.result(e, 0)
	fu.lc.p.fusedV++
	op := e.Op
	fu.steps = append(fu.steps, func(t *lth, act []int32, m mode) {
		n := spanOf(act, m)
		if len(t.sum) < t.w {
			t.sum = make([]float64, t.w)
		}
		if op == ir.OpDot && len(xs) == 3 { // the commonest, in one loop
			dot3(col(t, c.at(m), n), col(t, xs[0].at(m), n), col(t, xs[1].at(m), n), col(t, xs[2].at(m), n),
				col(t, ys[0].at(m), n), col(t, ys[1].at(m), n), col(t, ys[2].at(m), n))
			return
		}
		sum := t.sum[:n]
		clear(sum)
		for i := range xs {
			a, b := col(t, xs[i].at(m), n), col(t, ys[i].at(m), n)
			switch op {
			case ir.OpDot:
				for l := range sum {
					sum[l] += float64(f32(a[l])) * float64(f32(b[l]))
				}
			case ir.OpLength:
				for l := range sum {
					p := float64(f32(a[l]))
					sum[l] += p * p
				}
			default:
				for l := range sum {
					p := float64(f32(a[l])) - float64(f32(b[l]))
					sum[l] += p * p
				}
			}
		}
		o := col(t, c.at(m), n)
		if op == ir.OpDot {
			for l, v := range sum {
				o[l] = uf32(float32(v))
			}
			return
		}
		for l, v := range sum {
			o[l] = uf32(float32(math.Sqrt(v)))
		}
	})
	return c
}

// dot3 is o = a·b of three float32 components, each lane's sum in float64
// from zero in order, as normF32 adds them.
func dot3(o, a0, a1, a2, b0, b1, b2 []uint64) {
	n := len(o)
	x0, x1, x2, y0, y1, y2 := lo32s(a0)[:n], lo32s(a1)[:n], lo32s(a2)[:n], lo32s(b0)[:n], lo32s(b1)[:n], lo32s(b2)[:n]
	for l := range o {
		s := 0.0 // not the first product: 0 + -0 is +0
		s += float64(x0[l].f) * float64(y0[l].f)
		s += float64(x1[l].f) * float64(y1[l].f)
		s += float64(x2[l].f) * float64(y2[l].f)
		o[l] = uf32(float32(s))
	}
}

// unaryF32Kern is the loop of a float32 built-in of one operand, as
// unaryF32 computes it.
//
//go:noinline
func unaryF32Kern(op ir.Op) kern {
	switch op {
	case ir.OpSqrt:
		return func(_ *lth, _ []int32, x, _, _, o []uint64) {
			a := lo32s(x)[:len(o)]
			for j := range o {
				o[j] = uf32(float32(math.Sqrt(float64(a[j].f))))
			}
		}
	case ir.OpInverseSqrt:
		return func(_ *lth, _ []int32, x, _, _, o []uint64) {
			a := lo32s(x)[:len(o)]
			for j := range o {
				o[j] = uf32(float32(1 / math.Sqrt(float64(a[j].f))))
			}
		}
	case ir.OpAbs:
		return func(_ *lth, _ []int32, x, _, _, o []uint64) {
			a := x[:len(o)]
			for j := range o {
				o[j] = uf32(float32(math.Abs(float64(f32(a[j])))))
			}
		}
	}
	return func(_ *lth, _ []int32, x, _, _, o []uint64) {
		a := x[:len(o)]
		for j := range o {
			o[j] = uf32(float32(math.Floor(float64(f32(a[j])))))
		}
	}
}

// pow2Kern is the loop of a uint32 division or remainder by a literal
// power of two (a shift, a mask: no divisor to check), else nil.
func pow2Kern(e *ir.Binary) kern {
	l, ok := e.Y.(*ir.Literal)
	if !ok || e.T != ir.TU32 || e.X.Type() != ir.TU32 || (e.Op != ir.Div && e.Op != ir.Rem) {
		return nil
	}
	d := uint32(ir.Truncate(l.Bits, l.T))
	if d == 0 || d&(d-1) != 0 {
		return nil
	}
	if e.Op == ir.Rem {
		mask := uint64(d - 1)
		return func(_ *lth, _ []int32, x, _, _, o []uint64) { andTo(o, x, mask) }
	}
	sh := uint(bits.TrailingZeros32(d))
	return func(_ *lth, _ []int32, x, _, _, o []uint64) {
		x = x[:len(o)]
		for j := range o {
			o[j] = x[j] >> sh
		}
	}
}

// uniDivKern is the loop of a uint32 division or remainder by a divisor
// the same in every lane of the block (the stencil's % w), else nil: the
// divisor, read from the first lane (which, as on the per-thread engine,
// faults first where it is zero), becomes a multiplier once a batch, and
// each lane multiplies instead of dividing (divU32, remU32).
func uniDivKern(e *ir.Binary, lc *laneCompiler, pos string) kern {
	if e.T != ir.TU32 || e.X.Type() != ir.TU32 || e.Y.Type() != ir.TU32 || (e.Op != ir.Div && e.Op != ir.Rem) || !lc.uniform.expr(e.Y) {
		return nil
	}
	div := e.Op == ir.Div
	return func(t *lth, act []int32, x, y, _, o []uint64) {
		if len(o) == 0 {
			return
		}
		d := uint32(y[0])
		if d == 0 {
			t.flane = act[0]
			site{pos: pos}.fault(device.FaultDivideByZero, 0, 0)
		}
		if div {
			divU32(o, x[:len(o)], d)
		} else {
			remU32(o, x[:len(o)], d)
		}
	}
}

// opStep is the step of a node: kernel k from operands ops to c.
func opStep(k kern, ops []fop, c fop) fstep {
	switch len(ops) {
	case 1:
		a := ops[0]
		return func(t *lth, act []int32, m mode) {
			n := spanOf(act, m)
			k(t, act, col(t, a.at(m), n), nil, nil, col(t, c.at(m), n))
		}
	case 2:
		a, b := ops[0], ops[1]
		return func(t *lth, act []int32, m mode) {
			n := spanOf(act, m)
			k(t, act, col(t, a.at(m), n), col(t, b.at(m), n), nil, col(t, c.at(m), n))
		}
	}
	a, b, d := ops[0], ops[1], ops[2]
	return func(t *lth, act []int32, m mode) {
		n := spanOf(act, m)
		k(t, act, col(t, a.at(m), n), col(t, b.at(m), n), col(t, d.at(m), n), col(t, c.at(m), n))
	}
}

// mulOf is m where sum is a float32 or 32-bit integer addition and m, one
// of its operands, a multiplication of the same type the tree does not
// need on its own: the two run as one loop (the product rounded to float32
// before the sum, as two loops round it).
func (fu *fuser) mulOf(m ir.Expr, sum *ir.Binary) (*ir.Binary, bool) {
	b, ok := m.(*ir.Binary)
	if !ok || sum.Op != ir.Add || b.Op != ir.Mul || b.T != sum.T || !fu.lc.fusable(b) {
		return nil, false
	}
	s := sum.T.Scalar()
	if s != ir.TF32 && s != ir.TU32 && s != ir.TI32 || b.X.Type().Scalar() != s || b.Y.Type().Scalar() != s || sum.X.Type().Scalar() != s || sum.Y.Type().Scalar() != s {
		return nil, false
	}
	if _, shared := fu.memo[b]; shared {
		return nil, false
	}
	return b, true
}

// maddKern is o = x*y + z of float32 or 32-bit integers.
//
// The kernels' makers are not inlined, as normF32 is not: a closure
// inlined into a large caller gets that caller's smaller inlining budget
// (f32 and uf32 became calls in the loops).
//
//go:noinline
func maddKern(t *ir.Type) kern {
	if t == ir.TF32 {
		return func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b, c := lo32s(x)[:len(o)], lo32s(y)[:len(o)], lo32s(z)[:len(o)]
			for j := range o {
				p := float32(a[j].f * b[j].f) // rounded: no fused multiply-add
				o[j] = uf32(p + c[j].f)
			}
		}
	}
	return func(_ *lth, _ []int32, x, y, z, o []uint64) {
		x, y, z = x[:len(o)], y[:len(o)], z[:len(o)]
		for j := range o {
			o[j] = uint64(uint32(x[j])*uint32(y[j]) + uint32(z[j]))
		}
	}
}

// load is a fused load: the index checked and the word read in one loop.
func (fu *fuser) load(e *ir.Index) fop {
	lc := fu.lc
	v := e.X.(*ir.Ref).Var
	k, label, signed := lc.c.params[v], lc.c.argSite(v), e.I.Type().Kind() == ir.KindInt
	idx := fu.node(e.I)
	c := fu.result(e, 0)
	fu.pure = false
	uni := lc.uniform.expr(e.I)
	fu.steps = append(fu.steps, func(t *lth, act []int32, m mode) {
		n, dn := len(act), m == mDense
		ri, ro := col(t, idx.at(m), n), col(t, c.at(m), n)
		b := t.run.bufs[k]
		if uni {
			// The same word in every lane: read once (the first lane
			// faults, as it would first), then broadcast.
			at := t.elemAt(act[0], ri[0], signed, b, 4, label)
			fill64(ro, uint64(binary.LittleEndian.Uint32(b[at:])))
			return
		}
		if u := words32(b); u != nil {
			if dn && idx.lin {
				if i0, ok := run(ri, signed, len(u)); ok {
					widen32(ro, u[i0:i0+uint64(n)])
					return
				}
			}
			for j, i := range ri {
				if signed {
					i = uint64(int64(int32(uint32(i))))
				}
				if i >= uint64(len(u)) {
					t.fault(act[j], label, i, uint64(len(u)))
				}
				ro[j] = uint64(u[i])
			}
			return
		}
		nw := uint64(len(b)) / 4
		for j, i := range ri {
			if signed {
				i = uint64(int64(int32(uint32(i))))
			}
			if i >= nw {
				t.fault(act[j], label, i, nw)
			}
			ro[j] = uint64(binary.LittleEndian.Uint32(b[4*i:]))
		}
	})
	return c
}

// fuseStore compiles a store of a 4-byte scalar whose value or index is a
// fused tree: the value, then the index, then the checked writes in one
// loop.
func (lc *laneCompiler) fuseStore(ix *ir.Index, src ir.Expr) lstmt {
	v := ix.X.(*ir.Ref).Var
	k, label, signed := lc.c.params[v], lc.c.argSite(v), ix.I.Type().Kind() == ir.KindInt
	fu := lc.newFuser(src, ix.I)
	val := fu.node(src)
	idx := fu.node(ix.I)
	steps := fu.steps
	return func(t *lth, act []int32) []int32 {
		m := modeOf(act, false)
		for _, s := range steps {
			s(t, act, m)
		}
		n, dn := len(act), m == mDense
		ri, rv := col(t, idx.at(m), n), col(t, val.at(m), n)
		b := t.run.bufs[k]
		if u := words32(b); u != nil {
			if dn && idx.lin {
				if i0, ok := run(ri, signed, len(u)); ok {
					narrow32(u[i0:i0+uint64(n)], rv)
					return act
				}
			}
			for j, i := range ri {
				if signed {
					i = uint64(int64(int32(uint32(i))))
				}
				if i >= uint64(len(u)) {
					t.fault(act[j], label, i, uint64(len(u)))
				}
				u[i] = uint32(rv[j])
			}
			return act
		}
		nw := uint64(len(b)) / 4
		for j, i := range ri {
			if signed {
				i = uint64(int64(int32(uint32(i))))
			}
			if i >= nw {
				t.fault(act[j], label, i, nw)
			}
			binary.LittleEndian.PutUint32(b[4*i:], uint32(rv[j]))
		}
		return act
	}
}

// run returns ri[0] where the indices ri, consecutive unless they wrap,
// are consecutive and all below n; ok false sends the access to the lane
// by lane loop (which faults where one is out of range).
func run(ri []uint64, signed bool, n int) (i0 uint64, ok bool) {
	i0, last := ri[0], ri[len(ri)-1]
	if signed {
		i0, last = uint64(int64(int32(uint32(i0)))), uint64(int64(int32(uint32(last))))
	}
	return i0, last == i0+uint64(len(ri)-1) && last < uint64(n)
}

// nativeLE says whether this machine stores a uint32 little-endian, as
// buffers hold them.
var nativeLE = func() bool { x := uint32(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// words32 is b as 32-bit words where b is 4-byte aligned and the machine
// little-endian, else nil.
func words32(b []byte) []uint32 {
	if len(b) < 4 || !nativeLE || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 != 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

// castKern is a value conversion between 32-bit scalars.
//
//go:noinline
func castKern(fs, ts *ir.Type) kern {
	switch {
	case fs == ir.TU32 && ts == ir.TF32:
		return func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a := x[:len(o)]
			for j := range o {
				o[j] = uf32(float32(uint32(a[j])))
			}
		}
	case fs == ir.TI32 && ts == ir.TF32:
		return func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a := x[:len(o)]
			for j := range o {
				o[j] = uf32(float32(int32(uint32(a[j]))))
			}
		}
	}
	return kern1(castFn(fs, ts))
}

// kern1 is the loop of a one-operand function.
//
//go:noinline
func kern1(f func(uint64) uint64) kern {
	return func(_ *lth, _ []int32, x, y, z, o []uint64) {
		a := x[:len(o)]
		for j := range o {
			o[j] = f(a[j])
		}
	}
}

// unaryKern is the loop of a one-operand operation.
//
//go:noinline
func unaryKern(op ir.UnaryOp, t *ir.Type) kern {
	switch {
	case op == ir.Not:
		return func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a := x[:len(o)]
			for j := range o {
				o[j] = a[j] ^ 1
			}
		}
	case op == ir.BitNot:
		return func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a := x[:len(o)]
			for j := range o {
				o[j] = uint64(^uint32(a[j]))
			}
		}
	case t == ir.TF32:
		return func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a := x[:len(o)]
			for j := range o {
				o[j] = a[j] ^ 1<<31
			}
		}
	}
	return func(_ *lth, _ []int32, x, y, z, o []uint64) {
		a := x[:len(o)]
		for j := range o {
			o[j] = uint64(-uint32(a[j]))
		}
	}
}

// binaryKern is the loop of a binary operation on 32-bit scalars: the
// commonest written out, the others through the per-thread engine's
// function a lane (which names the lane of a division by zero); pure says
// it reads no lane list and cannot fault.
//
//go:noinline
func binaryKern(op ir.BinaryOp, s, ys *ir.Type, pos string) (k kern, pure bool) {
	type key = struct {
		s  *ir.Type
		op ir.BinaryOp
	}
	kk := key{s, op}
	if s == ir.TBool || s == ir.TI32 {
		switch op {
		case ir.Add, ir.Sub, ir.Mul, ir.And, ir.Or, ir.Xor, ir.Eq, ir.Ne:
			kk.s = ir.TU32 // the same bits
		}
	}
	if s != ys && (s != ir.TBool || ys != ir.TBool) {
		kk.s = nil // shifts by another type
	}
	switch kk {
	case key{ir.TF32, ir.Add}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := lo32s(x)[:len(o)], lo32s(y)[:len(o)]
			for j := range o {
				o[j] = uf32(a[j].f + b[j].f)
			}
		}
	case key{ir.TF32, ir.Sub}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := lo32s(x)[:len(o)], lo32s(y)[:len(o)]
			for j := range o {
				o[j] = uf32(a[j].f - b[j].f)
			}
		}
	case key{ir.TF32, ir.Mul}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := lo32s(x)[:len(o)], lo32s(y)[:len(o)]
			for j := range o {
				o[j] = uf32(a[j].f * b[j].f)
			}
		}
	case key{ir.TF32, ir.Div}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := lo32s(x)[:len(o)], lo32s(y)[:len(o)]
			for j := range o {
				o[j] = uf32(a[j].f / b[j].f)
			}
		}
	case key{ir.TF32, ir.Lt}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(f32(a[j]) < f32(b[j]))
			}
		}
	case key{ir.TF32, ir.Le}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(f32(a[j]) <= f32(b[j]))
			}
		}
	case key{ir.TF32, ir.Gt}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(f32(a[j]) > f32(b[j]))
			}
		}
	case key{ir.TF32, ir.Ge}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(f32(a[j]) >= f32(b[j]))
			}
		}
	case key{ir.TU32, ir.Add}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = uint64(uint32(a[j]) + uint32(b[j]))
			}
		}
	case key{ir.TU32, ir.Sub}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = uint64(uint32(a[j]) - uint32(b[j]))
			}
		}
	case key{ir.TU32, ir.Mul}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = uint64(uint32(a[j]) * uint32(b[j]))
			}
		}
	case key{ir.TU32, ir.And}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = a[j] & b[j]
			}
		}
	case key{ir.TU32, ir.Or}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = a[j] | b[j]
			}
		}
	case key{ir.TU32, ir.Xor}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = a[j] ^ b[j]
			}
		}
	case key{ir.TU32, ir.Eq}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(a[j] == b[j])
			}
		}
	case key{ir.TU32, ir.Ne}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(a[j] != b[j])
			}
		}
	case key{ir.TU32, ir.Lt}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(a[j] < b[j])
			}
		}
	case key{ir.TU32, ir.Le}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(a[j] <= b[j])
			}
		}
	case key{ir.TU32, ir.Gt}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(a[j] > b[j])
			}
		}
	case key{ir.TU32, ir.Ge}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(a[j] >= b[j])
			}
		}
	case key{ir.TI32, ir.Lt}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(int32(uint32(a[j])) < int32(uint32(b[j])))
			}
		}
	case key{ir.TI32, ir.Le}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(int32(uint32(a[j])) <= int32(uint32(b[j])))
			}
		}
	case key{ir.TI32, ir.Gt}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(int32(uint32(a[j])) > int32(uint32(b[j])))
			}
		}
	case key{ir.TI32, ir.Ge}:
		k = func(_ *lth, _ []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				o[j] = b2u(int32(uint32(a[j])) >= int32(uint32(b[j])))
			}
		}
	case key{ir.TU32, ir.Div}, key{ir.TU32, ir.Rem}:
		div := op == ir.Div
		k = func(t *lth, act []int32, x, y, z, o []uint64) {
			a, b := x[:len(o)], y[:len(o)]
			for j := range o {
				y := uint32(b[j])
				if y == 0 {
					t.flane = act[j]
					site{pos: pos}.fault(device.FaultDivideByZero, 0, 0)
				}
				if div {
					o[j] = uint64(uint32(a[j]) / y)
				} else {
					o[j] = uint64(uint32(a[j]) % y)
				}
			}
		}
	}
	if k != nil {
		return k, kk.s != ir.TU32 || op != ir.Div && op != ir.Rem // an integer division faults on zero
	}
	f := scalarOpAt(op, s, ys, pos)
	return func(t *lth, act []int32, x, y, z, o []uint64) {
		a, b := x[:len(o)], y[:len(o)]
		for j := range o {
			t.flane = act[j]
			o[j] = f(a[j], b[j])
		}
	}, false
}
