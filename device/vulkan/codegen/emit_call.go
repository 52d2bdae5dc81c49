package codegen

import (
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

// glslFloat maps the float built-ins that are one GLSL.std.450 instruction.
var glslFloat = map[ir.Op]spirv.GLSLInst{
	ir.OpFloor: spirv.GLSLFloor, ir.OpCeil: spirv.GLSLCeil, ir.OpTrunc: spirv.GLSLTrunc, ir.OpFract: spirv.GLSLFract,
	ir.OpSqrt: spirv.GLSLSqrt, ir.OpInverseSqrt: spirv.GLSLInverseSqrt, ir.OpExp: spirv.GLSLExp, ir.OpExp2: spirv.GLSLExp2,
	ir.OpLog: spirv.GLSLLog, ir.OpLog2: spirv.GLSLLog2, ir.OpSin: spirv.GLSLSin, ir.OpCos: spirv.GLSLCos, ir.OpTan: spirv.GLSLTan,
	ir.OpAsin: spirv.GLSLAsin, ir.OpAcos: spirv.GLSLAcos, ir.OpAtan: spirv.GLSLAtan, ir.OpSinh: spirv.GLSLSinh,
	ir.OpCosh: spirv.GLSLCosh, ir.OpTanh: spirv.GLSLTanh, ir.OpAsinh: spirv.GLSLAsinh, ir.OpAcosh: spirv.GLSLAcosh,
	ir.OpAtanh: spirv.GLSLAtanh, ir.OpRadians: spirv.GLSLRadians, ir.OpDegrees: spirv.GLSLDegrees,
	ir.OpPow: spirv.GLSLPow, ir.OpAtan2: spirv.GLSLAtan2, ir.OpStep: spirv.GLSLStep, ir.OpLerp: spirv.GLSLFMix,
	ir.OpSmoothStep: spirv.GLSLSmoothStep, ir.OpFma: spirv.GLSLFma, ir.OpCross: spirv.GLSLCross,
	ir.OpLength: spirv.GLSLLength, ir.OpDistance: spirv.GLSLDistance, ir.OpNormalize: spirv.GLSLNormalize,
	ir.OpReflect: spirv.GLSLReflect, ir.OpDeterminant: spirv.GLSLDeterminant, ir.OpInverse: spirv.GLSLMatrixInverse,
}

func (g *gen) call(e *ir.Call) spirv.ID {
	b := g.b
	if e.Op >= ir.OpAtomicExchange && e.Op <= ir.OpAtomicMax {
		return g.atomic(e)
	}
	switch e.Op {
	case ir.OpBarrier:
		b.ControlBarrier(spirv.ScopeWorkgroup, spirv.ScopeWorkgroup,
			spirv.MemorySemanticsAcquireRelease|spirv.MemorySemanticsWorkgroupMemory|spirv.MemorySemanticsUniformMemory)
		return 0
	case ir.OpBufferSize:
		v := e.Args[0].(*ir.Ref).Var
		if v.Type.ByAddress() {
			// The view's element count, saturated to u32.
			n := b.GLSL(b.TypeInt(64, false), spirv.GLSLUMin, g.addrCount(v), b.ConstantUint64(1<<32-1))
			return b.UConvert(g.u32, n)
		}
		return b.ArrayLength(g.u32, g.vars[v].ptr, 0)
	case ir.OpTextureRead, ir.OpTextureWrite, ir.OpTextureSize, ir.OpTextureSample:
		return g.texture(e)
	case ir.OpBindlessRead, ir.OpBindlessWrite, ir.OpBindlessSize:
		return g.bindless(e)
	case ir.OpBindlessTexRead, ir.OpBindlessTexSample, ir.OpBindlessTexSize:
		return g.bindlessTexture(e)
	case ir.OpRayClosest, ir.OpRayAny:
		return g.ray(e)
	case ir.OpRayCandidate, ir.OpRayCommitProcedural, ir.OpRayCommitTriangle, ir.OpRayTerminate:
		return g.candidateOp(e)
	}
	args := make([]spirv.ID, len(e.Args))
	for i, a := range e.Args {
		args[i] = g.expr(a)
	}
	t := g.typ(e.T)
	var at *ir.Type
	if len(e.Args) > 0 {
		at = e.Args[0].Type()
	}
	if inst, ok := glslFloat[e.Op]; ok {
		return b.GLSL(t, inst, args...)
	}
	sk := ir.KindVoid
	if at != nil {
		sk = at.Scalar().Kind()
	}
	pick := func(f, s, u spirv.GLSLInst) spirv.GLSLInst {
		switch sk {
		case ir.KindFloat:
			return f
		case ir.KindInt:
			return s
		}
		return u
	}
	switch e.Op {
	case ir.OpAbs:
		if sk == ir.KindUint {
			return args[0]
		}
		return b.GLSL(t, pick(spirv.GLSLFAbs, spirv.GLSLSAbs, 0), args...)
	case ir.OpSign:
		return b.GLSL(t, pick(spirv.GLSLFSign, spirv.GLSLSSign, 0), args...)
	case ir.OpRound:
		// Half away from zero (Go's math.Round), exactly: t = trunc(x);
		// t + sign(x) when |x - t| >= 0.5.
		tr := b.GLSL(t, spirv.GLSLTrunc, args[0])
		d := b.GLSL(t, spirv.GLSLFAbs, b.FSub(t, args[0], tr))
		up := b.FOrdGreaterThanEqual(g.typ(ir.BoolLike(at)), d, g.numConst(at, 0.5))
		return b.Select(t, up, b.FAdd(t, tr, b.GLSL(t, spirv.GLSLFSign, args[0])), tr)
	case ir.OpSaturate:
		return b.GLSL(t, spirv.GLSLFClamp, args[0], g.numConst(at, 0), g.numConst(at, 1))
	case ir.OpMin:
		return b.GLSL(t, pick(spirv.GLSLFMin, spirv.GLSLSMin, spirv.GLSLUMin), args...)
	case ir.OpMax:
		return b.GLSL(t, pick(spirv.GLSLFMax, spirv.GLSLSMax, spirv.GLSLUMax), args...)
	case ir.OpClamp:
		return b.GLSL(t, pick(spirv.GLSLFClamp, spirv.GLSLSClamp, spirv.GLSLUClamp), args...)
	case ir.OpSelect:
		return b.Select(t, args[0], args[1], args[2])
	case ir.OpIsNaN:
		return b.IsNan(t, args[0])
	case ir.OpIsInf:
		return b.IsInf(t, args[0])
	case ir.OpDot:
		return b.Dot(t, args[0], args[1])
	case ir.OpTranspose:
		return b.Transpose(t, args[0])
	case ir.OpOuterProduct:
		bt := e.Args[1].Type()
		cols := make([]spirv.ID, bt.Len())
		for i := range cols {
			cols[i] = b.VectorTimesScalar(g.typ(at), args[0], b.CompositeExtract(g.f32, args[1], uint32(i)))
		}
		return b.CompositeConstruct(t, cols...)
	case ir.OpReduceSum, ir.OpReduceProd, ir.OpReduceMin, ir.OpReduceMax:
		acc := b.CompositeExtract(t, args[0], 0)
		for i := 1; i < at.Len(); i++ {
			c := b.CompositeExtract(t, args[0], uint32(i))
			switch e.Op {
			case ir.OpReduceSum:
				if sk == ir.KindFloat {
					acc = b.FAdd(t, acc, c)
				} else {
					acc = b.IAdd(t, acc, c)
				}
			case ir.OpReduceProd:
				if sk == ir.KindFloat {
					acc = b.FMul(t, acc, c)
				} else {
					acc = b.IMul(t, acc, c)
				}
			case ir.OpReduceMin:
				acc = b.GLSL(t, pick(spirv.GLSLFMin, spirv.GLSLSMin, spirv.GLSLUMin), acc, c)
			case ir.OpReduceMax:
				acc = b.GLSL(t, pick(spirv.GLSLFMax, spirv.GLSLSMax, spirv.GLSLUMax), acc, c)
			}
		}
		return acc
	case ir.OpAny:
		return b.Any(t, args[0])
	case ir.OpAll:
		return b.All(t, args[0])
	case ir.OpPopCount:
		return b.BitCount(t, args[0])
	case ir.OpBitReverse:
		return b.BitReverse(t, args[0])
	case ir.OpClz:
		// 31 - FindUMsb(x); FindUMsb(0) is -1, giving 32.
		msb := b.GLSL(t, spirv.GLSLFindUMsb, args[0])
		return b.ISub(t, g.numConst(at, 31), msb)
	case ir.OpCtz:
		// FindILsb(0) is -1 (all ones): clamp to 32 with an unsigned min.
		lsb := b.GLSL(t, spirv.GLSLFindILsb, args[0])
		ut := g.typ(ir.Vector(ir.TU32, max(at.Components(), 2)))
		if at.Components() == 1 {
			ut = g.u32
		}
		u := lsb
		if sk == ir.KindInt {
			u = b.Bitcast(ut, lsb)
		}
		m := b.GLSL(ut, spirv.GLSLUMin, u, g.numConst(uintLike(at), 32))
		if sk == ir.KindInt {
			return b.Bitcast(t, m)
		}
		return m
	case ir.OpSubgroupElect:
		return b.GroupNonUniformElect(t, spirv.ScopeSubgroup)
	case ir.OpSubgroupAll:
		return b.GroupNonUniformVote(spirv.OpGroupNonUniformAll, t, spirv.ScopeSubgroup, args[0])
	case ir.OpSubgroupAny:
		return b.GroupNonUniformVote(spirv.OpGroupNonUniformAny, t, spirv.ScopeSubgroup, args[0])
	case ir.OpSubgroupBallot:
		return b.GroupNonUniformBallot(t, spirv.ScopeSubgroup, args[0])
	case ir.OpSubgroupBroadcastFirst:
		return b.GroupNonUniformBroadcastFirst(t, spirv.ScopeSubgroup, args[0])
	case ir.OpSubgroupBroadcast, ir.OpSubgroupShuffle:
		return b.GroupNonUniformShuffle(spirv.OpGroupNonUniformShuffle, t, spirv.ScopeSubgroup, args[0], args[1])
	case ir.OpSubgroupAdd, ir.OpSubgroupMul, ir.OpSubgroupMin, ir.OpSubgroupMax, ir.OpSubgroupInclusiveAdd, ir.OpSubgroupExclusiveAdd:
		gop := spirv.GroupOperationReduce
		switch e.Op {
		case ir.OpSubgroupInclusiveAdd:
			gop = spirv.GroupOperationInclusiveScan
		case ir.OpSubgroupExclusiveAdd:
			gop = spirv.GroupOperationExclusiveScan
		}
		var op spirv.Op
		switch e.Op {
		case ir.OpSubgroupMul:
			op = pickOp(sk, spirv.OpGroupNonUniformFMul, spirv.OpGroupNonUniformIMul, spirv.OpGroupNonUniformIMul)
		case ir.OpSubgroupMin:
			op = pickOp(sk, spirv.OpGroupNonUniformFMin, spirv.OpGroupNonUniformSMin, spirv.OpGroupNonUniformUMin)
		case ir.OpSubgroupMax:
			op = pickOp(sk, spirv.OpGroupNonUniformFMax, spirv.OpGroupNonUniformSMax, spirv.OpGroupNonUniformUMax)
		default:
			op = pickOp(sk, spirv.OpGroupNonUniformFAdd, spirv.OpGroupNonUniformIAdd, spirv.OpGroupNonUniformIAdd)
		}
		return b.GroupNonUniformArith(op, t, spirv.ScopeSubgroup, gop, args[0])
	}
	g.fail("built-in %s", e.Op)
	return 0
}

func pickOp(k ir.Kind, f, s, u spirv.Op) spirv.Op {
	switch k {
	case ir.KindFloat:
		return f
	case ir.KindInt:
		return s
	}
	return u
}

// uintLike is the u32 scalar or vector shaped like t.
func uintLike(t *ir.Type) *ir.Type {
	if t.Kind() == ir.KindVector {
		return ir.Vector(ir.TU32, t.Len())
	}
	return ir.TU32
}

// atomic emits an atomic on a buffer element or shared variable, with
// relaxed semantics (barriers order memory).
// Outside the view of a buffer reached by device address, it does nothing
// and gives zero.
func (g *gen) atomic(e *ir.Call) spirv.ID {
	b := g.b
	p, sc, _, guard := g.addr(e.Args[0])
	scope := spirv.ScopeDevice
	if sc == spirv.StorageClassWorkgroup {
		scope = spirv.ScopeWorkgroup
	}
	vt := e.T
	if vt.Bits() == 64 {
		b.Capability(spirv.CapabilityInt64Atomics)
	}
	// The operands are evaluated before the guard (guarded).
	v := g.expr(e.Args[1])
	var nv spirv.ID
	if e.Op == ir.OpAtomicCAS {
		nv = g.expr(e.Args[2])
	}
	return g.guarded(guard, vt, func() spirv.ID { return g.atomicAt(e, p, sc, scope, v, nv) })
}

// atomicAt emits atomic e on pointer p with operand v (and the new value nv
// of a compare-and-swap).
func (g *gen) atomicAt(e *ir.Call, p spirv.ID, sc spirv.StorageClass, scope spirv.Scope, v, nv spirv.ID) spirv.ID {
	b := g.b
	sem := spirv.MemorySemanticsNone
	vt := e.T
	t := g.typ(vt)
	if vt.Kind() == ir.KindFloat {
		return g.floatAtomic(e, p, sc, scope, v, nv)
	}
	if e.Op == ir.OpAtomicCAS {
		return b.AtomicCompareExchange(t, p, scope, sem, sem, nv, v)
	}
	sg := vt.Kind() == ir.KindInt
	var op spirv.Op
	switch e.Op {
	case ir.OpAtomicExchange:
		op = spirv.OpAtomicExchange
	case ir.OpAtomicAdd:
		op = spirv.OpAtomicIAdd
	case ir.OpAtomicSub:
		op = spirv.OpAtomicISub
	case ir.OpAtomicAnd:
		op = spirv.OpAtomicAnd
	case ir.OpAtomicOr:
		op = spirv.OpAtomicOr
	case ir.OpAtomicXor:
		op = spirv.OpAtomicXor
	case ir.OpAtomicMin:
		op = spirv.OpAtomicUMin
		if sg {
			op = spirv.OpAtomicSMin
		}
	case ir.OpAtomicMax:
		op = spirv.OpAtomicUMax
		if sg {
			op = spirv.OpAtomicSMax
		}
	}
	return b.Atomic(op, t, p, scope, sem, v)
}

// floatAtomic emits a float32 atomic. Add and sub use the native
// instruction where the device has it. Everything else works on a u32 view
// of the same buffer memory (a second descriptor variable aliasing the
// buffer's binding): exchange and compare-and-swap on the bits directly
// (compare-and-swap compares bit patterns), add, sub, min and max as a
// compare-and-swap loop:
//
//	seen = *u
//	loop { old = seen; seen = cas(u, old, bits(op(float(old), v))); if seen == old break }
//	result = float(old)
func (g *gen) floatAtomic(e *ir.Call, p spirv.ID, sc spirv.StorageClass, scope spirv.Scope, v, nv spirv.ID) spirv.ID {
	b := g.b
	sem := spirv.MemorySemanticsNone
	f32 := g.f32
	root := ir.PlaceRoot(e.Args[0])
	if (e.Op == ir.OpAtomicAdd || e.Op == ir.OpAtomicSub) && g.opts.FloatAtomicAdd && !g.bits[root] {
		if e.Op == ir.OpAtomicSub {
			v = b.FNegate(f32, v)
		}
		b.Capability(spirv.CapabilityAtomicFloat32AddEXT)
		return b.AtomicFAdd(f32, p, scope, sem, v)
	}
	u := p // shared variables in g.bits are u32 already
	switch {
	case root != nil && root.Type.ByAddress():
		u = 0 // no descriptor to alias
	case !g.bits[root]:
		u = g.u32View(e.Args[0])
	}
	if u == 0 {
		g.fail("float32 atomic %s here needs native float atomics", e.Op)
		return 0
	}
	switch e.Op {
	case ir.OpAtomicExchange:
		return b.Bitcast(f32, b.Atomic(spirv.OpAtomicExchange, g.u32, u, scope, sem, b.Bitcast(g.u32, v)))
	case ir.OpAtomicCAS:
		return b.Bitcast(f32, b.AtomicCompareExchange(g.u32, u, scope, sem, sem, b.Bitcast(g.u32, nv), b.Bitcast(g.u32, v)))
	}
	seenVar := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, g.u32), 0)
	b.Store(seenVar, b.AtomicLoad(g.u32, u, scope, sem))
	header, body, cont, merge := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
	b.Branch(header.ID())
	b.SetBlock(header)
	b.LoopMerge(merge.ID(), cont.ID(), spirv.LoopControlNone)
	b.Branch(body.ID())
	b.SetBlock(body)
	old := b.Load(g.u32, seenVar)
	fo := b.Bitcast(f32, old)
	var nf spirv.ID
	switch e.Op {
	case ir.OpAtomicAdd:
		nf = b.FAdd(f32, fo, v)
	case ir.OpAtomicSub:
		nf = b.FSub(f32, fo, v)
	case ir.OpAtomicMin:
		nf = b.GLSL(f32, spirv.GLSLFMin, fo, v)
	case ir.OpAtomicMax:
		nf = b.GLSL(f32, spirv.GLSLFMax, fo, v)
	}
	seen := b.AtomicCompareExchange(g.u32, u, scope, sem, sem, b.Bitcast(g.u32, nf), old)
	b.Store(seenVar, seen)
	b.BranchConditional(b.IEqual(g.boolT, seen, old), merge.ID(), cont.ID())
	b.SetBlock(cont)
	b.Branch(header.ID())
	b.SetBlock(merge)
	return fo
}

