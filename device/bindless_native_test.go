package device_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/shadercache"
)

// TestSamplingPathExpected fails when the device's bindless texture path is
// not the one LUCENT_EXPECT_SAMPLING names (make test sets it for the second
// lavapipe, so a loader that ignored VK_DRIVER_FILES cannot pass unnoticed).
func TestSamplingPathExpected(t *testing.T) {
	want := os.Getenv("LUCENT_EXPECT_SAMPLING")
	if want == "" {
		t.Skip("LUCENT_EXPECT_SAMPLING not set")
	}
	d := openDevice(t)
	caps := d.Capabilities()
	require.Equal(t, want, caps.Sampling.String(), "%s", caps.Adapter)
	if caps.Sampling == device.PathNative {
		require.NotZero(t, caps.MaxBindlessTextures)
	}
}

// rgbaImage is a w×h RGBA32Float image holding px, closed when the test ends.
func rgbaImage(t *testing.T, d *device.Device, w, h int, px [][4]float32) *device.Image[[4]float32] {
	t.Helper()
	img, err := device.NewImage[[4]float32](d, device.RGBA32Float, w, h, 1)
	require.NoError(t, err)
	t.Cleanup(func() { img.Close() })
	run(t, d, img.Upload(px))
	return img
}

// TestBindlessTextureUpdatedBetweenDispatches changes a slot between two
// dispatches of one command list: each dispatch sees the texture the
// commands before it left in the slot (on the native path the second update
// writes a new version of the bound descriptor set).
func TestBindlessTextureUpdatedBetweenDispatches(t *testing.T) {
	samplingPaths(t, openDevice, func(t *testing.T, d *device.Device) {
		k := compile(t, d, bindlessTexKernel)
		arr, err := d.NewBindlessArray(2)
		require.NoError(t, err)
		defer arr.Close()
		mk := func(v float32) *device.Image[[4]float32] {
			return rgbaImage(t, d, 2, 2, [][4]float32{{v, 0, 0, 1}, {v, 1, 0, 1}, {v, 2, 0, 1}, {v, 3, 0, 1}})
		}
		a, b, c := mk(10), mk(20), mk(30)
		point := device.Sampler{Filter: device.FilterPoint}
		const n = 4
		slots := upload(t, d, []uint32{0, 0, 1, 1})
		xy := upload(t, d, [][2]uint32{{0, 0}, {1, 1}, {0, 0}, {1, 1}})
		uv := upload(t, d, [][2]float32{{0.25, 0.25}, {0.75, 0.75}, {0.25, 0.25}, {0.75, 0.75}})
		var reads, samples [3]*device.Buffer[[4]float32]
		sizes := upload(t, d, make([][2]uint32, n))
		for i := range reads {
			reads[i], samples[i] = upload(t, d, make([][4]float32, n)), upload(t, d, make([][4]float32, n))
		}
		dispatch := func(i int) device.Command {
			return k.Dispatch([3]uint32{n}, arr, slots, xy, uv, reads[i], samples[i], sizes)
		}
		require.NoError(t, arr.EmplaceTexture(0, a, point))
		cmds := []device.Command{arr.Update(), dispatch(0)}
		require.NoError(t, arr.EmplaceTexture(0, b, point))
		require.NoError(t, arr.EmplaceTexture(1, c, point))
		cmds = append(cmds, arr.Update(), dispatch(1))
		require.NoError(t, arr.Remove(0))
		cmds = append(cmds, arr.Update(), dispatch(2))
		run(t, d, cmds...)
		want := [3][n][4]float32{
			{{10, 0, 0, 1}, {10, 3, 0, 1}, {}, {}},
			{{20, 0, 0, 1}, {20, 3, 0, 1}, {30, 0, 0, 1}, {30, 3, 0, 1}},
			{{}, {}, {30, 0, 0, 1}, {30, 3, 0, 1}},
		}
		for i := range reads {
			got, gotS := download(t, d, reads[i]), download(t, d, samples[i])
			for j := range n {
				require.Equal(t, want[i][j], got[j], "dispatch %d, thread %d, read", i, j)
				require.Equal(t, want[i][j], gotS[j], "dispatch %d, thread %d, sample", i, j)
			}
		}
	})
}

