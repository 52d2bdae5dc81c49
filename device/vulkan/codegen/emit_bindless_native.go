package codegen

import (
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

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
func (g *gen) textureHeaps(f *ir.Function) {
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

// nativeTexel reads or samples (op) the texture in slot through the
// argument's descriptor array heap, in the block where the slot is known to
// hold a texture.
func (g *gen) nativeTexel(op ir.Op, heap, slot, coord spirv.ID) spirv.ID {
	b := g.b
	ivec2, vec4 := b.TypeVector(g.i32, 2), b.TypeVector(g.f32, 4)
	si := g.sampledImage2D()
	ptr := b.AccessChain(g.ptr(spirv.StorageClassUniformConstant, si), heap, slot)
	b.Decorate(ptr, spirv.DecorationNonUniform)
	tex := b.Load(si, ptr)
	b.Decorate(tex, spirv.DecorationNonUniform)
	if op == ir.OpBindlessTexRead {
		img := b.Image(g.image2D(), tex)
		b.Decorate(img, spirv.DecorationNonUniform)
		return b.ImageFetch(vec4, img, b.Bitcast(ivec2, coord), b.ConstantInt32(0))
	}
	return b.ImageSampleExplicitLod(vec4, tex, coord, b.ConstantFloat32(0))
}
