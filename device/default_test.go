package device

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDefaultOrderIsVulkanThenCPU(t *testing.T) {
	require.Equal(t, []string{"vulkan", "cpu"}, DefaultOrder())
}

func TestChooseBackendOrder(t *testing.T) {
	one := []Adapter{{Index: 0, Name: "probe", Type: AdapterCPU}}
	broken := &probeFactory{enumErr: errors.New("no loader")}
	empty := &probeFactory{}
	first, second := &probeFactory{adapters: one}, &probeFactory{adapters: one}
	nb, ne, n1, n2 := unique("test-default-broken"), unique("test-default-empty"), unique("test-default-first"), unique("test-default-second")
	Register(nb, broken)
	Register(ne, empty)
	Register(n1, first)
	Register(n2, second)
	missing := unique("test-default-unregistered")
	c := &Context{}
	ctx := context.Background()

	// Backends failing to enumerate, seeing no adapter or not registered are
	// passed over; the first with an adapter wins over later ones.
	name, adapters, err := c.chooseBackend(ctx, "", []string{missing, nb, ne, n1, n2}, c.options(nil))
	require.NoError(t, err)
	require.Equal(t, n1, name)
	require.Equal(t, one, adapters)
	name, _, err = c.chooseBackend(ctx, "", []string{n2, n1}, c.options(nil))
	require.NoError(t, err)
	require.Equal(t, n2, name)

	// None usable: the error says why each was passed over.
	_, _, err = c.chooseBackend(ctx, "", []string{missing, nb, ne}, c.options(nil))
	require.ErrorIs(t, err, ErrNoBackend)
	for _, want := range []string{missing + ": not registered", nb + ": no loader", ne + ": no adapter"} {
		require.Contains(t, err.Error(), want)
	}

	// The override wins over the order, even for a backend outside it.
	name, _, err = c.chooseBackend(ctx, n2, []string{n1}, c.options(nil))
	require.NoError(t, err)
	require.Equal(t, n2, name)
	// An overridden backend is not passed over: its failure is the error.
	_, _, err = c.chooseBackend(ctx, nb, []string{n1}, c.options(nil))
	require.ErrorContains(t, err, "no loader")
	require.ErrorContains(t, err, EnvBackend+"="+nb)
	// An unknown override names the registered backends.
	_, _, err = c.chooseBackend(ctx, missing, []string{n1}, c.options(nil))
	require.ErrorIs(t, err, ErrNoBackend)
	require.ErrorContains(t, err, missing)
	require.ErrorContains(t, err, n1)

	// openDefault opens the chosen backend, and only it.
	_, err = c.openDefault(ctx, "", []string{ne, n1, n2}, []Option{WithDeviceIndex(0)})
	require.ErrorIs(t, err, errProbe)
	require.NotNil(t, first.opened)
	require.Nil(t, second.opened)
	require.Nil(t, empty.opened)
}

func TestOpenEmptyNameHonoursEnvBackend(t *testing.T) {
	f := &probeFactory{adapters: []Adapter{{Index: 0, Name: "probe", Type: AdapterCPU}}}
	name := unique("test-default-env")
	Register(name, f)
	ctx := context.Background()

	t.Setenv(EnvBackend, name)
	_, err := Open(ctx, "")
	require.ErrorIs(t, err, errProbe)
	require.NotNil(t, f.opened)
	got, adapters, err := DefaultBackend(ctx)
	require.NoError(t, err)
	require.Equal(t, name, got)
	require.Equal(t, f.adapters, adapters)
	list, err := Enumerate(ctx, "")
	require.NoError(t, err)
	require.Equal(t, f.adapters, list)

	t.Setenv(EnvBackend, "no-such-backend")
	_, err = Open(ctx, "")
	require.ErrorIs(t, err, ErrNoBackend)
	require.ErrorContains(t, err, `"no-such-backend"`)
	require.ErrorContains(t, err, name) // the registered ones are listed
}
