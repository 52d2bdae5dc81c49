// Package xtest gives presentation tests (of package swapchain and of the
// programs that present) a display without cgo: it starts an
// Xvfb server, opens plain X11 windows through libX11 (loaded with purego),
// and reads a window's pixels back with xwd.
//
// Tests that use it need Xvfb, xwd and libX11; when they are missing the
// helpers call testenv.Need, which skips on a bare machine and fails under
// LUCENT_REQUIRE_VULKAN=1.
package xtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math/bits"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ebitengine/purego"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// StartXvfb starts an Xvfb server on a free display number and returns its
// name (":N"); the server is stopped when the test ends.
func StartXvfb(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("Xvfb")
	testenv.Need(t, "Xvfb", err)
	for n := 90 + os.Getpid()%400; n < 1000; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n)); err == nil {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
			continue
		}
		if name, ok := tryXvfb(t, bin, n); ok {
			return name
		}
	}
	t.Fatal("no free X display number")
	return ""
}

// tryXvfb starts Xvfb on display n; false means another server took the
// number first.
func tryXvfb(t testing.TB, bin string, n int) (string, bool) {
	t.Helper()
	name := fmt.Sprintf(":%d", n)
	cmd := exec.Command(bin, name, "-screen", "0", "1024x768x24", "-nolisten", "tcp")
	cmd.SysProcAttr = serverAttr()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		testenv.Need(t, "Xvfb", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	socket := fmt.Sprintf("/tmp/.X11-unix/X%d", n)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if _, err := os.Stat(socket); err == nil {
			t.Cleanup(func() {
				closeDisplay(name)
				// SIGTERM lets the server remove its lock file and socket.
				_ = cmd.Process.Signal(syscall.SIGTERM)
				select {
				case <-exited:
				case <-time.After(5 * time.Second):
					_ = cmd.Process.Kill()
					<-exited
				}
			})
			return name, true
		}
		select {
		case err := <-exited:
			t.Logf("Xvfb %s exited (%v): %s", name, err, stderr.String())
			return "", false
		case <-time.After(20 * time.Millisecond):
		}
	}
	_ = cmd.Process.Kill()
	<-exited
	t.Fatalf("Xvfb %s did not start within 10s: %s", name, stderr.String())
	return "", false
}

// libX11 is the handful of Xlib calls the tests need.
var libX11 struct {
	once sync.Once
	err  error

	XInitThreads        func() int32
	XOpenDisplay        func(name string) uintptr
	XCloseDisplay       func(dpy uintptr) int32
	XDefaultScreen      func(dpy uintptr) int32
	XRootWindow         func(dpy uintptr, screen int32) uintptr
	XBlackPixel         func(dpy uintptr, screen int32) uint64
	XCreateSimpleWindow func(dpy, parent uintptr, x, y int32, w, h, border uint32, borderPixel, background uint64) uintptr
	XMapWindow          func(dpy, w uintptr) int32
	XResizeWindow       func(dpy, w uintptr, width, height uint32) int32
	XDestroyWindow      func(dpy, w uintptr) int32
	XSync               func(dpy uintptr, discard int32) int32
	XGetXCBConnection   func(dpy uintptr) uintptr // from libX11-xcb; nil when absent
}

func loadX11() error {
	libX11.once.Do(func() {
		h, err := purego.Dlopen("libX11.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			libX11.err = err
			return
		}
		defer func() {
			if r := recover(); r != nil {
				libX11.err = fmt.Errorf("libX11: %v", r)
			}
		}()
		l := &libX11
		purego.RegisterLibFunc(&l.XInitThreads, h, "XInitThreads")
		purego.RegisterLibFunc(&l.XOpenDisplay, h, "XOpenDisplay")
		purego.RegisterLibFunc(&l.XCloseDisplay, h, "XCloseDisplay")
		purego.RegisterLibFunc(&l.XDefaultScreen, h, "XDefaultScreen")
		purego.RegisterLibFunc(&l.XRootWindow, h, "XRootWindow")
		purego.RegisterLibFunc(&l.XBlackPixel, h, "XBlackPixel")
		purego.RegisterLibFunc(&l.XCreateSimpleWindow, h, "XCreateSimpleWindow")
		purego.RegisterLibFunc(&l.XMapWindow, h, "XMapWindow")
		purego.RegisterLibFunc(&l.XResizeWindow, h, "XResizeWindow")
		purego.RegisterLibFunc(&l.XDestroyWindow, h, "XDestroyWindow")
		purego.RegisterLibFunc(&l.XSync, h, "XSync")
		l.XInitThreads()
		if xcb, err := purego.Dlopen("libX11-xcb.so.1", purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
			purego.RegisterLibFunc(&l.XGetXCBConnection, xcb, "XGetXCBConnection")
		}
	})
	return libX11.err
}