// TestBindlessTextureNativeFormats samples formats the emulated path cannot
// decode (signed normalised, 16-bit unorm) where the device samples natively,
// and checks the emulated path refuses them with ErrUnsupported.
func TestBindlessTextureNativeFormats(t *testing.T) {
	samplingPaths(t, openDevice, func(t *testing.T, d *device.Device) {
		k := compile(t, d, bindlessTexKernel)
		arr, err := d.NewBindlessArray(2)
		require.NoError(t, err)
		defer arr.Close()
		snorm, err := device.NewImage[[4]int8](d, device.RGBA8Snorm, 2, 1, 1)
		require.NoError(t, err)
		defer snorm.Close()
		unorm16, err := device.NewImage[uint16](d, device.R16Unorm, 2, 1, 1)
		require.NoError(t, err)
		defer unorm16.Close()
		run(t, d, snorm.Upload([][4]int8{{127, -127, 0, 64}, {-64, 32, 127, -127}}), unorm16.Upload([]uint16{65535, 32768}))
		require.NoError(t, arr.EmplaceTexture(0, snorm, device.Sampler{Filter: device.FilterPoint}))
		require.NoError(t, arr.EmplaceTexture(1, unorm16, device.Sampler{Filter: device.FilterPoint}))
		slots := upload(t, d, []uint32{0, 0, 1, 1})
		xy := upload(t, d, [][2]uint32{{0, 0}, {1, 0}, {0, 0}, {1, 0}})
		uv := upload(t, d, [][2]float32{{0.25, 0.5}, {0.75, 0.5}, {0.25, 0.5}, {0.75, 0.5}})
		read, sampled := upload(t, d, make([][4]float32, 4)), upload(t, d, make([][4]float32, 4))
		sizes := upload(t, d, make([][2]uint32, 4))
		s, err := d.NewStream(device.StreamCompute)
		require.NoError(t, err)
		defer s.Close()
		err = s.Submit(arr.Update(), k.Dispatch([3]uint32{4}, arr, slots, xy, uv, read, sampled, sizes))
		if d.Capabilities().Sampling != device.PathNative {
			require.ErrorIs(t, err, device.ErrUnsupported)
			require.ErrorContains(t, err, "RGBA8Snorm")
			return
		}
		require.NoError(t, err)
		require.NoError(t, s.Synchronize(ctxT(t)))
		want := [][4]float32{{1, -1, 0, 64.0 / 127}, {-64.0 / 127, 32.0 / 127, 1, -1}, {1, 0, 0, 1}, {32768.0 / 65535, 0, 0, 1}}
		got, gotS := download(t, d, read), download(t, d, sampled)
		for i := range want {
			for c := range 4 {
				require.InDelta(t, want[i][c], got[i][c], 1e-5, "read %d channel %d", i, c)
				require.InDelta(t, want[i][c], gotS[i][c], 1e-5, "sample %d channel %d", i, c)
			}
		}
		require.Equal(t, [][2]uint32{{2, 1}, {2, 1}, {2, 1}, {2, 1}}, download(t, d, sizes))
	})
}

