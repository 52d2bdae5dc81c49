package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/internal/xtest"
	"github.com/lucent-gpu/lucent/swapchain"
	"github.com/lucent-gpu/lucent/swapchain/glfwwindow"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/swapchain's golden images")

func init() {
	if os.Getenv("VK_LAYER_ENABLES") == "" {
		os.Setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT")
	}
}

const golden = "../../testdata/swapchain/view-160x120-frame3.png"

// diff counts the pixels whose colour channels differ from want's by more
// than tol, and returns the largest difference.
func diff(want, got *image.RGBA, tol int) (bad, worst int) {
	for i := 0; i < len(want.Pix); i += 4 {
		over := false
		for c := range 3 {
			d := int(want.Pix[i+c]) - int(got.Pix[i+c])
			d = max(d, -d)
			worst = max(worst, d)
			over = over || d > tol
		}
		if over {
			bad++
		}
	}
	return bad, worst
}

func readPNG(t *testing.T, path string) *image.RGBA {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	out := image.NewRGBA(img.Bounds())
	for y := range img.Bounds().Dy() {
		for x := range img.Bounds().Dx() {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}

// requireVulkan skips (or fails under LUCENT_REQUIRE_VULKAN=1) without a device.
func requireVulkan(t *testing.T) {
	t.Helper()
	dev, _, err := openDevice(context.Background(), true)
	testenv.Need(t, "a Vulkan device with the validation layer", err)
	require.NoError(t, dev.Close())
}

// TestHeadlessGolden renders frame 3 off-screen and compares it with the
// golden image (go test -update rewrites it). The scene is ray-marched in
// float32; a different driver may round a few edge pixels differently.
func TestHeadlessGolden(t *testing.T) {
	requireVulkan(t)
	out := filepath.Join(t.TempDir(), "frame.png")
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"--headless", "--validate", "--width", "160", "--height", "120", "--frames", "4", "--out", out}, &stdout)
	require.NoError(t, err)
	require.Contains(t, stdout.String(), "rendered 4 frame(s) of 160x120")
	if *update {
		raw, err := os.ReadFile(out)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(golden, raw, 0o644))
	}
	want, got := readPNG(t, golden), readPNG(t, out)
	require.Equal(t, want.Bounds(), got.Bounds())
	bad, worst := diff(want, got, 2)
	require.LessOrEqual(t, bad, len(want.Pix)/4/200, "%d pixels off by more than 2 (worst %d)", bad, worst)
}

// TestCommandLine: a wrong command line exits 2 with its error once and a
// hint, not the usage; -h prints the usage and exits 0.
func TestCommandLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--headless"}, "lucent-view: --headless needs --out FILE.png\n"},
		{[]string{"--width", "0"}, "lucent-view: -width 0 -height 480: want 1 to 16384 pixels each\n"},
		{[]string{"--frames", "-1"}, "lucent-view: -frames -1: want 0 or more\n"},
		{[]string{"extra"}, "lucent-view: unexpected arguments [\"extra\"]\n"},
		{[]string{"--nope"}, "lucent-view: flag provided but not defined: -nope\n"},
		{[]string{"--width", "x"}, "lucent-view: invalid value \"x\" for flag -width: parse error\n"},
	} {
		var parseOut, stderr bytes.Buffer
		_, err := parse(c.args, &parseOut)
		require.Error(t, err, "%q", c.args)
		require.Empty(t, parseOut.String(), "%q", c.args)
		require.Equal(t, 2, exitCode(err, &stderr), "%q", c.args)
		require.Equal(t, c.want+"run 'lucent-view -h' for usage\n", stderr.String())
	}
	for _, h := range []string{"-h", "--help"} {
		var parseOut, stderr bytes.Buffer
		_, err := parse([]string{h}, &parseOut)
		require.Equal(t, 0, exitCode(err, &stderr))
		require.Contains(t, parseOut.String(), "usage: lucent-view [flags]\n")
		require.Contains(t, parseOut.String(), "-headless")
		require.Empty(t, stderr.String())
	}
	require.Equal(t, 1, exitCode(errors.New("no device"), &bytes.Buffer{}))
	o, err := parse([]string{"--headless", "--out", "x.png"}, &bytes.Buffer{})
	require.NoError(t, err)
	require.Equal(t, 1, o.frames)
	require.True(t, o.fixed)
}