// One connection per display, shared by its windows and closed with the
// server: Mesa's X11 presentation code caches what it learnt about a
// connection by its address, for as long as the Vulkan instance lives, and a
// new connection allocated where a closed one was then inherits stale state
// (seen as X BadRequest errors, which Xlib turns into an exit).
var displays struct {
	mu sync.Mutex
	m  map[string]uintptr
}

func openDisplay(name string) uintptr {
	displays.mu.Lock()
	defer displays.mu.Unlock()
	if dpy, ok := displays.m[name]; ok {
		return dpy
	}
	dpy := libX11.XOpenDisplay(name)
	if dpy != 0 {
		if displays.m == nil {
			displays.m = map[string]uintptr{}
		}
		displays.m[name] = dpy
	}
	return dpy
}

func closeDisplay(name string) {
	displays.mu.Lock()
	defer displays.mu.Unlock()
	if dpy, ok := displays.m[name]; ok {
		libX11.XCloseDisplay(dpy)
		delete(displays.m, name)
	}
}

// Window is a plain X11 window on the display's shared connection.
type Window struct {
	Display uintptr // Display*
	ID      uintptr // Window
	name    string  // the display's name, for xwd
}

// OpenWindow opens a mapped width×height window on the display named name
// (started by StartXvfb). It is destroyed when the test ends.
func OpenWindow(t testing.TB, name string, width, height int) *Window {
	t.Helper()
	testenv.Need(t, "libX11", loadX11())
	l := &libX11
	dpy := openDisplay(name)
	if dpy == 0 {
		t.Fatalf("XOpenDisplay(%q) failed", name)
	}
	scr := l.XDefaultScreen(dpy)
	black := l.XBlackPixel(dpy, scr)
	w := l.XCreateSimpleWindow(dpy, l.XRootWindow(dpy, scr), 0, 0, uint32(width), uint32(height), 0, black, black)
	l.XMapWindow(dpy, w)
	l.XSync(dpy, 0)
	win := &Window{Display: dpy, ID: w, name: name}
	t.Cleanup(win.close)
	return win
}

// XCB returns the window's display connection as an xcb_connection_t*
// (Xlib and XCB share it), or 0 without libX11-xcb.
func (w *Window) XCB() uintptr {
	if libX11.XGetXCBConnection == nil {
		return 0
	}
	return libX11.XGetXCBConnection(w.Display)
}

// Resize resizes the window and waits for the server to have done it.
func (w *Window) Resize(width, height int) {
	libX11.XResizeWindow(w.Display, w.ID, uint32(width), uint32(height))
	libX11.XSync(w.Display, 0)
}

func (w *Window) close() {
	if w.Display == 0 {
		return
	}
	libX11.XDestroyWindow(w.Display, w.ID)
	libX11.XSync(w.Display, 0)
	w.Display = 0
}

