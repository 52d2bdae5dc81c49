package swapchain_test

import (
	"context"
	"errors"
	"image"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/internal/xtest"
	"github.com/lucent-gpu/lucent/swapchain"
	"github.com/stretchr/testify/require"
)

// The Vulkan backend is the one presenting backend.
var _ device.Presenter = (*vulkan.Device)(nil)

func init() {
	// Synchronization validation reports missing barriers as errors.
	if os.Getenv("VK_LAYER_ENABLES") == "" {
		os.Setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT")
	}
}

// validated collects the validation layer's errors of one device.
type validated struct {
	mu   sync.Mutex
	errs []string
}

func (v *validated) add(m device.DebugMessage) {
	if m.Severity < device.SeverityError {
		return
	}
	v.mu.Lock()
	v.errs = append(v.errs, m.ID+": "+m.Text)
	v.mu.Unlock()
}

func (v *validated) take() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := v.errs
	v.errs = nil
	return out
}

// openDevice opens the Vulkan device with the validation layer and the
// validation wrapper; the test fails on any validation message or leak.
func openDevice(t *testing.T) (*device.Device, *validated) {
	t.Helper()
	msgs := &validated{}
	dev, err := device.Open(context.Background(), "vulkan",
		device.WithValidation(), device.WithValidationLayer(true), device.WithDebug(msgs.add))
	testenv.Need(t, "a Vulkan device with the validation layer", err)
	t.Cleanup(func() {
		require.NoError(t, dev.Close(), "closing the device (leaks are errors)")
		require.Empty(t, msgs.take(), "validation errors")
	})
	return dev, msgs
}

// patternKernel writes a gradient that changes with the frame number.
func patternKernel(t *testing.T, dev *device.Device) *device.Kernel {
	t.Helper()
	f, err := dsl.Kernel2D(8, 8, func(k *dsl.K, frame dsl.U32, img dsl.Tex2DRGBA8) {
		id := k.DispatchID()
		x, y := id.X(), id.Y()
		size := img.Size()
		r := dsl.Convert[float32](x).Div(dsl.Convert[float32](size.X()))
		g := dsl.Convert[float32](y).Div(dsl.Convert[float32](size.Y()))
		b := dsl.Convert[float32](frame.Mul(dsl.U(37)).Rem(dsl.U(256))).Div(dsl.F(255))
		img.Write(dsl.V2(x, y), dsl.V4(r, g, b, dsl.F(1)))
	})
	require.NoError(t, err)
	k, err := device.Compile(dev, f, device.WithKernelName("pattern"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, k.Close()) })
	return k
}

func TestBadWindows(t *testing.T) {
	dev, _ := openDevice(t)
	for _, tc := range []struct {
		name string
		win  swapchain.Window
		want error
	}{
		{"zero handle", swapchain.Window{Kind: swapchain.Xlib, Display: 1}, device.ErrInvalidArgument},
		{"no display", swapchain.Window{Kind: swapchain.XCB, Handle: 5}, device.ErrInvalidArgument},
		{"unknown kind", swapchain.Window{Kind: 99, Display: 1, Handle: 5}, device.ErrInvalidArgument},
		{"zero kind", swapchain.Window{Display: 1, Handle: 5}, device.ErrInvalidArgument},
		// This loader offers no Win32 or Metal surfaces.
		{"win32 on linux", swapchain.Window{Kind: swapchain.Win32, Handle: 5}, device.ErrUnsupported},
		{"metal on linux", swapchain.Window{Kind: swapchain.Metal, Handle: 5}, device.ErrUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := swapchain.NewSurface(dev, tc.win)
			require.Nil(t, s)
			require.ErrorIs(t, err, tc.want)
			require.Contains(t, err.Error(), tc.win.Kind.String(), "the error names the window kind")
		})
	}
}

// plain hides the backend's presentation methods: a device that cannot present.
type plain struct{ device.Interface }

func TestBackendWithoutPresentation(t *testing.T) {
	dev, _ := openDevice(t)
	other := device.NewDevice("plain", plain{dev.Interface()})
	_, err := swapchain.NewSurface(other, swapchain.Window{Kind: swapchain.Xlib, Display: 1, Handle: 5})
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.Contains(t, err.Error(), `"plain" backend cannot present`)
	_, err = swapchain.NewSurface(nil, swapchain.Window{Kind: swapchain.Xlib, Display: 1, Handle: 5})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
}

