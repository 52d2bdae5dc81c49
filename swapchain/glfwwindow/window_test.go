package glfwwindow_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/lucent-gpu/lucent/internal/xtest"
	"github.com/lucent-gpu/lucent/swapchain"
	"github.com/lucent-gpu/lucent/swapchain/glfwwindow"
	"github.com/stretchr/testify/require"
)

func TestOpenUnderXvfb(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, err := glfwwindow.Open("bad", 0, 10)
	require.Error(t, err)
	if cgoEnabled && runtime.GOOS == "linux" {
		// No display: an error saying so, and a later Open with one
		// (below) still works.
		t.Setenv("DISPLAY", "")
		t.Setenv("WAYLAND_DISPLAY", "")
		_, err = glfwwindow.Open("no display", 120, 90)
		require.ErrorIs(t, err, glfwwindow.ErrUnavailable)
		require.Contains(t, err.Error(), "no display: DISPLAY and WAYLAND_DISPLAY are unset")
	}

	display := xtest.StartXvfb(t)
	t.Setenv("DISPLAY", display)
	w, err := glfwwindow.Open("lucent test", 120, 90)
	if !cgoEnabled {
		// Built without cgo: no window, and an error saying why.
		require.ErrorIs(t, err, glfwwindow.ErrUnavailable)
		require.Contains(t, err.Error(), "cgo")
		return
	}
	require.NoError(t, err)
	defer glfwwindow.Terminate()
	defer w.Close()
	native, err := w.Native()
	require.NoError(t, err)
	require.Equal(t, swapchain.Xlib, native.Kind)
	require.NotZero(t, native.Display)
	require.NotZero(t, native.Handle)
	exts, err := w.InstanceExtensions()
	require.NoError(t, err)
	require.Contains(t, exts, "VK_KHR_surface")

	// The window shows in xwd at its size, and follows SetSize.
	img, err := xtest.CaptureWindow(display, native.Handle)
	require.NoError(t, err)
	require.Equal(t, [2]int{120, 90}, [2]int{img.Bounds().Dx(), img.Bounds().Dy()})
	var resized [2]int
	w.OnResize(func(width, height int) { resized = [2]int{width, height} })
	w.SetSize(150, 100)
	// The X server answers in its own time: on a loaded machine a hundred
	// polls in a row can all come before it. Wait up to 10 s, polling.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		w.Poll()
		if resized != ([2]int{}) {
			break
		}
	}
	require.Equal(t, [2]int{150, 100}, resized)
	fw, fh := w.Size()
	require.Equal(t, [2]int{150, 100}, [2]int{fw, fh})
	require.False(t, w.ShouldClose())
	w.SetShouldClose(true)
	require.True(t, w.ShouldClose())
	w.Close()
	w.Close() // harmless
	_, err = w.Native()
	require.Error(t, err, "a closed window has no handle")
}
