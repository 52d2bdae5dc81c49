package spirv_test

import (
	"github.com/lucent-gpu/lucent/spirv"
)

// Hand-built compute modules of the shapes lucent's code generator emits.
// Each returns a Builder ready for Words (it is not called here, so tests can
// look at errors and benchmarks can time the whole build).

// kernel holds what every compute shape starts from.
type kernel struct {
	b                       *spirv.Builder
	void, boolT, u32, i32   spirv.ID
	f32, v3u32, v4f32       spirv.ID
	fn                      *spirv.Function
	gid                     spirv.ID
	sb                      spirv.StorageClass
	ptrSBf32, ptrSBu32, pfn spirv.ID
}

func newKernel(env spirv.TargetEnv, lx uint32) *kernel { return newKernel2D(env, lx, 1) }

func newKernel2D(env spirv.TargetEnv, lx, ly uint32) *kernel {
	b := spirv.NewBuilder(env)
	k := &kernel{b: b, sb: spirv.StorageClassStorageBuffer}
	b.Capability(spirv.CapabilityShader)
	b.Source(spirv.SourceLanguageUnknown, 0)
	k.void = b.TypeVoid()
	k.boolT = b.TypeBool()
	k.u32 = b.TypeInt(32, false)
	k.i32 = b.TypeInt(32, true)
	k.f32 = b.TypeFloat(32)
	k.v3u32 = b.TypeVector(k.u32, 3)
	k.v4f32 = b.TypeVector(k.f32, 4)
	k.ptrSBf32 = b.TypePointer(k.sb, k.f32)
	k.ptrSBu32 = b.TypePointer(k.sb, k.u32)
	k.gid = b.Variable(b.TypePointer(spirv.StorageClassInput, k.v3u32), spirv.StorageClassInput, 0)
	b.Decorate(k.gid, spirv.DecorationBuiltIn, uint32(spirv.BuiltInGlobalInvocationId))
	b.Name(k.gid, "gl_GlobalInvocationID")
	k.fn = b.Function(k.void, b.TypeFunction(k.void))
	b.Name(k.fn.ID(), "main")
	b.EntryPoint(spirv.ExecutionModelGLCompute, k.fn.ID(), "main")
	b.LocalSize(k.fn.ID(), lx, ly, 1)
	b.SetBlock(k.fn.NewBlock())
	return k
}

// buffer declares a storage buffer of elem (stride bytes) at binding.
func (k *kernel) buffer(elem spirv.ID, stride, binding uint32, name string) spirv.ID {
	b := k.b
	st := b.TypeStructOf(spirv.StructType{
		Name:        name + "_t",
		Members:     []spirv.Member{{Type: b.TypeRuntimeArrayStride(elem, stride), Name: "data", Offset: spirv.Off(0)}},
		Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}},
	})
	v := b.Variable(b.TypePointer(k.sb, st), k.sb, 0)
	b.Decorate(v, spirv.DecorationDescriptorSet, 0)
	b.Decorate(v, spirv.DecorationBinding, binding)
	b.Name(v, name)
	return v
}

func (k *kernel) index() spirv.ID {
	return k.b.CompositeExtract(k.u32, k.b.Load(k.v3u32, k.gid), 0)
}

func (k *kernel) elem(buf, ptrT, i spirv.ID) spirv.ID {
	return k.b.AccessChain(ptrT, buf, k.b.ConstantUint32(0), i)
}

// pushConstants declares the kernel-ABI push block: dispatch_size (uvec3 at
// 0), block_offset (uvec3 at 12, which needs scalar block layout), then the
// user members from offset 24.
func (k *kernel) pushConstants(user ...spirv.Member) spirv.ID {
	b := k.b
	members := append([]spirv.Member{
		{Type: k.v3u32, Name: "dispatch_size", Offset: spirv.Off(0)},
		{Type: k.v3u32, Name: "block_offset", Offset: spirv.Off(12)},
	}, user...)
	st := b.TypeStructOf(spirv.StructType{Name: "Push", Members: members,
		Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}}})
	pc := b.Variable(b.TypePointer(spirv.StorageClassPushConstant, st), spirv.StorageClassPushConstant, 0)
	b.Name(pc, "push")
	return pc
}