// frame renders frame n into img and downloads it.
func render(t *testing.T, s *device.Stream, k *device.Kernel, img *device.Image[[4]uint8], n uint32) *image.RGBA {
	t.Helper()
	w, h := img.Width(), img.Height()
	px := make([][4]uint8, w*h)
	require.NoError(t, s.Submit(k.Dispatch([3]uint32{uint32(w), uint32(h), 1}, n, img), img.Download(px)))
	require.NoError(t, s.Synchronize(context.Background()))
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for i, p := range px {
		copy(out.Pix[4*i:], p[:])
	}
	return out
}

// maxDiff is the largest difference of a colour channel between a and b
// (alpha ignored), with the position where it occurs.
func maxDiff(a, b *image.RGBA) (int, image.Point) {
	worst, at := 0, image.Point{}
	for y := 0; y < a.Bounds().Dy(); y++ {
		for x := 0; x < a.Bounds().Dx(); x++ {
			pa, pb := a.RGBAAt(x, y), b.RGBAAt(x, y)
			for _, d := range []int{int(pa.R) - int(pb.R), int(pa.G) - int(pb.G), int(pa.B) - int(pb.B)} {
				if d < 0 {
					d = -d
				}
				if d > worst {
					worst, at = d, image.Pt(x, y)
				}
			}
		}
	}
	return worst, at
}

// captureMatching reads the window until it shows want: the X server may
// show a presented image a little after the GPU work is done.
func captureMatching(t *testing.T, win *xtest.Window, want *image.RGBA) (*image.RGBA, int, image.Point) {
	t.Helper()
	d, at := 0, image.Point{}
	got := xtest.CaptureUntil(t, win, 10*time.Second, func(got *image.RGBA) bool {
		if got.Bounds() != want.Bounds() {
			return false
		}
		d, at = maxDiff(want, got)
		return d <= 1
	})
	return got, d, at
}

// TestPresentUnderXvfb presents kernel-written frames to an X11 window, reads
// the window back and compares it with the same frame downloaded; then it
// resizes the window mid-run and presents on.
func TestPresentUnderXvfb(t *testing.T) {
	display := xtest.StartXvfb(t)
	dev, msgs := openDevice(t)
	k := patternKernel(t, dev)
	s, err := dev.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()

	const w, h = 320, 240
	win := xtest.OpenWindow(t, display, w, h)
	surf, err := swapchain.NewSurface(dev, swapchain.Window{Kind: swapchain.Xlib, Display: win.Display, Handle: win.ID})
	require.NoError(t, err)
	defer func() { require.NoError(t, surf.Close()) }()
	sc, err := swapchain.New(surf, s, swapchain.Config{Width: w, Height: h, VSync: true})
	require.NoError(t, err)
	st, err := sc.State()
	require.NoError(t, err)
	require.Equal(t, w, st.Width)
	require.Equal(t, h, st.Height)
	require.GreaterOrEqual(t, st.Images, 2)
	t.Logf("swapchain: %+v", st)

	img, err := device.NewImage[[4]uint8](dev, device.RGBA8Unorm, w, h, 1)
	require.NoError(t, err)
	defer img.Close()

	for n := uint32(0); n < 6; n++ {
		want := render(t, s, k, img, n)
		shown, err := sc.Present(img)
		require.NoError(t, err)
		require.True(t, shown, "frame %d", n)
		require.NoError(t, s.Synchronize(context.Background()))
		got, d, at := captureMatching(t, win, want)
		require.Equal(t, want.Bounds(), got.Bounds())
		require.LessOrEqual(t, d, 1, "frame %d: window differs from the rendered image by %d at %v", n, d, at)
	}
	require.Empty(t, msgs.take(), "validation errors while presenting")

	// Resize mid-run: the next frames go out of date or suboptimal, the
	// swapchain is recreated at the new size, and the image is scaled to it.
	win.Resize(200, 160)
	shownAfter := 0
	for n := uint32(6); n < 12; n++ {
		render(t, s, k, img, n)
		shown, err := sc.Present(img)
		require.NoError(t, err, "frame %d after the resize", n)
		if shown {
			shownAfter++
		}
	}
	require.NoError(t, s.Synchronize(context.Background()))
	require.Greater(t, shownAfter, 0)
	st, err = sc.State()
	require.NoError(t, err)
	require.Equal(t, [2]int{200, 160}, [2]int{st.Width, st.Height}, "the swapchain follows the window")
	require.GreaterOrEqual(t, st.Recreated, 1)
	// The X server shows the last frame in its own time.
	got := xtest.CaptureUntil(t, win, 10*time.Second, func(got *image.RGBA) bool {
		return got.Bounds() == image.Rect(0, 0, 200, 160) && got.RGBAAt(0, 80).R < 8 && got.RGBAAt(199, 80).R > 240
	})
	require.Equal(t, image.Rect(0, 0, 200, 160), got.Bounds())
	// The last frame, scaled: the gradient runs from black to red along x.
	require.Less(t, int(got.RGBAAt(0, 80).R), 8)
	require.Greater(t, int(got.RGBAAt(199, 80).R), 240)

	require.NoError(t, sc.Close())
	require.NoError(t, sc.Close(), "a second Close is harmless")
	_, err = sc.Present(img)
	require.ErrorIs(t, err, device.ErrClosed)
}

