package device_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// End-to-end tests of the typed API on the Vulkan backend (lavapipe on a bare
// CI machine), with the Khronos validation layer and lucent's validation
// wrapper both on: any validation-layer error fails the test, and so does a
// resource the test forgot to Close.

func openVulkan(t *testing.T, opts ...device.Option) *device.Device {
	t.Helper()
	var mu sync.Mutex
	var layerErrors []string
	all := append([]device.Option{
		device.WithValidation(),
		device.WithValidationLayer(true),
		device.WithDebug(func(m device.DebugMessage) {
			if m.Severity == device.SeverityError {
				mu.Lock()
				layerErrors = append(layerErrors, m.ID+": "+m.Text)
				mu.Unlock()
			}
		}),
	}, opts...)
	d, err := device.Open(context.Background(), "vulkan", all...)
	testenv.Need(t, "a Vulkan device", err)
	t.Cleanup(func() {
		require.NoError(t, d.Close(), "Close (a leak fails the test)")
		mu.Lock()
		defer mu.Unlock()
		require.Empty(t, layerErrors, "validation layer errors")
	})
	return d
}

func newStream(t *testing.T, d *device.Device, kind device.StreamKind) *device.Stream {
	t.Helper()
	s, err := d.NewStream(kind)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

func newBuffer[T any](t *testing.T, d *device.Device, n int) *device.Buffer[T] {
	t.Helper()
	b, err := device.NewBuffer[T](d, n)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

func newShader(t *testing.T, d *device.Device, name string, words []uint32) *device.Shader {
	t.Helper()
	sh, err := d.NewShader(device.ShaderDesc{SPIRV: words, Name: name})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, sh.Close()) })
	return sh
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestVulkanOpenAndEnumerate(t *testing.T) {
	d := openVulkan(t)
	require.Contains(t, device.Backends(), "vulkan")
	list, err := device.Enumerate(context.Background(), "vulkan")
	require.NoError(t, err)
	require.NotEmpty(t, list)
	caps := d.Capabilities()
	require.Equal(t, "vulkan", d.Backend())
	require.Equal(t, list[device.DefaultAdapter(list)].Name, caps.Adapter.Name)
	require.NotZero(t, caps.MaxWorkgroupInvocations)
	native, err := device.Extension[device.NativeHandles](d)
	require.NoError(t, err)
	require.NotZero(t, native.NativeDevice())
	require.GreaterOrEqual(t, d.Interface().WarpSize(), uint32(1))
}

func TestVulkanSaxpy(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCompute)
	sh := newShader(t, d, "saxpy", saxpySPIRV)

	sig := sh.Signature()
	require.Len(t, sig.Args, 4, "x, y, then the push constants a and n: %v", sig)
	require.Equal(t, []device.ArgKind{device.ArgBuffer, device.ArgBuffer, device.ArgUniform, device.ArgUniform},
		[]device.ArgKind{sig.Args[0].Kind, sig.Args[1].Kind, sig.Args[2].Kind, sig.Args[3].Kind})
	require.Equal(t, [3]uint32{64, 1, 1}, sig.BlockSize)

	const n = 1000 // not a multiple of the block size
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i)*0.5, float32(n-i)
	}
	bx, by := newBuffer[float32](t, d, n), newBuffer[float32](t, d, n)
	got := make([]float32, n)
	const a = float32(3)
	require.NoError(t, s.Submit(
		bx.Upload(x), by.Upload(y),
		sh.Dispatch([3]uint32{n}, bx, by, a, uint32(n)),
		by.Download(got),
	))
	require.NoError(t, s.Synchronize(ctxT(t)))
	for i := range got {
		require.Equal(t, a*x[i]+y[i], got[i], "element %d", i)
	}

	// The same with the group count read on the device: ceil(n/64) groups,
	// stored after a leading padding word.
	groups := newBuffer[uint32](t, d, 4)
	got2 := make([]float32, n)
	require.NoError(t, s.Submit(
		by.Upload(y),
		groups.Upload([]uint32{0, (n + 63) / 64, 1, 1}),
		sh.DispatchIndirect(groups.View(1, 3), bx, by, a, uint32(n)),
		by.Download(got2),
	))
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.Equal(t, got, got2)
}

