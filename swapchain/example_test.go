package swapchain_test

import (
	"log"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/swapchain"
	"github.com/lucent-gpu/lucent/swapchain/glfwwindow"
)

// Presenting a kernel's output every frame. The window comes from
// glfwwindow here; any native window will do.
func Example() {
	var (
		dev    *device.Device          // device.Open(ctx, "vulkan")
		stream *device.Stream          // dev.NewStream(device.StreamCompute)
		img    *device.Image[[4]uint8] // written by a kernel each frame
		render func() device.Command   // the kernel's dispatch
	)
	win, err := glfwwindow.Open("lucent", 640, 480)
	if err != nil {
		log.Fatal(err) // no window system: render off-screen instead
	}
	defer glfwwindow.Terminate()
	defer win.Close()
	native, err := win.Native()
	if err != nil {
		log.Fatal(err)
	}
	surf, err := swapchain.NewSurface(dev, native)
	if err != nil {
		log.Fatal(err)
	}
	defer surf.Close()
	sc, err := swapchain.New(surf, stream, swapchain.Config{Width: 640, Height: 480, VSync: true})
	if err != nil {
		log.Fatal(err)
	}
	defer sc.Close()
	for !win.ShouldClose() {
		win.Poll()
		if err := stream.Submit(render()); err != nil {
			log.Fatal(err)
		}
		// After the kernel, on the same stream; false: this frame was not
		// shown (minimised, resized), the next one will be.
		if _, err := sc.Present(img); err != nil {
			log.Fatal(err)
		}
	}
}

// A window the device cannot present to is refused with a clear error.
func ExampleNewSurface() {
	var dev *device.Device
	_, err := swapchain.NewSurface(dev, swapchain.Window{Kind: swapchain.Xlib, Display: 0, Handle: 0})
	log.Print(err) // swapchain: invalid argument: xlib window handle is 0
}
