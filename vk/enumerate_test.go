package vk

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEnumerate(t *testing.T) {
	td := newTestDevice(t, true)
	layers, err := InstanceLayers()
	require.NoError(t, err)
	require.Contains(t, layers, validationLayer)
	exts, err := InstanceExtensions("")
	require.NoError(t, err)
	require.Contains(t, exts, EXT_DEBUG_UTILS_EXTENSION_NAME)
	layerExts, err := InstanceExtensions(validationLayer)
	require.NoError(t, err)
	require.NotEmpty(t, layerExts)
	devExts, err := td.it.DeviceExtensions(td.phys)
	require.NoError(t, err)
	require.NotEmpty(t, devExts)
	for _, e := range devExts {
		require.Regexp(t, `^VK_[A-Z]+_\w+$`, e)
	}
	_, err = InstanceExtensions("VK_LAYER_no_such_layer")
	require.ErrorIs(t, err, ERROR_LAYER_NOT_PRESENT)
}
