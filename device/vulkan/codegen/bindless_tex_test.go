package codegen_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// TestEmitBindlessTexture emits a kernel reading, sampling and sizing
// bindless textures (also in a loop) and checks it with
// spirv-val for Vulkan 1.2 and 1.3; the array stays read-only and texels are
// fetched by device address.
func TestEmitBindlessTexture(t *testing.T) {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, arr dsl.BindlessArray, slots dsl.Buf[dsl.U32], out dsl.Buf[dsl.F32x4]) {
		i := k.DispatchID().X()
		tex := arr.Texture2D(slots.Read(i))
		acc := dsl.NewVar(k, tex.Read(dsl.V2(i, i)))
		dsl.Range(k, dsl.U(0), dsl.U(3), func(j dsl.U32) {
			acc.Set(acc.Get().Add(tex.Sample(dsl.V2(dsl.Convert[float32](j), dsl.F(0.5)))))
		})
		size := tex.Size()
		out.Write(i, acc.Get().Scale(dsl.Convert[float32](size.X().Add(size.Y()))))
	})
	require.NoError(t, err)
	words := emitValid(t, f, codegen.Options{})
	dis, err := spvtools.Disassemble(words, spirv.EnvVulkan1_2)
	require.NoError(t, err)
	require.Contains(t, dis, "OpConvertUToPtr", "texels are fetched by device address")
	require.Contains(t, dis, "UnpackUnorm4x8")
	require.Contains(t, dis, "UnpackHalf2x16")
	require.Contains(t, dis, "NonWritable")
	require.NotContains(t, dis, "OpSMod", "lavapipe 22.3 fetched off the mirror with OpSMod")
}

// TestEmitNativeBindlessTexture emits kernels with bindless textures for
// devices with descriptor indexing: each bindless argument whose texture
// slots are used gets a descriptor array in set 1+i, indexed non-uniformly;
// an argument used only for buffers gets none, and nothing is fetched by
// address.
func TestEmitNativeBindlessTexture(t *testing.T) {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, bufs dsl.BindlessArray, a, b dsl.BindlessArray, out dsl.Buf[dsl.F32x4]) {
		i := k.DispatchID().X()
		ta, tb := a.Texture2D(i), b.Texture2D(i.Add(dsl.U(1)))
		v := ta.Read(dsl.V2(i, i)).Add(tb.Sample(dsl.V2(dsl.F(0.25), dsl.F(0.5))))
		size := ta.Size()
		n := dsl.ReadBuffer[dsl.F32](bufs, dsl.U(0), i)
		out.Write(i, v.Scale(n.Add(dsl.Convert[float32](size.X()))))
	})
	require.NoError(t, err)
	args := f.BindlessTextureArgs()
	require.Len(t, args, 2)
	require.Equal(t, []string{"arg1", "arg2"}, []string{args[0].Name, args[1].Name})
	words := emitValid(t, f, codegen.Options{NativeBindlessTextures: true})
	dis, err := spvtools.Disassemble(words, spirv.EnvVulkan1_2)
	require.NoError(t, err)
	for _, want := range []string{"OpCapability RuntimeDescriptorArray", "OpCapability SampledImageArrayNonUniformIndexing",
		"DescriptorSet 1", "DescriptorSet 2", "NonUniform", "OpImageSampleExplicitLod", "OpImageFetch"} {
		require.Contains(t, dis, want)
	}
	require.NotContains(t, dis, "DescriptorSet 3")
	require.NotContains(t, dis, "UnpackUnorm4x8", "no texel decoding in code")
}