func TestPresentErrors(t *testing.T) {
	display := xtest.StartXvfb(t)
	dev, _ := openDevice(t)
	s, err := dev.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	win := xtest.OpenWindow(t, display, 64, 64)
	surf, err := swapchain.NewSurface(dev, swapchain.Window{Kind: swapchain.Xlib, Display: win.Display, Handle: win.ID})
	require.NoError(t, err)
	defer surf.Close()
	sc, err := swapchain.New(surf, s, swapchain.Config{Width: 64, Height: 64})
	require.NoError(t, err)
	defer sc.Close()

	// A surface with a live swapchain cannot be closed.
	require.ErrorIs(t, surf.Close(), device.ErrInvalidArgument)
	// Nor can it have a second swapchain: the two would present over each
	// other (Vulkan's VK_ERROR_NATIVE_WINDOW_IN_USE_KHR; lavapipe does not say).
	_, err = swapchain.New(surf, s, swapchain.Config{Width: 64, Height: 64})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "already has a swapchain")

	_, err = sc.Present(nil)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	vol, err := device.NewVolume[[4]uint8](dev, device.RGBA8Unorm, 4, 4, 4, 1)
	require.NoError(t, err)
	defer vol.Close()
	_, err = sc.Present(vol)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	ui, err := device.NewImage[[4]uint32](dev, device.RGBA32Uint, 8, 8, 1)
	require.NoError(t, err)
	defer ui.Close()
	_, err = sc.Present(ui)
	require.ErrorIs(t, err, device.ErrUnsupported, "an integer image cannot be blitted")
	closed, err := device.NewImage[[4]uint8](dev, device.RGBA8Unorm, 8, 8, 1)
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	_, err = sc.Present(closed)
	require.Error(t, err)

	// RGBA32F images present too (converted by the blit).
	f, err := device.NewImage[[4]float32](dev, device.RGBA32Float, 64, 64, 1)
	require.NoError(t, err)
	defer f.Close()
	px := make([][4]float32, 64*64)
	for i := range px {
		px[i] = [4]float32{1, 0.5, 0, 1}
	}
	require.NoError(t, s.Submit(f.Upload(px)))
	shown, err := sc.Present(f)
	require.NoError(t, err)
	require.True(t, shown)
	require.NoError(t, s.Synchronize(context.Background()))
	got := xtest.CaptureUntil(t, win, 10*time.Second, func(got *image.RGBA) bool {
		c := got.RGBAAt(10, 10)
		return [3]uint8{c.R, c.G, c.B} == [3]uint8{255, 128, 0}
	})
	c := got.RGBAAt(10, 10)
	require.Equal(t, [3]uint8{255, 128, 0}, [3]uint8{c.R, c.G, c.B}, "RGBA32F (1, 0.5, 0) shown as 8-bit")

	_, err = swapchain.New(surf, s, swapchain.Config{Width: -1})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = swapchain.New(nil, s, swapchain.Config{})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
}

