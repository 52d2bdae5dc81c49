package kernel_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/kernel"
)

func TestSamplerMirrorsDevice(t *testing.T) {
	for f := range 4 {
		for a := range 4 {
			k := kernel.Sampler{Filter: kernel.Filter(f), Address: kernel.Address(a)}
			d := device.Sampler{Filter: device.Filter(f), Address: device.Address(a)}
			require.Equal(t, d.String(), k.String())
			require.True(t, k.Valid())
		}
	}
	require.Equal(t, device.FilterLinear, device.Filter(kernel.FilterLinear))
	require.Equal(t, device.AddressZero, device.Address(kernel.AddressZero))
	require.False(t, kernel.Sampler{Address: 4}.Valid())
}

// ramp is a 4×2 texture whose texel (x, y) is (x, 10y, x+10y, 1).
func ramp(t *testing.T) kernel.Texture2D[kernel.Float4] {
	tex, err := kernel.NewTexture2D[kernel.Float4](4, 2)
	require.NoError(t, err)
	for y := range uint32(2) {
		for x := range uint32(4) {
			tex.Write(x, y, kernel.F4(float32(x), float32(10*y), float32(x+10*y), 1))
		}
	}
	return tex
}

func TestSample(t *testing.T) {
	tex := ramp(t)
	b := kernel.NewBindless(5)
	samplers := []kernel.Sampler{
		{Filter: kernel.FilterPoint, Address: kernel.AddressEdge},
		{Filter: kernel.FilterLinear, Address: kernel.AddressRepeat},
		{Filter: kernel.FilterLinearPoint, Address: kernel.AddressMirror},
		{Filter: kernel.FilterLinear, Address: kernel.AddressZero},
	}
	for i, s := range samplers {
		require.NoError(t, kernel.SetBindlessTexture2D(b, i, tex, s))
	}
	r1, err := tex.WithChannels(1)
	require.NoError(t, err)
	_, err = tex.WithChannels(3)
	require.ErrorIs(t, err, kernel.ErrTexture)
	require.NoError(t, kernel.SetBindlessTexture2D(b, 4, r1, samplers[3]))
	// Hand-worked expectations: u*4-0.5 and v*2-0.5 are the bilinear
	// positions (u*4, v*2 for point), texel centres at +0.5.
	cases := []struct {
		slot   int
		uv     kernel.Float2
		want   kernel.Float4
		reason string
	}{
		{0, kernel.F2(0.3, 0.8), kernel.F4(1, 10, 11, 1), "point: texel (floor 1.2, floor 1.6)"},
		{0, kernel.F2(-3, 7), kernel.F4(0, 10, 10, 1), "point, edge: clamped to (0, 1)"},
		{1, kernel.F2(0.375, 0.25), kernel.F4(1, 0, 1, 1), "linear at a texel centre (1, 0)"},
		{1, kernel.F2(0.25, 0.5), kernel.F4(0.5, 5, 5.5, 1), "linear half way between four texels"},
		{1, kernel.F2(0, 0.25), kernel.F4(1.5, 0, 1.5, 1), "repeat: x -0.5 blends texel 3 and texel 0"},
		{2, kernel.F2(-0.125, 0.25), kernel.F4(0, 0, 0, 1), "mirror: x -1 is texel 0 again"},
		{2, kernel.F2(1.125, 0.25), kernel.F4(3, 0, 3, 1), "mirror: x 4 is texel 3 again"},
		{3, kernel.F2(0, 0.25), kernel.F4(0, 0, 0, 0.5), "zero: half the border (alpha 0) blended in"},
		{3, kernel.F2(0.375, 0), kernel.F4(0.5, 0, 0.5, 0.5), "zero at the top edge"},
		{4, kernel.F2(0, 0.25), kernel.F4(0, 0, 0, 1), "zero, one channel: border alpha 1"},
		{4, kernel.F2(0.375, 0.75), kernel.F4(1, 0, 0, 1), "one channel: green and blue read 0, alpha 1"},
	}
	got := make([]kernel.Float4, len(cases))
	err = kernel.Run(context.Background(), kernel.Grid1(4, uint32(len(cases))), func() {
		i := kernel.DispatchID().X
		got[i] = b.Texture2D(uint32(cases[i].slot)).Sample(cases[i].uv)
	})
	require.NoError(t, err)
	for i, c := range cases {
		for k, w := range []float32{c.want.X, c.want.Y, c.want.Z, c.want.W} {
			g := []float32{got[i].X, got[i].Y, got[i].Z, got[i].W}[k]
			require.InDelta(t, w, g, 1e-6, "%s: channel %d of %v", c.reason, k, got[i])
		}
	}
	// Texture2D.Sample is bilinear with clamp to edge.
	require.Equal(t, kernel.F4(0.5, 5, 5.5, 1), tex.Sample(kernel.F2(0.25, 0.5)))
	require.Equal(t, kernel.F4(3, 10, 13, 1), tex.Sample(kernel.F2(2, 2)))
	// An empty slot reads, samples and sizes as zero.
	empty := kernel.NewBindless(1).Texture2D(0)
	require.Equal(t, kernel.Float4{}, empty.Sample(kernel.F2(0.5, 0.5)))
	require.Equal(t, kernel.Float4{}, empty.Read(0, 0))
	require.Equal(t, kernel.Uint2{}, empty.Size())
	// Coordinates far outside, infinite or NaN stay on the texture.
	for _, u := range []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e20, -3e9} {
		for s := range 4 {
			_ = b.Texture2D(uint32(s)).Sample(kernel.F2(u, u))
		}
	}
	require.Equal(t, kernel.Float4{}, kernel.Texture2D[kernel.Float4]{}.Sample(kernel.F2(0.5, 0.5)), "the zero texture")
	ti, err := kernel.NewTexture2D[kernel.Int4](1, 1)
	require.NoError(t, err)
	require.PanicsWithValue(t, "kernel: Sample of a Texture2D[kernel.Int4]: only textures of Float4 texels are sampled",
		func() { ti.Sample(kernel.F2(0, 0)) })
}
