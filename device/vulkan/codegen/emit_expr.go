package codegen

import (
	"math"
	"slices"

	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

// needsLayout reports types whose explicit-layout form differs from the
// logical one (arrays carry an ArrayStride, structs Offsets).
func needsLayout(t *ir.Type) bool {
	return t.Kind() == ir.KindArray || t.Kind() == ir.KindStruct
}

// relayout converts value v of type t between the explicit and the logical
// form (toExplicit says which way), member by member.
func (g *gen) relayout(v spirv.ID, t *ir.Type, toExplicit bool) spirv.ID {
	if !needsLayout(t) {
		return v
	}
	from, to := g.typ, g.etyp
	if !toExplicit {
		from, to = g.etyp, g.typ
	}
	var parts []spirv.ID
	if t.Kind() == ir.KindArray {
		parts = make([]spirv.ID, t.Len())
		for i := range parts {
			parts[i] = g.relayout(g.b.CompositeExtract(from(t.Elem()), v, uint32(i)), t.Elem(), toExplicit)
		}
	} else {
		parts = make([]spirv.ID, len(t.Fields()))
		for i, f := range t.Fields() {
			parts[i] = g.relayout(g.b.CompositeExtract(from(f.Type), v, uint32(i)), f.Type, toExplicit)
		}
	}
	return g.b.CompositeConstruct(to(t), parts...)
}

// addr returns the pointer to place e, its storage class, whether it points
// at the explicit-layout form and, for a place in a buffer reached by device
// address, its guard: the bool that the element is inside the view (0: no
// guard). An access must not happen where the guard is false, as a
// descriptor-bound buffer's would not under robust access.
func (g *gen) addr(e ir.Expr) (ptr spirv.ID, sc spirv.StorageClass, explicit bool, guard spirv.ID) {
	switch e := e.(type) {
	case *ir.Ref:
		p, ok := g.vars[e.Var]
		if !ok {
			g.fail("variable %s has no storage", e.Var.Name)
		}
		return p.ptr, p.sc, p.explicit, 0
	case *ir.Index:
		if bt := e.X.Type(); bt.Kind() == ir.KindBuffer {
			v := e.X.(*ir.Ref).Var
			p := g.vars[v]
			base := p.ptr
			i := g.expr(e.I)
			if bt.ByAddress() {
				base = g.addrPtr(v)
				if !g.opts.unguarded {
					guard = g.b.ULessThan(g.boolT, g.index64(i, e.I.Type()), g.addrCount(v))
				}
			}
			if g.opts.Checked {
				g.checkBuffer(v, i, e.I.Type())
			}
			if !bt.ByAddress() && e.I.Type().Bits() == 64 {
				// A descriptor-bound buffer has fewer than 2³² elements:
				// saturated, a 64-bit index past them stays past them
				// (drivers may bound the access on its low 32 bits, where
				// 2³²+1 is 1).
				i = g.sat32(g.index64(i, e.I.Type()))
			}
			return g.b.AccessChain(g.ptr(p.sc, g.etyp(e.T)), base, g.b.ConstantUint32(0), i), p.sc, true, guard
		}
		base, sc, ex, guard := g.addr(e.X)
		i := g.expr(e.I)
		if g.opts.Checked {
			i = g.checkIndex(e, i)
		}
		t := g.layoutType(e.T, ex)
		if g.bits[ir.PlaceRoot(e)] {
			t = g.u32
		}
		return g.b.AccessChain(g.ptr(sc, t), base, i), sc, ex, guard
	case *ir.Member:
		base, sc, ex, guard := g.addr(e.X)
		return g.b.AccessChain(g.ptr(sc, g.layoutType(e.T, ex)), base, g.b.ConstantUint32(uint32(e.Field))), sc, ex, guard
	}
	g.fail("%s is not a place", ir.Describe(e))
	return 0, 0, false, 0
}

// addrCount loads the element count of buffer argument v passed by device
// address (the push-constant member after its address).
func (g *gen) addrCount(v *ir.Var) spirv.ID {
	if r, ok := g.refs[v]; ok {
		return r.count
	}
	u64 := g.b.TypeInt(64, false)
	if g.spilled[v] {
		return g.spillLoad(v, 1, u64, 8)
	}
	return g.b.Load(u64, g.b.AccessChain(g.ptr(spirv.StorageClassPushConstant, u64), g.push, g.b.ConstantUint32(g.argIdx[v]+1)))
}

// index64 widens index i of integer type t to u64 for a compare with an
// element count: a signed index is sign-extended, so a negative one is
// beyond any count.
func (g *gen) index64(i spirv.ID, t *ir.Type) spirv.ID {
	u64 := g.b.TypeInt(64, false)
	switch {
	case t.Bits() == 64 && t.Kind() == ir.KindUint:
		return i
	case t.Bits() == 64:
		return g.b.Bitcast(u64, i)
	case t.Kind() == ir.KindInt:
		return g.b.Bitcast(u64, g.b.SConvert(g.b.TypeInt(64, true), i))
	}
	return g.b.UConvert(u64, i)
}

// sat32 narrows u64 x to u32, saturating: every x of 2³² or more is
// 0xFFFFFFFF.
func (g *gen) sat32(x spirv.ID) spirv.ID {
	b := g.b
	u64 := b.TypeInt(64, false)
	max := b.ConstantUint64(math.MaxUint32)
	return b.UConvert(g.u32, b.Select(u64, b.ULessThan(g.boolT, x, max), x, max))
}

// guarded emits access inside "if guard { … }" (just access when guard is
// 0). access returns the value it produced (0 for none); guarded returns
// that value where the guard held and zero of type t elsewhere, through a
// phi. Everything the access needs is computed before: values computed
// inside must not be reused after it, which the guard's block does not
// dominate.
func (g *gen) guarded(guard spirv.ID, t *ir.Type, access func() spirv.ID) spirv.ID {
	if guard == 0 {
		return access()
	}
	b := g.b
	from := b.CurrentBlock()
	then, merge := g.sfn.NewBlock(), g.sfn.NewBlock()
	b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
	b.BranchConditional(guard, then.ID(), merge.ID())
	b.SetBlock(then)
	v := access()
	last := b.CurrentBlock()
	b.Branch(merge.ID())
	b.SetBlock(merge)
	g.reuse.follow(from, merge) // merge is dominated by from
	if v == 0 || t == nil || t == ir.TVoid {
		return 0
	}
	return b.Phi(g.typ(t), spirv.PhiIncoming{Value: v, Parent: last.ID()}, spirv.PhiIncoming{Value: b.ConstantNull(g.typ(t)), Parent: from.ID()})
}

func (g *gen) layoutType(t *ir.Type, explicit bool) spirv.ID {
	if explicit {
		return g.etyp(t)
	}
	return g.typ(t)
}

// access is the memory-access operand of loads and stores through a pointer
// of storage class sc: PhysicalStorageBuffer ones must say their alignment.
func access(sc spirv.StorageClass, t *ir.Type) []uint32 {
	if sc != spirv.StorageClassPhysicalStorageBuffer {
		return nil
	}
	return []uint32{uint32(spirv.MemoryAccessAligned), uint32(t.Align())}
}

func (g *gen) load(e ir.Expr) spirv.ID {
	p, sc, ex, guard := g.addr(e)
	if g.bits[ir.PlaceRoot(e)] {
		return g.fromBits(g.b.Load(g.typ(bitsType(e.Type())), p), e.Type())
	}
	return g.guarded(guard, e.Type(), func() spirv.ID {
		v := g.b.Load(g.layoutType(e.Type(), ex), p, access(sc, e.Type())...)
		if ex {
			v = g.relayout(v, e.Type(), false)
		}
		return v
	})
}

func (g *gen) assign(dst, src ir.Expr) { g.store(dst, g.expr(src)) }

// refCopy copies the place e, at p (from addr), into a new Function
// variable, and returns it with the function that stores it back to p.
func (g *gen) refCopy(e ir.Expr, p spirv.ID, sc spirv.StorageClass, ex bool) (spirv.ID, func()) {
	b, t := g.b, e.Type()
	tmp := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, g.typ(t)), 0)
	bits := g.bits[ir.PlaceRoot(e)]
	var v spirv.ID
	switch {
	case bits:
		v = g.fromBits(b.Load(g.typ(bitsType(t)), p), t)
	default:
		v = b.Load(g.layoutType(t, ex), p, access(sc, t)...)
		if ex {
			v = g.relayout(v, t, false)
		}
	}
	b.Store(tmp, v)
	return tmp, func() {
		w := b.Load(g.typ(t), tmp)
		switch {
		case bits:
			w = g.toBits(w, t)
		case ex:
			w = g.relayout(w, t, true)
		}
		b.Store(p, w, access(sc, t)...)
	}
}

