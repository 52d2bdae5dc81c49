package device

import "fmt"

// Presenter is the presentation extension (see Extension): window surfaces
// and swapchains, as handles like every other resource, released by the
// backend when the device closes. Package swapchain is its user; the Vulkan
// backend implements it. Frames are shown with the Present command, on the
// swapchain's stream, encoded and hazard-checked like every other command.
type Presenter interface {
	// CreateSurface makes a surface for a native window. kind is "xlib"
	// (display: Display*, window: Window), "xcb" (xcb_connection_t*,
	// xcb_window_t), "wayland" (wl_display*, wl_surface*), "win32"
	// (HINSTANCE, HWND) or "metal" (display unused, window: CAMetalLayer*).
	CreateSurface(kind string, display, window uintptr) (Handle, error)
	// DestroySurface destroys a surface; its swapchains must go first.
	DestroySurface(h Handle) error
	// CreateSwapchain makes a swapchain on a surface, presented on a
	// compute stream. A surface has one swapchain at a time.
	CreateSwapchain(desc SwapchainDesc) (Handle, error)
	// DestroySwapchain waits for the swapchain's presents and destroys it.
	DestroySwapchain(h Handle) error
	// ResizeSwapchain asks for back buffers of width×height where the
	// surface does not dictate the size; the swapchain is recreated before
	// the next frame.
	ResizeSwapchain(h Handle, width, height uint32) error
	// SwapchainState returns the swapchain as it is now.
	SwapchainState(h Handle) (SwapchainState, error)
}

// SwapchainDesc asks for a swapchain.
type SwapchainDesc struct {
	Surface Handle
	Stream  Handle // the compute stream presents run on
	// Width and Height are used where the surface does not dictate its size.
	Width, Height uint32
	// Images is the back-buffer count (0: one more than the surface's minimum).
	Images uint32
	VSync  bool // FIFO; otherwise the lowest-latency mode offered
	HDR    bool // an HDR10 or extended-sRGB format when the surface offers one
	SRGB   bool // an sRGB-encoding format (the blit encodes linear values)
}

// SwapchainState is a swapchain as it is now.
type SwapchainState struct {
	Width, Height uint32 // zero while the window is minimised
	Images        uint32
	Format        SurfaceFormat
	ColorSpace    ColorSpace
	PresentMode   PresentMode
	Recreated     int // times recreated (resize, out of date, suboptimal)
}

// SurfaceFormat is the pixel format of a swapchain's back buffers.
type SurfaceFormat uint8

const (
	SurfaceFormatOther      SurfaceFormat = iota // one this package has no name for
	SurfaceBGRA8Unorm                            // B8G8R8A8, UNORM
	SurfaceRGBA8Unorm                            // R8G8B8A8, UNORM
	SurfaceBGRA8SRGB                             // B8G8R8A8, sRGB-encoded
	SurfaceRGBA8SRGB                             // R8G8B8A8, sRGB-encoded
	SurfaceA2B10G10R10Unorm                      // 10-bit, packed
	SurfaceA2R10G10B10Unorm                      // 10-bit, packed
	SurfaceRGBA16Float                           // half floats
)

var surfaceFormatNames = [...]string{"other", "BGRA8Unorm", "RGBA8Unorm", "BGRA8SRGB", "RGBA8SRGB",
	"A2B10G10R10Unorm", "A2R10G10B10Unorm", "RGBA16Float"}

func (f SurfaceFormat) String() string {
	if int(f) < len(surfaceFormatNames) {
		return surfaceFormatNames[f]
	}
	return fmt.Sprintf("SurfaceFormat(%d)", uint8(f))
}

// ColorSpace is how a swapchain's back buffers are shown.
type ColorSpace uint8

const (
	ColorSpaceOther              ColorSpace = iota
	ColorSpaceSRGBNonlinear                 // SDR, sRGB
	ColorSpaceHDR10ST2084                   // HDR10 (PQ)
	ColorSpaceExtendedSRGBLinear            // scRGB, linear
)

var colorSpaceNames = [...]string{"other", "sRGB", "HDR10 ST2084", "extended sRGB linear"}

func (c ColorSpace) String() string {
	if int(c) < len(colorSpaceNames) {
		return colorSpaceNames[c]
	}
	return fmt.Sprintf("ColorSpace(%d)", uint8(c))
}

// HDR reports whether c is an HDR color space.
func (c ColorSpace) HDR() bool {
	return c == ColorSpaceHDR10ST2084 || c == ColorSpaceExtendedSRGBLinear
}

// PresentMode is when a presented image replaces the one shown.
type PresentMode uint8

const (
	PresentModeOther       PresentMode = iota
	PresentModeFIFO                    // at vertical blank, queued (vsync)
	PresentModeFIFORelaxed             // at vertical blank unless late
	PresentModeMailbox                 // at vertical blank, the newest wins
	PresentModeImmediate               // at once (may tear)
)

var presentModeNames = [...]string{"other", "FIFO", "FIFO relaxed", "mailbox", "immediate"}

func (m PresentMode) String() string {
	if int(m) < len(presentModeNames) {
		return presentModeNames[m]
	}
	return fmt.Sprintf("PresentMode(%d)", uint8(m))
}
