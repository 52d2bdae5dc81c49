package device

import (
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
)

// Device is an open device: the typed API's entry point. It is safe for
// concurrent use. Close releases every resource created through it.
type Device struct {
	backend string
	iface   Interface
	opts    Options
	caps    Capabilities

	mu     sync.Mutex // guards live; closed is written under it
	closed atomic.Bool
	live   map[Handle]*resource

	compiles sync.WaitGroup // CompileContext's compiles still running; added to under mu while open
}

func newDevice(backend string, iface Interface, opts Options) *Device {
	return &Device{
		backend: backend,
		iface:   iface,
		opts:    opts,
		caps:    iface.Capabilities(),
		live:    map[Handle]*resource{},
	}
}

// NewDevice wraps an already opened backend Interface (with the validation
// wrapper when opts ask for it). Open is the usual way in; NewDevice serves
// backends tested on their own and tools that build an Interface by hand.
func NewDevice(backend string, iface Interface, opts ...Option) *Device {
	o := buildOptions(opts)
	if o.Validation {
		if _, ok := iface.(*Validator); !ok {
			iface = NewValidator(iface, o.Logger)
		}
	}
	return newDevice(backend, iface, o)
}

// Backend returns the name of the backend the device was opened with.
func (d *Device) Backend() string {
	if d == nil {
		return ""
	}
	return d.backend
}

// Interface returns the backend contract the device runs on (the validation
// wrapper when validation is on). Packages layered on device (Compile, accel)
// create handles through it; handles they create are theirs to destroy.
func (d *Device) Interface() Interface {
	if d == nil {
		return nil
	}
	return d.iface
}

// Capabilities returns what the device can do.
func (d *Device) Capabilities() Capabilities {
	if d == nil {
		return Capabilities{}
	}
	return d.caps
}

// Logger returns the device's logger.
func (d *Device) Logger() *slog.Logger {
	if d == nil {
		return slog.Default()
	}
	return d.opts.Logger
}

// Close releases every resource still open, then the device. With validation
// on, the error lists what the program did not Close itself (it matches
// ErrLeaked); the resources are released all the same. It first waits for
// the pipelines of compiles CompileContext gave up on to finish building. A
// second Close returns nil, as does Close on a nil Device. Calls racing Close
// complete or fail with ErrClosed (see Interface.Close for the bound on
// waiting for submitted work); called from a CommandList callback of the
// device, Close returns an error wrapping ErrInvalidArgument and releases
// nothing.
func (d *Device) Close() error {
	if d == nil || d.iface == nil {
		return nil
	}
	if g, ok := d.iface.(CloseGuard); ok {
		if err := g.CloseAllowed(); err != nil {
			return fmt.Errorf("device: Close: %w", err)
		}
	}
	d.mu.Lock()
	if d.closed.Load() {
		d.mu.Unlock()
		return nil
	}
	d.closed.Store(true)
	open := make([]*resource, 0, len(d.live))
	for _, r := range d.live {
		open = append(open, r)
	}
	d.live = nil
	d.mu.Unlock()
	// A compile CompileContext gave up on may still be in the driver: let it
	// finish (its shader is destroyed on tracking, the device being closed)
	// before the device goes.
	d.compiles.Wait()

	var leaks []Leak
	v, validating := d.iface.(*Validator)
	if validating {
		leaks = v.Leaks()
	}
	// Destroy dependants first: shaders and bindless arrays before the
	// buffers and textures they may refer to, streams last.
	sort.Slice(open, func(i, j int) bool {
		if oi, oj := destroyOrder(open[i].kind), destroyOrder(open[j].kind); oi != oj {
			return oi < oj
		}
		return open[i].h < open[j].h
	})
	var errs []error
	for _, r := range open {
		if r.kind == KindEvent {
			// Left to the backend's Close, which stops the streams first:
			// destroying an event fails at once the stream waits no
			// submitted signal satisfies (Event.Close), and those are
			// Close's to report, as host waits in flight end with
			// ErrClosed.
			continue
		}
		if err := r.destroy(); err != nil && !errors.Is(err, ErrClosed) {
			errs = append(errs, err)
		}
	}
	if err := d.iface.Close(); err != nil && !errors.Is(err, ErrLeaked) {
		errs = append(errs, err)
	}
	if len(leaks) > 0 {
		le := &LeakError{Leaks: leaks}
		d.opts.Logger.Warn("device: closed with leaked resources", "backend", d.backend, "leaks", le.Error())
		errs = append(errs, le)
	}
	return errors.Join(errs...)
}