// saxpy: y[i] = a*x[i] + y[i] for i < n, a from push constants, with an
// early return for threads past dispatch_size.x.
func saxpy(env spirv.TargetEnv) *spirv.Builder {
	k := newKernel(env, 64)
	b := k.b
	x := k.buffer(k.f32, 4, 0, "x")
	y := k.buffer(k.f32, 4, 1, "y")
	pc := k.pushConstants(spirv.Member{Type: k.f32, Name: "a", Offset: spirv.Off(24)})
	i := k.index()
	n := b.Load(k.u32, b.AccessChain(b.TypePointer(spirv.StorageClassPushConstant, k.u32), pc, b.ConstantInt32(0), b.ConstantInt32(0)))
	body, merge := k.fn.NewBlock(), k.fn.NewBlock()
	b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
	b.BranchConditional(b.ULessThan(k.boolT, i, n), body.ID(), merge.ID())
	b.SetBlock(body)
	a := b.Load(k.f32, b.AccessChain(b.TypePointer(spirv.StorageClassPushConstant, k.f32), pc, b.ConstantInt32(2)))
	py := k.elem(y, k.ptrSBf32, i)
	b.Store(py, b.GLSL(k.f32, spirv.GLSLFma, a, b.Load(k.f32, k.elem(x, k.ptrSBf32, i)), b.Load(k.f32, py)))
	b.Branch(merge.ID())
	b.SetBlock(merge)
	b.Return()
	return b
}

// reduce sums 64 floats per workgroup through shared memory with barriers and
// a structured loop whose counter is a phi: out[group] = sum(in[group*64 ...]).
func reduce(env spirv.TargetEnv) *spirv.Builder {
	k := newKernel(env, 64)
	b := k.b
	in := k.buffer(k.f32, 4, 0, "in")
	out := k.buffer(k.f32, 4, 1, "out")
	lid := b.Variable(b.TypePointer(spirv.StorageClassInput, k.v3u32), spirv.StorageClassInput, 0)
	b.Decorate(lid, spirv.DecorationBuiltIn, uint32(spirv.BuiltInLocalInvocationId))
	wid := b.Variable(b.TypePointer(spirv.StorageClassInput, k.v3u32), spirv.StorageClassInput, 0)
	b.Decorate(wid, spirv.DecorationBuiltIn, uint32(spirv.BuiltInWorkgroupId))
	shared := b.Variable(b.TypePointer(spirv.StorageClassWorkgroup, b.TypeArray(k.f32, 64)), spirv.StorageClassWorkgroup, 0)
	b.Name(shared, "partial")
	pWG := b.TypePointer(spirv.StorageClassWorkgroup, k.f32)
	entry := b.CurrentBlock()
	i := k.index()
	l := b.CompositeExtract(k.u32, b.Load(k.v3u32, lid), 0)
	g := b.CompositeExtract(k.u32, b.Load(k.v3u32, wid), 0)
	b.Store(b.AccessChain(pWG, shared, l), b.Load(k.f32, k.elem(in, k.ptrSBf32, i)))
	b.ControlBarrier(spirv.ScopeWorkgroup, spirv.ScopeWorkgroup, spirv.MemorySemanticsWorkgroupMemory|spirv.MemorySemanticsAcquireRelease)
	// for s := 32; s > 0; s >>= 1 { if l < s { partial[l] += partial[l+s] }; barrier }
	header, body, then, join, cont, merge := k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock()
	b.Branch(header.ID())
	b.SetBlock(header)
	next := b.NewID()
	s := b.Phi(k.u32, spirv.PhiIncoming{Value: b.ConstantUint32(32), Parent: entry.ID()})
	b.LoopMerge(merge.ID(), cont.ID(), spirv.LoopControlNone)
	b.BranchConditional(b.UGreaterThan(k.boolT, s, b.ConstantUint32(0)), body.ID(), merge.ID())
	b.SetBlock(body)
	b.SelectionMerge(join.ID(), spirv.SelectionControlNone)
	b.BranchConditional(b.ULessThan(k.boolT, l, s), then.ID(), join.ID())
	b.SetBlock(then)
	pl := b.AccessChain(pWG, shared, l)
	other := b.Load(k.f32, b.AccessChain(pWG, shared, b.IAdd(k.u32, l, s)))
	b.Store(pl, b.FAdd(k.f32, b.Load(k.f32, pl), other))
	b.Branch(join.ID())
	b.SetBlock(join)
	b.ControlBarrier(spirv.ScopeWorkgroup, spirv.ScopeWorkgroup, spirv.MemorySemanticsWorkgroupMemory|spirv.MemorySemanticsAcquireRelease)
	b.Branch(cont.ID())
	b.SetBlock(cont)
	shifted := b.ShiftRightLogical(k.u32, s, b.ConstantUint32(1))
	b.AddPhiIncoming(header, s, spirv.PhiIncoming{Value: shifted, Parent: cont.ID()})
	_ = next
	b.Branch(header.ID())
	b.SetBlock(merge)
	first, done := k.fn.NewBlock(), k.fn.NewBlock()
	b.SelectionMerge(done.ID(), spirv.SelectionControlNone)
	b.BranchConditional(b.IEqual(k.boolT, l, b.ConstantUint32(0)), first.ID(), done.ID())
	b.SetBlock(first)
	b.Store(k.elem(out, k.ptrSBf32, g), b.Load(k.f32, b.AccessChain(pWG, shared, b.ConstantUint32(0))))
	b.Branch(done.ID())
	b.SetBlock(done)
	b.Return()
	return b
}

