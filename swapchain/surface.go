package swapchain

import (
	"fmt"
	"sync"

	"github.com/lucent-gpu/lucent/device"
)

// Surface is a window a device can present to.
type Surface struct {
	dev *device.Device
	b   device.Presenter
	h   device.Handle
	win Window

	mu     sync.Mutex
	closed bool
}

// NewSurface makes a surface for win on dev. A window the device cannot
// present to — a zero handle, an unknown kind, a window system this platform
// or driver lacks — gives an error naming it; a device whose backend cannot
// present gives one matching device.ErrUnsupported.
func NewSurface(dev *device.Device, win Window) (*Surface, error) {
	if err := win.check(); err != nil {
		return nil, err
	}
	b, err := presenterOf(dev)
	if err != nil {
		return nil, err
	}
	h, err := b.CreateSurface(win.Kind.String(), win.Display, win.Handle)
	if err != nil {
		return nil, fmt.Errorf("swapchain: surface for %v window %#x: %w", win.Kind, win.Handle, err)
	}
	return &Surface{dev: dev, b: b, h: h, win: win}, nil
}

// Window returns the window the surface was made for.
func (s *Surface) Window() Window { return s.win }

// Close destroys the surface; close its swapchains first. A second Close
// returns nil.
func (s *Surface) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if err := s.b.DestroySurface(s.h); err != nil {
		return fmt.Errorf("swapchain: closing the surface: %w", err)
	}
	s.closed = true
	return nil
}
