// Command lucent-view shows a compute kernel's output live in a window: a
// ray-marched scene written in lucent's Go DSL is rendered into an image
// every frame and presented through package swapchain.
//
//	lucent-view                                  # a 640×480 window; WASD/arrows move, drag turns, Esc quits
//	lucent-view --headless --frames 60 --out frame.png
//
// The title shows the frame time on the host and the scene kernel's time on
// the GPU (from a timed command list per frame). With --headless no window is opened (and
// no cgo is needed): the frames are rendered off-screen and the last one is
// written as a PNG. --fixed makes a windowed run's animation advance 1/60 s
// per frame, so that frame n is the same picture as in a headless run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/swapchain"
	"github.com/lucent-gpu/lucent/swapchain/glfwwindow"
)

// GLFW wants the main thread.
func init() { runtime.LockOSThread() }

func main() {
	os.Exit(exitCode(run(context.Background(), os.Args[1:], os.Stdout), os.Stderr))
}

// usageError is a wrong command line.
type usageError struct{ error }

// exitCode reports err on stderr and returns the exit status: 0 for none
// or -h (the usage is printed), 2 for a wrong command line, 1 otherwise.
func exitCode(err error, stderr io.Writer) int {
	var usage usageError
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "lucent-view: %v\nrun 'lucent-view -h' for usage\n", err)
		return 2
	}
	fmt.Fprintln(stderr, "lucent-view:", err)
	return 1
}

// options are the command line.
type options struct {
	width, height int
	frames        int // 0: until the window is closed
	headless      bool
	out           string
	vsync         bool
	fixed         bool
	validate      bool
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("lucent-view", flag.ContinueOnError)
	// The flag package would print a bad flag's error and the usage;
	// exitCode prints the error once, and -h the usage.
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.width, "width", 640, "image width in pixels")
	fs.IntVar(&o.height, "height", 480, "image height in pixels")
	fs.IntVar(&o.frames, "frames", 0, "frames to render, then exit (0: until the window closes; headless: 1)")
	fs.BoolVar(&o.headless, "headless", false, "render off-screen, without a window")
	fs.StringVar(&o.out, "out", "", "write the last frame to this PNG file")
	fs.BoolVar(&o.vsync, "vsync", true, "wait for vertical blank when presenting")
	fs.BoolVar(&o.fixed, "fixed", false, "advance the animation 1/60 s per frame instead of by the clock")
	fs.BoolVar(&o.validate, "validate", false, "run with the Vulkan validation layer; its errors fail the run")
	if err := fs.Parse(args); err == flag.ErrHelp {
		fs.SetOutput(stderr)
		fmt.Fprintln(stderr, "usage: lucent-view [flags]")
		fs.PrintDefaults()
		return o, err
	} else if err != nil {
		return o, usageError{err}
	}
	switch {
	case fs.NArg() > 0:
		return o, usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	case o.width <= 0 || o.height <= 0 || o.width > 16384 || o.height > 16384:
		return o, usageError{fmt.Errorf("-width %d -height %d: want 1 to 16384 pixels each", o.width, o.height)}
	case o.frames < 0:
		return o, usageError{fmt.Errorf("-frames %d: want 0 or more", o.frames)}
	}
	if o.headless {
		o.fixed = true
		if o.frames == 0 {
			o.frames = 1
		}
		if o.out == "" {
			return o, usageError{errors.New("--headless needs --out FILE.png")}
		}
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	o, err := parse(args, os.Stderr)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := writable(o.out); err != nil {
			return err
		}
	}
	dev, errs, err := openDevice(ctx, o.validate)
	if err != nil {
		return err
	}
	v, err := newViewer(dev, o.width, o.height)
	if err != nil {
		dev.Close()
		return err
	}
	if o.headless {
		err = headless(ctx, v, o, stdout)
	} else {
		defer glfwwindow.Terminate() // after the device is closed
		err = windowed(ctx, v, o, stdout, nil)
	}
	return errors.Join(err, v.close(), dev.Close(), errs.err())
}

// validation gathers the validation layer's errors.
type validation struct {
	mu   sync.Mutex
	msgs []string
}

func (v *validation) add(m device.DebugMessage) {
	if m.Severity >= device.SeverityError {
		v.mu.Lock()
		v.msgs = append(v.msgs, m.Text)
		v.mu.Unlock()
	}
}

func (v *validation) err() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%d validation error(s):\n%s", len(v.msgs), strings.Join(v.msgs, "\n"))
}

func openDevice(ctx context.Context, validate bool) (*device.Device, *validation, error) {
	errs := &validation{}
	var opts []device.Option
	if validate {
		opts = append(opts, device.WithValidation(), device.WithValidationLayer(true), device.WithDebug(errs.add))
	}
	dev, err := device.Open(ctx, "vulkan", opts...)
	return dev, errs, err
}

// frameTime is the animation time of frame n.
func frameTime(o options, n int, start time.Time) float32 {
	if o.fixed {
		return float32(n) / 60
	}
	return float32(time.Since(start).Seconds())
}