// Capture reads the window's pixels with xwd.
func Capture(t testing.TB, w *Window) *image.RGBA {
	t.Helper()
	img, err := CaptureWindow(w.name, w.ID)
	if errors.Is(err, exec.ErrNotFound) {
		testenv.Need(t, "xwd (x11-apps)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// CaptureUntil reads the window until ok accepts what it shows, or timeout
// passes, and returns the last image read: presentation is asynchronous
// (vkQueuePresentKHR completing on the queue does not mean the X server
// shows the image yet), so a test of what a window shows polls for it.
func CaptureUntil(t testing.TB, w *Window, timeout time.Duration, ok func(*image.RGBA) bool) *image.RGBA {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		img := Capture(t, w)
		if ok(img) || time.Now().After(deadline) {
			return img
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// CaptureWindow runs xwd on window id of display name and decodes its dump.
func CaptureWindow(name string, id uintptr) (*image.RGBA, error) {
	bin, err := exec.LookPath("xwd")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-display", name, "-id", fmt.Sprint(id), "-silent")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("xwd: %v: %s", err, stderr.String())
	}
	return DecodeXWD(out)
}

// DecodeXWD decodes a ZPixmap XWD dump of 24 or 32 bits per pixel (what xwd
// writes for a TrueColor window).
func DecodeXWD(b []byte) (*image.RGBA, error) {
	if len(b) < 100 {
		return nil, fmt.Errorf("xwd: %d bytes, shorter than a header", len(b))
	}
	h := make([]uint32, 25)
	for i := range h {
		h[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	headerSize, version, format := h[0], h[1], h[2]
	width, height := h[4], h[5]
	byteOrder, bpp, stride := h[7], h[11], h[12]
	masks := [3]uint32{h[14], h[15], h[16]}
	ncolors := h[19]
	if version != 7 || format != 2 {
		return nil, fmt.Errorf("xwd: version %d format %d (want 7, ZPixmap 2)", version, format)
	}
	if bpp != 32 && bpp != 24 {
		return nil, fmt.Errorf("xwd: %d bits per pixel (want 24 or 32)", bpp)
	}
	off := uint64(headerSize) + uint64(ncolors)*12
	need := off + uint64(stride)*uint64(height)
	if width == 0 || height == 0 || uint64(stride) < uint64(width)*uint64(bpp/8) || need > uint64(len(b)) {
		return nil, fmt.Errorf("xwd: %dx%d with stride %d needs %d bytes, have %d", width, height, stride, need, len(b))
	}
	img := image.NewRGBA(image.Rect(0, 0, int(width), int(height)))
	bytesPP := int(bpp / 8)
	for y := 0; y < int(height); y++ {
		row := b[off+uint64(y)*uint64(stride):]
		for x := 0; x < int(width); x++ {
			var p uint32
			px := row[x*bytesPP : x*bytesPP+bytesPP]
			for i := range bytesPP {
				if byteOrder == 0 { // LSBFirst
					p |= uint32(px[i]) << (8 * i)
				} else {
					p = p<<8 | uint32(px[i])
				}
			}
			var c [3]uint8
			for i, m := range masks {
				if m != 0 {
					v := (p & m) >> bits.TrailingZeros32(m)
					c[i] = uint8(v * 255 / (m >> bits.TrailingZeros32(m)))
				}
			}
			img.SetRGBA(x, y, color.RGBA{c[0], c[1], c[2], 255})
		}
	}
	return img, nil
}

// libXtst is the XTEST extension's client side: synthetic input.
var libXtst struct {
	once sync.Once
	err  error

	XTestFakeKeyEvent    func(dpy uintptr, keycode uint32, press int32, delay uint64) int32
	XTestFakeButtonEvent func(dpy uintptr, button uint32, press int32, delay uint64) int32
	XTestFakeMotionEvent func(dpy uintptr, screen int32, x, y int32, delay uint64) int32
	XKeysymToKeycode     func(dpy uintptr, keysym uint64) uint8
}

func loadXtst() error {
	if err := loadX11(); err != nil {
		return err
	}
	libXtst.once.Do(func() {
		h, err := purego.Dlopen("libXtst.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			libXtst.err = err
			return
		}
		x11, err := purego.Dlopen("libX11.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			libXtst.err = err
			return
		}
		l := &libXtst
		purego.RegisterLibFunc(&l.XTestFakeKeyEvent, h, "XTestFakeKeyEvent")
		purego.RegisterLibFunc(&l.XTestFakeButtonEvent, h, "XTestFakeButtonEvent")
		purego.RegisterLibFunc(&l.XTestFakeMotionEvent, h, "XTestFakeMotionEvent")
		purego.RegisterLibFunc(&l.XKeysymToKeycode, x11, "XKeysymToKeycode")
	})
	return libXtst.err
}

// Input sends synthetic keyboard and mouse input to a display (XTEST), as a
// user at it would: keys go to the window under the pointer.
type Input struct{ dpy uintptr }

// Keysyms of keys tests press.
const (
	KeysymEscape uint64 = 0xff1b
	KeysymW      uint64 = 0x77
)

// NewInput connects to the display named name (started by StartXvfb).
func NewInput(t testing.TB, name string) *Input {
	t.Helper()
	testenv.Need(t, "libXtst", loadXtst())
	dpy := openDisplay(name)
	if dpy == 0 {
		t.Fatalf("XOpenDisplay(%q) failed", name)
	}
	return &Input{dpy: dpy}
}

// MoveTo moves the pointer to (x, y) on the screen.
func (in *Input) MoveTo(x, y int) {
	libXtst.XTestFakeMotionEvent(in.dpy, -1, int32(x), int32(y), 0)
	libX11.XSync(in.dpy, 0)
}

// Button presses or releases mouse button n (1: left).
func (in *Input) Button(n int, press bool) {
	libXtst.XTestFakeButtonEvent(in.dpy, uint32(n), boolInt(press), 0)
	libX11.XSync(in.dpy, 0)
}

// Key presses or releases the key of a keysym.
func (in *Input) Key(keysym uint64, press bool) {
	code := libXtst.XKeysymToKeycode(in.dpy, keysym)
	libXtst.XTestFakeKeyEvent(in.dpy, uint32(code), boolInt(press), 0)
	libX11.XSync(in.dpy, 0)
}

func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
