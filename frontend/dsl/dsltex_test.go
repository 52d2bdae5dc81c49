package dsl_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestTextureTypesCoverEveryFormat: the DSL has a 2D and a 3D texture type
// for every texel format (those the Go frontend's format=param:… names),
// each a kernel parameter of that format whose texels read as the
// format's 4-vector, and integer textures pass to callables.
func TestTextureTypesCoverEveryFormat(t *testing.T) {
	param := func(fn any) *ir.Type {
		t.Helper()
		f, err := dsl.Kernel1D(1, fn)
		require.NoError(t, err)
		return f.Params[0].Type
	}
	for _, c := range []struct {
		fn   any
		dim  int
		f    ir.TexelFormat
		elem *ir.Type
	}{
		{func(k *dsl.K, t dsl.Tex2D) { t.Write(dsl.V2(dsl.U(0), dsl.U(0)), t.Read(dsl.V2(dsl.U(1), dsl.U(1)))) }, 2, ir.FormatRGBA32F, ir.Vector(ir.TF32, 4)},
		{func(k *dsl.K, t dsl.Tex2DRGBA16F) {
			t.Write(dsl.V2(dsl.U(0), dsl.U(0)), t.Sample(dsl.V2(dsl.F(0), dsl.F(0))))
		}, 2, ir.FormatRGBA16F, ir.Vector(ir.TF32, 4)},
		{func(k *dsl.K, t dsl.Tex2DRGBA8) {
			t.Write(dsl.V2(dsl.U(0), dsl.U(0)), t.Read(dsl.V2(dsl.U(1), dsl.U(1))))
		}, 2, ir.FormatRGBA8, ir.Vector(ir.TF32, 4)},
		{func(k *dsl.K, t dsl.Tex2DR32F) {
			t.Write(dsl.V2(dsl.U(0), dsl.U(0)), t.Read(dsl.V2(dsl.U(1), dsl.U(1))))
		}, 2, ir.FormatR32F, ir.Vector(ir.TF32, 4)},
		{func(k *dsl.K, t dsl.Tex2DRGBA32UI) { t.Write(dsl.V2(dsl.U(0), dsl.U(0)), t.Read(t.Size())) }, 2, ir.FormatRGBA32UI, ir.Vector(ir.TU32, 4)},
		{func(k *dsl.K, t dsl.Tex2DR32UI) { t.Write(dsl.V2(dsl.U(0), dsl.U(0)), t.Read(t.Size())) }, 2, ir.FormatR32UI, ir.Vector(ir.TU32, 4)},
		{func(k *dsl.K, t dsl.Tex2DRGBA32I) { t.Write(dsl.V2(dsl.U(0), dsl.U(0)), t.Read(t.Size())) }, 2, ir.FormatRGBA32I, ir.Vector(ir.TI32, 4)},
		{func(k *dsl.K, t dsl.Tex2DR32I) { t.Write(dsl.V2(dsl.U(0), dsl.U(0)), t.Read(t.Size())) }, 2, ir.FormatR32I, ir.Vector(ir.TI32, 4)},
		{func(k *dsl.K, t dsl.Tex3D) { t.Write(t.Size(), t.Read(t.Size())) }, 3, ir.FormatRGBA32F, ir.Vector(ir.TF32, 4)},
		{func(k *dsl.K, t dsl.Tex3DRGBA16F) { t.Write(t.Size(), t.Read(t.Size())) }, 3, ir.FormatRGBA16F, ir.Vector(ir.TF32, 4)},
		{func(k *dsl.K, t dsl.Tex3DRGBA8) { t.Write(t.Size(), t.Read(t.Size())) }, 3, ir.FormatRGBA8, ir.Vector(ir.TF32, 4)},
		{func(k *dsl.K, t dsl.Tex3DR32F) { t.Write(t.Size(), t.Read(t.Size())) }, 3, ir.FormatR32F, ir.Vector(ir.TF32, 4)},
		{func(k *dsl.K, t dsl.Tex3DRGBA32UI) { t.Write(t.Size(), t.Read(t.Size())) }, 3, ir.FormatRGBA32UI, ir.Vector(ir.TU32, 4)},
		{func(k *dsl.K, t dsl.Tex3DR32UI) { t.Write(t.Size(), t.Read(t.Size())) }, 3, ir.FormatR32UI, ir.Vector(ir.TU32, 4)},
		{func(k *dsl.K, t dsl.Tex3DRGBA32I) { t.Write(t.Size(), t.Read(t.Size())) }, 3, ir.FormatRGBA32I, ir.Vector(ir.TI32, 4)},
		{func(k *dsl.K, t dsl.Tex3DR32I) { t.Write(t.Size(), t.Read(t.Size())) }, 3, ir.FormatR32I, ir.Vector(ir.TI32, 4)},
	} {
		pt := param(c.fn)
		require.Equal(t, ir.TextureOf(c.dim, c.f), pt, "%dD %s", c.dim, c.f)
		require.Equal(t, c.elem, pt.Elem(), "%dD %s", c.dim, c.f)
	}

	// An integer texture passes to a helper, which reads it in place.
	count := dsl.Callable("count", func(k *dsl.K, mask dsl.Tex2DR32UI, xy dsl.U32x2) dsl.U32 {
		return mask.Read(xy).X().And(dsl.U(1))
	})
	f, err := dsl.Kernel2D(8, 8, func(k *dsl.K, mask dsl.Tex2DR32UI, out dsl.Buf[dsl.U32]) {
		out.Write(k.DispatchID().X(), count(k, mask, k.DispatchID().XY()))
	})
	require.NoError(t, err)
	require.NoError(t, f.Validate())
	require.Equal(t, ir.TextureOf(2, ir.FormatR32UI), f.Params[0].Type)
}