// atomics: counts[i%4] += 1 (uint atomic), sum[0] += x[i] (float atomic add),
// max[0] = max(max[0], i) and a compare-exchange on counts[4].
func atomics(env spirv.TargetEnv) *spirv.Builder {
	k := newKernel(env, 64)
	b := k.b
	b.Capability(spirv.CapabilityAtomicFloat32AddEXT)
	x := k.buffer(k.f32, 4, 0, "x")
	counts := k.buffer(k.u32, 4, 1, "counts")
	sum := k.buffer(k.f32, 4, 2, "sum")
	i := k.index()
	v := b.Load(k.f32, k.elem(x, k.ptrSBf32, i))
	bucket := b.UMod(k.u32, i, b.ConstantUint32(4))
	b.AtomicIAdd(k.u32, k.elem(counts, k.ptrSBu32, bucket), spirv.ScopeDevice, spirv.MemorySemanticsRelaxed, b.ConstantUint32(1))
	b.AtomicFAdd(k.f32, k.elem(sum, k.ptrSBf32, b.ConstantUint32(0)), spirv.ScopeDevice, spirv.MemorySemanticsRelaxed, v)
	b.Atomic(spirv.OpAtomicUMax, k.u32, k.elem(counts, k.ptrSBu32, b.ConstantUint32(5)), spirv.ScopeDevice, spirv.MemorySemanticsRelaxed, i)
	b.AtomicCompareExchange(k.u32, k.elem(counts, k.ptrSBu32, b.ConstantUint32(4)), spirv.ScopeDevice,
		spirv.MemorySemanticsRelaxed, spirv.MemorySemanticsRelaxed, b.ConstantUint32(1), b.ConstantUint32(0))
	b.AtomicIIncrement(k.u32, k.elem(counts, k.ptrSBu32, b.ConstantUint32(6)), spirv.ScopeDevice, spirv.MemorySemanticsRelaxed)
	b.MemoryBarrier(spirv.ScopeDevice, spirv.MemorySemanticsUniformMemory|spirv.MemorySemanticsAcquireRelease)
	b.Return()
	return b
}

