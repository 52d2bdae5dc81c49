package main

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/internal/xtest"
	"github.com/lucent-gpu/lucent/swapchain"
	"github.com/lucent-gpu/lucent/swapchain/glfwwindow"
	"github.com/stretchr/testify/require"
)

// BenchmarkFrame measures one 640×480 frame of the scene: rendered and
// waited for (headless), and rendered, presented to a window under Xvfb and
// waited for (window, with and without vsync). Compare the three in one run:
//
//	go test ./cmd/lucent-view -run NONE -bench Frame -benchtime 40x
func BenchmarkFrame(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx := context.Background()
	dev, _, err := openDevice(ctx, false)
	testenv.Need(b, "a Vulkan device", err)
	defer glfwwindow.Terminate() // after the device is closed
	defer dev.Close()
	v, err := newViewer(dev, 640, 480)
	require.NoError(b, err)
	defer v.close()

	// Warm up: the first dispatch pays for lazy work in the driver.
	require.NoError(b, v.render(0, DefaultCamera))
	require.NoError(b, v.s.Synchronize(ctx))
	b.Run("headless", func(b *testing.B) {
		for n := 0; b.Loop(); n++ {
			require.NoError(b, v.render(float32(n)/60, DefaultCamera))
			require.NoError(b, v.s.Synchronize(ctx))
		}
	})
	display := xtest.StartXvfb(b)
	b.Setenv("DISPLAY", display)
	for _, vsync := range []bool{false, true} {
		name := "window"
		if vsync {
			name += "-vsync"
		}
		b.Run(name, func(b *testing.B) {
			o := options{width: 640, height: 480, frames: b.N + 1, vsync: vsync, fixed: true}
			hook := func(n int, _ *glfwwindow.Window, _ swapchain.Window, v *viewer) (bool, error) {
				if n == 0 { // the first frame also creates the window
					if err := v.s.Synchronize(ctx); err != nil {
						return false, err
					}
					b.ResetTimer()
				} else if err := v.s.Synchronize(ctx); err != nil {
					return false, err
				}
				return true, nil
			}
			require.NoError(b, windowed(ctx, v, o, &bytes.Buffer{}, hook))
		})
	}
}