// store stores value v (of dst's type) to the place dst.
func (g *gen) store(dst ir.Expr, v spirv.ID) {
	p, sc, ex, guard := g.addr(dst)
	if g.bits[ir.PlaceRoot(dst)] {
		g.b.Store(p, g.toBits(v, dst.Type()))
		return
	}
	if ex {
		v = g.relayout(v, dst.Type(), true)
	}
	g.guarded(guard, nil, func() spirv.ID {
		g.b.Store(p, v, access(sc, dst.Type())...)
		return 0
	})
}

// scalarConst is the constant of scalar type t with value bits (as Literal.Bits).
func (g *gen) scalarConst(t *ir.Type, bits uint64) spirv.ID {
	if t == ir.TBool {
		return g.b.ConstantBool(bits != 0)
	}
	if t.Bits() == 64 {
		return g.b.Constant(g.typ(t), uint32(bits), uint32(bits>>32))
	}
	if t.Kind() == ir.KindUint || t.Kind() == ir.KindFloat {
		bits &= 1<<uint(t.Bits()) - 1
	}
	return g.b.Constant(g.typ(t), uint32(bits))
}

// splatConst is the scalar or vector constant of type t whose components have value bits.
func (g *gen) splatConst(t *ir.Type, bits uint64) spirv.ID {
	c := g.scalarConst(t.Scalar(), bits)
	if t.Kind() != ir.KindVector {
		return c
	}
	parts := make([]spirv.ID, t.Len())
	for i := range parts {
		parts[i] = c
	}
	return g.b.ConstantComposite(g.typ(t), parts...)
}

