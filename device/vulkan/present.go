package vulkan

// Presentation: window surfaces and swapchains (device.Presenter, the
// backend half of package swapchain) and the device.Present command. A frame
// goes like this:
//
//	Dispatch, before taking the resource table (beginPresents):
//	    lock the swapchain; wait until acquire[slot] is free (the stream
//	    completed the frame that last used it)
//	the encoder, at the Present command (present):
//	    vkAcquireNextImageKHR(acquire[slot]) -> image i
//	    order the blit after the list's earlier writes of the texture;
//	    barrier UNDEFINED -> TRANSFER_DST on image i; blit texture (GENERAL)
//	    -> image i; barrier -> PRESENT_SRC
//	    the list's submission waits on acquire[slot] and signals rendered[i]
//	after the list is submitted (finishPresents):
//	    vkQueuePresentKHR(wait rendered[i])
//
// rendered is per image, not per frame: a present's wait on it is only known
// to be over once the image is acquired again. OUT_OF_DATE and SUBOPTIMAL mark
// the swapchain stale; it is recreated (the old one passed as oldSwapchain)
// before the next acquire. A list that fails to encode after acquiring gives
// the image up (drop).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// surfaceExtensions maps a window kind to the instance extension creating its surfaces.
var surfaceExtensions = map[string]string{
	"xlib":    "VK_KHR_xlib_surface",
	"xcb":     "VK_KHR_xcb_surface",
	"wayland": "VK_KHR_wayland_surface",
	"win32":   "VK_KHR_win32_surface",
	"metal":   "VK_EXT_metal_surface",
}

// presentInstanceExtensions returns the surface extensions to enable among
// those the loader offers. Wayland's is left out outside a Wayland session:
// Mesa's Wayland support then complains on stderr at every instance creation
// that XDG_RUNTIME_DIR is unset.
func presentInstanceExtensions(have map[string]bool) []string {
	if !have["VK_KHR_surface"] {
		return nil
	}
	out := []string{"VK_KHR_surface"}
	for _, e := range []string{"VK_KHR_xlib_surface", "VK_KHR_xcb_surface", "VK_KHR_wayland_surface",
		"VK_KHR_win32_surface", "VK_EXT_metal_surface", "VK_EXT_swapchain_colorspace"} {
		if e == "VK_KHR_wayland_surface" && os.Getenv("WAYLAND_DISPLAY") == "" && os.Getenv("XDG_RUNTIME_DIR") == "" {
			continue
		}
		if have[e] {
			out = append(out, e)
		}
	}
	return out
}

// surface is a VkSurfaceKHR and the swapchains made on it.
type surface struct {
	d      *Device
	kind   string
	handle vk.SurfaceKHR
	mu     sync.Mutex
	chains map[*swapchain]bool
}

func (sf *surface) release() {
	sf.mu.Lock()
	chains := make([]*swapchain, 0, len(sf.chains))
	for sc := range sf.chains {
		chains = append(chains, sc)
	}
	sf.mu.Unlock()
	for _, sc := range chains {
		sc.release()
	}
	sf.d.in.fn.DestroySurfaceKHR(sf.d.in.handle, sf.handle, nil)
}