// TestOutNotWritable: an --out that cannot be written fails before any
// frame, and a file already there is left as it was until the last frame.
func TestOutNotWritable(t *testing.T) {
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"--headless", "--frames", "1", "--out", filepath.Join(t.TempDir(), "no-such-dir", "x.png")}, &stdout)
	require.ErrorContains(t, err, "--out: open ")
	require.ErrorContains(t, err, "no-such-dir/x.png: no such file or directory")
	require.Empty(t, stdout.String(), "nothing rendered")

	dir := t.TempDir()
	require.NoError(t, writable(filepath.Join(dir, "new.png")))
	_, err = os.Stat(filepath.Join(dir, "new.png"))
	require.True(t, os.IsNotExist(err), "no file left behind")
	old := filepath.Join(dir, "old.png")
	require.NoError(t, os.WriteFile(old, []byte("earlier"), 0o644))
	require.NoError(t, writable(old))
	data, err := os.ReadFile(old)
	require.NoError(t, err)
	require.Equal(t, "earlier", string(data))
}

// capture reads the window until it shows want (presentation may land a
// little after the GPU work is done), and returns the last capture.
func capture(t *testing.T, display string, native swapchain.Window, want *image.RGBA) (*image.RGBA, int, int) {
	t.Helper()
	var got *image.RGBA
	var bad, worst int
	for range 50 {
		var err error
		got, err = xtest.CaptureWindow(display, native.Handle)
		require.NoError(t, err)
		if got.Bounds() == want.Bounds() {
			if bad, worst = diff(want, got, 1); bad == 0 {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return got, bad, worst
}

// TestWindowUnderXvfb runs the viewer in a window on a virtual display: the
// window shows the same frame a headless run renders; a resize mid-run
// recreates the swapchain and the image at the new size; the run ends
// cleanly with no validation message and nothing leaked.
func TestWindowUnderXvfb(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	requireVulkan(t)
	display := xtest.StartXvfb(t)
	t.Setenv("DISPLAY", display)
	// Before the server goes, even when the test fails half-way (GLFW would
	// then die on the lost connection, taking the test binary with it).
	t.Cleanup(glfwwindow.Terminate)
	ctx := context.Background()
	probe, err := glfwwindow.Open("probe", 16, 16)
	if errors.Is(err, glfwwindow.ErrUnavailable) {
		testenv.Need(t, "a window system (GLFW needs cgo)", err)
	}
	require.NoError(t, err)
	probe.Close()

	// The reference: frame 3, headless.
	ref := filepath.Join(t.TempDir(), "ref.png")
	require.NoError(t, run(ctx, []string{"--headless", "--validate", "--width", "160", "--height", "120", "--frames", "4", "--out", ref}, &bytes.Buffer{}))
	want := readPNG(t, ref)

	dev, errs, err := openDevice(ctx, true)
	require.NoError(t, err)
	v, err := newViewer(dev, 160, 120)
	require.NoError(t, err)
	o := options{width: 160, height: 120, frames: 20, vsync: true, fixed: true}
	var resizedTo image.Rectangle
	hook := func(n int, win *glfwwindow.Window, native swapchain.Window, v *viewer) (bool, error) {
		require.Equal(t, swapchain.Xlib, native.Kind)
		switch n {
		case 3:
			require.NoError(t, v.s.Synchronize(ctx))
			got, bad, worst := capture(t, display, native, want)
			require.Equal(t, want.Bounds(), got.Bounds())
			require.Zero(t, bad, "the window differs from the headless frame 3 (worst channel difference %d)", worst)
		case 5:
			win.SetSize(200, 150)
		case 12:
			require.Equal(t, [2]int{200, 150}, [2]int{v.width(), v.height()}, "the image follows the window")
			shown, err := v.download(ctx)
			require.NoError(t, err)
			got, bad, worst := capture(t, display, native, shown)
			resizedTo = got.Bounds()
			require.Zero(t, bad, "after the resize the window shows the frame (worst channel difference %d)", worst)
			return false, nil
		}
		return true, nil
	}
	require.NoError(t, windowed(ctx, v, o, &bytes.Buffer{}, hook))
	require.Equal(t, image.Rect(0, 0, 200, 150), resizedTo)
	require.NoError(t, v.close())
	require.NoError(t, dev.Close(), "closing the device reports no leak")
	require.NoError(t, errs.err())
	glfwwindow.Terminate()
}

// TestWindowInput drives the viewer with synthetic input on a virtual
// display: W walks forward, a drag turns the camera, Esc ends the run.
func TestWindowInput(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	requireVulkan(t)
	display := xtest.StartXvfb(t)
	t.Setenv("DISPLAY", display)
	// Before the server goes, even when the test fails half-way (GLFW would
	// then die on the lost connection, taking the test binary with it).
	t.Cleanup(glfwwindow.Terminate)
	ctx := context.Background()
	probe, err := glfwwindow.Open("probe", 16, 16)
	if errors.Is(err, glfwwindow.ErrUnavailable) {
		testenv.Need(t, "a window system (GLFW needs cgo)", err)
	}
	require.NoError(t, err)
	probe.Close()
	in := xtest.NewInput(t, display)

	dev, errs, err := openDevice(ctx, true)
	require.NoError(t, err)
	v, err := newViewer(dev, 160, 120)
	require.NoError(t, err)
	o := options{width: 160, height: 120, frames: 200, vsync: true, fixed: true}
	// Input reaches the viewer some frames after it is sent (X server, GLFW's
	// event queue): each step waits for its effect, up to a deadline, rather
	// than for a fixed frame.
	const patience = 40 // frames
	var before Camera
	last, stage, since := 0, 0, 0
	next := func(n int) { stage, since = stage+1, n }
	hook := func(n int, win *glfwwindow.Window, _ swapchain.Window, v *viewer) (bool, error) {
		last = n
		switch stage {
		case 0:
			in.MoveTo(80, 60) // the window is at the origin: keys go to it
			in.Key(xtest.KeysymW, true)
			next(n)
		case 1:
			if n >= since+5 {
				in.Key(xtest.KeysymW, false)
				next(n)
			}
		case 2:
			if v.cam.Pos[2] > DefaultCamera.Pos[2] {
				require.Equal(t, DefaultCamera.Pos[0], v.cam.Pos[0], "W walks along +z at yaw 0")
				before = v.cam
				// Press and drag in one frame: the window must measure the
				// drag from the press's place in the event stream, not from
				// where the pointer is when it gets to the press.
				in.Button(1, true)
				in.MoveTo(120, 60)
				next(n)
			} else if n > since+patience {
				t.Fatal("W did not walk forward")
			}
		case 3:
			next(n)
		case 4:
			in.Button(1, false)
			next(n)
		case 5:
			if math.Abs(float64(v.cam.Yaw-before.Yaw)) >= 40*0.005-1e-3 || n > since+patience {
				require.InDelta(t, before.Yaw+40*0.005, v.cam.Yaw, 1e-3, "a 40-pixel drag turns by 0.2 rad")
				in.Key(xtest.KeysymEscape, true)
				in.Key(xtest.KeysymEscape, false)
				next(n)
			}
		default:
			if n > since+patience {
				t.Fatal("Esc did not end the run")
			}
		}
		return true, nil
	}
	require.NoError(t, windowed(ctx, v, o, &bytes.Buffer{}, hook))
	require.Equal(t, 6, stage, "every step of the input ran")
	require.Less(t, last, o.frames, "Esc ended the run")
	require.NoError(t, v.close())
	require.NoError(t, dev.Close())
	require.NoError(t, errs.err())
	glfwwindow.Terminate()
}
