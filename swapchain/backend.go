package swapchain

import (
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

var errInvalid = device.ErrInvalidArgument

// Backend is what a device backend implements to present; the Vulkan
// backend's *vulkan.Device does. Surfaces and swapchains are handles, like
// every other backend resource, and the backend releases those still alive
// when the device closes.
type Backend interface {
	// CreateSurface makes a surface for a window; kind is a Kind's String.
	CreateSurface(kind string, display, window uintptr) (device.Handle, error)
	DestroySurface(h device.Handle) error
	// CreateSwapchain makes a swapchain on a surface that presents on stream;
	// flags are the Flag* bits.
	CreateSwapchain(surface, stream device.Handle, width, height, images, flags uint32) (device.Handle, error)
	DestroySwapchain(h device.Handle) error
	ResizeSwapchain(h device.Handle, width, height uint32) error
	// SwapchainState returns the back buffers' width, height and count, their
	// format, the present mode and how often the swapchain was recreated.
	SwapchainState(h device.Handle) ([3]uint32, vk.SurfaceFormatKHR, vk.PresentModeKHR, int, error)
	// Present blits level 0 of a 2D texture to the next back buffer and
	// presents it; false means no frame could be shown this time.
	Present(swapchain, texture device.Handle) (bool, error)
}

// The flags CreateSwapchain takes (the Vulkan backend's Present* constants).
const (
	FlagVSync uint32 = 1 << iota
	FlagHDR
	FlagSRGB
)

// backendOf finds the presenting backend under a device, looking through
// wrappers such as the validation wrapper.
func backendOf(dev *device.Device) (Backend, error) {
	if dev == nil {
		return nil, fmt.Errorf("swapchain: %w: nil device", errInvalid)
	}
	iface := dev.Interface()
	for range 8 {
		if b, ok := iface.(Backend); ok {
			return b, nil
		}
		w, ok := iface.(interface{ Inner() device.Interface })
		if !ok {
			break
		}
		iface = w.Inner()
	}
	return nil, fmt.Errorf("swapchain: %w: the %q backend cannot present (%T)", device.ErrUnsupported, dev.Backend(), iface)
}
