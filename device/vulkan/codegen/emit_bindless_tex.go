package codegen

import (
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

// Bindless texture codegen, kernel ABI v1 (emulated bindless). A texture slot
// record is
//
//	offset 0  u64 address of a linear mirror of level 0 (0: empty slot)
//	offset 8  u64 size of the mirror's texels in bytes
//	offset 16 u32 width, u32 height, u32 depth (1)
//	offset 28 u32 format | sampler<<8
//
// where format = class<<4 | channels (class 1: 32-bit float, 2: 8-bit unorm,
// 3: 16-bit float; channels 1, 2 or 4) and sampler = filter<<2 | address, the
// device package's Sampler.Index. Texels are tightly packed rows, and the
// mirror is followed by 16 readable bytes, so a texel is fetched with one
// 16-byte load (4-aligned) whatever its format and decoded without branches:
//
//	o = (y*w + x) * bpp; q = load4(addr + o&^3); s = q.x >> (o&3)*8
//	f32: bitcast(q)   unorm8: unpackUnorm4x8(s)   f16: (unpackHalf2x16(s), unpackHalf2x16(q.y))
//
// Channels a format lacks read as 0 (alpha as 1). Sampling applies the
// sampler's address mode to the integer texel coordinates of each tap (edge,
// repeat, mirrored repeat, or the border outside), then either takes the nearest
// texel or blends four bilinearly on level 0.
const (
	bindlessTexF32    = 1
	bindlessTexUnorm8 = 2
	bindlessTexF16    = 3
)

// bindlessTexture emits a read, size query or sample of a bindless 2D
// texture: the slot record gives the size and whether the slot holds a
// texture, and the texel comes from the mirror (emulated) or the argument's
// descriptor array (native, emit_bindless_native.go) inside a block guarded
// by that.
func (g *gen) bindlessTexture(e *ir.Call) spirv.ID {
	b := g.b
	v := e.Args[0].(*ir.Ref).Var
	p := g.vars[v]
	heap, native := g.texHeap[v]
	u64 := b.TypeInt(64, false)
	uvec2, uvec4 := b.TypeVector(g.u32, 2), b.TypeVector(g.u32, 4)
	vec4 := b.TypeVector(g.f32, 4)
	slot := g.expr(e.Args[1])
	var addr spirv.ID
	if !native {
		addr = b.Load(u64, b.AccessChain(g.ptr(spirv.StorageClassStorageBuffer, u64), p.ptr,
			b.ConstantUint32(0), slot, b.ConstantUint32(0)))
	}
	info := b.Load(uvec4, b.AccessChain(g.ptr(spirv.StorageClassStorageBuffer, uvec4), p.ptr,
		b.ConstantUint32(0), slot, b.ConstantUint32(2)))
	w, h := b.CompositeExtract(g.u32, info, 0), b.CompositeExtract(g.u32, info, 1)
	if e.Op == ir.OpBindlessTexSize {
		return b.CompositeConstruct(uvec2, w, h)
	}
	coord := g.expr(e.Args[2])
	var word, ok spirv.ID
	if native {
		ok = b.INotEqual(g.boolT, w, b.ConstantUint32(0)) // an empty slot's record is zero
	} else {
		word = b.CompositeExtract(g.u32, info, 3)
		ok = b.INotEqual(g.boolT, addr, b.ConstantUint64(0))
	}
	if g.opts.Checked {
		g.checkSlot(v, slot, ok)
	}
	if e.Op == ir.OpBindlessTexRead {
		x, y := b.CompositeExtract(g.u32, coord, 0), b.CompositeExtract(g.u32, coord, 1)
		ok = b.LogicalAnd(g.boolT, ok, b.LogicalAnd(g.boolT, b.ULessThan(g.boolT, x, w), b.ULessThan(g.boolT, y, h)))
	}
	result := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, vec4), 0)
	b.Store(result, b.ConstantNull(vec4))
	then, merge := g.sfn.NewBlock(), g.sfn.NewBlock()
	b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
	b.BranchConditional(ok, then.ID(), merge.ID())
	b.SetBlock(then)
	fetch := func(x, y spirv.ID) spirv.ID { return g.texelFetch(addr, w, word, x, y) }
	if native {
		b.Store(result, g.nativeTexel(e.Op, heap, slot, coord))
	} else if e.Op == ir.OpBindlessTexRead {
		// Clamped although ok already holds: the address stays on the
		// mirror even where a driver runs the block for inactive lanes.
		last := func(n spirv.ID) spirv.ID { return b.ISub(g.u32, n, b.ConstantUint32(1)) }
		x := b.GLSL(g.u32, spirv.GLSLUMin, b.CompositeExtract(g.u32, coord, 0), last(w))
		y := b.GLSL(g.u32, spirv.GLSLUMin, b.CompositeExtract(g.u32, coord, 1), last(h))
		b.Store(result, fetch(x, y))
	} else {
		b.Store(result, g.texelSample(w, h, word, coord, fetch))
	}
	b.Branch(merge.ID())
	b.SetBlock(merge)
	return b.Load(vec4, result)
}

