package cpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// TestAllocationBeyondHostMemory asks for a 1 TiB buffer (the backend's
// MaxBufferSize) and a 128 GiB volume: on a host with less memory each is an
// error wrapping ErrOutOfMemory, where Go's runtime used to end the program
// ("fatal error: runtime: out of memory", which no recover catches).
func TestAllocationBeyondHostMemory(t *testing.T) {
	d := openPlain(t)
	_, err := device.NewBuffer[byte](d, 1<<40)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	require.ErrorContains(t, err, "1099511627776 bytes")
	_, err = device.NewVolume[[4]float32](d, device.RGBA32Float, 2048, 2048, 2048, 1)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	require.ErrorContains(t, err, "RGBA32Float 2048x2048x2048")
}

// TestBindlessArrayBeyondBackend: a bindless array of a size the device
// package allows (1 to 1<<24 slots) but past the backend's 1<<20 is
// ErrUnsupported naming the backend's limit, not ErrInvalidArgument, which
// said the caller's size was wrong.
func TestBindlessArrayBeyondBackend(t *testing.T) {
	d := openPlain(t)
	_, err := d.NewBindlessArray(1<<20 + 1)
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "1048577 slots, beyond the backend's 1048576")
	arr, err := d.NewBindlessArray(1 << 20)
	require.NoError(t, err)
	require.NoError(t, arr.Close())
}