// CreateSurface creates a presentation surface for a native window. kind is
// "xlib" (display: Display*, window: Window), "xcb" (xcb_connection_t*,
// xcb_window_t), "wayland" (wl_display*, wl_surface*), "win32" (HINSTANCE,
// HWND) or "metal" (display unused, window: CAMetalLayer*).
func (d *Device) CreateSurface(kind string, display, window uintptr) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	ext, ok := surfaceExtensions[kind]
	if !ok {
		return 0, invalidf("unknown window kind %q (want xlib, xcb, wayland, win32 or metal)", kind)
	}
	if window == 0 {
		return 0, invalidf("%s surface: the window handle is 0", kind)
	}
	if display == 0 && kind != "win32" && kind != "metal" {
		return 0, invalidf("%s surface: the display handle is 0", kind)
	}
	have, err := instanceExtensions()
	if err != nil {
		return 0, fmt.Errorf("vulkan: enumerating instance extensions: %w", wrapResult(err))
	}
	if !slices.Contains(presentInstanceExtensions(have), ext) {
		return 0, unsupportedf("%s surface: the Vulkan instance does not have %s (not offered by the loader, or no %s session)", kind, ext, kind)
	}
	if !d.fn.Loaded("vkCreateSwapchainKHR") {
		return 0, unsupportedf("%s cannot present: it does not offer VK_KHR_swapchain", d.phys.name())
	}
	sf := &surface{d: d, kind: kind, chains: map[*swapchain]bool{}}
	in := d.in
	var r vk.Result
	switch kind {
	case "xlib":
		ci := vk.XlibSurfaceCreateInfoKHR{SType: vk.STRUCTURE_TYPE_XLIB_SURFACE_CREATE_INFO_KHR, Dpy: display, Window: window}
		r = in.fn.CreateXlibSurfaceKHR(in.handle, &ci, nil, &sf.handle)
	case "xcb":
		if window > 0xffffffff {
			return 0, invalidf("xcb surface: window id %#x does not fit xcb_window_t", window)
		}
		ci := vk.XcbSurfaceCreateInfoKHR{SType: vk.STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR, Connection: display, Window: uint32(window)}
		r = in.fn.CreateXcbSurfaceKHR(in.handle, &ci, nil, &sf.handle)
	case "wayland":
		ci := vk.WaylandSurfaceCreateInfoKHR{SType: vk.STRUCTURE_TYPE_WAYLAND_SURFACE_CREATE_INFO_KHR, Display: display, Surface: window}
		r = in.fn.CreateWaylandSurfaceKHR(in.handle, &ci, nil, &sf.handle)
	case "win32":
		ci := vk.Win32SurfaceCreateInfoKHR{SType: vk.STRUCTURE_TYPE_WIN32_SURFACE_CREATE_INFO_KHR, Hinstance: display, Hwnd: window}
		r = in.fn.CreateWin32SurfaceKHR(in.handle, &ci, nil, &sf.handle)
	case "metal":
		ci := vk.MetalSurfaceCreateInfoEXT{SType: vk.STRUCTURE_TYPE_METAL_SURFACE_CREATE_INFO_EXT, PLayer: window}
		r = in.fn.CreateMetalSurfaceEXT(in.handle, &ci, nil, &sf.handle)
	}
	if err := check("vkCreate"+kind+"Surface", r); err != nil {
		return 0, err
	}
	var supported vk.Bool32
	if err := check("vkGetPhysicalDeviceSurfaceSupportKHR",
		in.fn.GetPhysicalDeviceSurfaceSupportKHR(d.phys.handle, d.queues[0].family, sf.handle, &supported)); err != nil {
		in.fn.DestroySurfaceKHR(in.handle, sf.handle, nil)
		return 0, fmt.Errorf("%s surface of window %#x: %w", kind, window, err)
	}
	if supported == 0 {
		in.fn.DestroySurfaceKHR(in.handle, sf.handle, nil)
		return 0, unsupportedf("%s cannot present to the %s window %#x from its compute queue family %d",
			d.phys.name(), kind, window, d.queues[0].family)
	}
	h, err := d.add(sf)
	if err != nil {
		in.fn.DestroySurfaceKHR(in.handle, sf.handle, nil)
		return 0, err
	}
	return h, nil
}

// DestroySurface destroys a surface; its swapchains must be destroyed first.
func (d *Device) DestroySurface(h device.Handle) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	d.live.Lock()
	if err := d.alive(); err != nil {
		d.live.Unlock()
		return err
	}
	sf, err := lookup[*surface](d, h, "surface")
	if err != nil {
		d.live.Unlock()
		return err
	}
	sf.mu.Lock()
	n := len(sf.chains)
	sf.mu.Unlock()
	if n > 0 {
		d.live.Unlock()
		return invalidf("surface %d still has %d swapchain(s)", h, n)
	}
	delete(d.objects, h)
	d.live.Unlock()
	sf.release()
	return nil
}

// swapchainConfig is what CreateSwapchain is asked for.
type swapchainConfig struct {
	width, height uint32 // used when the surface does not dictate its size
	images        uint32 // back buffers; 0: one more than the surface's minimum
	vsync         bool   // FIFO; otherwise MAILBOX, IMMEDIATE, then FIFO
	hdr           bool   // an HDR10 or extended-sRGB format when the surface offers one
	srgb          bool   // an sRGB-encoding format (the blit encodes linear values)
}

// framesInFlight bounds how many presents may be queued before Present waits.
const framesInFlight = 2

type swapchain struct {
	d    *Device
	surf *surface
	s    *stream
	cfg  swapchainConfig

	mu       sync.Mutex
	handle   vk.SwapchainKHR
	format   vk.SurfaceFormatKHR
	mode     vk.PresentModeKHR
	extent   vk.Extent2D
	images   []vk.Image
	rendered []vk.Semaphore // per image
	acquire  [framesInFlight]vk.Semaphore
	inflight [framesInFlight]uint64 // stream value of the frame that waited on acquire[i]
	frame    uint64
	last     uint64 // stream value of the last present submission
	stale    bool
	recreate int
	released bool
}

