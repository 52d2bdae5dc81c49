package frontend_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
	words := emitValid(t, f, frontend.Options{})
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
	words := emitValid(t, f, frontend.Options{NativeBindlessTextures: true})
	dis, err := spvtools.Disassemble(words, spirv.EnvVulkan1_2)
	require.NoError(t, err)
	for _, want := range []string{"OpCapability RuntimeDescriptorArray", "OpCapability SampledImageArrayNonUniformIndexing",
		"DescriptorSet 1", "DescriptorSet 2", "NonUniform", "OpImageSampleExplicitLod", "OpImageFetch"} {
		require.Contains(t, dis, want)
	}
	require.NotContains(t, dis, "DescriptorSet 3")
	require.NotContains(t, dis, "UnpackUnorm4x8", "no texel decoding in code")
}

// TestBindlessTextureTypeErrors checks that ill-typed bindless texture calls
// are errors naming the operation, not panics.
func TestBindlessTextureTypeErrors(t *testing.T) {
	arr := frontend.NewKernel("k", 1, [3]uint32{1, 1, 1}).AddParam("arr", frontend.Bindless, frontend.VarParam)
	ref := &frontend.Ref{Var: arr}
	u := frontend.LitInt(frontend.TU32, 1)
	for _, c := range []struct {
		name string
		op   frontend.Op
		args []frontend.Expr
		want string
	}{
		{"size with a coordinate", frontend.OpBindlessTexSize, []frontend.Expr{ref, u, u}, "takes 2 operands"},
		{"read of a float coordinate", frontend.OpBindlessTexRead, []frontend.Expr{ref, u, frontend.LitFloat(frontend.TF32, 1)}, "coordinate"},
		{"sample at integer coordinates", frontend.OpBindlessTexSample, []frontend.Expr{ref, u, &frontend.Construct{T: frontend.Vector(frontend.TU32, 2), Args: []frontend.Expr{u, u}}}, "coordinate"},
		{"slot that is not u32", frontend.OpBindlessTexSize, []frontend.Expr{ref, frontend.LitFloat(frontend.TF32, 1)}, "want bindless, u32"},
		{"array that is not bindless", frontend.OpBindlessTexSize, []frontend.Expr{u, u}, "want bindless, u32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := frontend.CallType(c.op, c.args)
			require.Error(t, err)
			require.True(t, strings.Contains(err.Error(), c.want), "%v", err)
			require.Contains(t, err.Error(), c.op.String())
		})
	}
	ty, err := frontend.CallType(frontend.OpBindlessTexSize, []frontend.Expr{ref, u})
	require.NoError(t, err)
	require.Equal(t, frontend.Vector(frontend.TU32, 2), ty)
}