func TestVulkanViewsAndCopies(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCopy)
	src := newBuffer[int32](t, d, 64)
	dst := newBuffer[int32](t, d, 64)
	data := make([]int32, 64)
	for i := range data {
		data[i] = int32(i*7 - 100)
	}
	zero := make([]int32, 64)
	head, tail := make([]int32, 10), make([]int32, 20)
	require.NoError(t, s.Submit(
		src.Upload(data),
		dst.Upload(zero),
		dst.View(30, 20).CopyFrom(src.View(5, 20)),
		dst.View(0, 10).Download(head),
		dst.View(30, 34).Download(tail),
	))
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.Equal(t, zero[:10], head)
	require.Equal(t, data[5:25], tail)

	err := s.Submit(dst.View(60, 10).Download(tail))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
}

// particle has the layout of the GLSL struct in integrateSPIRV (scalar layout).
type particle struct {
	Pos  [3]float32
	Mass float32
	Vel  [3]float32
	ID   uint32
}

func TestVulkanStructBuffer(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCompute)
	sh := newShader(t, d, "integrate", integrateSPIRV)
	const n = 100
	ps := make([]particle, n)
	for i := range ps {
		ps[i] = particle{Pos: [3]float32{float32(i), 1, 2}, Mass: 9, Vel: [3]float32{1, float32(i), -2}, ID: uint32(i)}
	}
	buf := newBuffer[particle](t, d, n)
	got := make([]particle, n)
	const dt = float32(0.5)
	require.NoError(t, s.Submit(buf.Upload(ps), sh.Dispatch([3]uint32{n}, buf, dt, uint32(n)), buf.Download(got)))
	require.NoError(t, s.Synchronize(ctxT(t)))
	for i, p := range ps {
		want := p
		for k := range 3 {
			want.Pos[k] = p.Pos[k] + p.Vel[k]*dt
		}
		want.ID = p.ID*2 + 1
		require.Equal(t, want, got[i], "particle %d", i)
	}
}

func TestVulkanImage(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCompute)
	sh := newShader(t, d, "invert", invertSPIRV)
	const w, h = 37, 19
	img, err := device.NewImage[[4]uint8](d, device.RGBA8Unorm, w, h, 3)
	require.NoError(t, err)
	defer func() { require.NoError(t, img.Close()) }()

	px := make([][4]uint8, w*h)
	for i := range px {
		px[i] = [4]uint8{uint8(i), uint8(i * 3), uint8(255 - i%256), 200}
	}
	lvl1 := make([][4]uint8, img.Level(1).Pixels())
	for i := range lvl1 {
		lvl1[i] = [4]uint8{1, 2, 3, uint8(i)}
	}
	staging := newBuffer[[4]uint8](t, d, w*h)
	got0, got1, viaBuf := make([][4]uint8, w*h), make([][4]uint8, len(lvl1)), make([][4]uint8, w*h)
	require.NoError(t, s.Submit(
		img.Upload(px),
		img.Level(1).Upload(lvl1),
		sh.Dispatch([3]uint32{w, h}, img),
		img.Download(got0),
		img.Level(1).Download(got1),
		img.Level(0).CopyToBuffer(staging.All()),
		staging.Download(viaBuf),
	))
	require.NoError(t, s.Synchronize(ctxT(t)))
	for i, p := range px {
		want := [4]uint8{255 - p[0], 255 - p[1], 255 - p[2], 255 - p[3]}
		require.Equal(t, want, got0[i], "pixel %d", i)
	}
	require.Equal(t, got0, viaBuf)
	require.Equal(t, lvl1, got1, "level 1 untouched by the level-0 dispatch")

	// Buffer to texture, then texture to texture.
	other, err := device.NewImage[[4]uint8](d, device.RGBA8Unorm, w, h, 1)
	require.NoError(t, err)
	defer func() { require.NoError(t, other.Close()) }()
	back := make([][4]uint8, w*h)
	require.NoError(t, s.Submit(
		staging.Upload(px),
		img.Level(0).CopyFromBuffer(staging.All()),
		other.Level(0).CopyFrom(img.Level(0)),
		other.Download(back),
	))
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.Equal(t, px, back)

	_, err = device.NewImage[[2]float32](d, device.RGBA8Unorm, w, h, 1)
	require.ErrorIs(t, err, device.ErrInvalidArgument, "pixel type size must match the format")
}

