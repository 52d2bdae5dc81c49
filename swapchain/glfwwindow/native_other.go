//go:build cgo && !(linux && !wayland)

package glfwwindow

import (
	"fmt"
	"runtime"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/lucent-gpu/lucent/swapchain"
)

// TODO: Win32 (GetWin32Window), Wayland and Cocoa (a CAMetalLayer) handles.
func native(*glfw.Window) (swapchain.Window, error) {
	return swapchain.Window{}, fmt.Errorf("glfwwindow: %w: native handles on %s are not supported yet", ErrUnavailable, runtime.GOOS)
}