// u32View returns a u32 pointer to the 4 bytes of buffer place e through an
// alias of the buffer's descriptor, or 0 when e is not in a buffer.
func (g *gen) u32View(e ir.Expr) spirv.ID {
	b := g.b
	var off spirv.ID // byte offset inside the buffer
	var root *ir.Var
	var walk func(e ir.Expr) bool
	walk = func(e ir.Expr) bool {
		switch e := e.(type) {
		case *ir.Index:
			xt := e.X.Type()
			// The index is evaluated once and brought to u32: a bitcast
			// only between types of the same width (spirv-val rejects an
			// int64 bitcast to uint32), a width conversion otherwise.
			i := g.expr(e.I)
			if e.I.Type().Bits() == 32 {
				i = b.Bitcast(g.u32, i)
			} else {
				i = b.UConvert(g.u32, i)
			}
			step := b.IMul(g.u32, i, b.ConstantUint32(uint32(e.T.Size())))
			if xt.Kind() == ir.KindBuffer {
				root = e.X.(*ir.Ref).Var
				off = step
				return true
			}
			if !walk(e.X) {
				return false
			}
			off = b.IAdd(g.u32, off, step)
			return true
		case *ir.Member:
			if !walk(e.X) {
				return false
			}
			off = b.IAdd(g.u32, off, b.ConstantUint32(uint32(e.X.Type().Fields()[e.Field].Offset)))
			return true
		}
		return false
	}
	if !walk(e) || root.Type.ByAddress() {
		return 0
	}
	alias, ok := g.aliases[root]
	if !ok {
		rt := b.TypeRuntimeArrayStride(g.u32, 4)
		bt := b.TypeStructOf(spirv.StructType{
			Members:     []spirv.Member{{Type: rt, Offset: spirv.Off(0)}},
			Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}},
		})
		alias = b.Variable(g.ptr(spirv.StorageClassStorageBuffer, bt), spirv.StorageClassStorageBuffer, 0)
		b.Decorate(alias, spirv.DecorationDescriptorSet, 0)
		b.Decorate(alias, spirv.DecorationBinding, uint32(g.binding[root]))
		g.aliases[root] = alias
	}
	idx := b.ShiftRightLogical(g.u32, off, b.ConstantUint32(2))
	return b.AccessChain(g.ptr(spirv.StorageClassStorageBuffer, g.u32), alias, b.ConstantUint32(0), idx)
}