func TestVulkanVolume(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCompute)
	sh := newShader(t, d, "fill3d", fill3DSPIRV)
	const w, h, z = 9, 7, 5
	vol, err := device.NewVolume[float32](d, device.R32Float, w, h, z, 1)
	require.NoError(t, err)
	defer func() { require.NoError(t, vol.Close()) }()
	got := make([]float32, w*h*z)
	require.NoError(t, s.Submit(sh.Dispatch([3]uint32{w, h, z}, vol), vol.Download(got)))
	require.NoError(t, s.Synchronize(ctxT(t)))
	for k := range z {
		for j := range h {
			for i := range w {
				require.Equal(t, float32(i+10*j+100*k), got[(k*h+j)*w+i], "texel %d,%d,%d", i, j, k)
			}
		}
	}
}

func TestVulkanSampledTexture(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCompute)
	sh := newShader(t, d, "sample", sampleSPIRV)
	require.Equal(t, device.ArgSampledTexture, sh.Signature().Args[0].Kind, "%v", sh.Signature())
	img, err := device.NewImage[float32](d, device.R32Float, 4, 1, 1)
	require.NoError(t, err)
	defer func() { require.NoError(t, img.Close()) }()
	// Texel centres of a 4-wide texture are at u = 0.125, 0.375, …; 0.25 lies
	// halfway between the first two, -0.125 one texel left of the edge.
	uv := [][2]float32{{0.125, 0.5}, {0.375, 0.5}, {0.875, 0.5}, {0.25, 0.5}, {-0.125, 0.5}}
	uvs := newBuffer[[2]float32](t, d, len(uv))
	out := newBuffer[[4]float32](t, d, len(uv))
	for _, c := range []struct {
		sampler device.Sampler
		want    []float32
	}{
		{device.Sampler{Filter: device.FilterPoint, Address: device.AddressEdge}, []float32{5, 10, 30, 10, 5}},
		{device.Sampler{Filter: device.FilterLinearPoint, Address: device.AddressEdge}, []float32{5, 10, 30, 7.5, 5}},
		{device.Sampler{Filter: device.FilterPoint, Address: device.AddressRepeat}, []float32{5, 10, 30, 10, 30}},
		{device.Sampler{Filter: device.FilterPoint, Address: device.AddressMirror}, []float32{5, 10, 30, 10, 5}},
		{device.Sampler{Filter: device.FilterPoint, Address: device.AddressZero}, []float32{5, 10, 30, 10, 0}},
	} {
		t.Run(c.sampler.String(), func(t *testing.T) {
			got := make([][4]float32, len(uv))
			require.NoError(t, s.Submit(
				img.Upload([]float32{5, 10, 20, 30}), uvs.Upload(uv),
				sh.Dispatch([3]uint32{uint32(len(uv))}, img.Sampled(c.sampler), uvs, out, uint32(len(uv))),
				out.Download(got)))
			require.NoError(t, s.Synchronize(ctxT(t)))
			for i, w := range c.want {
				require.InDelta(t, w, got[i][0], 1e-4, "sample %d at %v", i, uv[i])
			}
		})
	}
}