// CreateSwapchain creates a swapchain on a surface; its presents run on
// desc.Stream (see device.SwapchainDesc).
func (d *Device) CreateSwapchain(desc device.SwapchainDesc) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	surf, str := desc.Surface, desc.Stream
	cfg := swapchainConfig{width: desc.Width, height: desc.Height, images: desc.Images, vsync: desc.VSync, hdr: desc.HDR, srgb: desc.SRGB}
	d.live.RLock()
	if err := d.alive(); err != nil {
		d.live.RUnlock()
		return 0, err
	}
	sf, err := lookup[*surface](d, surf, "surface")
	if err == nil {
		var s *stream
		s, err = lookup[*stream](d, str, "stream")
		if err == nil && s.q.family != d.queues[0].family {
			err = invalidf("stream %d runs on queue family %d, which cannot present (use a compute stream)", str, s.q.family)
		}
		if err == nil {
			// Registered on the surface at once: DestroySurface refuses from now on.
			sc := &swapchain{d: d, surf: sf, s: s, cfg: cfg}
			sf.mu.Lock()
			if len(sf.chains) > 0 {
				// Vulkan gives a window one swapchain at a time
				// (VK_ERROR_NATIVE_WINDOW_IN_USE_KHR); some drivers do not
				// say so, and two would present over each other.
				sf.mu.Unlock()
				d.live.RUnlock()
				return 0, invalidf("surface %d already has a swapchain: close it first (Resize changes its size)", surf)
			}
			sf.chains[sc] = true
			sf.mu.Unlock()
			d.live.RUnlock()
			h, err := d.addSwapchain(sc)
			if err != nil {
				sf.mu.Lock()
				delete(sf.chains, sc)
				sf.mu.Unlock()
			}
			return h, err
		}
	}
	d.live.RUnlock()
	return 0, err
}

func (d *Device) addSwapchain(sc *swapchain) (device.Handle, error) {
	for i := range sc.acquire {
		sci := vk.SemaphoreCreateInfo{SType: vk.STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO}
		if err := check("vkCreateSemaphore", d.fn.CreateSemaphore(d.vk, &sci, nil, &sc.acquire[i])); err != nil {
			sc.destroyObjects()
			return 0, err
		}
	}
	sc.mu.Lock()
	err := sc.build()
	sc.mu.Unlock()
	if err != nil {
		sc.destroyObjects()
		return 0, err
	}
	h, err := d.add(sc)
	if err != nil {
		sc.destroyObjects()
		return 0, err
	}
	return h, nil
}

// build (re)creates the VkSwapchainKHR for the surface as it is now; sc.mu
// held. A zero-sized surface (a minimised window) leaves the swapchain stale
// with no images.
func (sc *swapchain) build() error {
	d, in := sc.d, sc.d.in
	pd, surf := d.phys.handle, sc.surf.handle
	var caps vk.SurfaceCapabilitiesKHR
	if err := check("vkGetPhysicalDeviceSurfaceCapabilitiesKHR", in.fn.GetPhysicalDeviceSurfaceCapabilitiesKHR(pd, surf, &caps)); err != nil {
		return err
	}
	ext := caps.CurrentExtent
	if ext.Width == 0xFFFFFFFF {
		ext = vk.Extent2D{
			Width:  min(max(sc.cfg.width, caps.MinImageExtent.Width), caps.MaxImageExtent.Width),
			Height: min(max(sc.cfg.height, caps.MinImageExtent.Height), caps.MaxImageExtent.Height),
		}
	}
	if caps.SupportedUsageFlags&vk.IMAGE_USAGE_TRANSFER_DST_BIT == 0 {
		return unsupportedf("the %s surface's images cannot be transfer destinations", sc.surf.kind)
	}
	old := sc.handle
	if ext.Width == 0 || ext.Height == 0 {
		sc.retire(old)
		sc.stale = true
		return nil
	}
	format, err := sc.pickFormat()
	if err != nil {
		return err
	}
	mode, err := sc.pickMode()
	if err != nil {
		return err
	}
	count := sc.cfg.images
	if count == 0 {
		count = caps.MinImageCount + 1
	}
	count = max(count, caps.MinImageCount)
	if caps.MaxImageCount > 0 {
		count = min(count, caps.MaxImageCount)
	}
	alpha := vk.COMPOSITE_ALPHA_OPAQUE_BIT_KHR
	if caps.SupportedCompositeAlpha&alpha == 0 {
		alpha = caps.SupportedCompositeAlpha & -caps.SupportedCompositeAlpha // lowest bit
	}
	usage := vk.IMAGE_USAGE_TRANSFER_DST_BIT | caps.SupportedUsageFlags&vk.IMAGE_USAGE_TRANSFER_SRC_BIT
	ci := vk.SwapchainCreateInfoKHR{
		SType:            vk.STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
		Surface:          surf,
		MinImageCount:    count,
		ImageFormat:      format.Format,
		ImageColorSpace:  format.ColorSpace,
		ImageExtent:      ext,
		ImageArrayLayers: 1,
		ImageUsage:       usage,
		ImageSharingMode: vk.SHARING_MODE_EXCLUSIVE,
		PreTransform:     caps.CurrentTransform,
		CompositeAlpha:   vk.CompositeAlphaFlagBitsKHR(alpha),
		PresentMode:      mode,
		Clipped:          vk.TRUE,
		OldSwapchain:     old,
	}
	var handle vk.SwapchainKHR
	r := d.fn.CreateSwapchainKHR(d.vk, &ci, nil, &handle)
	// The old swapchain is retired either way.
	sc.retire(old)
	if err := check("vkCreateSwapchainKHR", r); err != nil {
		return err
	}
	var n uint32
	if err := check("vkGetSwapchainImagesKHR", d.fn.GetSwapchainImagesKHR(d.vk, handle, &n, nil)); err != nil {
		d.fn.DestroySwapchainKHR(d.vk, handle, nil)
		return err
	}
	images := make([]vk.Image, n)
	if err := check("vkGetSwapchainImagesKHR", d.fn.GetSwapchainImagesKHR(d.vk, handle, &n, &images[0])); err != nil {
		d.fn.DestroySwapchainKHR(d.vk, handle, nil)
		return err
	}
	sc.handle, sc.images = handle, images[:n]
	sc.format, sc.mode, sc.extent = format, mode, ext
	for range sc.images {
		var sem vk.Semaphore
		sci := vk.SemaphoreCreateInfo{SType: vk.STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO}
		if err := check("vkCreateSemaphore", d.fn.CreateSemaphore(d.vk, &sci, nil, &sem)); err != nil {
			return err
		}
		sc.rendered = append(sc.rendered, sem)
	}
	sc.stale = false
	return nil
}

