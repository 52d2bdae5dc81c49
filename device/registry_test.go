package device

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/shadercache"
)

// probeFactory reports what Open asked for by failing with it, so the registry
// and option resolution are tested without any backend.
type probeFactory struct {
	adapters []Adapter
	enumErr  error
	opened   *Options
}

var errProbe = errors.New("probe: not a real backend")

func (f *probeFactory) Enumerate(context.Context, Options) ([]Adapter, error) {
	return f.adapters, f.enumErr
}

func (f *probeFactory) Open(_ context.Context, o Options) (Interface, error) {
	f.opened = &o
	return nil, errProbe
}

// unique gives a backend name of its own to each run of a test (the
// registry is process-wide, and -count runs tests more than once).
func unique(name string) string { return fmt.Sprintf("%s-%d", name, uniqueN.Add(1)) }

var uniqueN atomic.Int64

func TestRegisterAndBackends(t *testing.T) {
	f := &probeFactory{}
	a, b, none := unique("test-registry-a"), unique("test-registry-b"), unique("test-registry-nil")
	Register(a, f)
	Register(b, f)
	require.Subset(t, Backends(), []string{a, b})
	require.Panics(t, func() { Register(a, f) })
	require.Panics(t, func() { Register(none, nil) })
	require.NotContains(t, Backends(), none)
}

func TestOpenUnknownBackend(t *testing.T) {
	_, err := Open(context.Background(), "no-such-backend")
	require.ErrorIs(t, err, ErrNoBackend)
	require.Contains(t, err.Error(), `"no-such-backend"`)
	_, err = Enumerate(context.Background(), "no-such-backend")
	require.ErrorIs(t, err, ErrNoBackend)
}

func TestDefaultAdapter(t *testing.T) {
	lavapipe := Adapter{Index: 0, Name: "llvmpipe", Type: AdapterCPU}
	igpu := Adapter{Index: 1, Name: "iGPU", Type: AdapterIntegrated}
	dgpu := Adapter{Index: 2, Name: "dGPU", Type: AdapterDiscrete}
	virt := Adapter{Index: 3, Name: "virt", Type: AdapterVirtual}
	for _, c := range []struct {
		list []Adapter
		want int
	}{
		{nil, -1},
		{[]Adapter{lavapipe}, 0},
		{[]Adapter{lavapipe, igpu, dgpu}, 2},
		{[]Adapter{lavapipe, igpu}, 1},
		{[]Adapter{virt, lavapipe}, 0},
		{[]Adapter{dgpu, {Index: 1, Type: AdapterDiscrete}}, 0},
	} {
		require.Equal(t, c.want, DefaultAdapter(c.list), "%v", c.list)
	}
}

func TestOpenResolvesDeviceIndex(t *testing.T) {
	f := &probeFactory{adapters: []Adapter{
		{Index: 0, Name: "llvmpipe", Type: AdapterCPU},
		{Index: 1, Name: "dGPU", Type: AdapterDiscrete},
	}}
	name := unique("test-open-index")
	Register(name, f)
	ctx := context.Background()

	_, err := Open(ctx, name)
	require.ErrorIs(t, err, errProbe)
	require.Equal(t, 1, f.opened.DeviceIndex, "the discrete GPU is the default")
	require.NotNil(t, f.opened.Logger)

	_, err = Open(ctx, name, WithDeviceIndex(0), WithValidationLayer(true))
	require.ErrorIs(t, err, errProbe)
	require.Equal(t, 0, f.opened.DeviceIndex)
	require.True(t, f.opened.ValidationLayer)

	f.opened = nil
	_, err = Open(ctx, name, WithDeviceIndex(2))
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Nil(t, f.opened, "Open must not reach the backend with a bad index")

	// Context defaults come first; per-call options override them.
	cache := shadercache.NewMemory()
	c := NewContext(WithDeviceIndex(0), WithShaderCache(cache))
	_, err = c.Open(ctx, name, WithDeviceIndex(1))
	require.ErrorIs(t, err, errProbe)
	require.Equal(t, 1, f.opened.DeviceIndex)
	require.Same(t, cache, f.opened.ShaderCache)

	list, err := c.Enumerate(ctx, name)
	require.NoError(t, err)
	require.Equal(t, f.adapters, list)
}

func TestOpenNoAdapters(t *testing.T) {
	none, fails := unique("test-open-none"), unique("test-open-enum-fails")
	Register(none, &probeFactory{})
	_, err := Open(context.Background(), none)
	require.ErrorIs(t, err, ErrUnsupported)

	Register(fails, &probeFactory{enumErr: fmt.Errorf("loader: %w", ErrUnsupported)})
	_, err = Open(context.Background(), fails)
	require.ErrorIs(t, err, ErrUnsupported)
	require.Contains(t, err.Error(), "enumerate")
}