// numConst is splatConst of the number v in t's scalar type.
func (g *gen) numConst(t *ir.Type, v float64) spirv.ID {
	s := t.Scalar()
	var bits uint64
	switch s.Kind() {
	case ir.KindFloat:
		bits = ir.LitFloat(s, v).Bits
	case ir.KindBool:
		if v != 0 {
			bits = 1
		}
	default:
		bits = ir.LitInt(s, int64(v)).Bits
	}
	return g.splatConst(t, bits)
}

// splat repeats scalar value x to vector type t (or returns it for a scalar t).
func (g *gen) splat(t *ir.Type, x spirv.ID) spirv.ID {
	if t.Kind() != ir.KindVector {
		return x
	}
	parts := make([]spirv.ID, t.Len())
	for i := range parts {
		parts[i] = x
	}
	return g.b.CompositeConstruct(g.typ(t), parts...)
}

func (g *gen) expr(e ir.Expr) spirv.ID {
	if g.err != nil {
		return 0
	}
	if worthHoisting(e) && g.invariant(e) {
		if id, ok := g.cached(e); ok {
			return id
		}
		id := g.exprUncached(e)
		top := &g.scopes[len(g.scopes)-1]
		if *top == nil {
			*top = map[ir.Expr]spirv.ID{}
		}
		(*top)[e] = id
		return id
	}
	if worthHoisting(e) && g.reusable(e) {
		if id, ok := g.reuse.lookup(e, g.b.CurrentBlock()); ok {
			return id
		}
		id := g.exprUncached(e)
		g.reuse.add(e, g.b.CurrentBlock(), id)
		return id
	}
	id := g.exprUncached(e)
	if c, ok := e.(*ir.Call); ok && (c.Func != nil || !pure(c.Op)) {
		g.reuse.forget() // it may have written memory the values read
	}
	return id
}