// retire destroys the current swapchain (old) and its per-image semaphores
// once the queue is idle: presents cannot be waited for otherwise.
func (sc *swapchain) retire(old vk.SwapchainKHR) {
	d := sc.d
	if old == 0 && len(sc.rendered) == 0 {
		return
	}
	sc.s.q.mu.Lock()
	d.fn.QueueWaitIdle(sc.s.q.handle)
	sc.s.q.mu.Unlock()
	for _, sem := range sc.rendered {
		d.fn.DestroySemaphore(d.vk, sem, nil)
	}
	sc.rendered = nil
	if old != 0 {
		d.fn.DestroySwapchainKHR(d.vk, old, nil)
	}
	sc.handle, sc.images = 0, nil
}

// hdrFormats are the HDR formats tried, best first.
var hdrFormats = []vk.SurfaceFormatKHR{
	{Format: vk.FORMAT_A2B10G10R10_UNORM_PACK32, ColorSpace: vk.COLOR_SPACE_HDR10_ST2084_EXT},
	{Format: vk.FORMAT_A2R10G10B10_UNORM_PACK32, ColorSpace: vk.COLOR_SPACE_HDR10_ST2084_EXT},
	{Format: vk.FORMAT_R16G16B16A16_SFLOAT, ColorSpace: vk.COLOR_SPACE_EXTENDED_SRGB_LINEAR_EXT},
}

// pickFormat chooses the back-buffer format: an HDR one when asked and
// offered, else B8G8R8A8/R8G8B8A8 UNORM (or SRGB when asked), else the first
// the surface lists that the blit can write.
func (sc *swapchain) pickFormat() (vk.SurfaceFormatKHR, error) {
	d := sc.d
	var n uint32
	if err := check("vkGetPhysicalDeviceSurfaceFormatsKHR", d.in.fn.GetPhysicalDeviceSurfaceFormatsKHR(d.phys.handle, sc.surf.handle, &n, nil)); err != nil {
		return vk.SurfaceFormatKHR{}, err
	}
	if n == 0 {
		return vk.SurfaceFormatKHR{}, unsupportedf("the %s surface offers no format", sc.surf.kind)
	}
	formats := make([]vk.SurfaceFormatKHR, n)
	if err := check("vkGetPhysicalDeviceSurfaceFormatsKHR", d.in.fn.GetPhysicalDeviceSurfaceFormatsKHR(d.phys.handle, sc.surf.handle, &n, &formats[0])); err != nil {
		return vk.SurfaceFormatKHR{}, err
	}
	formats = formats[:n]
	blittable := func(f vk.Format) bool {
		var fp vk.FormatProperties
		d.in.fn.GetPhysicalDeviceFormatProperties(d.phys.handle, f, &fp)
		return fp.OptimalTilingFeatures&vk.FORMAT_FEATURE_BLIT_DST_BIT != 0
	}
	var want []vk.SurfaceFormatKHR
	if sc.cfg.hdr {
		want = append(want, hdrFormats...)
	}
	unorm := []vk.SurfaceFormatKHR{
		{Format: vk.FORMAT_B8G8R8A8_UNORM, ColorSpace: vk.COLOR_SPACE_SRGB_NONLINEAR_KHR},
		{Format: vk.FORMAT_R8G8B8A8_UNORM, ColorSpace: vk.COLOR_SPACE_SRGB_NONLINEAR_KHR},
	}
	srgb := []vk.SurfaceFormatKHR{
		{Format: vk.FORMAT_B8G8R8A8_SRGB, ColorSpace: vk.COLOR_SPACE_SRGB_NONLINEAR_KHR},
		{Format: vk.FORMAT_R8G8B8A8_SRGB, ColorSpace: vk.COLOR_SPACE_SRGB_NONLINEAR_KHR},
	}
	if sc.cfg.srgb {
		want = append(append(want, srgb...), unorm...)
	} else {
		want = append(append(want, unorm...), srgb...)
	}
	for _, w := range want {
		for _, f := range formats {
			if f == w && blittable(f.Format) {
				return f, nil
			}
		}
	}
	for _, f := range formats {
		if blittable(f.Format) {
			return f, nil
		}
	}
	return vk.SurfaceFormatKHR{}, unsupportedf("none of the %d formats of the %s surface can be blitted to", n, sc.surf.kind)
}