func TestVulkanEventsAcrossStreams(t *testing.T) {
	d := openVulkan(t)
	up := newStream(t, d, device.StreamCopy)
	comp := newStream(t, d, device.StreamCompute)
	sh := newShader(t, d, "saxpy", saxpySPIRV)
	ev, err := d.NewEvent()
	require.NoError(t, err)
	defer func() { require.NoError(t, ev.Close()) }()

	const n = 4096
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), 1
	}
	bx, by := newBuffer[float32](t, d, n), newBuffer[float32](t, d, n)
	require.NoError(t, up.Submit(bx.Upload(x), by.Upload(y)))
	require.NoError(t, ev.Signal(up, 1))
	require.NoError(t, ev.Wait(comp, 1))
	require.NoError(t, comp.Submit(sh.Dispatch([3]uint32{n}, bx, by, float32(2), uint32(n))))
	require.NoError(t, ev.Signal(comp, 2))
	require.NoError(t, ev.Synchronize(ctxT(t), 2))
	done, err := ev.Completed(2)
	require.NoError(t, err)
	require.True(t, done)

	got := make([]float32, n)
	require.NoError(t, ev.Wait(up, 2))
	require.NoError(t, up.Submit(by.Download(got)))
	require.NoError(t, up.Synchronize(ctxT(t)))
	for i := range got {
		require.Equal(t, 2*x[i]+y[i], got[i], "element %d", i)
	}

	// No event between a write on one stream and a use on another: the
	// validation wrapper refuses the submission.
	require.NoError(t, up.Submit(bx.Upload(y)))
	err = comp.Submit(sh.Dispatch([3]uint32{n}, bx, by, float32(2), uint32(n)))
	require.ErrorIs(t, err, device.ErrHazard)
	require.NoError(t, up.Synchronize(ctxT(t)))
	require.NoError(t, comp.Submit(sh.Dispatch([3]uint32{n}, bx, by, float32(2), uint32(n))), "host sync orders them")
	require.NoError(t, comp.Synchronize(ctxT(t)))

	// A value nobody signals: the wait ends with the context.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, ev.Synchronize(ctx, 99), context.DeadlineExceeded)
	done, err = ev.Completed(99)
	require.NoError(t, err)
	require.False(t, done)
}

func TestVulkanCallbacks(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCompute)
	buf := newBuffer[uint32](t, d, 16)
	got := make([]uint32, 16)
	var seen []uint32
	var l device.CommandList
	l.Add(buf.Upload([]uint32{5, 6, 7}), buf.View(0, 3).Download(got[:3]))
	l.OnDone(func() { seen = append([]uint32(nil), got[:3]...) })
	require.NoError(t, s.SubmitList(&l))
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.Equal(t, []uint32{5, 6, 7}, seen, "callbacks run after the download landed")
}

func TestVulkanArgumentErrors(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCompute)
	sh := newShader(t, d, "saxpy", saxpySPIRV)
	bx := newBuffer[float32](t, d, 8)
	b2 := newBuffer[[2]float32](t, d, 8)
	for _, c := range []struct {
		name string
		args []any
		want string
	}{
		{"count", []any{bx, bx, float32(1)}, "takes 4 argument(s)"},
		{"uniform for buffer", []any{bx, float32(1), float32(1), uint32(8)}, "argument 1"},
		{"element size", []any{b2, bx, float32(1), uint32(8)}, "argument 0"},
		{"uniform type", []any{bx, bx, int32(1), uint32(8)}, "argument 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := s.Submit(sh.Dispatch([3]uint32{8}, c.args...))
			require.ErrorIs(t, err, device.ErrInvalidArgument)
			require.Contains(t, err.Error(), c.want)
		})
	}
	require.NoError(t, s.Synchronize(ctxT(t)))
}

func TestVulkanUseAfterClose(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCompute)
	b, err := device.NewBuffer[float32](d, 4)
	require.NoError(t, err)
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "idempotent")
	require.ErrorIs(t, s.Submit(b.Upload([]float32{1})), device.ErrClosed)

	_, err = device.NewBuffer[string](d, 4)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = device.NewBuffer[float32](d, 0)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
}