// texture emits reads, writes and size queries of storage textures, and
// sampling emulated on them: bilinear (trilinear in 3D) filtering with
// clamp-to-edge addressing, from 4 (8) texel reads, so it works on devices
// without sampled-image support for the format or binding model.
func (g *gen) texture(e *ir.Call) spirv.ID {
	b := g.b
	tt := e.Args[0].Type()
	p := g.vars[e.Args[0].(*ir.Ref).Var]
	it := g.imageType(tt)
	img := b.Load(it, p.ptr)
	n := tt.Len()
	ivec := g.typ(ir.Vector(ir.TI32, n))
	texel := g.typ(tt.Elem())
	switch e.Op {
	case ir.OpTextureSize:
		b.Capability(spirv.CapabilityImageQuery)
		return b.Bitcast(g.typ(e.T), b.ImageQuerySize(ivec, img))
	case ir.OpTextureRead:
		c := g.expr(e.Args[1])
		if g.opts.Checked {
			g.checkTexel(e.Args[0].(*ir.Ref).Var, img, c, e.Args[1].Type())
		}
		return b.ImageRead(texel, img, b.Bitcast(ivec, c))
	case ir.OpTextureWrite:
		c := g.expr(e.Args[1])
		if g.opts.Checked {
			g.checkTexel(e.Args[0].(*ir.Ref).Var, img, c, e.Args[1].Type())
		}
		b.ImageWrite(img, b.Bitcast(ivec, c), g.expr(e.Args[2]))
		return 0
	}
	// OpTextureSample
	b.Capability(spirv.CapabilityImageQuery)
	fvecT := ir.Vector(ir.TF32, n)
	fvec := g.typ(fvecT)
	size := b.ImageQuerySize(ivec, img)
	fsize := b.ConvertSToF(fvec, size)
	pos := b.FSub(fvec, b.FMul(fvec, g.expr(e.Args[1]), fsize), g.numConst(fvecT, 0.5))
	fl := b.GLSL(fvec, spirv.GLSLFloor, pos)
	frac := b.FSub(fvec, pos, fl)
	i0 := b.ConvertFToS(ivec, fl)
	hi := b.ISub(ivec, size, g.numConst(ir.Vector(ir.TI32, n), 1))
	lo := g.numConst(ir.Vector(ir.TI32, n), 0)
	c0 := b.GLSL(ivec, spirv.GLSLSClamp, i0, lo, hi)
	c1 := b.GLSL(ivec, spirv.GLSLSClamp, b.IAdd(ivec, i0, g.numConst(ir.Vector(ir.TI32, n), 1)), lo, hi)
	// Corner c has coordinate bit d from c1 when set, from c0 otherwise.
	corners := make([]spirv.ID, 1<<n)
	for c := range corners {
		parts := make([]spirv.ID, n)
		for d := range n {
			src := c0
			if c>>d&1 == 1 {
				src = c1
			}
			parts[d] = b.CompositeExtract(g.i32, src, uint32(d))
		}
		corners[c] = b.ImageRead(texel, img, b.CompositeConstruct(ivec, parts...))
	}
	// Blend along x, then y (then z).
	for d := range n {
		w := g.splat(tt.Elem(), b.CompositeExtract(g.f32, frac, uint32(d)))
		next := make([]spirv.ID, len(corners)/2)
		for i := range next {
			next[i] = b.GLSL(texel, spirv.GLSLFMix, corners[2*i], corners[2*i+1], w)
		}
		corners = next
	}
	return corners[0]
}