// TestBindlessTextureAheadOfTimeOnNative runs a kernel compiled ahead of
// time — for the emulated path, as no device is there to ask — on the
// device: on a device that samples natively, its texture slots are reached
// through the linear mirrors kept for such kernels.
func TestBindlessTextureAheadOfTimeOnNative(t *testing.T) {
	d := openDevice(t)
	f, err := bindlessTexKernel()
	require.NoError(t, err)
	store := shadercache.NewMemory()
	sig, err := device.SaveKernel(store, "bindless-tex", f)
	require.NoError(t, err)
	k, err := device.LoadKernel(d, store, "bindless-tex", sig)
	require.NoError(t, err)
	defer k.Close()
	compiled := compile(t, d, bindlessTexKernel)

	img, err := device.NewImage[[4]float32](d, device.RGBA32Float, 3, 2, 1)
	require.NoError(t, err)
	defer img.Close()
	px := [][4]float32{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}, {17, 18, 19, 20}, {21, 22, 23, 24}}
	run(t, d, img.Upload(px))
	arr, err := d.NewBindlessArray(1)
	require.NoError(t, err)
	defer arr.Close()
	require.NoError(t, arr.EmplaceTexture(0, img, device.Sampler{Filter: device.FilterLinear, Address: device.AddressRepeat}))
	const n = 6
	slots := upload(t, d, make([]uint32, n))
	xy := upload(t, d, [][2]uint32{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}})
	uv := upload(t, d, [][2]float32{{0.1, 0.2}, {0.5, 0.5}, {0.9, 0.7}, {0.33, 0.9}, {1.2, -0.3}, {0.6, 0.4}})
	var out [2][3]*device.Buffer[[4]float32]
	var sizes [2]*device.Buffer[[2]uint32]
	for i := range out {
		out[i][0], out[i][1] = upload(t, d, make([][4]float32, n)), upload(t, d, make([][4]float32, n))
		sizes[i] = upload(t, d, make([][2]uint32, n))
	}
	run(t, d, arr.Update(),
		k.Dispatch([3]uint32{n}, arr, slots, xy, uv, out[0][0], out[0][1], sizes[0]),
		compiled.Dispatch([3]uint32{n}, arr, slots, xy, uv, out[1][0], out[1][1], sizes[1]))
	require.Equal(t, px, download(t, d, out[0][0]), "reads of the ahead-of-time kernel")
	require.Equal(t, px, download(t, d, out[1][0]), "reads of the kernel compiled for the device")
	aot, dev := download(t, d, out[0][1]), download(t, d, out[1][1])
	for i := range aot {
		for c := range 4 {
			require.InDelta(t, dev[i][c], aot[i][c], 1e-3, "sample %d channel %d: ahead of time vs compiled for %v", i, c, d.Capabilities().Sampling)
		}
	}

	// A larger texture in the slot outgrows its mirror: the next
	// ahead-of-time dispatch gets a new one (lazily, on the native path).
	big, err := device.NewImage[[4]float32](d, device.RGBA32Float, 4, 3, 1)
	require.NoError(t, err)
	defer big.Close()
	bigPx := make([][4]float32, 12)
	for i := range bigPx {
		bigPx[i] = [4]float32{float32(-i), float32(i * i), 0.5, 1}
	}
	require.NoError(t, arr.EmplaceTexture(0, big, device.Sampler{Filter: device.FilterPoint}))
	xy2 := upload(t, d, [][2]uint32{{3, 2}, {0, 1}, {2, 0}, {1, 2}, {3, 0}, {0, 0}})
	run(t, d, big.Upload(bigPx), arr.Update(), k.Dispatch([3]uint32{n}, arr, slots, xy2, uv, out[0][0], out[0][1], sizes[0]))
	got := download(t, d, out[0][0])
	for i, p := range [][2]int{{3, 2}, {0, 1}, {2, 0}, {1, 2}, {3, 0}, {0, 0}} {
		require.Equal(t, bigPx[p[1]*4+p[0]], got[i], "read at %v after the slot grew", p)
	}
	require.Equal(t, [2]uint32{4, 3}, download(t, d, sizes[0])[0])
}

// TestBindlessTextureSetLimit: a kernel sampling more bindless arrays than
// the native path gives sets for is refused with ErrUnsupported naming the
// argument, not miscompiled.
func TestBindlessTextureSetLimit(t *testing.T) {
	d := openDevice(t)
	if d.Capabilities().Sampling != device.PathNative {
		t.Skip("the limit belongs to the native path; this device emulates texture slots")
	}
	f, err := dsl.Kernel1D(32, func(k *dsl.K, a, b, c, e, g dsl.BindlessArray, out dsl.Buf[dsl.F32x4]) {
		i := k.DispatchID().X()
		uv := dsl.V2(dsl.F(0.5), dsl.F(0.5))
		v := a.Texture2D(i).Sample(uv).Add(b.Texture2D(i).Sample(uv)).Add(c.Texture2D(i).Sample(uv))
		out.Write(i, v.Add(e.Texture2D(i).Sample(uv)).Add(g.Texture2D(i).Sample(uv)))
	}, "a", "b", "c", "e", "g", "out")
	require.NoError(t, err)
	_, err = device.Compile(d, f)
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "(g)")
}