func TestVulkanLeakReport(t *testing.T) {
	d, err := device.Open(context.Background(), "vulkan", device.WithValidation(), device.WithValidationLayer(true),
		device.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	testenv.Need(t, "a Vulkan device", err)
	_, err = device.NewBuffer[float32](d, 4)
	require.NoError(t, err)
	ev, err := d.NewEvent()
	require.NoError(t, err)
	require.NoError(t, ev.SetName("forgotten"))
	err = d.Close()
	require.ErrorIs(t, err, device.ErrLeaked)
	var le *device.LeakError
	require.True(t, errors.As(err, &le))
	require.Len(t, le.Leaks, 2)
	require.Equal(t, device.KindBuffer, le.Leaks[0].Kind)
	require.Equal(t, "forgotten", le.Leaks[1].Name)
	require.NoError(t, d.Close())
}

func TestVulkanBindlessBuffers(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCompute)
	// A raw module declares the slot table as a plain storage buffer; the
	// signature says it is a bindless array.
	sh, err := d.NewShader(device.ShaderDesc{SPIRV: bindlessSumSPIRV, Name: "bindless-sum", Signature: &device.Signature{
		Args: []device.Argument{
			{Name: "slots", Kind: device.ArgBindlessArray, Access: device.Read},
			{Name: "out", Kind: device.ArgBuffer, ElemSize: 4, Access: device.Write},
		},
		BlockSize: [3]uint32{1, 1, 1},
	}})
	require.NoError(t, err)
	defer func() { require.NoError(t, sh.Close()) }()
	arr, err := d.NewBindlessArray(4)
	require.NoError(t, err)
	defer func() { require.NoError(t, arr.Close()) }()

	a, b := newBuffer[uint32](t, d, 16), newBuffer[uint32](t, d, 10)
	as, bs := make([]uint32, 16), make([]uint32, 10)
	for i := range as {
		as[i] = uint32(i + 1)
	}
	for i := range bs {
		bs[i] = uint32(100 * (i + 1))
	}
	out := newBuffer[uint32](t, d, 4)
	require.NoError(t, arr.EmplaceBuffer(0, a))
	require.NoError(t, arr.EmplaceBuffer(1, b.View(2, 3)))
	require.NoError(t, arr.EmplaceBuffer(3, a.View(15, 1)))
	got := make([]uint32, 4)
	require.NoError(t, s.Submit(a.Upload(as), b.Upload(bs), arr.Update(),
		sh.Dispatch([3]uint32{4}, arr, out), out.Download(got)))
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.Equal(t, []uint32{136, 300 + 400 + 500, 0, 16}, got)

	require.NoError(t, arr.Remove(0))
	require.NoError(t, arr.EmplaceBuffer(2, b))
	require.NoError(t, s.Submit(arr.Update(), sh.Dispatch([3]uint32{4}, arr, out), out.Download(got)))
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.Equal(t, []uint32{0, 1200, 5500, 16}, got)

	require.ErrorIs(t, arr.EmplaceBuffer(4, a), device.ErrInvalidArgument)
	err = s.Submit(sh.Dispatch([3]uint32{4}, out, out))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.Contains(t, err.Error(), "argument 0 (slots): invalid argument: kernel expects a bindless array, got a buffer")
}

