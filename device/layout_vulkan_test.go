package device_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestTextureBoundAndInBindlessArray: one dispatch reads a texture bound as
// an argument and, through a bindless array, the same texture. On the
// emulated path binding the array refreshes the slot's mirror with a copy
// out of the texture (TRANSFER_SRC_OPTIMAL); the argument's layout must be
// set after that copy, or the kernel reads the texture in the copy's layout
// and the validation layer reports the mismatch.
func TestTextureBoundAndInBindlessArray(t *testing.T) {
	samplingPaths(t, func(t *testing.T) *device.Device { return openVulkan(t) }, func(t *testing.T, d *device.Device) {
		const w, h = 8, 4
		k := compile(t, d, func() (*ir.Function, error) {
			return dsl.Kernel2D(8, 4, func(k *dsl.K, src dsl.Tex2D, arr dsl.BindlessArray, out dsl.Buf[dsl.F32x4]) {
				xy := k.DispatchID().XY()
				i := xy.Y().Mul(dsl.U(w)).Add(xy.X())
				out.Write(i, src.Read(xy).Add(arr.Texture2D(dsl.U(0)).Read(xy)))
			}, "src", "arr", "out")
		})
		img, err := device.NewImage[[4]float32](d, device.RGBA32Float, w, h, 1)
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, img.Close()) })
		arr, err := d.NewBindlessArray(1)
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, arr.Close()) })
		require.NoError(t, arr.EmplaceTexture(0, img, device.Sampler{Filter: device.FilterPoint, Address: device.AddressEdge}))
		out := newBuffer[[4]float32](t, d, w*h)
		s := newStream(t, d, device.StreamCompute)
		px := make([][4]float32, w*h)
		for i := range px {
			px[i] = [4]float32{float32(i), 1, 2, 3}
		}
		require.NoError(t, s.Submit(img.Upload(px), arr.Update(), k.Dispatch([3]uint32{w, h, 1}, img, arr, out)))
		got := make([][4]float32, w*h)
		require.NoError(t, s.Submit(out.Download(got)))
		require.NoError(t, s.Synchronize(context.Background()))
		for i := range got {
			require.Equal(t, [4]float32{2 * float32(i), 2, 4, 6}, got[i], "texel %d", i)
		}
	})
}