// headless renders o.frames frames off-screen and writes the last.
func headless(ctx context.Context, v *viewer, o options, stdout io.Writer) error {
	start := time.Now()
	for n := range o.frames {
		if err := v.render(frameTime(o, n, start), v.cam); err != nil {
			return err
		}
	}
	if err := v.s.Synchronize(ctx); err != nil {
		return err
	}
	el := time.Since(start)
	fmt.Fprintf(stdout, "rendered %d frame(s) of %dx%d in %v: %.2f ms/frame%s\n",
		o.frames, v.width(), v.height(), el.Round(time.Millisecond), el.Seconds()*1000/float64(o.frames), v.gpu.summary())
	return writeFrame(ctx, v, o.out, stdout)
}

// writable fails where path cannot be written, so that --out fails before
// the frames rather than after them; it leaves a file there as it was.
func writable(path string) error {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	f.Close()
	if os.IsNotExist(statErr) {
		os.Remove(path)
	}
	return nil
}

func writeFrame(ctx context.Context, v *viewer, path string, stdout io.Writer) error {
	img, err := v.download(ctx)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	return nil
}

// frameHook lets tests look at the window after frame n has been presented;
// returning false ends the run.
type frameHook func(n int, win *glfwwindow.Window, native swapchain.Window, v *viewer) (bool, error)

// windowed opens a window and renders into it until it is closed (Esc, the
// close button) or o.frames frames were shown.
func windowed(ctx context.Context, v *viewer, o options, stdout io.Writer, hook frameHook) (err error) {
	win, err := glfwwindow.Open("lucent-view", o.width, o.height)
	if err != nil {
		return fmt.Errorf("%w (use --headless --out FILE.png to render without a window)", err)
	}
	defer win.Close()
	native, err := win.Native()
	if err != nil {
		return err
	}
	surf, err := swapchain.NewSurface(v.dev, native)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, surf.Close()) }()
	sc, err := swapchain.New(surf, v.s, swapchain.Config{Width: o.width, Height: o.height, VSync: o.vsync})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, sc.Close()) }()

	win.OnKey(func(k glfwwindow.Key, pressed bool) {
		switch {
		case k == glfwwindow.KeyEscape && pressed:
			win.SetShouldClose(true)
		case k == glfwwindow.KeySpace && pressed:
			v.cam = DefaultCamera
		}
	})
	win.OnDrag(func(dx, dy float64) { v.cam.Turn(float32(dx)*0.005, float32(-dy)*0.005) })
	resized := false
	win.OnResize(func(int, int) { resized = true })

	start, last := time.Now(), time.Now()
	var sum, total time.Duration
	var count, frames, shown int
	for n := 0; !win.ShouldClose() && (o.frames == 0 || n < o.frames); n++ {
		win.Poll()
		now := time.Now()
		dt := float32(now.Sub(last).Seconds())
		last = now
		if o.fixed {
			dt = 1.0 / 60
		}
		move(win, &v.cam, dt)
		if resized {
			resized = false
			if w, h := win.Size(); w > 0 && h > 0 {
				if err := v.resize(w, h); err != nil {
					return err
				}
				if err := sc.Resize(w, h); err != nil {
					return err
				}
			}
		}
		t0 := time.Now()
		if err := v.render(frameTime(o, n, start), v.cam); err != nil {
			return err
		}
		ok, err := sc.Present(v.img)
		if err != nil {
			return err
		}
		if ok {
			shown++
		}
		el := time.Since(t0)
		sum += el
		total += el
		count++
		frames++
		if el := time.Since(start); count >= 10 || el > 500*time.Millisecond && count > 0 {
			gpu, gpuFrames := v.gpu.take()
			win.SetTitle(frameTitle(v.width(), v.height(), sum, count, gpu, gpuFrames))
			sum, count = 0, 0
		}
		if hook != nil {
			if goOn, err := hook(n, win, native, v); err != nil || !goOn {
				return err
			}
		}
	}
	if err := v.s.Synchronize(ctx); err != nil {
		return err
	}
	if frames > 0 {
		fmt.Fprintf(stdout, "presented %d of %d frame(s) at %dx%d: %.2f ms/frame on the host (render and present calls)%s\n",
			shown, frames, v.width(), v.height(), total.Seconds()*1000/float64(frames), v.gpu.summary())
	}
	if o.out != "" {
		return writeFrame(ctx, v, o.out, stdout)
	}
	return nil
}

// move applies the held movement keys: WASD or arrows walk, Q/E go down and up.
func move(win *glfwwindow.Window, cam *Camera, dt float32) {
	speed := 2 * dt
	var f, r, u float32
	if win.Pressed(glfwwindow.KeyW) || win.Pressed(glfwwindow.KeyUp) {
		f += speed
	}
	if win.Pressed(glfwwindow.KeyS) || win.Pressed(glfwwindow.KeyDown) {
		f -= speed
	}
	if win.Pressed(glfwwindow.KeyD) || win.Pressed(glfwwindow.KeyRight) {
		r += speed
	}
	if win.Pressed(glfwwindow.KeyA) || win.Pressed(glfwwindow.KeyLeft) {
		r -= speed
	}
	if win.Pressed(glfwwindow.KeyE) {
		u += speed
	}
	if win.Pressed(glfwwindow.KeyQ) {
		u -= speed
	}
	if f != 0 || r != 0 || u != 0 {
		cam.Move(f, r, u)
	}
}

