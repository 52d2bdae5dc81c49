//go:build cgo

package glfwwindow

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/lucent-gpu/lucent/swapchain"
)

var (
	initMu sync.Mutex
	inited bool
)

// Window is a GLFW window without a client API (presentation only).
type Window struct {
	w        *glfw.Window
	onKey    func(Key, bool)
	onDrag   func(dx, dy float64)
	onResize func(w, h int)
	dragging bool
	havePos  bool // lastX, lastY hold a position the window was told of
	lastX    float64
	lastY    float64
	closed   bool
}

// guard turns a GLFW panic (its errors are panics) into an error.
func guard(what string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("glfwwindow: %s: %w: %v", what, ErrUnavailable, r)
	}
}

// initialized reports whether GLFW is initialized.
func initialized() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	glfw.GetTime()
	return true
}

// Open opens a width×height window titled title.
func Open(title string, width, height int) (_ *Window, err error) {
	if width <= 0 || height <= 0 {
		return nil, fmt.Errorf("glfwwindow: Open: bad size %dx%d", width, height)
	}
	defer guard("Open", &err)
	initMu.Lock()
	defer initMu.Unlock()
	if !inited {
		if err := glfw.Init(); err != nil {
			return nil, fmt.Errorf("glfwwindow: %w: %v", ErrUnavailable, err)
		}
		// go-gl logs a platform error (no X display, say) and returns
		// nil: GLFW is then not initialized, and the next call would
		// panic with NotInitialized, which says nothing of why.
		if !initialized() {
			why := "GLFW did not initialize (its platform error is logged above)"
			if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
				why = "no display: DISPLAY and WAYLAND_DISPLAY are unset"
			}
			return nil, fmt.Errorf("%w: %s", ErrUnavailable, why)
		}
		inited = true
	}
	glfw.DefaultWindowHints()
	glfw.WindowHint(glfw.ClientAPI, glfw.NoAPI)
	glfw.WindowHint(glfw.Resizable, glfw.True)
	gw, err := glfw.CreateWindow(width, height, title, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("glfwwindow: %w: %v", ErrUnavailable, err)
	}
	w := &Window{w: gw}
	gw.SetKeyCallback(func(_ *glfw.Window, key glfw.Key, _ int, action glfw.Action, _ glfw.ModifierKey) {
		if w.onKey != nil && action != glfw.Repeat {
			w.onKey(Key(key), action == glfw.Press)
		}
	})
	gw.SetMouseButtonCallback(func(_ *glfw.Window, b glfw.MouseButton, action glfw.Action, _ glfw.ModifierKey) {
		if b == glfw.MouseButtonLeft {
			w.dragging = action == glfw.Press
			// The position is the last motion event's, in event order:
			// GetCursorPos asks the server for where the pointer is now,
			// which is past motion events still queued behind this press
			// (a press and a drag taken in one poll then turned nothing).
			if !w.havePos {
				w.lastX, w.lastY = gw.GetCursorPos()
				w.havePos = true
			}
		}
	})
	gw.SetCursorPosCallback(func(_ *glfw.Window, x, y float64) {
		if w.dragging && w.onDrag != nil {
			w.onDrag(x-w.lastX, y-w.lastY)
		}
		w.lastX, w.lastY, w.havePos = x, y, true
	})
	gw.SetFramebufferSizeCallback(func(_ *glfw.Window, fw, fh int) {
		if w.onResize != nil {
			w.onResize(fw, fh)
		}
	})
	return w, nil
}

// Native returns the window as the swapchain package takes it.
func (w *Window) Native() (win swapchain.Window, err error) {
	if w.closed {
		return win, fmt.Errorf("glfwwindow: Native: the window is closed")
	}
	defer guard("Native", &err)
	return native(w.w)
}

// InstanceExtensions returns the Vulkan instance extensions GLFW needs to
// present to its windows.
func (w *Window) InstanceExtensions() (exts []string, err error) {
	defer guard("InstanceExtensions", &err)
	return w.w.GetRequiredInstanceExtensions(), nil
}

// ShouldClose reports whether the user asked to close the window.
func (w *Window) ShouldClose() bool { return w.closed || w.w.ShouldClose() }

// SetShouldClose marks the window for closing (as Esc does in the viewer).
func (w *Window) SetShouldClose(v bool) { w.w.SetShouldClose(v) }

// Poll processes pending events, running the callbacks.
func (w *Window) Poll() { glfw.PollEvents() }

// Size returns the framebuffer size in pixels.
func (w *Window) Size() (int, int) { return w.w.GetFramebufferSize() }

// SetSize resizes the window.
func (w *Window) SetSize(width, height int) { w.w.SetSize(width, height) }

// SetTitle sets the title bar's text.
func (w *Window) SetTitle(t string) { w.w.SetTitle(t) }

// Pressed reports whether key is held down.
func (w *Window) Pressed(k Key) bool { return w.w.GetKey(glfw.Key(k)) == glfw.Press }

// OnKey sets the function told of key presses (true) and releases (false).
func (w *Window) OnKey(f func(k Key, pressed bool)) { w.onKey = f }

// OnDrag sets the function told of mouse moves while the left button is held.
func (w *Window) OnDrag(f func(dx, dy float64)) { w.onDrag = f }

// OnResize sets the function told of framebuffer size changes.
func (w *Window) OnResize(f func(width, height int)) { w.onResize = f }

// Close destroys the window. A second Close does nothing.
func (w *Window) Close() {
	if w.closed {
		return
	}
	w.closed = true
	w.w.Destroy()
}

// Terminate closes GLFW's connection to the window system; the next Open
// starts a new one (reading DISPLAY again). Call it once the windows are
// closed and the devices that presented to them are closed too: Mesa's X11
// presentation caches what it learnt about a connection by its address for
// as long as the Vulkan instance lives, and a new connection allocated at a
// closed one's address would inherit stale state.
func Terminate() {
	initMu.Lock()
	defer initMu.Unlock()
	if inited {
		glfw.Terminate()
		inited = false
	}
}
