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