func (g *gen) exprUncached(e ir.Expr) spirv.ID {
	b := g.b
	switch e := e.(type) {
	case *ir.Literal:
		return g.scalarConst(e.T, e.Bits)
	case *ir.ConstArray:
		parts := make([]spirv.ID, len(e.Values))
		for i, v := range e.Values {
			parts[i] = g.scalarConst(v.T, v.Bits)
		}
		return b.ConstantComposite(g.typ(e.T), parts...)
	case *ir.Ref:
		v := e.Var
		switch v.Kind {
		case ir.VarBuiltin:
			return g.builtins[v.Builtin]
		case ir.VarParam:
			return g.values[v]
		case ir.VarArg:
			if v.Type.IsResource() { // buffers by address included: they are not values
				g.fail("resource %s used as a value", v.Name)
				return 0
			}
			if g.spilled[v] {
				if v.Type == ir.TBool {
					u := g.spillLoad(v, 0, g.u32, 4)
					return b.INotEqual(g.boolT, b.BitwiseAnd(g.u32, u, b.ConstantUint32(0xff)), b.ConstantUint32(0))
				}
				return g.relayout(g.spillLoad(v, 0, g.etyp(v.Type), uint32(max(v.Type.Align(), 1))), v.Type, false)
			}
			idx := b.ConstantUint32(g.argIdx[v])
			if v.Type == ir.TBool {
				// The host writes one byte; the rest of the word is undefined.
				u := b.Load(g.u32, b.AccessChain(g.ptr(spirv.StorageClassPushConstant, g.u32), g.push, idx))
				return b.INotEqual(g.boolT, b.BitwiseAnd(g.u32, u, b.ConstantUint32(0xff)), b.ConstantUint32(0))
			}
			x := b.Load(g.etyp(v.Type), b.AccessChain(g.ptr(spirv.StorageClassPushConstant, g.etyp(v.Type)), g.push, idx))
			return g.relayout(x, v.Type, false)
		}
		return g.load(e)
	case *ir.Unary:
		return g.unary(e)
	case *ir.Binary:
		return g.binary(e)
	case *ir.Member:
		if ir.IsPlace(e) {
			return g.load(e)
		}
		return b.CompositeExtract(g.typ(e.T), g.expr(e.X), uint32(e.Field))
	case *ir.Swizzle:
		x := g.expr(e.X)
		if len(e.Comps) == 1 {
			return b.CompositeExtract(g.typ(e.T), x, uint32(e.Comps[0]))
		}
		cs := make([]uint32, len(e.Comps))
		for i, c := range e.Comps {
			cs[i] = uint32(c)
		}
		return b.VectorShuffle(g.typ(e.T), x, x, cs...)
	case *ir.Index:
		if ir.IsPlace(e) {
			return g.load(e)
		}
		xt := e.X.Type()
		if lit, ok := e.I.(*ir.Literal); ok && lit.Bits < uint64(xt.Len()) {
			return b.CompositeExtract(g.typ(e.T), g.expr(e.X), uint32(lit.Bits))
		}
		i := g.expr(e.I)
		if g.opts.Checked {
			i = g.checkIndex(e, i)
		}
		if xt.Kind() == ir.KindVector {
			return b.VectorExtractDynamic(g.typ(e.T), g.expr(e.X), i)
		}
		// A dynamic index into an array or matrix value goes through memory.
		var v spirv.ID
		if ca, ok := e.X.(*ir.ConstArray); ok {
			if v = g.constArr[ca]; v == 0 {
				v = g.sfn.Variable(g.ptr(spirv.StorageClassFunction, g.typ(xt)), g.expr(ca))
				g.constArr[ca] = v
			}
		} else {
			v = g.sfn.Variable(g.ptr(spirv.StorageClassFunction, g.typ(xt)), 0)
			b.Store(v, g.expr(e.X))
		}
		return b.Load(g.typ(e.T), b.AccessChain(g.ptr(spirv.StorageClassFunction, g.typ(e.T)), v, i))
	case *ir.Call:
		if e.Func != nil {
			info := g.funcs[e.Func]
			args := make([]spirv.ID, 0, len(e.Args)+2)
			var back []func() // the copies of places passed by reference, stored back after the call
			for i, a := range e.Args {
				switch {
				case e.Func.Params[i].Type.IsResource(): // by reference (Options.HelpersByReference)
					v := a.(*ir.Ref).Var
					if !v.Type.ByAddress() {
						g.fail("%s passed by reference: only a buffer by address can be", v.Name)
						return 0
					}
					args = append(args, g.addrPtr(v), g.addrCount(v))
				case e.Func.Params[i].Kind == ir.VarRefParam:
					var guard spirv.ID
					var p spirv.ID
					var sc spirv.StorageClass
					var ex bool
					if p, sc, ex, guard = g.addr(a); guard != 0 {
						g.fail("a buffer element passed by reference")
					}
					if _, whole := a.(*ir.Ref); !whole {
						// Logical addressing passes only whole variables
						// (memory object declarations) to a function: a
						// field or element goes in a copy, stored back
						// when the call returns.
						tmp, store := g.refCopy(a, p, sc, ex)
						p, back = tmp, append(back, store)
					}
					args = append(args, p)
				default:
					args = append(args, g.expr(a))
				}
			}
			r := b.FunctionCall(g.typ(e.T), info.id, args...)
			for _, store := range back {
				store()
			}
			return r
		}
		return g.call(e)
	case *ir.Cast:
		return g.cast(e)
	case *ir.Construct:
		parts := make([]spirv.ID, len(e.Args))
		for i, a := range e.Args {
			parts[i] = g.expr(a)
		}
		if e.T.Kind() == ir.KindVector && len(parts) == 1 {
			return g.splat(e.T, parts[0])
		}
		if e.T.Kind() == ir.KindArray && len(parts) == 1 && e.T.Len() > 1 {
			parts = slices.Repeat(parts, e.T.Len()) // one element for all (Validate bounds n)
		}
		return b.CompositeConstruct(g.typ(e.T), parts...)
	}
	g.fail("expression %T", e)
	return 0
}

