// Package swapchain shows compute results in a window: a Surface wraps a
// native window (Xlib, XCB, Wayland, Win32 or a CAMetalLayer), a Swapchain on
// it owns the back buffers, and Present copies a compute-written
// device.Image to the next back buffer and queues it for display.
//
// The one design choice to know: presenting is a stream operation. Present
// runs on the stream the swapchain was made with, after that stream's earlier
// work (the kernel that wrote the image) through the stream's timeline, and
// the blit waits for the back buffer's acquire semaphore and signals the
// semaphore the presentation engine waits for. The image is blitted, not
// rendered: kernels write ordinary RGBA8 or RGBA32F images, and the blit
// converts to whatever format the surface offers (B8G8R8A8 first).
//
// A window that is resized, minimised or made out of date never fails
// Present: the swapchain is recreated before the next frame, and Present
// reports false for a frame that could not be shown.
//
//	surf, err := swapchain.NewSurface(dev, swapchain.Window{Kind: swapchain.Xlib, Display: dpy, Handle: win})
//	sc, err := swapchain.New(surf, stream, swapchain.Config{Width: 640, Height: 480, VSync: true})
//	for running {
//		stream.Submit(kernel.Dispatch(...)) // writes img
//		sc.Present(img)
//	}
//	sc.Close()
//	surf.Close()
//
// The backend does the work: a device whose backend offers the
// device.Presenter extension (the Vulkan backend does) can present; any other
// gets an error matching device.ErrUnsupported. The extension is looked up
// through the device (device.Extension), so with validation on its checks
// hold for surfaces, swapchains and presents too. Opening a window is left to the caller (the
// glfwwindow sub-package, the only cgo in the project, does it with GLFW).
package swapchain
