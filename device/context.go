package device

import (
	"context"
	"fmt"
	"os"
)

// Context finds backends and opens devices with a set of default options
// (a program-wide logger, shader cache, validation switch). The zero Context
// works, and so does a nil *Context; the package-level Open, Enumerate use
// one.
type Context struct {
	defaults []Option
}

// NewContext returns a Context whose Open applies opts before its own.
func NewContext(opts ...Option) *Context {
	return &Context{defaults: append([]Option(nil), opts...)}
}

func (c *Context) options(opts []Option) Options {
	if c == nil {
		return buildOptions(opts) // a nil *Context is the zero one
	}
	all := make([]Option, 0, len(c.defaults)+len(opts))
	all = append(all, c.defaults...)
	return buildOptions(append(all, opts...))
}

// Backends returns the registered backend names.
func (c *Context) Backends() []string { return Backends() }

// Enumerate lists the adapters the named backend sees; an empty name lists
// those of the default backend (DefaultBackend).
func (c *Context) Enumerate(ctx context.Context, backend string, opts ...Option) ([]Adapter, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, fmt.Errorf("device: Enumerate: %w", err)
	}
	if backend == "" {
		_, adapters, err := c.DefaultBackend(ctx, opts...)
		return adapters, err
	}
	f, err := lookup(backend)
	if err != nil {
		return nil, err
	}
	return f.Enumerate(ctx, c.options(opts))
}

// Open opens a device of the named backend: the adapter chosen by
// WithDeviceIndex, or DefaultAdapter's choice. An empty backend name opens
// the default backend (see DefaultOrder and EnvBackend): LUCENT_BACKEND's
// if set, else the first of "vulkan", "cpu" that is registered and sees an
// adapter.
func (c *Context) Open(ctx context.Context, backend string, opts ...Option) (*Device, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, fmt.Errorf("device: Open: %w", err)
	}
	if backend == "" {
		return c.openDefault(ctx, os.Getenv(EnvBackend), DefaultOrder(), opts)
	}
	f, err := lookup(backend)
	if err != nil {
		return nil, err
	}
	o := c.options(opts)
	adapters, err := f.Enumerate(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("device: enumerate %s adapters: %w", backend, err)
	}
	return openAdapters(ctx, backend, f, adapters, o)
}

// openAdapters opens one of the adapters f enumerated.
func openAdapters(ctx context.Context, backend string, f Factory, adapters []Adapter, o Options) (*Device, error) {
	if len(adapters) == 0 {
		return nil, fmt.Errorf("device: %w: backend %s sees no adapter", ErrUnsupported, backend)
	}
	if o.DeviceIndex < 0 {
		o.DeviceIndex = adapters[DefaultAdapter(adapters)].Index
	} else if o.DeviceIndex >= len(adapters) {
		return nil, fmt.Errorf("device: %w: device index %d, backend %s has %d adapter(s)",
			ErrInvalidArgument, o.DeviceIndex, backend, len(adapters))
	}
	iface, err := f.Open(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("device: open %s adapter %d: %w", backend, o.DeviceIndex, err)
	}
	if o.Validation {
		iface = NewValidator(iface, o.Logger)
	}
	return newDevice(backend, iface, o), nil
}

// Open opens a device of the named backend with a zero Context; "" opens
// the default backend (Context.Open).
func Open(ctx context.Context, backend string, opts ...Option) (*Device, error) {
	return (&Context{}).Open(ctx, backend, opts...)
}

// Enumerate lists the adapters the named backend sees.
func Enumerate(ctx context.Context, backend string, opts ...Option) ([]Adapter, error) {
	return (&Context{}).Enumerate(ctx, backend, opts...)
}
