package codegen_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// TestEmitSpecialisedHelpers: callables specialised for the kernel's
// resources (ir.Specialize) name the kernel's buffers (bound and by
// address), textures and bindless arrays from their own SPIR-V functions;
// the modules pass spirv-val, with and without native bindless textures,
// checked or not (the slot checks in the helpers name the kernel's arguments).
func TestEmitSpecialisedHelpers(t *testing.T) {
	sum := dsl.Callable("sum", func(k *dsl.K, b dsl.Buf[dsl.F32], n dsl.U32) dsl.F32 {
		s := dsl.NewVar(k, dsl.F(0))
		dsl.Range(k, dsl.U(0), dsl.Min(n, b.Len()), func(i dsl.U32) { s.Set(s.Get().Add(b.Read(i))) })
		return s.Get()
	})
	bump := dsl.Callable("bump", func(k *dsl.K, b dsl.Buf[dsl.U32], i dsl.U32) { b.AtomicAdd(i, dsl.U(1)) })
	texel := dsl.Callable("texel", func(k *dsl.K, t dsl.Tex2D, uv dsl.F32x2) dsl.F32 {
		return t.Sample(uv).X().Add(t.Read(dsl.V2(dsl.U(0), dsl.U(0))).Y())
	})
	put := dsl.Callable("put", func(k *dsl.K, t dsl.Tex2D, v dsl.F32) {
		t.Write(dsl.V2(dsl.U(0), dsl.U(0)), dsl.V4(v, v, v, v))
	})
	slot := dsl.Callable("slot", func(k *dsl.K, a dsl.BindlessArray, i dsl.U32) dsl.F32 {
		return dsl.ReadBuffer[dsl.F32](a, dsl.U(0), i).Add(a.Texture2D(dsl.U(1)).Sample(dsl.V2(dsl.F(0.5), dsl.F(0.5))).X())
	})
	f, err := dsl.Kernel1D(64, func(k *dsl.K, x dsl.Buf[dsl.F32], big dsl.BigBuf[dsl.F32], c dsl.Buf[dsl.U32],
		src dsl.Tex2D, rgba8 dsl.Tex2DRGBA8, dst dsl.Tex2D, arr dsl.BindlessArray, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		bump(k, c, i)
		uv := dsl.V2(dsl.F(0.25), dsl.F(0.75))
		v := sum(k, x, i).Add(sum(k, big.Buf, i)).Add(texel(k, src, uv)).Add(texel(k, rgba8.Tex2D, uv)).Add(slot(k, arr, i))
		put(k, dst, v)
		out.Write(i, v)
	}, "x", "big", "c", "src", "rgba8", "dst", "arr", "out")
	require.NoError(t, err)
	require.Len(t, f.Callees(), 7)
	for _, native := range []bool{false, true} {
		for _, checked := range []bool{false, true} {
			emitValid(t, f, codegen.Options{NativeBindlessTextures: native, Names: true, Checked: checked, SubgroupVote: checked})
		}
	}
}