// BenchmarkPresent measures presenting a ready 640×480 RGBA8 image to an X11
// window under Xvfb (blit, present, wait for the stream), with and without
// vsync, beside a plain same-size image copy on the same stream:
//
//	go test ./swapchain -run NONE -bench Present -benchtime 100x
func BenchmarkPresent(b *testing.B) {
	display := xtest.StartXvfb(b)
	dev, err := device.Open(context.Background(), "vulkan")
	testenv.Need(b, "a Vulkan device", err)
	defer dev.Close()
	s, err := dev.NewStream(device.StreamCompute)
	require.NoError(b, err)
	const w, h = 640, 480
	img, err := device.NewImage[[4]uint8](dev, device.RGBA8Unorm, w, h, 1)
	require.NoError(b, err)
	other, err := device.NewImage[[4]uint8](dev, device.RGBA8Unorm, w, h, 1)
	require.NoError(b, err)
	require.NoError(b, s.Submit(img.Upload(make([][4]uint8, w*h))))
	ctx := context.Background()

	b.Run("copy", func(b *testing.B) {
		for b.Loop() {
			require.NoError(b, s.Submit(other.Level(0).CopyFrom(img.Level(0))))
			require.NoError(b, s.Synchronize(ctx))
		}
	})
	for _, vsync := range []bool{false, true} {
		name := "present"
		if vsync {
			name += "-vsync"
		}
		b.Run(name, func(b *testing.B) {
			win := xtest.OpenWindow(b, display, w, h)
			surf, err := swapchain.NewSurface(dev, swapchain.Window{Kind: swapchain.Xlib, Display: win.Display, Handle: win.ID})
			require.NoError(b, err)
			defer surf.Close()
			sc, err := swapchain.New(surf, s, swapchain.Config{Width: w, Height: h, VSync: vsync})
			require.NoError(b, err)
			defer sc.Close()
			for b.Loop() {
				_, err := sc.Present(img)
				require.NoError(b, err)
				require.NoError(b, s.Synchronize(ctx))
			}
		})
	}
	require.NoError(b, other.Close())
	require.NoError(b, img.Close())
	require.NoError(b, s.Close())
}

// TestSurfaceKindsAndFormats presents through an XCB surface too, and checks
// the format choice: UNORM by default, SRGB when asked, and an HDR request
// falling back to SDR where the surface offers no HDR format (lavapipe).
func TestSurfaceKindsAndFormats(t *testing.T) {
	display := xtest.StartXvfb(t)
	dev, _ := openDevice(t)
	s, err := dev.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	win := xtest.OpenWindow(t, display, 48, 32)
	img, err := device.NewImage[[4]uint8](dev, device.RGBA8Unorm, 48, 32, 1)
	require.NoError(t, err)
	defer img.Close()
	px := make([][4]uint8, 48*32)
	for i := range px {
		px[i] = [4]uint8{10, 20, 30, 255}
	}
	require.NoError(t, s.Submit(img.Upload(px)))

	conn := win.XCB()
	if conn == 0 {
		testenv.Need(t, "libX11-xcb", errors.New("libX11-xcb.so.1 not found"))
	}
	for _, tc := range []struct {
		name   string
		win    swapchain.Window
		cfg    swapchain.Config
		format device.SurfaceFormat
	}{
		{"xlib unorm", swapchain.Window{Kind: swapchain.Xlib, Display: win.Display, Handle: win.ID}, swapchain.Config{}, device.SurfaceBGRA8Unorm},
		{"xcb unorm", swapchain.Window{Kind: swapchain.XCB, Display: conn, Handle: win.ID}, swapchain.Config{VSync: true}, device.SurfaceBGRA8Unorm},
		{"xlib srgb", swapchain.Window{Kind: swapchain.Xlib, Display: win.Display, Handle: win.ID}, swapchain.Config{SRGB: true}, device.SurfaceBGRA8SRGB},
		{"xlib hdr fallback", swapchain.Window{Kind: swapchain.Xlib, Display: win.Display, Handle: win.ID}, swapchain.Config{HDR: true, Images: 2}, device.SurfaceBGRA8Unorm},
	} {
		t.Run(tc.name, func(t *testing.T) {
			surf, err := swapchain.NewSurface(dev, tc.win)
			require.NoError(t, err)
			defer func() { require.NoError(t, surf.Close()) }()
			sc, err := swapchain.New(surf, s, tc.cfg)
			require.NoError(t, err)
			defer func() { require.NoError(t, sc.Close()) }()
			st, err := sc.State()
			require.NoError(t, err)
			require.Equal(t, tc.format, st.Format)
			require.False(t, st.HDR(), "lavapipe offers no HDR color space")
			if tc.cfg.VSync {
				require.Equal(t, device.PresentModeFIFO, st.PresentMode)
			} else {
				require.NotEqual(t, device.PresentModeFIFO, st.PresentMode, "without vsync a lower-latency mode is picked where offered")
			}
			shown, err := sc.Present(img)
			require.NoError(t, err)
			require.True(t, shown)
			require.NoError(t, s.Synchronize(context.Background()))
			want := image.NewRGBA(image.Rect(0, 0, 48, 32))
			for i := range px {
				copy(want.Pix[4*i:], px[i][:])
			}
			if tc.format == device.SurfaceBGRA8SRGB {
				// The blit encodes the (linear) image to sRGB: 10/255 -> 57.
				c := xtest.CaptureUntil(t, win, 3*time.Second, func(img *image.RGBA) bool {
					c := img.RGBAAt(5, 5)
					return c.R >= 55 && c.R <= 59
				}).RGBAAt(5, 5)
				require.InDelta(t, 57, int(c.R), 2)
				return
			}
			got, d, at := captureMatching(t, win, want)
			require.Equal(t, want.Bounds(), got.Bounds())
			require.LessOrEqual(t, d, 1, "differs by %d at %v", d, at)
		})
	}
}

