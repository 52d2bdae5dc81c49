package vulkan_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/stretchr/testify/require"
)

// Example opens the Vulkan backend through the device package and round-trips
// a typed buffer.
func Example() {
	ctx := context.Background()
	dev, err := device.Open(ctx, "vulkan")
	if err != nil {
		fmt.Println("no Vulkan device:", err)
		return
	}
	defer dev.Close()
	buf, err := device.NewBuffer[float32](dev, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer buf.Close()
	stream, err := dev.NewStream(device.StreamCompute)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stream.Close()
	out := make([]float32, 4)
	if err := stream.Submit(buf.Upload([]float32{1, 2, 3, 4}), buf.Download(out)); err != nil {
		fmt.Println(err)
		return
	}
	if err := stream.Synchronize(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out)
	// Output: [1 2 3 4]
}

// TestThroughDeviceAPI uses the backend through device.Open with the
// validation wrapper and the validation layer, and a copy stream.
func TestThroughDeviceAPI(t *testing.T) {
	ctx := context.Background()
	adapters, err := device.Enumerate(ctx, "vulkan")
	testenv.Need(t, "a Vulkan device", err)
	require.NotEmpty(t, adapters)
	var layerErrs []string
	dev, err := device.Open(ctx, "vulkan", device.WithValidation(), device.WithValidationLayer(true),
		device.WithDebug(func(m device.DebugMessage) {
			if m.Severity == device.SeverityError {
				layerErrs = append(layerErrs, m.Text)
			}
		}))
	testenv.Need(t, "a Vulkan device", err)
	buf, err := device.NewBuffer[uint32](dev, 1000)
	require.NoError(t, err)
	cp, err := dev.NewStream(device.StreamCopy)
	require.NoError(t, err)
	in := make([]uint32, 1000)
	for i := range in {
		in[i] = uint32(i * 3)
	}
	out := make([]uint32, 1000)
	require.NoError(t, cp.Submit(buf.Upload(in), buf.Download(out)))
	require.NoError(t, cp.Synchronize(ctx))
	require.Equal(t, in, out)
	require.NoError(t, cp.Close())
	require.NoError(t, buf.Close())
	require.NoError(t, dev.Close())
	require.Empty(t, layerErrs)
}
