package codegen_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// TestEmitBindlessTexture emits a kernel reading, sampling and sizing
// bindless textures (also in a loop) and checks it with
// spirv-val for Vulkan 1.2 and 1.3; the array stays read-only and texels are
// fetched by device address.
func TestEmitBindlessTexture(t *testing.T) {
	f, err := frontend.Kernel1D(64, func(k *frontend.K, arr frontend.BindlessArray, slots frontend.Buf[frontend.U32], out frontend.Buf[frontend.F32x4]) {
		i := k.DispatchID().X()
		tex := arr.Texture2D(slots.Read(i))
		acc := frontend.NewVar(k, tex.Read(frontend.V2(i, i)))
		frontend.Range(k, frontend.U(0), frontend.U(3), func(j frontend.U32) {
			acc.Set(acc.Get().Add(tex.Sample(frontend.V2(frontend.Convert[float32](j), frontend.F(0.5)))))
		})
		size := tex.Size()
		out.Write(i, acc.Get().Scale(frontend.Convert[float32](size.X().Add(size.Y()))))
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
	f, err := frontend.Kernel1D(64, func(k *frontend.K, bufs frontend.BindlessArray, a, b frontend.BindlessArray, out frontend.Buf[frontend.F32x4]) {
		i := k.DispatchID().X()
		ta, tb := a.Texture2D(i), b.Texture2D(i.Add(frontend.U(1)))
		v := ta.Read(frontend.V2(i, i)).Add(tb.Sample(frontend.V2(frontend.F(0.25), frontend.F(0.5))))
		size := ta.Size()
		n := frontend.ReadBuffer[frontend.F32](bufs, frontend.U(0), i)
		out.Write(i, v.Scale(n.Add(frontend.Convert[float32](size.X()))))
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
