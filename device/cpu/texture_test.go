package cpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// TestImage: levels uploaded and downloaded, a kernel inverting a storage
// RGBA8 image in place, copies through a buffer and between textures, and
// region errors.
func TestImage(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	inv, err := dsl.Kernel2D(8, 8, func(k *dsl.K, img dsl.Tex2DRGBA8) {
		p := k.DispatchID().XY()
		k.If(p.X().Lt(img.Size().X()).And(p.Y().Lt(img.Size().Y())), func() {
			one := dsl.V4(dsl.F(1), dsl.F(1), dsl.F(1), dsl.F(1))
			img.Write(p, one.Sub(img.Read(p)))
		})
	}, "img")
	require.NoError(t, err)
	k, err := device.Compile(d, inv)
	require.NoError(t, err)
	defer k.Close()
	const w, h = 37, 19
	img, err := device.NewImage[[4]uint8](d, device.RGBA8Unorm, w, h, 3)
	require.NoError(t, err)
	defer img.Close()
	px := make([][4]uint8, w*h)
	for i := range px {
		px[i] = [4]uint8{uint8(i), uint8(i * 3), uint8(255 - i%256), 200}
	}
	lvl1 := make([][4]uint8, img.Level(1).Pixels())
	for i := range lvl1 {
		lvl1[i] = [4]uint8{1, 2, 3, uint8(i)}
	}
	staging, err := device.NewBuffer[[4]uint8](d, w*h)
	require.NoError(t, err)
	defer staging.Close()
	got0, got1, viaBuf := make([][4]uint8, w*h), make([][4]uint8, len(lvl1)), make([][4]uint8, w*h)
	require.NoError(t, s.Submit(
		img.Upload(px), img.Level(1).Upload(lvl1),
		k.Dispatch([3]uint32{w, h}, img),
		img.Download(got0), img.Level(1).Download(got1),
		img.Level(0).CopyToBuffer(staging.All()), staging.Download(viaBuf),
	))
	require.NoError(t, s.Synchronize(ctxT(t)))
	for i, p := range px {
		require.Equal(t, [4]uint8{255 - p[0], 255 - p[1], 255 - p[2], 255 - p[3]}, got0[i], "pixel %d", i)
	}
	require.Equal(t, got0, viaBuf)
	require.Equal(t, lvl1, got1, "level 1 untouched by the level-0 dispatch")

	other, err := device.NewImage[[4]uint8](d, device.RGBA8Unorm, w, h, 1)
	require.NoError(t, err)
	defer other.Close()
	back := make([][4]uint8, w*h)
	require.NoError(t, s.Submit(staging.Upload(px), img.Level(0).CopyFromBuffer(staging.All()),
		other.Level(0).CopyFrom(img.Level(0)), other.Download(back)))
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.Equal(t, px, back)

	p := openPlain(t)
	pimg, err := device.NewImage[[4]uint8](p, device.RGBA8Unorm, 4, 4, 1)
	require.NoError(t, err)
	defer pimg.Close()
	ps := stream(t, p, device.StreamCompute)
	err = ps.Submit(&device.TextureUpload{Texture: pimg.Handle(), Region: device.Region{Origin: [3]uint32{2, 2, 0}, Size: [3]uint32{4, 1, 1}}, Data: make([]byte, 16)})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "out of level 0")
}

// TestTextureFormats writes texels of a 3D float volume through a kernel.
func TestTextureFormats(t *testing.T) {
	d := open(t)
	vol, err := dsl.Kernel3D(4, 4, 4, func(k *dsl.K, v dsl.Tex3D) {
		p := k.DispatchID()
		f := dsl.Convert[float32](p.X().Add(p.Y().Mul(dsl.U(10))).Add(p.Z().Mul(dsl.U(100))))
		v.Write(p, dsl.V4(f, f.Mul(dsl.F(0.5)), dsl.F(-0.25), dsl.F(1)))
	}, "v")
	require.NoError(t, err)
	k, err := device.Compile(d, vol)
	require.NoError(t, err)
	defer k.Close()
	const w, h, z = 9, 7, 5
	v32, err := device.NewVolume[[4]float32](d, device.RGBA32Float, w, h, z, 1)
	require.NoError(t, err)
	defer v32.Close()
	got := make([][4]float32, w*h*z)
	run(t, d, k.Dispatch([3]uint32{w, h, z}, v32), v32.Download(got))
	for kk := range z {
		for j := range h {
			for i := range w {
				f := float32(i + 10*j + 100*kk)
				require.Equal(t, [4]float32{f, f / 2, -0.25, 1}, got[(kk*h+j)*w+i], "texel %d,%d,%d", i, j, kk)
			}
		}
	}
}