func (g *gen) unary(e *ir.Unary) spirv.ID {
	x := g.expr(e.X)
	t := g.typ(e.T)
	switch e.Op {
	case ir.Neg:
		switch {
		case e.T.Kind() == ir.KindMatrix:
			return g.b.MatrixTimesScalar(t, x, g.b.ConstantFloat32(-1))
		case e.T.Scalar().Kind() == ir.KindFloat:
			return g.b.FNegate(t, x)
		}
		return g.b.SNegate(t, x)
	case ir.Not:
		return g.b.LogicalNot(t, x)
	}
	return g.b.Not(t, x)
}

func (g *gen) binary(e *ir.Binary) spirv.ID {
	b := g.b
	x, y := g.expr(e.X), g.expr(e.Y)
	xt, yt := e.X.Type(), e.Y.Type()
	t := g.typ(e.T)
	s := xt.Scalar()
	fl, sg := s.Kind() == ir.KindFloat, s.Kind() == ir.KindInt
	switch e.Op {
	case ir.Add, ir.Sub:
		if xt.Kind() == ir.KindMatrix {
			cols := make([]spirv.ID, xt.Len())
			ct := g.typ(xt.Elem())
			for i := range cols {
				cx, cy := b.CompositeExtract(ct, x, uint32(i)), b.CompositeExtract(ct, y, uint32(i))
				if e.Op == ir.Add {
					cols[i] = b.FAdd(ct, cx, cy)
				} else {
					cols[i] = b.FSub(ct, cx, cy)
				}
			}
			return b.CompositeConstruct(t, cols...)
		}
		switch {
		case e.Op == ir.Add && fl:
			return b.FAdd(t, x, y)
		case e.Op == ir.Add:
			return b.IAdd(t, x, y)
		case fl:
			return b.FSub(t, x, y)
		}
		return b.ISub(t, x, y)
	case ir.Mul:
		switch {
		case xt.Kind() == ir.KindMatrix && yt.Kind() == ir.KindMatrix:
			return b.MatrixTimesMatrix(t, x, y)
		case xt.Kind() == ir.KindMatrix && yt.Kind() == ir.KindVector:
			return b.MatrixTimesVector(t, x, y)
		case xt.Kind() == ir.KindVector && yt.Kind() == ir.KindMatrix:
			return b.VectorTimesMatrix(t, x, y)
		case xt.Kind() == ir.KindMatrix:
			return b.MatrixTimesScalar(t, x, y)
		case xt.Kind() == ir.KindVector && yt.Kind() != ir.KindVector:
			return b.VectorTimesScalar(t, x, y)
		case fl:
			return b.FMul(t, x, y)
		}
		return b.IMul(t, x, y)
	case ir.Div, ir.Rem:
		if g.opts.Checked && !fl && xt.Kind() != ir.KindMatrix {
			g.checkDivisor(y, yt)
		}
	}
	switch e.Op {
	case ir.Div:
		if xt.Kind() == ir.KindMatrix {
			return b.MatrixTimesScalar(t, x, b.FDiv(g.f32, b.ConstantFloat32(1), y))
		}
		if xt != yt {
			y = g.splat(xt, y)
		}
		switch {
		case fl:
			return b.FDiv(t, x, y)
		case sg:
			return b.SDiv(t, x, y)
		}
		return b.UDiv(t, x, y)
	case ir.Rem:
		switch {
		case fl:
			return b.FRem(t, x, y)
		case sg && s.Bits() == 64 && isLiteral(e.Y):
			// Mesa 22.3 (lavapipe) computes a 64-bit OpSRem by a
			// constant as a modulo (the sign of the divisor: -1 % 4
			// gives 3) when x is a 32-bit value sign-extended, as Go's
			// int64(v) % 4 is (device: TestSignedRemainderByConstant).
			// x - (x/c)*c is the truncated remainder exactly, and x is
			// evaluated once. 32-bit widths and variable divisors are
			// right there, so they keep OpSRem.
			return b.ISub(t, x, b.IMul(t, b.SDiv(t, x, y), y))
		case sg:
			return b.SRem(t, x, y)
		}
		return b.UMod(t, x, y)
	case ir.And, ir.Or, ir.Xor, ir.LogicAnd, ir.LogicOr:
		if s == ir.TBool {
			switch e.Op {
			case ir.And, ir.LogicAnd:
				return b.LogicalAnd(t, x, y)
			case ir.Or, ir.LogicOr:
				return b.LogicalOr(t, x, y)
			}
			return b.LogicalNotEqual(t, x, y)
		}
		switch e.Op {
		case ir.And:
			return b.BitwiseAnd(t, x, y)
		case ir.Or:
			return b.BitwiseOr(t, x, y)
		}
		return b.BitwiseXor(t, x, y)
	case ir.Shl, ir.Shr:
		// Go's rule: a count of the width or more shifts everything out.
		w := g.numConst(yt, float64(s.Bits()))
		in := b.ULessThan(g.typ(ir.BoolLike(yt)), y, w)
		var shifted, out spirv.ID
		switch {
		case e.Op == ir.Shl:
			shifted, out = b.ShiftLeftLogical(t, x, y), g.numConst(xt, 0)
		case sg:
			shifted = b.ShiftRightArithmetic(t, x, y)
			out = b.ShiftRightArithmetic(t, x, g.numConst(yt, float64(s.Bits()-1)))
		default:
			shifted, out = b.ShiftRightLogical(t, x, y), g.numConst(xt, 0)
		}
		return b.Select(t, in, shifted, out)
	}
	// comparisons
	if s == ir.TBool {
		if e.Op == ir.Eq {
			return b.LogicalEqual(t, x, y)
		}
		return b.LogicalNotEqual(t, x, y)
	}
	type ops struct {
		f, s, u func(t, x, y spirv.ID) spirv.ID
	}
	var o ops
	switch e.Op {
	case ir.Eq:
		o = ops{b.FOrdEqual, b.IEqual, b.IEqual}
	case ir.Ne:
		o = ops{b.FUnordNotEqual, b.INotEqual, b.INotEqual}
	case ir.Lt:
		o = ops{b.FOrdLessThan, b.SLessThan, b.ULessThan}
	case ir.Le:
		o = ops{b.FOrdLessThanEqual, b.SLessThanEqual, b.ULessThanEqual}
	case ir.Gt:
		o = ops{b.FOrdGreaterThan, b.SGreaterThan, b.UGreaterThan}
	case ir.Ge:
		o = ops{b.FOrdGreaterThanEqual, b.SGreaterThanEqual, b.UGreaterThanEqual}
	}
	switch {
	case fl:
		return o.f(t, x, y)
	case sg:
		return o.s(t, x, y)
	}
	return o.u(t, x, y)
}

