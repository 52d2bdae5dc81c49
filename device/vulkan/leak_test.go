package vulkan

import (
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/vk"
	"github.com/stretchr/testify/require"
)

// TestValidationSeesLeaks shows that the layer watches this backend: a VkBuffer
// created behind the device's back is reported at Close. Every other test
// closes its device with no message, so it left no live object.
func TestValidationSeesLeaks(t *testing.T) {
	msgs := &messages{}
	d, err := Open(device.Options{DeviceIndex: -1, ValidationLayer: true, Debug: msgs.add})
	testenv.Need(t, "a Vulkan device with the validation layer", err)
	ci := vk.BufferCreateInfo{SType: vk.STRUCTURE_TYPE_BUFFER_CREATE_INFO, Size: 256, Usage: vk.BUFFER_USAGE_STORAGE_BUFFER_BIT}
	var leaked vk.Buffer
	require.NoError(t, check("vkCreateBuffer", d.fn.CreateBuffer(d.vk, &ci, nil, &leaked)))
	require.NoError(t, d.Close())
	require.Contains(t, formatMessages(msgs.take()), "VkBuffer", "the layer reports the leaked buffer")
}

// TestCloseTwice: a second Close is harmless and later calls fail with ErrClosed.
func TestCloseTwice(t *testing.T) {
	msgs := &messages{}
	d, err := Open(device.Options{DeviceIndex: -1, ValidationLayer: true, Debug: msgs.add})
	testenv.Need(t, "a Vulkan device with the validation layer", err)
	s, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	b, err := d.CreateBuffer(device.BufferDesc{Size: 64})
	require.NoError(t, err)
	require.NoError(t, d.Dispatch(s, (&device.CommandList{}).Add(&device.BufferUpload{Buffer: b, Data: make([]byte, 64)})))
	// Resources still alive are released by Close.
	require.NoError(t, d.Close())
	require.NoError(t, d.Close())
	_, err = d.CreateBuffer(device.BufferDesc{Size: 64})
	require.ErrorIs(t, err, device.ErrClosed)
	require.ErrorIs(t, d.DestroyBuffer(b), device.ErrClosed)
	require.ErrorIs(t, d.Dispatch(s, &device.CommandList{}), device.ErrClosed)
	require.Empty(t, formatMessages(msgs.take()))
}
