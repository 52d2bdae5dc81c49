package swapchain

import "fmt"

// Kind names a native window system.
type Kind uint8

// Window kinds.
const (
	Xlib    Kind = iota + 1 // Display: Display*, Handle: Window
	XCB                     // Display: xcb_connection_t*, Handle: xcb_window_t
	Wayland                 // Display: wl_display*, Handle: wl_surface*
	Win32                   // Display: HINSTANCE, Handle: HWND
	Metal                   // Display unused, Handle: CAMetalLayer*
)

var kindNames = map[Kind]string{Xlib: "xlib", XCB: "xcb", Wayland: "wayland", Win32: "win32", Metal: "metal"}

func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Window is a native window to present to, as the window system knows it.
type Window struct {
	Kind    Kind
	Display uintptr
	Handle  uintptr
}

// check rejects a window no surface can be made for.
func (w Window) check() error {
	if _, ok := kindNames[w.Kind]; !ok {
		return fmt.Errorf("swapchain: %w: unknown window kind %v", errInvalid, w.Kind)
	}
	if w.Handle == 0 {
		return fmt.Errorf("swapchain: %w: %v window handle is 0", errInvalid, w.Kind)
	}
	if w.Display == 0 && (w.Kind == Xlib || w.Kind == XCB || w.Kind == Wayland) {
		return fmt.Errorf("swapchain: %w: %v window %#x has no display", errInvalid, w.Kind, w.Handle)
	}
	return nil
}