// control: a loop over j < 8 with a phi accumulator, an if/else, and a switch
// on j%4: out[i] = sum over j of (case 0: j, case 1: 2j, case 2: -1, default: 0) + (j even ? 1 : 3).
func control(env spirv.TargetEnv) *spirv.Builder {
	k := newKernel(env, 64)
	b := k.b
	out := k.buffer(k.i32, 4, 0, "out")
	entry := b.CurrentBlock()
	i := k.index()
	header, body, cont, merge := k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock()
	zero := b.ConstantInt32(0)
	b.Branch(header.ID())
	b.SetBlock(header)
	j := b.Phi(k.i32, spirv.PhiIncoming{Value: zero, Parent: entry.ID()})
	acc := b.Phi(k.i32, spirv.PhiIncoming{Value: zero, Parent: entry.ID()})
	b.LoopMerge(merge.ID(), cont.ID(), spirv.LoopControlDontUnroll)
	b.BranchConditional(b.SLessThan(k.boolT, j, b.ConstantInt32(8)), body.ID(), merge.ID())

	b.SetBlock(body)
	even, odd, ifMerge := k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock()
	isEven := b.IEqual(k.boolT, b.BitwiseAnd(k.i32, j, b.ConstantInt32(1)), zero)
	b.SelectionMerge(ifMerge.ID(), spirv.SelectionControlNone)
	b.BranchConditional(isEven, even.ID(), odd.ID())
	b.SetBlock(even)
	b.Branch(ifMerge.ID())
	b.SetBlock(odd)
	b.Branch(ifMerge.ID())
	b.SetBlock(ifMerge)
	add := b.Phi(k.i32, spirv.PhiIncoming{Value: b.ConstantInt32(1), Parent: even.ID()}, spirv.PhiIncoming{Value: b.ConstantInt32(3), Parent: odd.ID()})

	c0, c1, c2, def, swMerge := k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock()
	b.SelectionMerge(swMerge.ID(), spirv.SelectionControlNone)
	b.Switch(b.SMod(k.i32, j, b.ConstantInt32(4)), def.ID(),
		spirv.SwitchCase{Value: 0, Target: c0.ID()}, spirv.SwitchCase{Value: 1, Target: c1.ID()}, spirv.SwitchCase{Value: 2, Target: c2.ID()})
	var vals []spirv.PhiIncoming
	b.SetBlock(c0)
	vals = append(vals, spirv.PhiIncoming{Value: j, Parent: c0.ID()})
	b.Branch(swMerge.ID())
	b.SetBlock(c1)
	vals = append(vals, spirv.PhiIncoming{Value: b.IMul(k.i32, j, b.ConstantInt32(2)), Parent: c1.ID()})
	b.Branch(swMerge.ID())
	b.SetBlock(c2)
	vals = append(vals, spirv.PhiIncoming{Value: b.ConstantInt32(-1), Parent: c2.ID()})
	b.Branch(swMerge.ID())
	b.SetBlock(def)
	vals = append(vals, spirv.PhiIncoming{Value: zero, Parent: def.ID()})
	b.Branch(swMerge.ID())
	b.SetBlock(swMerge)
	sw := b.Phi(k.i32, vals...)
	b.Branch(cont.ID())

	b.SetBlock(cont)
	acc2 := b.IAdd(k.i32, acc, b.IAdd(k.i32, sw, add))
	j2 := b.IAdd(k.i32, j, b.ConstantInt32(1))
	b.AddPhiIncoming(header, j, spirv.PhiIncoming{Value: j2, Parent: cont.ID()})
	b.AddPhiIncoming(header, acc, spirv.PhiIncoming{Value: acc2, Parent: cont.ID()})
	b.Branch(header.ID())

	b.SetBlock(merge)
	b.Store(k.elem(out, b.TypePointer(k.sb, k.i32), i), b.IAdd(k.i32, acc, b.Bitcast(k.i32, i)))
	b.Return()
	return b
}

// glslMath: out[i] = sqrt(|x|) + sin(x)*cos(x) + pow(2, clamp(x, -4, 4)) + floor(x) + fma(x, x, 1) + max(min(x, 3), -3) + exp(x/8).
func glslMath(env spirv.TargetEnv) *spirv.Builder {
	k := newKernel(env, 64)
	b := k.b
	in := k.buffer(k.f32, 4, 0, "in")
	out := k.buffer(k.f32, 4, 1, "out")
	i := k.index()
	x := b.Load(k.f32, k.elem(in, k.ptrSBf32, i))
	f := k.f32
	c := b.ConstantFloat32
	terms := []spirv.ID{
		b.GLSL(f, spirv.GLSLSqrt, b.GLSL(f, spirv.GLSLFAbs, x)),
		b.FMul(f, b.GLSL(f, spirv.GLSLSin, x), b.GLSL(f, spirv.GLSLCos, x)),
		b.GLSL(f, spirv.GLSLPow, c(2), b.GLSL(f, spirv.GLSLFClamp, x, c(-4), c(4))),
		b.GLSL(f, spirv.GLSLFloor, x),
		b.GLSL(f, spirv.GLSLFma, x, x, c(1)),
		b.GLSL(f, spirv.GLSLFMax, b.GLSL(f, spirv.GLSLFMin, x, c(3)), c(-3)),
		b.GLSL(f, spirv.GLSLExp, b.FDiv(f, x, c(8))),
	}
	sum := terms[0]
	for _, t := range terms[1:] {
		sum = b.FAdd(f, sum, t)
	}
	b.Store(k.elem(out, k.ptrSBf32, i), sum)
	return finish(b)
}

