//go:build !cgo

package glfwwindow

import (
	"fmt"

	"github.com/lucent-gpu/lucent/swapchain"
)

// Window is a window; without cgo none can be opened.
type Window struct{}

var errNoCgo = fmt.Errorf("%w: built without cgo (GLFW needs it)", ErrUnavailable)

// Open fails: built without cgo there is no window system.
func Open(string, int, int) (*Window, error) { return nil, errNoCgo }

func (*Window) Native() (swapchain.Window, error)     { return swapchain.Window{}, errNoCgo }
func (*Window) InstanceExtensions() ([]string, error) { return nil, errNoCgo }
func (*Window) ShouldClose() bool                     { return true }
func (*Window) SetShouldClose(bool)                   {}
func (*Window) Poll()                                 {}
func (*Window) Size() (int, int)                      { return 0, 0 }
func (*Window) SetSize(int, int)                      {}
func (*Window) SetTitle(string)                       {}
func (*Window) Pressed(Key) bool                      { return false }
func (*Window) OnKey(func(Key, bool))                 {}
func (*Window) OnDrag(func(dx, dy float64))           {}
func (*Window) OnResize(func(width, height int))      {}
func (*Window) Close()                                {}

// Terminate does nothing: without cgo there is no window system.
func Terminate() {}
