package frontend

import "github.com/lucent-gpu/lucent/spirv"

// Bindless texture slots on devices with descriptor indexing (kernel ABI v1,
// native bindless textures). The i-th argument of BindlessTextureArgs has,
// besides its slot records in set 0, a runtime array of combined image
// samplers (2D, float) at set 1+i, binding 0, indexed by slot:
//
//	layout(set = 1+i, binding = 0) uniform sampler2D tex[];
//	record = slots[slot]; w, h = record.info.xy
//	w != 0 ? textureLod(tex[nonuniformEXT(slot)], uv, 0) : vec4(0)
//
// The record still says whether the slot holds a texture (width 0: empty,
// and the descriptor is never touched: the set is partially bound) and gives
// Size without a descriptor access. The device's sampler does the filtering,
// addressing and format conversion that the emulated path does in code.

// textureHeaps declares the descriptor arrays of f's bindless texture arguments.
func (g *gen) textureHeaps(f *Function) {
	b := g.b
	args := f.BindlessTextureArgs()
	if len(args) == 0 {
		return
	}
	b.Capability(spirv.CapabilityRuntimeDescriptorArray)
	b.Capability(spirv.CapabilitySampledImageArrayNonUniformIndexing)
	b.Capability(spirv.CapabilityShaderNonUniform)
	arr := b.TypeRuntimeArray(g.sampledImage2D())
	for i, a := range args {
		v := b.Variable(g.ptr(spirv.StorageClassUniformConstant, arr), spirv.StorageClassUniformConstant, 0)
		b.Decorate(v, spirv.DecorationDescriptorSet, uint32(1+i))
		b.Decorate(v, spirv.DecorationBinding, 0)
		if g.opts.Names {
			b.Name(v, a.Name+".textures")
		}
		g.texHeap[a] = v
	}
}

func (g *gen) image2D() spirv.ID {
	return g.b.TypeImage(spirv.ImageType{SampledType: g.f32, Dim: spirv.Dim2D, Sampled: 1, Format: spirv.ImageFormatUnknown})
}

func (g *gen) sampledImage2D() spirv.ID { return g.b.TypeSampledImage(g.image2D()) }

// nativeBindlessTexture emits a read, size query or sample of the texture in
// a slot through the argument's descriptor array heap.
func (g *gen) nativeBindlessTexture(e *Call, p place, heap spirv.ID) spirv.ID {
	b := g.b
	uvec2, uvec4 := b.TypeVector(g.u32, 2), b.TypeVector(g.u32, 4)
	ivec2, vec4 := b.TypeVector(g.i32, 2), b.TypeVector(g.f32, 4)
	slot := g.expr(e.Args[1])
	info := b.Load(uvec4, b.AccessChain(g.ptr(spirv.StorageClassStorageBuffer, uvec4), p.ptr,
		b.ConstantUint32(0), slot, b.ConstantUint32(2)))
	w, h := b.CompositeExtract(g.u32, info, 0), b.CompositeExtract(g.u32, info, 1)
	if e.Op == OpBindlessTexSize {
		return b.CompositeConstruct(uvec2, w, h)
	}
	coord := g.expr(e.Args[2])
	ok := b.INotEqual(g.boolT, w, b.ConstantUint32(0))
	if e.Op == OpBindlessTexRead {
		x, y := b.CompositeExtract(g.u32, coord, 0), b.CompositeExtract(g.u32, coord, 1)
		ok = b.LogicalAnd(g.boolT, ok, b.LogicalAnd(g.boolT, b.ULessThan(g.boolT, x, w), b.ULessThan(g.boolT, y, h)))
	}
	result := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, vec4), 0)
	b.Store(result, b.ConstantNull(vec4))
	then, merge := g.sfn.NewBlock(), g.sfn.NewBlock()
	b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
	b.BranchConditional(ok, then.ID(), merge.ID())
	b.SetBlock(then)
	si := g.sampledImage2D()
	ptr := b.AccessChain(g.ptr(spirv.StorageClassUniformConstant, si), heap, slot)
	b.Decorate(ptr, spirv.DecorationNonUniform)
	tex := b.Load(si, ptr)
	b.Decorate(tex, spirv.DecorationNonUniform)
	var v spirv.ID
	if e.Op == OpBindlessTexRead {
		img := b.Image(g.image2D(), tex)
		b.Decorate(img, spirv.DecorationNonUniform)
		v = b.ImageFetch(vec4, img, b.Bitcast(ivec2, coord), b.ConstantInt32(0))
	} else {
		v = b.ImageSampleExplicitLod(vec4, tex, coord, b.ConstantFloat32(0))
	}
	b.Store(result, v)
	b.Branch(merge.ID())
	b.SetBlock(merge)
	return b.Load(vec4, result)
}
