package device

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// EnvBackend names the environment variable that overrides the default
// backend choice: LUCENT_BACKEND=cpu makes Open(ctx, "") open the cpu
// backend and nothing else. A name no backend is registered under is an
// error (ErrNoBackend) listing the registered ones.
const EnvBackend = "LUCENT_BACKEND"

// DefaultOrder is the order in which Open(ctx, "") tries backends when
// LUCENT_BACKEND is unset: "vulkan" first, then "cpu". Where both have an
// adapter Vulkan wins: lavapipe (a Vulkan driver on the CPU) ran real
// kernels 4–40× faster than the cpu backend (saxpy 3.9–5.2×, reduce 26–30×,
// mandelbrot 35–40×); the cpu backend wins only an empty dispatch (3–4×),
// see docs/PERFORMANCE.md "The cpu backend". Only registered backends count:
// a program imports the backends it wants (_ ".../device/vulkan",
// _ ".../device/cpu"), and one it does not import is skipped. Backends
// outside this list are opened only by name.
func DefaultOrder() []string { return []string{"vulkan", "cpu"} }

// DefaultBackend returns the backend Open(ctx, "") would open, with the
// adapters it sees: LUCENT_BACKEND's backend if set, else the first
// registered backend of DefaultOrder whose Enumerate succeeds with at least
// one adapter. The error names each backend tried and why it was passed over.
func (c *Context) DefaultBackend(ctx context.Context, opts ...Option) (string, []Adapter, error) {
	return c.chooseBackend(ctx, os.Getenv(EnvBackend), DefaultOrder(), c.options(opts))
}

// DefaultBackend is Context.DefaultBackend with a zero Context.
func DefaultBackend(ctx context.Context, opts ...Option) (string, []Adapter, error) {
	return (&Context{}).DefaultBackend(ctx, opts...)
}

// chooseBackend is DefaultBackend with the override and order given, so
// tests can use backends of their own.
func (c *Context) chooseBackend(ctx context.Context, override string, order []string, o Options) (string, []Adapter, error) {
	if override != "" {
		f, err := lookup(override)
		if err != nil {
			return "", nil, fmt.Errorf("device: %s=%s: %w", EnvBackend, override, err)
		}
		adapters, err := f.Enumerate(ctx, o)
		if err != nil {
			return "", nil, fmt.Errorf("device: %s=%s: enumerate adapters: %w", EnvBackend, override, err)
		}
		return override, adapters, nil
	}
	var passed []string
	for _, name := range order {
		f, err := lookup(name)
		if err != nil {
			passed = append(passed, name+": not registered")
			continue
		}
		adapters, err := f.Enumerate(ctx, o)
		switch {
		case err != nil:
			passed = append(passed, fmt.Sprintf("%s: %v", name, err))
		case len(adapters) == 0:
			passed = append(passed, name+": no adapter")
		default:
			return name, adapters, nil
		}
	}
	return "", nil, fmt.Errorf("device: %w: no default backend has an adapter (%s; registered: %v; import the backend package, e.g. _ \"github.com/lucent-gpu/lucent/device/cpu\")",
		ErrNoBackend, strings.Join(passed, "; "), Backends())
}

// openDefault opens the backend chooseBackend picks, on the adapters it
// enumerated.
func (c *Context) openDefault(ctx context.Context, override string, order []string, opts []Option) (*Device, error) {
	o := c.options(opts)
	name, adapters, err := c.chooseBackend(ctx, override, order, o)
	if err != nil {
		return nil, err
	}
	f, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return openAdapters(ctx, name, f, adapters, o)
}