// pickMode chooses FIFO with vsync; otherwise MAILBOX, IMMEDIATE, then FIFO.
func (sc *swapchain) pickMode() (vk.PresentModeKHR, error) {
	d := sc.d
	var n uint32
	if err := check("vkGetPhysicalDeviceSurfacePresentModesKHR", d.in.fn.GetPhysicalDeviceSurfacePresentModesKHR(d.phys.handle, sc.surf.handle, &n, nil)); err != nil {
		return 0, err
	}
	modes := make([]vk.PresentModeKHR, n+1)
	if err := check("vkGetPhysicalDeviceSurfacePresentModesKHR", d.in.fn.GetPhysicalDeviceSurfacePresentModesKHR(d.phys.handle, sc.surf.handle, &n, &modes[0])); err != nil {
		return 0, err
	}
	if sc.cfg.vsync {
		return vk.PRESENT_MODE_FIFO_KHR, nil
	}
	for _, want := range []vk.PresentModeKHR{vk.PRESENT_MODE_MAILBOX_KHR, vk.PRESENT_MODE_IMMEDIATE_KHR} {
		for _, m := range modes[:n] {
			if m == want {
				return m, nil
			}
		}
	}
	return vk.PRESENT_MODE_FIFO_KHR, nil
}

// destroyObjects releases the swapchain's Vulkan objects; nothing uses them.
func (sc *swapchain) destroyObjects() {
	d := sc.d
	sc.retire(sc.handle)
	for i, sem := range sc.acquire {
		if sem != 0 {
			d.fn.DestroySemaphore(d.vk, sem, nil)
			sc.acquire[i] = 0
		}
	}
}

// release waits for the swapchain's last present and destroys it.
func (sc *swapchain) release() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.released {
		return
	}
	sc.released = true
	sc.waitStream(sc.last)
	sc.destroyObjects()
	sc.surf.mu.Lock()
	delete(sc.surf.chains, sc)
	sc.surf.mu.Unlock()
}

// waitStream waits until the host has completed the stream's value v. A
// live stream is waited for as Synchronize does (its worker completes work
// lazily); a destroyed one drains eagerly, so its progress is watched.
func (sc *swapchain) waitStream(v uint64) {
	s := sc.s
	if s.completed.Load() >= v {
		return
	}
	sc.d.live.RLock()
	alive := sc.d.objects != nil && sc.d.objects[s.h] == s
	sc.d.live.RUnlock()
	if alive {
		// Registered as a host wait: the stream may be destroyed meanwhile,
		// and its semaphore must outlive the wait.
		if err := s.hostWait(context.Background(), v); err == nil || !errors.Is(err, device.ErrClosed) {
			return // a failed stream is reported by Present
		}
		// Destroyed and released meanwhile: fall through to watch the
		// (final) progress.
	}
	for s.completed.Load() < v && s.err() == nil && !sc.d.abandoned.Load() {
		s.cmu.Lock()
		ch := s.progressChan()
		s.cmu.Unlock()
		if s.completed.Load() >= v {
			break
		}
		select {
		case <-ch:
		case <-s.exited:
			return
		case <-time.After(waitSlice):
		}
	}
}

// DestroySwapchain waits for the swapchain's presents and destroys it.
func (d *Device) DestroySwapchain(h device.Handle) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	sc, err := remove[*swapchain](d, h, "swapchain")
	if err != nil {
		return err
	}
	sc.release()
	return nil
}

// ResizeSwapchain asks for a new size (used when the surface does not
// dictate one) and recreates the swapchain before the next frame.
func (d *Device) ResizeSwapchain(h device.Handle, width, height uint32) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	sc, err := lookupSwapchain(d, h)
	if err != nil {
		return err
	}
	sc.mu.Lock()
	sc.cfg.width, sc.cfg.height = width, height
	sc.stale = true
	sc.mu.Unlock()
	return nil
}

