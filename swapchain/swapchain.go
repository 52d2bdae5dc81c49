package swapchain

import (
	"fmt"
	"sync"

	"github.com/lucent-gpu/lucent/device"
)

// Config asks for a swapchain. The surface may overrule the size (most
// window systems dictate it) and the image count (clamped to what it allows).
type Config struct {
	Width, Height int  // the back buffers' size where the surface leaves it open
	Images        int  // back buffers; 0: one more than the surface's minimum
	VSync         bool // wait for vertical blank (FIFO); otherwise the lowest-latency mode offered
	HDR           bool // an HDR10 (ST 2084) or extended-sRGB format when the surface offers one
	SRGB          bool // an sRGB-encoding format: the image holds linear values
}

// State is a swapchain as it is now.
type State struct {
	Width, Height int // zero while the window is minimised
	Images        int
	Format        device.SurfaceFormat
	ColorSpace    device.ColorSpace
	PresentMode   device.PresentMode
	Recreated     int // times recreated after a resize, an out-of-date or suboptimal swapchain
}

// HDR reports whether the back buffers are in an HDR color space.
func (s State) HDR() bool { return s.ColorSpace.HDR() }

// Image is what Present shows: a *device.Image[T] of any pixel type (RGBA8Unorm
// or RGBA32Float, or any format the device can blit from).
type Image interface {
	Handle() device.Handle
	Desc() device.TextureDesc
}

// Swapchain is the back buffers of a surface, presented on one stream.
type Swapchain struct {
	surf   *Surface
	stream *device.Stream
	h      device.Handle

	mu     sync.Mutex
	closed bool
}

// New makes a swapchain on surf whose presents run on stream (a compute
// stream: it shares the queue that can present). A surface has one swapchain
// at a time: a second New on it is an error until the first is closed.
func New(surf *Surface, stream *device.Stream, cfg Config) (*Swapchain, error) {
	if surf == nil || stream == nil {
		return nil, fmt.Errorf("swapchain: New: %w: nil surface or stream", errInvalid)
	}
	if cfg.Width < 0 || cfg.Height < 0 || cfg.Images < 0 || cfg.Width > 1<<16 || cfg.Height > 1<<16 || cfg.Images > 16 {
		return nil, fmt.Errorf("swapchain: New: %w: %dx%d with %d images", errInvalid, cfg.Width, cfg.Height, cfg.Images)
	}
	h, err := surf.b.CreateSwapchain(device.SwapchainDesc{
		Surface: surf.h, Stream: stream.Handle(),
		Width: uint32(cfg.Width), Height: uint32(cfg.Height), Images: uint32(cfg.Images),
		VSync: cfg.VSync, HDR: cfg.HDR, SRGB: cfg.SRGB,
	})
	if err != nil {
		return nil, fmt.Errorf("swapchain: New: %w", err)
	}
	return &Swapchain{surf: surf, stream: stream, h: h}, nil
}

// Stream returns the stream presents run on.
func (sc *Swapchain) Stream() *device.Stream { return sc.stream }

// Present shows level 0 of img: it submits a device.Present command on the
// swapchain's stream, so after the stream's earlier work the image is
// blitted (scaled when the sizes differ) to the next back buffer, which is
// queued for display. It returns without waiting for the GPU; at most two
// frames are in flight, so it waits for the one before last. It reports
// false, with no error, when no frame could be shown (a minimised or
// out-of-date window); the swapchain is then recreated for the next call.
// To present in the same submission as the work writing img, submit
// Command(img) with it instead.
func (sc *Swapchain) Present(img Image) (bool, error) {
	var shown bool
	c, err := sc.command("Present", img, &shown)
	if err != nil {
		return false, err
	}
	if err := sc.stream.Submit(c); err != nil {
		return false, fmt.Errorf("swapchain: Present: %w", err)
	}
	return shown, nil
}

// Command returns the device.Present command showing level 0 of img, for a
// list submitted on the swapchain's stream (Stream) after the commands
// writing img.
func (sc *Swapchain) Command(img Image) (*device.Present, error) {
	return sc.command("Command", img, nil)
}

func (sc *Swapchain) command(op string, img Image, shown *bool) (*device.Present, error) {
	if img == nil {
		return nil, fmt.Errorf("swapchain: %s: %w: nil image", op, errInvalid)
	}
	sc.mu.Lock()
	closed := sc.closed
	sc.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("swapchain: %s: %w", op, device.ErrClosed)
	}
	if d := img.Desc(); d.Dim != 2 {
		return nil, fmt.Errorf("swapchain: %s: %w: a %dD texture (want a 2D image)", op, errInvalid, d.Dim)
	}
	return &device.Present{Swapchain: sc.h, Texture: img.Handle(), Shown: shown}, nil
}

// Resize asks for back buffers of width×height (where the window system does
// not dictate the size itself); the swapchain is recreated before the next
// frame. Resizes the window system reports are picked up without it.
func (sc *Swapchain) Resize(width, height int) error {
	if width < 0 || height < 0 || width > 1<<16 || height > 1<<16 {
		return fmt.Errorf("swapchain: Resize: %w: %dx%d", errInvalid, width, height)
	}
	if err := sc.surf.b.ResizeSwapchain(sc.h, uint32(width), uint32(height)); err != nil {
		return fmt.Errorf("swapchain: Resize: %w", err)
	}
	return nil
}

// State returns the swapchain's current size, format and present mode.
func (sc *Swapchain) State() (State, error) {
	st, err := sc.surf.b.SwapchainState(sc.h)
	if err != nil {
		return State{}, fmt.Errorf("swapchain: State: %w", err)
	}
	return State{
		Width: int(st.Width), Height: int(st.Height), Images: int(st.Images),
		Format: st.Format, ColorSpace: st.ColorSpace, PresentMode: st.PresentMode, Recreated: st.Recreated,
	}, nil
}

// Close waits for the swapchain's presents and destroys it. A second Close
// returns nil.
func (sc *Swapchain) Close() error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.closed {
		return nil
	}
	if err := sc.surf.b.DestroySwapchain(sc.h); err != nil {
		return fmt.Errorf("swapchain: Close: %w", err)
	}
	sc.closed = true
	return nil
}
