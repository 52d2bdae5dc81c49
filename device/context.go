package device

import (
	"context"
	"fmt"
)

// Context finds backends and opens devices with a set of default options
// (a program-wide logger, shader cache, validation switch). The zero Context
// works; the package-level Open, Enumerate use one.
type Context struct {
	defaults []Option
}

// NewContext returns a Context whose Open applies opts before its own.
func NewContext(opts ...Option) *Context {
	return &Context{defaults: append([]Option(nil), opts...)}
}

func (c *Context) options(opts []Option) Options {
	all := make([]Option, 0, len(c.defaults)+len(opts))
	all = append(all, c.defaults...)
	return buildOptions(append(all, opts...))
}

// Backends returns the registered backend names.
func (c *Context) Backends() []string { return Backends() }

// Enumerate lists the adapters the named backend sees.
func (c *Context) Enumerate(ctx context.Context, backend string, opts ...Option) ([]Adapter, error) {
	f, err := lookup(backend)
	if err != nil {
		return nil, err
	}
	return f.Enumerate(ctx, c.options(opts))
}

// Open opens a device of the named backend: the adapter chosen by
// WithDeviceIndex, or DefaultAdapter's choice.
func (c *Context) Open(ctx context.Context, backend string, opts ...Option) (*Device, error) {
	f, err := lookup(backend)
	if err != nil {
		return nil, err
	}
	o := c.options(opts)
	adapters, err := f.Enumerate(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("device: enumerate %s adapters: %w", backend, err)
	}
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

// Open opens a device of the named backend with a zero Context.
func Open(ctx context.Context, backend string, opts ...Option) (*Device, error) {
	return (&Context{}).Open(ctx, backend, opts...)
}

// Enumerate lists the adapters the named backend sees.
func Enumerate(ctx context.Context, backend string, opts ...Option) ([]Adapter, error) {
	return (&Context{}).Enumerate(ctx, backend, opts...)
}