func (g *gen) cast(e *ir.Cast) spirv.ID {
	b := g.b
	x := g.expr(e.X)
	from, to := e.X.Type(), e.T
	t := g.typ(to)
	if e.Bit || from == to {
		if from == to {
			return x
		}
		return b.Bitcast(t, x)
	}
	fs, ts := from.Scalar(), to.Scalar()
	switch {
	case fs == ir.TBool:
		return b.Select(t, x, g.numConst(to, 1), g.numConst(to, 0))
	case ts == ir.TBool:
		if fs.Kind() == ir.KindFloat {
			return b.FUnordNotEqual(t, x, g.numConst(from, 0))
		}
		return b.INotEqual(t, x, g.numConst(from, 0))
	case fs.Kind() == ir.KindFloat && ts.Kind() == ir.KindFloat:
		return b.FConvert(t, x)
	case fs.Kind() == ir.KindFloat && ts.Kind() == ir.KindInt:
		return b.ConvertFToS(t, x)
	case fs.Kind() == ir.KindFloat:
		return b.ConvertFToU(t, x)
	case ts.Kind() == ir.KindFloat:
		// NoContraction keeps the rounding: Mesa's NIR folds
		// int32(float32(x)) to x unless the conversion is exact, so
		// 1<<24 + 1 came back unrounded on lavapipe.
		var r spirv.ID
		if fs.Kind() == ir.KindInt {
			r = b.ConvertSToF(t, x)
		} else {
			r = b.ConvertUToF(t, x)
		}
		b.Decorate(r, spirv.DecorationNoContraction)
		return r
	}
	// integer to integer
	if fs.Bits() == ts.Bits() {
		return b.Bitcast(t, x)
	}
	// Extend by the source's signedness, then fix the result's signedness.
	mid := to
	if fs.Kind() != ts.Kind() {
		mid = ir.Int(ts.Bits())
		if fs.Kind() == ir.KindUint {
			mid = ir.Uint(ts.Bits())
		}
		if to.Kind() == ir.KindVector {
			mid = ir.Vector(mid, to.Len())
		}
	}
	var v spirv.ID
	if fs.Kind() == ir.KindInt {
		v = b.SConvert(g.typ(mid), x)
	} else {
		v = b.UConvert(g.typ(mid), x)
	}
	if mid != to {
		v = b.Bitcast(t, v)
	}
	return v
}

// isLiteral reports whether e is a constant scalar.
func isLiteral(e ir.Expr) bool {
	_, ok := e.(*ir.Literal)
	return ok
}
