package device

import (
	"fmt"
	"reflect"
)

// Extender is implemented by a backend with optional capabilities beyond
// Interface (presentation, pipeline-cache statistics, ray tracing). Extension returns the backend's implementation of the
// interface type t, or nil where it has none.
//
// A wrapper (the validation wrapper) implements Extender too: it asks the
// Interface it wraps and hands out the extension wrapped in its own checks,
// so that no caller reaches past it to the backend.
type Extender interface {
	Extension(t reflect.Type) any
}

// Extension returns the device's implementation of the optional capability
// T, an interface type such as Presenter, looked up through the device's
// Interface (and so through the validation wrapper, whose checks hold for
// it). A backend without it gives an error wrapping ErrUnsupported naming
// the backend and T.
func Extension[T any](d *Device) (T, error) {
	var zero T
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Interface {
		return zero, fmt.Errorf("device: Extension: %w: %v is not an interface type", ErrInvalidArgument, t)
	}
	if d == nil {
		return zero, fmt.Errorf("device: Extension %v: %w: nil device", t, ErrInvalidArgument)
	}
	if x, ok := extensionOf(d.iface, t).(T); ok {
		return x, nil
	}
	return zero, fmt.Errorf("device: %w: the %q backend does not offer %v", ErrUnsupported, d.backend, t)
}

// extensionOf asks iface for the extension t.
func extensionOf(iface Interface, t reflect.Type) any {
	e, ok := iface.(Extender)
	if !ok {
		return nil
	}
	x := e.Extension(t)
	if x == nil || !reflect.TypeOf(x).Implements(t) {
		return nil
	}
	return x
}
