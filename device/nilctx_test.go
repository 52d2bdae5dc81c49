package device_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestNilContextRefused: the calls that take a context refuse a nil one
// with ErrInvalidArgument; each dereferenced it, a panic (in Open, on the
// backend's goroutines).
func TestNilContextRefused(t *testing.T) {
	var none context.Context
	d := openDevice(t)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	b, err := device.NewBuffer[float32](d, 4)
	require.NoError(t, err)
	defer b.Close()
	ev, err := d.NewEvent()
	require.NoError(t, err)
	defer ev.Close()
	require.NoError(t, s.Submit(b.Fill(1)))
	require.NoError(t, ev.Signal(s, 1))

	require.ErrorIs(t, s.Synchronize(none), device.ErrInvalidArgument)
	require.ErrorIs(t, ev.Synchronize(none, 1), device.ErrInvalidArgument)
	_, err = b.Read(none)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = device.Open(none, testBackend())
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = device.Enumerate(none, testBackend())
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.NoError(t, s.Synchronize(context.Background()))
}

// TestNilDeviceContext: a nil *device.Context opens and enumerates as the
// zero one does; it dereferenced its defaults, a panic.
func TestNilDeviceContext(t *testing.T) {
	var c *device.Context
	adapters, err := c.Enumerate(t.Context(), testBackend())
	testenv.Need(t, "Vulkan device", err)
	require.NotEmpty(t, adapters)
	d, err := c.Open(t.Context(), testBackend())
	require.NoError(t, err)
	require.NoError(t, d.Close())
}
