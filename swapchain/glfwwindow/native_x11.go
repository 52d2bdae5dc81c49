//go:build cgo && linux && !wayland

package glfwwindow

import (
	"fmt"
	"unsafe"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/lucent-gpu/lucent/swapchain"
)

func native(w *glfw.Window) (swapchain.Window, error) {
	dpy := uintptr(unsafe.Pointer(glfw.GetX11Display()))
	id := uintptr(w.GetX11Window())
	if dpy == 0 || id == 0 {
		return swapchain.Window{}, fmt.Errorf("glfwwindow: %w: GLFW gave no X11 display or window", ErrUnavailable)
	}
	return swapchain.Window{Kind: swapchain.Xlib, Display: dpy, Handle: id}, nil
}