// TestPresentWithTheKernel submits the kernel writing a frame and its
// Present in one list, and shows that the validation wrapper tracks
// presents like every other command: an image written on another stream with
// no event in between is a hazard.
func TestPresentWithTheKernel(t *testing.T) {
	display := xtest.StartXvfb(t)
	dev, msgs := openDevice(t)
	k := patternKernel(t, dev)
	s, err := dev.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	const w, h = 64, 48
	win := xtest.OpenWindow(t, display, w, h)
	surf, err := swapchain.NewSurface(dev, swapchain.Window{Kind: swapchain.Xlib, Display: win.Display, Handle: win.ID})
	require.NoError(t, err)
	defer func() { require.NoError(t, surf.Close()) }()
	sc, err := swapchain.New(surf, s, swapchain.Config{Width: w, Height: h})
	require.NoError(t, err)
	defer func() { require.NoError(t, sc.Close()) }()
	img, err := device.NewImage[[4]uint8](dev, device.RGBA8Unorm, w, h, 1)
	require.NoError(t, err)
	defer img.Close()

	want := render(t, s, k, img, 3) // the reference, downloaded
	require.NoError(t, s.Submit(img.Upload(make([][4]uint8, w*h))))
	p, err := sc.Command(img)
	require.NoError(t, err)
	require.NoError(t, s.Submit(k.Dispatch([3]uint32{w, h, 1}, uint32(3), img), p))
	require.NoError(t, s.Synchronize(context.Background()))
	got, d, at := captureMatching(t, win, want)
	require.Equal(t, want.Bounds(), got.Bounds())
	require.LessOrEqual(t, d, 1, "the present in the kernel's list shows its frame: differs by %d at %v", d, at)

	other, err := dev.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, other.Submit(k.Dispatch([3]uint32{w, h, 1}, uint32(4), img)))
	_, err = sc.Present(img)
	require.ErrorIs(t, err, device.ErrHazard)
	require.Contains(t, err.Error(), "command 0 (present)")
	require.NoError(t, other.Synchronize(context.Background()))
	shown, err := sc.Present(img)
	require.NoError(t, err)
	require.True(t, shown)
	require.ErrorIs(t, other.Submit(p), device.ErrInvalidArgument, "a present on another stream than the swapchain's")
	require.NoError(t, s.Synchronize(context.Background()))
	require.Empty(t, msgs.take(), "validation errors")
}