// bindless reads, writes or sizes a buffer in a slot of an emulated bindless
// array by following the slot record's device address. Accesses past the
// slot's range, to an empty slot or to one holding a texture are skipped,
// reads then giving zero, so a bad index cannot fault the device:
//
//	rec = table[slot]; off = index * size(T)
//	if off + size(T) <= rec.size && rec.addr != 0 && rec.width == 0 { v = *(T*)(rec.addr + off) }
func (g *gen) bindless(e *ir.Call) spirv.ID {
	b := g.b
	p := g.vars[e.Args[0].(*ir.Ref).Var]
	u64 := b.TypeInt(64, false)
	slot := g.expr(e.Args[1])
	field := func(m uint32) spirv.ID {
		return b.Load(u64, b.AccessChain(g.ptr(spirv.StorageClassStorageBuffer, u64), p.ptr,
			b.ConstantUint32(0), slot, b.ConstantUint32(m)))
	}
	addr, size := field(0), field(1)
	// A texture slot's record has its width where a buffer's has 0: its
	// address is the texture's mirror, which buffer accesses must not reach.
	width := b.Load(g.u32, b.AccessChain(g.ptr(spirv.StorageClassStorageBuffer, g.u32), p.ptr,
		b.ConstantUint32(0), slot, b.ConstantUint32(2), b.ConstantUint32(0)))
	isBuf := b.IEqual(g.boolT, width, b.ConstantUint32(0))
	if e.Op == ir.OpBindlessSize {
		es := e.Args[2].(*ir.Literal).Bits
		n := b.UConvert(g.u32, b.UDiv(u64, size, b.ConstantUint64(es)))
		return b.Select(g.u32, isBuf, n, b.ConstantUint32(0))
	}
	t := e.T
	var value spirv.ID
	if e.Op == ir.OpBindlessWrite {
		t = e.Args[3].Type()
		value = g.relayout(g.expr(e.Args[3]), t, true)
	}
	es := b.ConstantUint64(uint64(t.Size()))
	off := b.IMul(u64, b.UConvert(u64, g.expr(e.Args[2])), es)
	present := b.INotEqual(g.boolT, addr, b.ConstantUint64(0))
	inRange := b.ULessThanEqual(g.boolT, b.IAdd(u64, off, es), size)
	if g.opts.Checked {
		v := e.Args[0].(*ir.Ref).Var
		g.checkSlot(v, slot, present)
		// The element index, with the slot's elements, where the slot
		// holds a buffer (an empty one faulted above).
		n := b.UDiv(u64, size, es)
		g.checkFault(b.LogicalOr(g.boolT, b.LogicalNot(g.boolT, b.LogicalAnd(g.boolT, present, isBuf)), inRange), faultBufferIndex,
			g.argIndex(v)|faultInSlot, g.sat32(b.UConvert(u64, g.expr(e.Args[2]))), g.sat32(n))
	}
	ok := b.LogicalAnd(g.boolT, b.LogicalAnd(g.boolT, inRange, present), isBuf)
	var result spirv.ID
	if e.Op == ir.OpBindlessRead {
		result = g.sfn.Variable(g.ptr(spirv.StorageClassFunction, g.typ(t)), 0)
		b.Store(result, b.ConstantNull(g.typ(t)))
	}
	then, merge := g.sfn.NewBlock(), g.sfn.NewBlock()
	b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
	b.BranchConditional(ok, then.ID(), merge.ID())
	b.SetBlock(then)
	ptr := b.ConvertUToPtr(g.ptr(spirv.StorageClassPhysicalStorageBuffer, g.etyp(t)), b.IAdd(u64, addr, off))
	align := uint32(t.Align())
	if e.Op == ir.OpBindlessWrite {
		b.Store(ptr, value, uint32(spirv.MemoryAccessAligned), align)
	} else {
		x := b.Load(g.etyp(t), ptr, uint32(spirv.MemoryAccessAligned), align)
		b.Store(result, g.relayout(x, t, false))
	}
	b.Branch(merge.ID())
	b.SetBlock(merge)
	if e.Op == ir.OpBindlessWrite {
		return 0
	}
	return b.Load(g.typ(t), result)
}