func finish(b *spirv.Builder) *spirv.Builder {
	b.Return()
	return b
}

// deviceAddress: the push block holds two PhysicalStorageBuffer pointers
// (kernel ABI for buffers past maxStorageBufferRange): dst[i] = src[i] * 3.
func deviceAddress(env spirv.TargetEnv) *spirv.Builder {
	k := newKernel(env, 64)
	b := k.b
	psb := spirv.StorageClassPhysicalStorageBuffer
	data := b.TypeStructOf(spirv.StructType{
		Name:        "Data",
		Members:     []spirv.Member{{Type: b.TypeRuntimeArrayStride(k.f32, 4), Offset: spirv.Off(0)}},
		Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}},
	})
	ptrData := b.TypePointer(psb, data)
	pc := k.pushConstants(
		spirv.Member{Type: ptrData, Name: "src", Offset: spirv.Off(24)},
		spirv.Member{Type: ptrData, Name: "dst", Offset: spirv.Off(32)},
	)
	pcPtr := b.TypePointer(spirv.StorageClassPushConstant, ptrData)
	src := b.Load(ptrData, b.AccessChain(pcPtr, pc, b.ConstantInt32(2)))
	dst := b.Load(ptrData, b.AccessChain(pcPtr, pc, b.ConstantInt32(3)))
	i := k.index()
	pf := b.TypePointer(psb, k.f32)
	aligned := []uint32{uint32(spirv.MemoryAccessAligned), 4}
	v := b.Load(k.f32, b.AccessChain(pf, src, b.ConstantInt32(0), i), aligned...)
	b.Store(b.AccessChain(pf, dst, b.ConstantInt32(0), i), b.FMul(k.f32, v, b.ConstantFloat32(3)), aligned...)
	return finish(b)
}

// images: a storage image read and written (rgba32f), a sampled image
// sampled with an explicit lod, fetched, and its size queried.
func images(env spirv.TargetEnv) *spirv.Builder {
	k := newKernel(env, 8)
	b := k.b
	uc := spirv.StorageClassUniformConstant
	storage := b.TypeImage(spirv.ImageType{SampledType: k.f32, Dim: spirv.Dim2D, Sampled: 2, Format: spirv.ImageFormatRgba32f})
	sampledImg := b.TypeImage(spirv.ImageType{SampledType: k.f32, Dim: spirv.Dim2D, Sampled: 1, Format: spirv.ImageFormatUnknown})
	combined := b.TypeSampledImage(sampledImg)
	img := b.Variable(b.TypePointer(uc, storage), uc, 0)
	b.Decorate(img, spirv.DecorationDescriptorSet, 0)
	b.Decorate(img, spirv.DecorationBinding, 0)
	tex := b.Variable(b.TypePointer(uc, combined), uc, 0)
	b.Decorate(tex, spirv.DecorationDescriptorSet, 0)
	b.Decorate(tex, spirv.DecorationBinding, 1)
	v2i := b.TypeVector(k.i32, 2)
	v2f := b.TypeVector(k.f32, 2)
	g := b.Load(k.v3u32, k.gid)
	xy := b.Bitcast(v2i, b.VectorShuffle(b.TypeVector(k.u32, 2), g, g, 0, 1))
	im := b.Load(storage, img)
	texel := b.ImageRead(k.v4f32, im, xy)
	t := b.Load(combined, tex)
	size := b.ImageQuerySizeLod(v2i, b.Image(sampledImg, t), b.ConstantInt32(0))
	uv := b.FDiv(v2f, b.ConvertSToF(v2f, xy), b.ConvertSToF(v2f, size))
	s := b.ImageSampleExplicitLod(k.v4f32, t, uv, b.ConstantFloat32(0))
	f := b.ImageFetch(k.v4f32, b.Image(sampledImg, t), xy, b.ConstantInt32(0))
	b.ImageWrite(im, xy, b.FAdd(k.v4f32, texel, b.FAdd(k.v4f32, s, f)))
	return finish(b)
}