func destroyOrder(k ResourceKind) int {
	switch k {
	case KindShader, KindBindlessArray:
		return 0
	case KindBuffer, KindTexture, KindMesh, KindAccel:
		return 1
	}
	return 2
}

// resource is the part every typed resource shares: its handle, and an
// idempotent Close that destroys the handle once.
type resource struct {
	dev  *Device
	h    Handle
	kind ResourceKind

	mu     sync.Mutex // serialises Close
	closed atomic.Bool
}

// track registers a freshly created handle with the device; it fails (and
// destroys the handle) when the device was closed meanwhile.
func (d *Device) track(h Handle, kind ResourceKind) (*resource, error) {
	r := &resource{dev: d, h: h, kind: kind}
	d.mu.Lock()
	if d.closed.Load() {
		d.mu.Unlock()
		_ = r.destroy()
		return nil, fmt.Errorf("device: %w", ErrClosed)
	}
	d.live[h] = r
	d.mu.Unlock()
	return r, nil
}

func (d *Device) checkOpen() error {
	if d == nil || d.iface == nil {
		return zeroErr("Device")
	}
	if d.closed.Load() {
		return fmt.Errorf("device: %w", ErrClosed)
	}
	return nil
}

func (r *resource) destroy() error {
	i := r.dev.iface
	switch r.kind {
	case KindBuffer:
		return i.DestroyBuffer(r.h)
	case KindTexture:
		return i.DestroyTexture(r.h)
	case KindBindlessArray:
		return i.DestroyBindlessArray(r.h)
	case KindStream:
		return i.DestroyStream(r.h)
	case KindEvent:
		return i.DestroyEvent(r.h)
	case KindShader:
		return i.DestroyShader(r.h)
	}
	return fmt.Errorf("device: %w: cannot destroy a %s", ErrUnsupported, r.kind)
}

// zeroErr is the error of a method called on a nil or zero-value resource.
func zeroErr(what string) error {
	return invalidf("nil or zero-value %s (make one with its New function)", what)
}

// usable returns nil for a live resource, the zero-value error for a nil
// one, and ErrClosed for a closed one (or one of a closed device).
func (r *resource) usable(what string) error {
	if r == nil {
		return zeroErr(what)
	}
	if r.isClosed() {
		return r.errClosed()
	}
	return nil
}

// Close destroys the resource; later calls return nil, as do calls on a nil
// or zero-value resource.
func (r *resource) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed.Load() {
		return nil
	}
	r.closed.Store(true)
	d := r.dev
	d.mu.Lock()
	if d.closed.Load() {
		// Device.Close released it already.
		d.mu.Unlock()
		return nil
	}
	delete(d.live, r.h)
	d.mu.Unlock()
	return r.destroy()
}

// isClosed reports whether the resource (or its device) was closed.
// A nil resource counts as closed (errClosed then gives the zero-value error).
func (r *resource) isClosed() bool {
	return r == nil || r.closed.Load() || r.dev.closed.Load()
}

// Handle returns the backend handle (0 for a nil resource).
func (r *resource) Handle() Handle {
	if r == nil {
		return 0
	}
	return r.h
}

// SetName gives the resource a debug name.
func (r *resource) SetName(name string) error {
	if err := r.usable("resource"); err != nil {
		return fmt.Errorf("device: SetName: %w", err)
	}
	return r.dev.iface.SetName(r.h, name)
}

func (r *resource) errClosed() error {
	if r == nil {
		return zeroErr("resource")
	}
	return fmt.Errorf("%s %d: %w", r.kind, r.h, ErrClosed)
}