// findBits picks the f32 shared variables (scalars or arrays) that float
// atomics without native support touch: they are stored as u32 bits, their
// loads and stores bitcast, so compare-and-swap can work on them.
func (g *gen) findBits(f *ir.Function) {
	ir.WalkExprs(f, func(e ir.Expr) {
		c, ok := e.(*ir.Call)
		if !ok || c.Op < ir.OpAtomicExchange || c.Op > ir.OpAtomicMax || c.T != ir.TF32 {
			return
		}
		native := (c.Op == ir.OpAtomicAdd || c.Op == ir.OpAtomicSub) && g.opts.FloatAtomicAdd
		if r := ir.PlaceRoot(c.Args[0]); r != nil && r.Kind == ir.VarShared && !native && bitsType(r.Type) != nil {
			g.bits[r] = true
		}
	})
}

// bitsType is t with f32 replaced by u32, for f32 and arrays of f32 (nil otherwise).
func bitsType(t *ir.Type) *ir.Type {
	switch {
	case t == ir.TF32:
		return ir.TU32
	case t.Kind() == ir.KindArray && t.Elem() == ir.TF32:
		return ir.Array(ir.TU32, t.Len())
	}
	return nil
}

// fromBits and toBits convert a value of type t between its f32 form and
// the u32 form of a variable in g.bits.
func (g *gen) fromBits(v spirv.ID, t *ir.Type) spirv.ID { return g.convertBits(v, t, false) }
func (g *gen) toBits(v spirv.ID, t *ir.Type) spirv.ID   { return g.convertBits(v, t, true) }

func (g *gen) convertBits(v spirv.ID, t *ir.Type, to bool) spirv.ID {
	b := g.b
	from, dst := g.u32, g.f32
	if to {
		from, dst = g.f32, g.u32
	}
	if t == ir.TF32 {
		return b.Bitcast(dst, v)
	}
	parts := make([]spirv.ID, t.Len())
	for i := range parts {
		parts[i] = b.Bitcast(dst, b.CompositeExtract(from, v, uint32(i)))
	}
	if to {
		return b.CompositeConstruct(g.typ(bitsType(t)), parts...)
	}
	return b.CompositeConstruct(g.typ(t), parts...)
}