// subgroup: elect, ballot, broadcast-first, vote, shuffle-xor, and inclusive
// scan / reduction of x across the subgroup.
func subgroup(env spirv.TargetEnv) *spirv.Builder {
	k := newKernel(env, 64)
	b := k.b
	in := k.buffer(k.f32, 4, 0, "in")
	out := k.buffer(k.f32, 4, 1, "out")
	ballots := k.buffer(b.TypeVector(k.u32, 4), 16, 2, "ballots")
	i := k.index()
	x := b.Load(k.f32, k.elem(in, k.ptrSBf32, i))
	sg := spirv.ScopeSubgroup
	sum := b.GroupNonUniformArith(spirv.OpGroupNonUniformFAdd, k.f32, sg, spirv.GroupOperationReduce, x)
	scan := b.GroupNonUniformArith(spirv.OpGroupNonUniformFAdd, k.f32, sg, spirv.GroupOperationInclusiveScan, x)
	mx := b.GroupNonUniformArith(spirv.OpGroupNonUniformFMax, k.f32, sg, spirv.GroupOperationReduce, x)
	xo := b.GroupNonUniformShuffle(spirv.OpGroupNonUniformShuffleXor, k.f32, sg, x, b.ConstantUint32(1))
	first := b.GroupNonUniformBroadcastFirst(k.f32, sg, x)
	positive := b.FOrdGreaterThan(k.boolT, x, b.ConstantFloat32(0))
	all := b.GroupNonUniformVote(spirv.OpGroupNonUniformAll, k.boolT, sg, positive)
	ballot := b.GroupNonUniformBallot(b.TypeVector(k.u32, 4), sg, positive)
	elect := b.GroupNonUniformElect(k.boolT, sg)
	r := b.FAdd(k.f32, b.FAdd(k.f32, sum, scan), b.FAdd(k.f32, mx, b.FAdd(k.f32, xo, first)))
	r = b.Select(k.f32, all, r, b.FNegate(k.f32, r))
	b.Store(k.elem(out, k.ptrSBf32, i), r)
	then, merge := k.fn.NewBlock(), k.fn.NewBlock()
	b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
	b.BranchConditional(elect, then.ID(), merge.ID())
	b.SetBlock(then)
	b.Store(k.elem(ballots, b.TypePointer(k.sb, b.TypeVector(k.u32, 4)), b.UDiv(k.u32, i, b.ConstantUint32(64))), ballot)
	b.Branch(merge.ID())
	b.SetBlock(merge)
	return finish(b)
}

