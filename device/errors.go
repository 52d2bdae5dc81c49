package device

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Errors returned by this package and by backends wrap one of
// them where it applies, so callers test with errors.Is.
var (
	// ErrDeviceLost: the device stopped working (driver reset, hang); every
	// later call on it fails.
	ErrDeviceLost = errors.New("device lost")
	// ErrOutOfMemory: host or device memory is exhausted.
	ErrOutOfMemory = errors.New("out of memory")
	// ErrUnsupported: the device or backend lacks what was asked for
	// (a format, a feature, a command).
	ErrUnsupported = errors.New("unsupported")
	// ErrClosed: the device or the resource was already closed (a destroyed handle).
	ErrClosed = errors.New("closed")
	// ErrInvalidArgument: bad input — a wrong argument kind or type, a range out
	// of bounds, an unknown handle, a command on the wrong kind of stream.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrNoBackend: no backend is registered under the name given to Open (or
	// in LUCENT_BACKEND), or, for Open(ctx, ""), none of DefaultOrder is
	// registered with an adapter.
	ErrNoBackend = errors.New("no such backend")
	// ErrHazard: the validation wrapper found a resource used on one stream
	// while another stream writes (or reads) it with no event ordering the two.
	ErrHazard = errors.New("cross-stream hazard")
	// ErrPanicked: a user callback (CommandList.OnDone, Custom.Func)
	// panicked; the panic was recovered and logged, and the error is returned
	// by the next call that reports on it (Stream.Synchronize, or Submit for
	// Custom.Func).
	ErrPanicked = errors.New("callback panicked")
	// ErrLeaked: resources were still alive when the device was closed
	// (reported by the validation wrapper; see LeakError).
	ErrLeaked = errors.New("resources leaked")
)

// invalidf returns an error wrapping ErrInvalidArgument.
// checkCtx refuses a nil context, which every host wait would dereference:
// a panic, or on another goroutine a crash of the program.
func checkCtx(ctx context.Context) error {
	if ctx == nil {
		return invalidf("nil context.Context (pass context.Background())")
	}
	return nil
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// Leak describes one resource alive at Close.
type Leak struct {
	Handle Handle
	Kind   ResourceKind
	Name   string // the debug name given with SetName, if any
}

func (l Leak) String() string {
	if l.Name != "" {
		return fmt.Sprintf("%s %d (%q)", l.Kind, l.Handle, l.Name)
	}
	return fmt.Sprintf("%s %d", l.Kind, l.Handle)
}

// LeakError lists the resources that were alive when a device with validation
// was closed. It matches ErrLeaked with errors.Is. The resources were released
// all the same; the error says the program forgot to Close them.
type LeakError struct {
	Leaks []Leak
}

func (e *LeakError) Error() string {
	parts := make([]string, len(e.Leaks))
	for i, l := range e.Leaks {
		parts[i] = l.String()
	}
	return fmt.Sprintf("%d resource(s) leaked: %s", len(e.Leaks), strings.Join(parts, ", "))
}

// Is makes errors.Is(err, ErrLeaked) true.
func (e *LeakError) Is(target error) bool { return target == ErrLeaked }
