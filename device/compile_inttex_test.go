package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestDSLIntegerTextures runs DSL kernels on integer textures of every
// integer format, 2D and 3D: each thread reads a texel, transforms it with
// integer arithmetic (no float would keep all 32 bits), and writes it to a
// second texture of the same format; one-channel formats keep x only.
func TestDSLIntegerTextures(t *testing.T) {
	d := openDevice(t)
	const w, h, dz = 5, 3, 2
	bigU := func(i int) uint32 { return 0xF0000000 + uint32(i)*0x01010101 }
	t.Run("2D rgba32ui", func(t *testing.T) {
		k := compile(t, d, func() (*ir.Function, error) {
			return dsl.Kernel2D(8, 8, func(k *dsl.K, src, dst dsl.Tex2DRGBA32UI) {
				xy := k.DispatchID().XY()
				v := src.Read(xy)
				dst.Write(xy, dsl.V4(v.W(), v.Z().Add(dsl.U(1)), v.Y().Xor(dsl.U(0xFFFFFFFF)), v.X().Add(src.Size().X())))
			})
		})
		in := make([][4]uint32, w*h)
		for i := range in {
			in[i] = [4]uint32{bigU(i), uint32(i), 7 * uint32(i), ^uint32(i)}
		}
		src, dst := newImage(t, d, device.RGBA32Uint, w, h, in), newImage(t, d, device.RGBA32Uint, w, h, make([][4]uint32, w*h))
		run(t, d, k.Dispatch([3]uint32{w, h}, src, dst))
		got := make([][4]uint32, w*h)
		run(t, d, dst.Download(got))
		for i, v := range in {
			require.Equal(t, [4]uint32{v[3], v[2] + 1, ^v[1], v[0] + w}, got[i], "texel %d", i)
		}
	})
	t.Run("2D r32i", func(t *testing.T) {
		k := compile(t, d, func() (*ir.Function, error) {
			return dsl.Kernel2D(8, 8, func(k *dsl.K, src, dst dsl.Tex2DR32I) {
				xy := k.DispatchID().XY()
				v := src.Read(xy)
				// y, z read as 0 and w as 1 from a one-channel format.
				dst.Write(xy, dsl.V4(v.X().Neg().Sub(v.Y()).Add(v.Z()).Add(v.W()), dsl.I(9), dsl.I(9), dsl.I(9)))
			})
		})
		in := make([]int32, w*h)
		for i := range in {
			in[i] = int32(i)*-100000007 + 3
		}
		src, dst := newImage(t, d, device.R32Sint, w, h, in), newImage(t, d, device.R32Sint, w, h, make([]int32, w*h))
		run(t, d, k.Dispatch([3]uint32{w, h}, src, dst))
		got := make([]int32, w*h)
		run(t, d, dst.Download(got))
		for i, v := range in {
			require.Equal(t, -v+1, got[i], "texel %d", i)
		}
	})
	t.Run("2D r32ui and rgba32i", func(t *testing.T) {
		k := compile(t, d, func() (*ir.Function, error) {
			return dsl.Kernel2D(8, 8, func(k *dsl.K, src dsl.Tex2DR32UI, dst dsl.Tex2DRGBA32I) {
				xy := k.DispatchID().XY()
				x := src.Read(xy).X()
				dst.Write(xy, dsl.V4(dsl.Bitcast[int32](x), dsl.Bitcast[int32](x.Shr(dsl.U(16))), dsl.I(-1), dsl.Bitcast[int32](xy.X())))
			})
		})
		in := make([]uint32, w*h)
		for i := range in {
			in[i] = bigU(i)
		}
		src, dst := newImage(t, d, device.R32Uint, w, h, in), newImage(t, d, device.RGBA32Sint, w, h, make([][4]int32, w*h))
		run(t, d, k.Dispatch([3]uint32{w, h}, src, dst))
		got := make([][4]int32, w*h)
		run(t, d, dst.Download(got))
		for i, v := range in {
			require.Equal(t, [4]int32{int32(v), int32(v >> 16), -1, int32(i % w)}, got[i], "texel %d", i)
		}
	})
	t.Run("3D r32ui", func(t *testing.T) {
		k := compile(t, d, func() (*ir.Function, error) {
			return dsl.Kernel3D(4, 4, 2, func(k *dsl.K, src, dst dsl.Tex3DR32UI) {
				p := k.DispatchID()
				v := src.Read(p)
				dst.Write(p, dsl.V4(v.X().Mul(dsl.U(3)).Add(p.Z()), dsl.U(0), dsl.U(0), dsl.U(0)))
			})
		})
		in := make([]uint32, w*h*dz)
		for i := range in {
			in[i] = bigU(i)
		}
		src, err := device.NewVolume[uint32](d, device.R32Uint, w, h, dz, 1)
		require.NoError(t, err)
		defer src.Close()
		dst, err := device.NewVolume[uint32](d, device.R32Uint, w, h, dz, 1)
		require.NoError(t, err)
		defer dst.Close()
		run(t, d, src.Upload(in), k.Dispatch([3]uint32{w, h, dz}, src, dst))
		got := make([]uint32, len(in))
		run(t, d, dst.Download(got))
		for i, v := range in {
			require.Equal(t, v*3+uint32(i/(w*h)), got[i], "texel %d", i)
		}
	})
}

func newImage[T any](t *testing.T, d *device.Device, f device.Format, w, h int, data []T) *device.Image[T] {
	t.Helper()
	img, err := device.NewImage[T](d, f, w, h, 1)
	require.NoError(t, err)
	t.Cleanup(func() { img.Close() })
	run(t, d, img.Upload(data))
	return img
}