// texelFetch loads and decodes texel (x, y), both in range, of the mirror at addr.
func (g *gen) texelFetch(addr, w, word, x, y spirv.ID) spirv.ID {
	b := g.b
	u64 := b.TypeInt(64, false)
	vec2, vec4, uvec4 := b.TypeVector(g.f32, 2), b.TypeVector(g.f32, 4), b.TypeVector(g.u32, 4)
	bvec4 := b.TypeVector(g.boolT, 4)
	u := b.ConstantUint32
	class := b.BitwiseAnd(g.u32, b.ShiftRightLogical(g.u32, word, u(4)), u(15))
	chans := b.BitwiseAnd(g.u32, word, u(15))
	isF32 := b.IEqual(g.boolT, class, u(bindlessTexF32))
	isU8 := b.IEqual(g.boolT, class, u(bindlessTexUnorm8))
	bpp := b.IMul(g.u32, chans, b.Select(g.u32, isF32, u(4), b.Select(g.u32, isU8, u(1), u(2))))
	idx := b.IAdd(u64, b.IMul(u64, b.UConvert(u64, y), b.UConvert(u64, w)), b.UConvert(u64, x))
	off := b.IMul(u64, idx, b.UConvert(u64, bpp))
	base := b.IAdd(u64, addr, b.BitwiseAnd(u64, off, b.ConstantUint64(^uint64(3))))
	shift := b.IMul(g.u32, b.BitwiseAnd(g.u32, b.UConvert(g.u32, off), u(3)), u(8))
	// One 16-byte load (4-aligned): lavapipe gathers a load lane by lane,
	// so one vector load costs about what one word does.
	qv := b.Load(uvec4, b.ConvertUToPtr(g.ptr(spirv.StorageClassPhysicalStorageBuffer, uvec4), base), uint32(spirv.MemoryAccessAligned), 4)
	q := [4]spirv.ID{b.CompositeExtract(g.u32, qv, 0), b.CompositeExtract(g.u32, qv, 1)}
	f32v := b.Bitcast(vec4, qv)
	s := b.ShiftRightLogical(g.u32, q[0], shift)
	u8v := b.GLSL(vec4, spirv.GLSLUnpackUnorm4x8, s)
	lo, hi := b.GLSL(vec2, spirv.GLSLUnpackHalf2x16, s), b.GLSL(vec2, spirv.GLSLUnpackHalf2x16, q[1])
	f16v := b.VectorShuffle(vec4, lo, hi, 0, 1, 2, 3)
	splat := func(c spirv.ID) spirv.ID { return b.CompositeConstruct(bvec4, c, c, c, c) }
	v := b.Select(vec4, splat(isF32), f32v, b.Select(vec4, splat(isU8), u8v, f16v))
	keep := b.UGreaterThan(bvec4, b.CompositeConstruct(uvec4, chans, chans, chans, chans),
		b.ConstantComposite(uvec4, u(0), u(1), u(2), u(3)))
	f := b.ConstantFloat32
	return b.Select(vec4, keep, v, b.ConstantComposite(vec4, f(0), f(0), f(0), f(1)))
}

