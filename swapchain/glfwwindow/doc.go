// Package glfwwindow opens a window to present to, with GLFW: the only cgo in
// lucent. It gives the swapchain.Window of the window (Xlib on Linux), polls
// its events and reports keys, mouse drags and resizes.
//
// GLFW wants every call from one OS thread, the main one on some platforms:
// call runtime.LockOSThread from an init function of package main and use
// windows from main's goroutine. Built without cgo (CGO_ENABLED=0), or where
// no native handle can be had, Open returns an error matching ErrUnavailable,
// so programs can fall back to rendering off-screen.
//
//	w, err := glfwwindow.Open("lucent", 640, 480)
//	native, err := w.Native()
//	surf, err := swapchain.NewSurface(dev, native)
//	for !w.ShouldClose() {
//		w.Poll()
//		// render, present
//	}
//	w.Close()
package glfwwindow

import "errors"

// ErrUnavailable: no window can be opened (built without cgo, no display, or
// a platform whose native handle is not supported).
var ErrUnavailable = errors.New("glfwwindow: no window system")

// Key is a keyboard key, numbered as GLFW numbers them.
type Key int

// The keys lucent's viewer uses.
const (
	KeySpace  Key = 32
	KeyA      Key = 65
	KeyD      Key = 68
	KeyE      Key = 69
	KeyQ      Key = 81
	KeyS      Key = 83
	KeyW      Key = 87
	KeyEscape Key = 256
	KeyRight  Key = 262
	KeyLeft   Key = 263
	KeyDown   Key = 264
	KeyUp     Key = 265
)