// frameTitle is the window's title: the size, the host's time per frame
// over the last frames, and the scene kernel's GPU time per frame over the
// frames whose timings came back (none where the device has no timestamps).
func frameTitle(w, h int, host time.Duration, frames int, gpu time.Duration, gpuFrames int) string {
	t := fmt.Sprintf("lucent-view — %dx%d — %.1f ms/frame (%.0f fps)",
		w, h, host.Seconds()*1000/float64(frames), float64(frames)/max(host.Seconds(), 1e-9))
	if gpuFrames > 0 {
		t += fmt.Sprintf(" — GPU %.2f ms", gpu.Seconds()*1000/float64(gpuFrames))
	}
	return t
}

// gpuClock adds up the GPU time of the frames rendered: each frame's list is
// timed, and its callback adds the time once the frame's work is done.
type gpuClock struct {
	mu                    sync.Mutex
	window, total         time.Duration
	windowFrames, nFrames int
}

func (g *gpuClock) add(d time.Duration) {
	g.mu.Lock()
	g.window += d
	g.total += d
	g.windowFrames++
	g.nFrames++
	g.mu.Unlock()
}

// take returns the GPU time of the frames completed since the last take, and
// how many they are.
func (g *gpuClock) take() (time.Duration, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	d, n := g.window, g.windowFrames
	g.window, g.windowFrames = 0, 0
	return d, n
}

// summary is ", x ms/frame on the GPU" over every frame completed, or "".
func (g *gpuClock) summary() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.nFrames == 0 {
		return ""
	}
	return fmt.Sprintf(", %.2f ms/frame on the GPU (the scene kernel)", g.total.Seconds()*1000/float64(g.nFrames))
}

// viewer is the device side: the scene kernel, a stream and the image it
// renders into, the camera, and the GPU time of the frames.
type viewer struct {
	dev *device.Device
	k   *device.Kernel
	s   *device.Stream
	img *device.Image[[4]uint8]
	cam Camera
	gpu gpuClock
}

func newViewer(dev *device.Device, w, h int) (*viewer, error) {
	f, err := sceneKernel()
	if err != nil {
		return nil, fmt.Errorf("scene kernel: %w", err)
	}
	k, err := device.Compile(dev, f, device.WithKernelName("scene"))
	if err != nil {
		return nil, err
	}
	v := &viewer{dev: dev, k: k, cam: DefaultCamera}
	if v.s, err = dev.NewStream(device.StreamCompute); err == nil {
		v.img, err = device.NewImage[[4]uint8](dev, device.RGBA8Unorm, w, h, 1)
	}
	if err != nil {
		return nil, errors.Join(err, v.close())
	}
	return v, nil
}

func (v *viewer) width() int  { return v.img.Width() }
func (v *viewer) height() int { return v.img.Height() }

// render submits one frame, timed where the device has timestamps.
func (v *viewer) render(t float32, cam Camera) error {
	w, h := uint32(v.img.Width()), uint32(v.img.Height())
	l := (&device.CommandList{}).Add(v.k.Dispatch([3]uint32{w, h, 1}, t, cam.Pos[0], cam.Pos[1], cam.Pos[2], cam.Yaw, cam.Pitch, v.img))
	if v.dev.Capabilities().Timings {
		tm := new(device.Timings)
		l.Timed(tm).OnDone(func() { v.gpu.add(tm.Total) })
	}
	return v.s.SubmitList(l)
}

// resize replaces the image (the old one is released once the GPU is done with it).
func (v *viewer) resize(w, h int) error {
	img, err := device.NewImage[[4]uint8](v.dev, device.RGBA8Unorm, w, h, 1)
	if err != nil {
		return err
	}
	old := v.img
	v.img = img
	return old.Close()
}

// download reads the image back after the stream's work.
func (v *viewer) download(ctx context.Context) (*image.RGBA, error) {
	w, h := v.img.Width(), v.img.Height()
	px := make([][4]uint8, w*h)
	if err := v.s.Submit(v.img.Download(px)); err != nil {
		return nil, err
	}
	if err := v.s.Synchronize(ctx); err != nil {
		return nil, err
	}
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for i, p := range px {
		copy(out.Pix[4*i:], p[:])
	}
	return out, nil
}

func (v *viewer) close() error {
	var errs []error
	if v.s != nil {
		errs = append(errs, v.s.Synchronize(context.Background()))
	}
	if v.img != nil {
		errs = append(errs, v.img.Close())
	}
	if v.k != nil {
		errs = append(errs, v.k.Close())
	}
	if v.s != nil {
		errs = append(errs, v.s.Close())
	}
	return errors.Join(errs...)
}