// texelSample filters at normalised coordinates uv (a vec2) as the sampler in
// word says, fetching texels with fetch.
func (g *gen) texelSample(w, h, word, uv spirv.ID, fetch func(x, y spirv.ID) spirv.ID) spirv.ID {
	b := g.b
	u := b.ConstantUint32
	i := b.ConstantInt32
	f := b.ConstantFloat32
	vec2, vec4 := b.TypeVector(g.f32, 2), b.TypeVector(g.f32, 4)
	ivec2 := b.TypeVector(g.i32, 2)
	bvec2, bvec4 := b.TypeVector(g.boolT, 2), b.TypeVector(g.boolT, 4)
	smp := b.BitwiseAnd(g.u32, b.ShiftRightLogical(g.u32, word, u(8)), u(15))
	mode := b.BitwiseAnd(g.u32, smp, u(3))
	point := b.IEqual(g.boolT, b.ShiftRightLogical(g.u32, smp, u(2)), u(0))
	size := b.CompositeConstruct(ivec2, b.Bitcast(g.i32, w), b.Bitcast(g.i32, h))
	pos := b.FMul(vec2, uv, b.ConvertSToF(vec2, size))
	half := b.Select(g.f32, point, f(0), f(0.5))
	pos = b.FSub(vec2, pos, b.CompositeConstruct(vec2, half, half))
	fl := b.GLSL(vec2, spirv.GLSLFloor, pos)
	zero2 := b.ConstantNull(vec2)
	frac := b.Select(vec2, b.CompositeConstruct(bvec2, point, point), zero2, b.FSub(vec2, pos, fl))
	i0 := b.ConvertFToS(ivec2, fl)
	i1 := b.IAdd(ivec2, i0, b.ConstantComposite(ivec2, i(1), i(1)))
	isRepeat := b.IEqual(g.boolT, mode, u(1))
	isMirror := b.IEqual(g.boolT, mode, u(2))
	isZero := b.IEqual(g.boolT, mode, u(3))
	// wrap maps a texel coordinate to [0, n) and says whether it lies inside
	// the texture as far as the zero (border) mode is concerned.
	wrap := func(c, n spirv.ID) (spirv.ID, spirv.ID) {
		edge := b.GLSL(g.i32, spirv.GLSLSClamp, c, i(0), b.ISub(g.i32, n, i(1)))
		// c mod n from OpSRem and a fix-up: with OpSMod, lavapipe 22.3
		// fetched off the mirror (and crashed) for repeat and mirrored
		// taps; 32-bit OpSRem by a variable is exact there.
		mod := func(c, n spirv.ID) spirv.ID {
			r := b.SRem(g.i32, c, n)
			return b.Select(g.i32, b.SLessThan(g.boolT, r, i(0)), b.IAdd(g.i32, r, n), r)
		}
		rep := mod(c, n)
		n2 := b.IAdd(g.i32, n, n)
		m := mod(c, n2)
		mir := b.Select(g.i32, b.SLessThan(g.boolT, m, n), m, b.ISub(g.i32, b.ISub(g.i32, n2, i(1)), m))
		r := b.Select(g.i32, isRepeat, rep, b.Select(g.i32, isMirror, mir, edge))
		inside := b.LogicalAnd(g.boolT, b.SGreaterThanEqual(g.boolT, c, i(0)), b.SLessThan(g.boolT, c, n))
		return b.Bitcast(g.u32, r), b.LogicalOr(g.boolT, b.LogicalNot(g.boolT, isZero), inside)
	}
	wi, hi := b.Bitcast(g.i32, w), b.Bitcast(g.i32, h)
	x0, okx0 := wrap(b.CompositeExtract(g.i32, i0, 0), wi)
	x1, okx1 := wrap(b.CompositeExtract(g.i32, i1, 0), wi)
	y0, oky0 := wrap(b.CompositeExtract(g.i32, i0, 1), hi)
	y1, oky1 := wrap(b.CompositeExtract(g.i32, i1, 1), hi)
	// The border is transparent black, its alpha 1 for formats without one
	// (as the device's own samplers give it).
	rgba := b.IEqual(g.boolT, b.BitwiseAnd(g.u32, word, u(15)), u(4))
	border := b.Select(vec4, b.CompositeConstruct(bvec4, rgba, rgba, rgba, rgba),
		b.ConstantNull(vec4), b.ConstantComposite(vec4, f(0), f(0), f(0), f(1)))
	tap := func(x, okx, y, oky spirv.ID) spirv.ID {
		okc := b.LogicalAnd(g.boolT, okx, oky)
		return b.Select(vec4, b.CompositeConstruct(bvec4, okc, okc, okc, okc), fetch(x, y), border)
	}
	// Nearest takes one tap, bilinear four (a branch, not a blend by 0:
	// fetches dominate the cost, and a blend would turn an infinite
	// neighbour into NaN).
	result := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, vec4), 0)
	nearest, linear, merge := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
	b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
	b.BranchConditional(point, nearest.ID(), linear.ID())
	b.SetBlock(nearest)
	b.Store(result, tap(x0, okx0, y0, oky0))
	b.Branch(merge.ID())
	b.SetBlock(linear)
	t00, t10 := tap(x0, okx0, y0, oky0), tap(x1, okx1, y0, oky0)
	t01, t11 := tap(x0, okx0, y1, oky1), tap(x1, okx1, y1, oky1)
	splat := func(s spirv.ID) spirv.ID { return b.CompositeConstruct(vec4, s, s, s, s) }
	fx, fy := splat(b.CompositeExtract(g.f32, frac, 0)), splat(b.CompositeExtract(g.f32, frac, 1))
	r0 := b.GLSL(vec4, spirv.GLSLFMix, t00, t10, fx)
	r1 := b.GLSL(vec4, spirv.GLSLFMix, t01, t11, fx)
	b.Store(result, b.GLSL(vec4, spirv.GLSLFMix, r0, r1, fy))
	b.Branch(merge.ID())
	b.SetBlock(merge)
	return b.Load(vec4, result)
}