func TestVulkanConcurrentStreams(t *testing.T) {
	d := openVulkan(t)
	sh := newShader(t, d, "saxpy", saxpySPIRV)
	const workers, n = 4, 777
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				s, err := d.NewStream(device.StreamCompute)
				if err != nil {
					return err
				}
				defer s.Close()
				bx, err := device.NewBuffer[float32](d, n)
				if err != nil {
					return err
				}
				defer bx.Close()
				by, err := device.NewBuffer[float32](d, n)
				if err != nil {
					return err
				}
				defer by.Close()
				x, y, got := make([]float32, n), make([]float32, n), make([]float32, n)
				for i := range x {
					x[i], y[i] = float32(i+w), float32(w)
				}
				for round := range 3 {
					if err := s.Submit(bx.Upload(x), by.Upload(y), sh.Dispatch([3]uint32{n}, bx, by, float32(round), uint32(n)), by.Download(got)); err != nil {
						return err
					}
					if err := s.Synchronize(context.Background()); err != nil {
						return err
					}
					for i := range got {
						if want := float32(round)*x[i] + y[i]; got[i] != want {
							return fmt.Errorf("worker %d round %d element %d: got %v, want %v", w, round, i, got[i], want)
						}
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// TestVulkanDestroyedStreamHazard: a resource written on a stream destroyed
// without a host wait is a hazard for another stream only while that write
// may still run; once it has finished, the other stream may use it.
func TestVulkanDestroyedStreamHazard(t *testing.T) {
	d := openVulkan(t)
	b := newStream(t, d, device.StreamCompute)
	buf := newBuffer[uint32](t, d, 1<<16)
	a, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	src := make([]uint32, 1<<16)
	for i := range src {
		src[i] = uint32(i)
	}
	require.NoError(t, a.Submit(buf.Upload(src)))
	require.NoError(t, a.Close())
	got := make([]uint32, len(src))
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := b.Submit(buf.Download(got))
		if err == nil {
			break
		}
		require.ErrorIs(t, err, device.ErrHazard)
		require.Contains(t, err.Error(), "destroyed before that write finished")
		require.True(t, time.Now().Before(deadline), "still a hazard long after the destroyed stream's work finished")
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, b.Synchronize(ctxT(t)))
	require.Equal(t, src, got)
}

// TestVulkanCloseFromCallback: Device.Close called from a CommandList
// callback returns ErrInvalidArgument at once (it would wait for that
// callback) and leaves the device open and working.
func TestVulkanCloseFromCallback(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCompute)
	buf := newBuffer[uint32](t, d, 4)
	var closeErr, syncErr error
	l := (&device.CommandList{}).Add(buf.Upload([]uint32{1, 2, 3, 4}))
	l.OnDone(func() {
		closeErr = d.Close()
		syncErr = s.Synchronize(context.Background())
	})
	require.NoError(t, s.SubmitList(l))
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.ErrorIs(t, closeErr, device.ErrInvalidArgument)
	require.ErrorIs(t, syncErr, device.ErrInvalidArgument)
	got := make([]uint32, 4)
	require.NoError(t, s.Submit(buf.Download(got)))
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.Equal(t, []uint32{1, 2, 3, 4}, got)
}

// TestVulkanCloseRacesTypedCalls: the typed API's Device.Close racing typed
// creations, submissions, host waits and Closes on other goroutines: every
// call completes or fails with ErrClosed, and nothing crashes.
func TestVulkanCloseRacesTypedCalls(t *testing.T) {
	for round := range 6 {
		d, err := device.Open(context.Background(), "vulkan", device.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		testenv.Need(t, "a Vulkan device", err)
		var wg sync.WaitGroup
		errc := make(chan error, 16)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					err := typedRaceStep(d, g)
					if err != nil {
						if !errors.Is(err, device.ErrClosed) {
							errc <- fmt.Errorf("goroutine %d: %w", g, err)
						}
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(5+round*4) * time.Millisecond)
		closed := make(chan error, 2)
		go func() { closed <- d.Close() }()
		go func() { closed <- d.Close() }()
		require.NoError(t, <-closed, "round %d", round)
		require.NoError(t, <-closed, "round %d", round)
		wg.Wait()
		close(errc)
		for err := range errc {
			require.NoError(t, err, "round %d", round)
		}
	}
}

func typedRaceStep(d *device.Device, g int) error {
	s, err := d.NewStream(device.StreamCompute)
	if err != nil {
		return err
	}
	defer s.Close()
	b, err := device.NewBuffer[uint32](d, 1024)
	if err != nil {
		return err
	}
	defer b.Close()
	ev, err := d.NewEvent()
	if err != nil {
		return err
	}
	defer ev.Close()
	src := make([]uint32, 1024)
	for i := range src {
		src[i] = uint32(i + g)
	}
	got := make([]uint32, 1024)
	l := (&device.CommandList{}).Add(b.Upload(src), b.Download(got))
	l.OnDone(func() {})
	if err := s.SubmitList(l); err != nil {
		return err
	}
	if err := ev.Signal(s, 1); err != nil {
		return err
	}
	if g%2 == 0 {
		err = ev.Synchronize(context.Background(), 1)
	} else {
		err = s.Synchronize(context.Background())
	}
	if err != nil {
		return err
	}
	if got[1023] != src[1023] {
		return fmt.Errorf("download incomplete after the wait: %d, want %d", got[1023], src[1023])
	}
	return nil
}