// TestBindlessTextureConcurrentStreams: goroutines on streams of their own
// re-emplace, update and sample the slots of their own arrays, sharing the
// textures, each round checked; on the native path every round after the
// first writes a new version of a bound set while other streams' versions
// are in flight (run under -race).
func TestBindlessTextureConcurrentStreams(t *testing.T) {
	samplingPaths(t, openDevice, func(t *testing.T, d *device.Device) {
		k := compile(t, d, bindlessTexKernel)
		texs := make([]*device.Image[[4]float32], 3)
		for i := range texs {
			texs[i] = rgbaImage(t, d, 1, 1, [][4]float32{{float32(i + 1), 0, 0, 1}})
		}
		const workers, rounds = 4, 12
		// Each worker's stream, array and buffers are made here (require
		// belongs to the test's goroutine); the rounds run concurrently.
		type worker struct {
			s             *device.Stream
			arr           *device.BindlessArray
			slots         *device.Buffer[uint32]
			xy            *device.Buffer[[2]uint32]
			uv            *device.Buffer[[2]float32]
			read, sampled *device.Buffer[[4]float32]
			sizes         *device.Buffer[[2]uint32]
		}
		ws := make([]worker, workers)
		for w := range ws {
			s, err := d.NewStream(device.StreamCompute)
			require.NoError(t, err)
			t.Cleanup(func() { s.Close() })
			arr, err := d.NewBindlessArray(2)
			require.NoError(t, err)
			t.Cleanup(func() { arr.Close() })
			ws[w] = worker{s: s, arr: arr, slots: upload(t, d, []uint32{0, 1}), xy: upload(t, d, make([][2]uint32, 2)),
				uv: upload(t, d, [][2]float32{{0.5, 0.5}, {0.5, 0.5}}), read: upload(t, d, make([][4]float32, 2)),
				sampled: upload(t, d, make([][4]float32, 2)), sizes: upload(t, d, make([][2]uint32, 2))}
		}
		errs := make(chan error, workers)
		for w, x := range ws {
			go func() {
				errs <- func() error {
					for r := range rounds {
						a, b := (w+r)%len(texs), (w+2*r+1)%len(texs)
						if err := x.arr.EmplaceTexture(0, texs[a], device.Sampler{}); err != nil {
							return err
						}
						if err := x.arr.EmplaceTexture(1, texs[b], device.Sampler{}); err != nil {
							return err
						}
						got, gotS := make([][4]float32, 2), make([][4]float32, 2)
						if err := x.s.Submit(x.arr.Update(), k.Dispatch([3]uint32{2}, x.arr, x.slots, x.xy, x.uv, x.read, x.sampled, x.sizes),
							x.read.Download(got), x.sampled.Download(gotS)); err != nil {
							return err
						}
						if err := x.s.Synchronize(ctxT(t)); err != nil {
							return err
						}
						want := [][4]float32{{float32(a + 1), 0, 0, 1}, {float32(b + 1), 0, 0, 1}}
						if got[0] != want[0] || got[1] != want[1] || gotS[0] != want[0] || gotS[1] != want[1] {
							return fmt.Errorf("worker %d round %d: read %v sampled %v, want %v", w, r, got, gotS, want)
						}
					}
					return nil
				}()
			}()
		}
		for range workers {
			require.NoError(t, <-errs)
		}
	})
}

// TestBindlessTextureClosedThenUpdated: a texture closed while it is still
// in a slot, then an update of another slot (on the native path: a new
// version of the bound set, rewritten without the closed texture's view).
// Dispatches fail naming the slot until it is emptied; then they run.
func TestBindlessTextureClosedThenUpdated(t *testing.T) {
	samplingPaths(t, openDevice, func(t *testing.T, d *device.Device) {
		k := compile(t, d, bindlessTexKernel)
		arr, err := d.NewBindlessArray(2)
		require.NoError(t, err)
		defer arr.Close()
		mk := func(v float32) *device.Image[[4]float32] { return rgbaImage(t, d, 1, 1, [][4]float32{{v, 0, 0, 1}}) }
		a, b, c := mk(1), mk(2), mk(3)
		slots, xy := upload(t, d, []uint32{0, 1}), upload(t, d, make([][2]uint32, 2))
		uv := upload(t, d, [][2]float32{{0.5, 0.5}, {0.5, 0.5}})
		read, sampled, sizes := upload(t, d, make([][4]float32, 2)), upload(t, d, make([][4]float32, 2)), upload(t, d, make([][2]uint32, 2))
		dispatch := k.Dispatch([3]uint32{2}, arr, slots, xy, uv, read, sampled, sizes)
		require.NoError(t, arr.EmplaceTexture(0, a, device.Sampler{}))
		require.NoError(t, arr.EmplaceTexture(1, b, device.Sampler{}))
		run(t, d, arr.Update(), dispatch)
		require.NoError(t, a.Close())
		require.NoError(t, arr.EmplaceTexture(1, c, device.Sampler{}))
		s, err := d.NewStream(device.StreamCompute)
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, s.Submit(arr.Update()))
		err = s.Submit(dispatch)
		require.Error(t, err)
		require.ErrorContains(t, err, "slot 0")
		require.NoError(t, arr.Remove(0))
		run(t, d, arr.Update(), dispatch)
		require.Equal(t, [][4]float32{{}, {3, 0, 0, 1}}, download(t, d, read))
	})
}
