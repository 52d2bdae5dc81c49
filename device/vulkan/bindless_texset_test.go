package vulkan

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestTextureSetsReused: on the native sampling path, an update between
// dispatches writes a new version of the array's texture descriptor set;
// once the work that bound an old version is done, the next version reuses
// it instead of allocating a set (which took 30 ms on Mesa 25's lavapipe,
// sized by the layout's MaxBindlessTextures slots). Every version must
// still sample what its update put in the slot.
func TestTextureSetsReused(t *testing.T) {
	ctx := context.Background()
	d, err := device.Open(ctx, "vulkan", device.WithValidationLayer(true), device.WithDebug(func(m device.DebugMessage) {
		if m.Severity == device.SeverityError {
			t.Errorf("validation: %s: %s", m.ID, m.Text)
		}
	}))
	testenv.Need(t, "Vulkan device", err)
	defer d.Close()
	if d.Capabilities().Sampling != device.PathNative {
		require.NotEqual(t, "native", os.Getenv("LUCENT_EXPECT_SAMPLING"))
		t.Skip("bindless textures are emulated on this device: no descriptor sets")
	}
	f, err := dsl.Kernel1D(1, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32x4]) {
		out.Write(dsl.U(0), arr.Texture2D(dsl.U(1)).Sample(dsl.V2(dsl.F(0.5), dsl.F(0.5))))
	}, "arr", "out")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	arr, err := d.NewBindlessArray(4)
	require.NoError(t, err)
	defer arr.Close()
	out, err := device.NewBuffer[[4]float32](d, 1)
	require.NoError(t, err)
	defer out.Close()
	var imgs [2]*device.Image[float32]
	for i := range imgs {
		imgs[i], err = device.NewImage[float32](d, device.R32Float, 1, 1, 1)
		require.NoError(t, err)
		defer imgs[i].Close()
		require.NoError(t, s.Submit(imgs[i].Upload([]float32{float32(10 * (i + 1))})))
	}

	const rounds = 20
	before := texSetsMade.Load()
	for r := range rounds {
		require.NoError(t, arr.EmplaceTexture(1, imgs[r%2], device.Sampler{}))
		got := make([][4]float32, 1)
		require.NoError(t, s.Submit(arr.Update(), k.Dispatch([3]uint32{1}, arr, out), out.Download(got)))
		require.NoError(t, s.Synchronize(ctx))
		require.Equal(t, float32(10*(r%2+1)), got[0][0], "round %d", r)
	}
	made := texSetsMade.Load() - before
	require.LessOrEqual(t, made, int64(3), "%d texture sets allocated for %d updates between dispatches", made, rounds)
}

// TestBufferKernelSkipsMirrors: a kernel that reads only buffer slots of a
// bindless array does not copy the array's textures into their mirrors
// before it runs; one that reads a texture slot does, and sees the texture
// as the commands before it left it. Every dispatch binding the array
// copied every texture: 4–10 ms a dispatch of a buffer-reading kernel on
// lavapipe 22.3 with one 2048² RGBA8 texture in the array (0.05 ms without).
func TestBufferKernelSkipsMirrors(t *testing.T) {
	for _, path := range []string{"", "1"} {
		t.Run("emulate="+path, func(t *testing.T) {
			if path != "" {
				t.Setenv(EnvEmulateBindlessTextures, path)
			}
			ctx := context.Background()
			d, err := device.Open(ctx, "vulkan", device.WithValidationLayer(true), device.WithDebug(func(m device.DebugMessage) {
				if m.Severity == device.SeverityError {
					t.Errorf("validation: %s: %s", m.ID, m.Text)
				}
			}))
			testenv.Need(t, "Vulkan device", err)
			defer d.Close()
			bufOnly, err := dsl.Kernel1D(1, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32x4]) {
				out.Write(dsl.U(0), dsl.V4(dsl.ReadBuffer[dsl.F32](arr, dsl.U(1), dsl.U(0)), dsl.F(0), dsl.F(0), dsl.F(0)))
			}, "arr", "out")
			require.NoError(t, err)
			texRead, err := dsl.Kernel1D(1, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32x4]) {
				out.Write(dsl.U(0), arr.Texture2D(dsl.U(0)).Read(dsl.V2(dsl.U(0), dsl.U(0))))
			}, "arr", "out")
			require.NoError(t, err)
			kb, err := device.Compile(d, bufOnly)
			require.NoError(t, err)
			defer kb.Close()
			kt, err := device.Compile(d, texRead)
			require.NoError(t, err)
			defer kt.Close()
			s, err := d.NewStream(device.StreamCompute)
			require.NoError(t, err)
			defer s.Close()
			arr, err := d.NewBindlessArray(2)
			require.NoError(t, err)
			defer arr.Close()
			img, err := device.NewImage[float32](d, device.R32Float, 4, 4, 1)
			require.NoError(t, err)
			defer img.Close()
			buf, err := device.NewBuffer[float32](d, 1)
			require.NoError(t, err)
			defer buf.Close()
			out, err := device.NewBuffer[[4]float32](d, 1)
			require.NoError(t, err)
			defer out.Close()
			require.NoError(t, arr.EmplaceTexture(0, img, device.Sampler{}))
			require.NoError(t, arr.EmplaceBuffer(1, buf))
			px := make([]float32, 16)
			px[0] = 7
			require.NoError(t, s.Submit(img.Upload(px), buf.Upload([]float32{3}), arr.Update()))

			got := make([][4]float32, 1)
			before := mirrorRefreshes.Load()
			require.NoError(t, s.Submit(kb.Dispatch([3]uint32{1}, arr, out), out.Download(got)))
			require.NoError(t, s.Synchronize(ctx))
			require.Equal(t, [4]float32{3, 0, 0, 0}, got[0])
			require.Equal(t, int64(0), mirrorRefreshes.Load()-before, "mirror copies for a kernel reading buffer slots only")

			px[0] = 9
			require.NoError(t, s.Submit(img.Upload(px), kt.Dispatch([3]uint32{1}, arr, out), out.Download(got)))
			require.NoError(t, s.Synchronize(ctx))
			require.Equal(t, [4]float32{9, 0, 0, 1}, got[0])
		})
	}
}