// mandelbrot: out[y*w+x] = iterations (≤ 256) of z = z² + c for the pixel at (x, y) of a w×h image.
func mandelbrot(env spirv.TargetEnv) *spirv.Builder {
	k := newKernel(env, 64)
	b := k.b
	out := k.buffer(k.u32, 4, 0, "out")
	pc := k.pushConstants(spirv.Member{Type: k.u32, Name: "width", Offset: spirv.Off(24)}, spirv.Member{Type: k.u32, Name: "height", Offset: spirv.Off(28)})
	f := k.f32
	pu := b.TypePointer(spirv.StorageClassPushConstant, k.u32)
	w := b.Load(k.u32, b.AccessChain(pu, pc, b.ConstantInt32(2)))
	h := b.Load(k.u32, b.AccessChain(pu, pc, b.ConstantInt32(3)))
	i := k.index()
	px := b.UMod(k.u32, i, w)
	py := b.UDiv(k.u32, i, w)
	cx := b.FSub(f, b.FMul(f, b.FDiv(f, b.ConvertUToF(f, px), b.ConvertUToF(f, w)), b.ConstantFloat32(3)), b.ConstantFloat32(2))
	cy := b.FSub(f, b.FMul(f, b.FDiv(f, b.ConvertUToF(f, py), b.ConvertUToF(f, h)), b.ConstantFloat32(2)), b.ConstantFloat32(1))
	entry := b.CurrentBlock()
	header, body, cont, merge := k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock(), k.fn.NewBlock()
	b.Branch(header.ID())
	b.SetBlock(header)
	zero := b.ConstantFloat32(0)
	n := b.Phi(k.u32, spirv.PhiIncoming{Value: b.ConstantUint32(0), Parent: entry.ID()})
	zx := b.Phi(f, spirv.PhiIncoming{Value: zero, Parent: entry.ID()})
	zy := b.Phi(f, spirv.PhiIncoming{Value: zero, Parent: entry.ID()})
	b.LoopMerge(merge.ID(), cont.ID(), spirv.LoopControlNone)
	inside := b.FOrdLessThanEqual(k.boolT, b.FAdd(f, b.FMul(f, zx, zx), b.FMul(f, zy, zy)), b.ConstantFloat32(4))
	more := b.ULessThan(k.boolT, n, b.ConstantUint32(256))
	b.BranchConditional(b.LogicalAnd(k.boolT, inside, more), body.ID(), merge.ID())
	b.SetBlock(body)
	nzx := b.FAdd(f, b.FSub(f, b.FMul(f, zx, zx), b.FMul(f, zy, zy)), cx)
	nzy := b.FAdd(f, b.FMul(f, b.FMul(f, b.ConstantFloat32(2), zx), zy), cy)
	b.Branch(cont.ID())
	b.SetBlock(cont)
	n2 := b.IAdd(k.u32, n, b.ConstantUint32(1))
	b.AddPhiIncoming(header, n, spirv.PhiIncoming{Value: n2, Parent: cont.ID()})
	b.AddPhiIncoming(header, zx, spirv.PhiIncoming{Value: nzx, Parent: cont.ID()})
	b.AddPhiIncoming(header, zy, spirv.PhiIncoming{Value: nzy, Parent: cont.ID()})
	b.Branch(header.ID())
	b.SetBlock(merge)
	b.Store(k.elem(out, k.ptrSBu32, i), n)
	return finish(b)
}

type shape struct {
	name   string
	build  func(spirv.TargetEnv) *spirv.Builder
	scalar bool // needs scalar block layout (the kernel-ABI push block)
}

var shapes = []shape{
	{"saxpy", saxpy, true},
	{"reduce", reduce, false},
	{"atomics", atomics, false},
	{"control", control, false},
	{"glsl-math", glslMath, false},
	{"device-address", deviceAddress, true},
	{"images", images, false},
	{"subgroup", subgroup, false},
	{"mandelbrot", mandelbrot, true},
}

// storageImage doubles every texel of an rgba32f storage image and adds its
// coordinates: img[x, y] = 2*img[x, y] + (x, y, 0, 1).
func storageImage(env spirv.TargetEnv) *spirv.Builder {
	k := newKernel2D(env, 8, 8)
	b := k.b
	uc := spirv.StorageClassUniformConstant
	imgT := b.TypeImage(spirv.ImageType{SampledType: k.f32, Dim: spirv.Dim2D, Sampled: 2, Format: spirv.ImageFormatRgba32f})
	img := b.Variable(b.TypePointer(uc, imgT), uc, 0)
	b.Decorate(img, spirv.DecorationDescriptorSet, 0)
	b.Decorate(img, spirv.DecorationBinding, 0)
	v2i := b.TypeVector(k.i32, 2)
	g := b.Load(k.v3u32, k.gid)
	xy := b.Bitcast(v2i, b.VectorShuffle(b.TypeVector(k.u32, 2), g, g, 0, 1))
	im := b.Load(imgT, img)
	texel := b.ImageRead(k.v4f32, im, xy)
	fx := b.ConvertSToF(k.f32, b.CompositeExtract(k.i32, xy, 0))
	fy := b.ConvertSToF(k.f32, b.CompositeExtract(k.i32, xy, 1))
	offset := b.CompositeConstruct(k.v4f32, fx, fy, b.ConstantFloat32(0), b.ConstantFloat32(1))
	b.ImageWrite(im, xy, b.FAdd(k.v4f32, b.VectorTimesScalar(k.v4f32, texel, b.ConstantFloat32(2)), offset))
	return finish(b)
}