// SwapchainState returns the swapchain's current back-buffer size and count
// (zero while the window is minimised), format, present mode, and how many
// times it was recreated (resize, out of date, suboptimal).
func (d *Device) SwapchainState(h device.Handle) (device.SwapchainState, error) {
	sc, err := lookupSwapchain(d, h)
	if err != nil {
		return device.SwapchainState{}, err
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return device.SwapchainState{
		Width: sc.extent.Width, Height: sc.extent.Height, Images: uint32(len(sc.images)),
		Format: surfaceFormats[sc.format.Format], ColorSpace: colorSpaces[sc.format.ColorSpace],
		PresentMode: presentModes[sc.mode], Recreated: sc.recreate,
	}, nil
}

// The Vulkan values of lucent's presentation types (those not listed map
// to the Other values).
var (
	surfaceFormats = map[vk.Format]device.SurfaceFormat{
		vk.FORMAT_B8G8R8A8_UNORM:           device.SurfaceBGRA8Unorm,
		vk.FORMAT_R8G8B8A8_UNORM:           device.SurfaceRGBA8Unorm,
		vk.FORMAT_B8G8R8A8_SRGB:            device.SurfaceBGRA8SRGB,
		vk.FORMAT_R8G8B8A8_SRGB:            device.SurfaceRGBA8SRGB,
		vk.FORMAT_A2B10G10R10_UNORM_PACK32: device.SurfaceA2B10G10R10Unorm,
		vk.FORMAT_A2R10G10B10_UNORM_PACK32: device.SurfaceA2R10G10B10Unorm,
		vk.FORMAT_R16G16B16A16_SFLOAT:      device.SurfaceRGBA16Float,
	}
	colorSpaces = map[vk.ColorSpaceKHR]device.ColorSpace{
		vk.COLOR_SPACE_SRGB_NONLINEAR_KHR:       device.ColorSpaceSRGBNonlinear,
		vk.COLOR_SPACE_HDR10_ST2084_EXT:         device.ColorSpaceHDR10ST2084,
		vk.COLOR_SPACE_EXTENDED_SRGB_LINEAR_EXT: device.ColorSpaceExtendedSRGBLinear,
	}
	presentModes = map[vk.PresentModeKHR]device.PresentMode{
		vk.PRESENT_MODE_FIFO_KHR:         device.PresentModeFIFO,
		vk.PRESENT_MODE_FIFO_RELAXED_KHR: device.PresentModeFIFORelaxed,
		vk.PRESENT_MODE_MAILBOX_KHR:      device.PresentModeMailbox,
		vk.PRESENT_MODE_IMMEDIATE_KHR:    device.PresentModeImmediate,
	}
)

func lookupSwapchain(d *Device, h device.Handle) (*swapchain, error) {
	d.live.RLock()
	defer d.live.RUnlock()
	if err := d.alive(); err != nil {
		return nil, err
	}
	return lookup[*swapchain](d, h, "swapchain")
}

// presentJob is one Present command of a list being dispatched.
type presentJob struct {
	c        *device.Present
	sc       *swapchain
	slot     int    // the frame slot (acquire semaphore) it uses
	image    uint32 // the back buffer acquired
	acquired bool
}

// beginPresents prepares the Present commands of a list dispatched on
// stream str, before Dispatch takes the resource table: it looks their
// swapchains up, locks them (until endPresents, after the list is submitted
// and presented) and waits until each has a free frame slot. The wait goes
// first because the stream's callbacks, which it may run, may create
// resources.
func (d *Device) beginPresents(str device.Handle, list *device.CommandList) ([]*presentJob, error) {
	var jobs []*presentJob
	for i, c := range list.Commands {
		p, ok := c.(*device.Present)
		if !ok {
			continue
		}
		sc, err := lookupSwapchain(d, p.Swapchain)
		if err == nil && sc.s.h != str {
			err = invalidf("swapchain %d presents on stream %d, not on stream %d", p.Swapchain, sc.s.h, str)
		}
		for _, j := range jobs {
			if err == nil && j.sc == sc {
				err = invalidf("swapchain %d is presented twice in one list", p.Swapchain)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("command %d (present): %w", i, err)
		}
		if p.Shown != nil {
			*p.Shown = false
		}
		jobs = append(jobs, &presentJob{c: p, sc: sc})
	}
	// In handle order: two lists presenting the same swapchains lock them
	// in the same order.
	slices.SortFunc(jobs, func(a, b *presentJob) int { return cmp.Compare(a.c.Swapchain, b.c.Swapchain) })
	for i, j := range jobs {
		sc := j.sc
		sc.mu.Lock()
		if sc.released {
			endPresents(jobs[:i+1])
			return nil, fmt.Errorf("vulkan: swapchain %d: %w", j.c.Swapchain, device.ErrClosed)
		}
		j.slot = int(sc.frame % framesInFlight)
		sc.waitStream(sc.inflight[j.slot])
	}
	return jobs, nil
}

func endPresents(jobs []*presentJob) {
	for _, j := range jobs {
		j.sc.mu.Unlock()
	}
}

// present encodes a Present command: it acquires the swapchain's next back
// buffer and records the blit of the texture to it; the submission waits for
// the acquire and signals the image's render semaphore.
func (e *encoder) present(c *device.Present) error {
	var j *presentJob
	for _, p := range e.presents {
		if p.c == c {
			j = p
		}
	}
	if j == nil {
		return invalidf("present of swapchain %d: not prepared by Dispatch", c.Swapchain)
	}
	d, sc := e.d, j.sc
	t, err := e.texture(c.Texture)
	if err != nil {
		return err
	}
	if t.desc.Dim != 2 {
		return invalidf("present texture %d: a %dD texture (want 2D)", c.Texture, t.desc.Dim)
	}
	var fp vk.FormatProperties
	d.in.fn.GetPhysicalDeviceFormatProperties(d.phys.handle, t.format, &fp)
	if k := t.desc.Format.Kind(); k == device.Uint || k == device.Sint || fp.OptimalTilingFeatures&vk.FORMAT_FEATURE_BLIT_SRC_BIT == 0 {
		return unsupportedf("present texture %d: %s cannot blit from format %v (use RGBA8Unorm or RGBA32Float)", c.Texture, d.phys.name(), t.desc.Format)
	}
	linear := fp.OptimalTilingFeatures&vk.FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT != 0
	// Ordered first: a texture never written has claimed its first layout
	// transition (e.texture), which must be recorded even when no frame
	// can be shown.
	e.transition(t, 0, 1, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)
	e.order(stageCopy, 0, use{t, 0, ^uint64(0), false})
	image, ok, err := sc.acquireImage(j.slot)
	if err != nil || !ok {
		return err // !ok: no frame can be shown; nothing more is recorded
	}
	j.acquired, j.image = true, image
	e.batch.Flush() // the blit is recorded directly, after what is queued
	sc.recordBlit(e.cmd, t, image, linear)
	e.sub.waits = append(e.sub.waits, semValue{sem: sc.acquire[j.slot]})
	e.sub.signals = append(e.sub.signals, semValue{sem: sc.rendered[image]})
	return nil
}

// acquireImage acquires the next back buffer with the slot's semaphore,
// recreating a stale swapchain first; ok is false when no frame can be shown
// (a minimised window, or out of date twice). sc.mu held.
func (sc *swapchain) acquireImage(slot int) (image uint32, ok bool, err error) {
	d := sc.d
	for attempt := 0; ; attempt++ {
		if sc.stale || sc.handle == 0 {
			if err := sc.rebuild(); err != nil {
				return 0, false, err
			}
			if sc.handle == 0 {
				return 0, false, nil // minimised
			}
		}
		r := d.fn.AcquireNextImageKHR(d.vk, sc.handle, uint64(time.Second), sc.acquire[slot], 0, &image)
		switch {
		case r == vk.SUCCESS:
		case r == vk.SUBOPTIMAL_KHR:
			sc.stale = true // the image is acquired: present it, rebuild next frame
		case r == vk.ERROR_OUT_OF_DATE_KHR && attempt == 0:
			sc.stale = true
			continue
		case r == vk.ERROR_OUT_OF_DATE_KHR:
			sc.stale = true
			return 0, false, nil
		case r == vk.TIMEOUT || r == vk.NOT_READY:
			return 0, false, fmt.Errorf("vulkan: vkAcquireNextImageKHR: no back buffer within a second (%v)", r)
		default:
			return 0, false, check("vkAcquireNextImageKHR", r)
		}
		return image, true, nil
	}
}

// failPresents gives up the images a list that failed to encode acquired;
// s.mu held.
func failPresents(jobs []*presentJob) {
	for _, j := range jobs {
		if j.acquired {
			j.sc.drop(j.slot)
		}
	}
}

// finishPresents queues the back buffers of a list submitted as sub for
// display; s.mu held.
func (d *Device) finishPresents(s *stream, sub *submission, jobs []*presentJob) error {
	var errs []error
	for _, j := range jobs {
		if !j.acquired {
			continue
		}
		sc := j.sc
		sc.inflight[j.slot] = sub.value
		sc.last = sub.value
		sc.frame++
		if err := s.err(); err != nil {
			sc.stale = true // the submission failed: its image is never presented
			errs = append(errs, err)
			continue
		}
		var result vk.Result
		pi := vk.PresentInfoKHR{
			SType:              vk.STRUCTURE_TYPE_PRESENT_INFO_KHR,
			WaitSemaphoreCount: 1, PWaitSemaphores: &sc.rendered[j.image],
			SwapchainCount: 1, PSwapchains: &sc.handle, PImageIndices: &j.image, PResults: &result,
		}
		s.q.mu.Lock()
		r := d.fn.QueuePresentKHR(s.q.handle, &pi)
		s.q.mu.Unlock()
		shown := false
		switch r {
		case vk.SUCCESS:
			shown = true
		case vk.SUBOPTIMAL_KHR:
			sc.stale, shown = true, true
		case vk.ERROR_OUT_OF_DATE_KHR:
			sc.stale = true
		default:
			errs = append(errs, fmt.Errorf("present to swapchain %d: %w", j.c.Swapchain, check("vkQueuePresentKHR", r)))
		}
		if j.c.Shown != nil {
			*j.c.Shown = shown
		}
	}
	return errors.Join(errs...)
}

// drop gives up the acquired image: an empty batch consumes the acquire
// semaphore so that its slot can be reused, and the swapchain is rebuilt
// before the next frame (which gets the image back). sc.mu and s.mu held.
func (sc *swapchain) drop(slot int) {
	sub := &submission{waits: []semValue{{sem: sc.acquire[slot]}}}
	sc.s.enqueue(sub)
	sc.inflight[slot] = sub.value
	sc.last = sub.value
	sc.frame++
	sc.stale = true
}

// rebuild recreates a stale swapchain; sc.mu held.
func (sc *swapchain) rebuild() error {
	had := sc.handle != 0
	if err := sc.build(); err != nil {
		return fmt.Errorf("vulkan: recreating the swapchain: %w", err)
	}
	if had || sc.handle != 0 {
		sc.recreate++
	}
	return nil
}

// recordBlit records the blit of t (in TRANSFER_SRC_OPTIMAL, ordered after earlier work
// by the encoder) to back buffer image into cb, between the back buffer's
// layout transitions.
func (sc *swapchain) recordBlit(cb vk.CommandBuffer, t *texture, image uint32, linear bool) {
	d := sc.d
	color := vk.ImageSubresourceRange{AspectMask: vk.IMAGE_ASPECT_COLOR_BIT, LevelCount: 1, LayerCount: 1}
	before := vk.ImageMemoryBarrier2{
		// The acquire semaphore's wait (all commands) orders this after the
		// presentation engine's read.
		SType:        vk.STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
		SrcStageMask: vk.PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
		DstStageMask: vk.PIPELINE_STAGE_2_BLIT_BIT, DstAccessMask: vk.ACCESS_2_TRANSFER_WRITE_BIT,
		OldLayout: vk.IMAGE_LAYOUT_UNDEFINED, NewLayout: vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		SrcQueueFamilyIndex: vk.QUEUE_FAMILY_IGNORED, DstQueueFamilyIndex: vk.QUEUE_FAMILY_IGNORED,
		Image: sc.images[image], SubresourceRange: color,
	}
	d.fn.CmdPipelineBarrier2(cb, &vk.DependencyInfo{SType: vk.STRUCTURE_TYPE_DEPENDENCY_INFO, ImageMemoryBarrierCount: 1, PImageMemoryBarriers: &before})
	w, h := t.desc.Width, t.desc.Height
	filter := vk.FILTER_NEAREST
	if (w != sc.extent.Width || h != sc.extent.Height) && linear {
		filter = vk.FILTER_LINEAR
	}
	layers := vk.ImageSubresourceLayers{AspectMask: vk.IMAGE_ASPECT_COLOR_BIT, LayerCount: 1}
	region := vk.ImageBlit{
		SrcSubresource: layers,
		SrcOffsets:     [2]vk.Offset3D{{}, {X: int32(w), Y: int32(h), Z: 1}},
		DstSubresource: layers,
		DstOffsets:     [2]vk.Offset3D{{}, {X: int32(sc.extent.Width), Y: int32(sc.extent.Height), Z: 1}},
	}
	d.fn.CmdBlitImage(cb, t.image, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, sc.images[image], vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region, filter)
	after := vk.ImageMemoryBarrier2{
		SType:        vk.STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
		SrcStageMask: vk.PIPELINE_STAGE_2_BLIT_BIT, SrcAccessMask: vk.ACCESS_2_TRANSFER_WRITE_BIT,
		DstStageMask: vk.PIPELINE_STAGE_2_NONE,
		OldLayout:    vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, NewLayout: vk.IMAGE_LAYOUT_PRESENT_SRC_KHR,
		SrcQueueFamilyIndex: vk.QUEUE_FAMILY_IGNORED, DstQueueFamilyIndex: vk.QUEUE_FAMILY_IGNORED,
		Image: sc.images[image], SubresourceRange: color,
	}
	d.fn.CmdPipelineBarrier2(cb, &vk.DependencyInfo{SType: vk.STRUCTURE_TYPE_DEPENDENCY_INFO, ImageMemoryBarrierCount: 1, PImageMemoryBarriers: &after})
}
