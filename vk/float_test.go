package vk

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFloatArguments: commands taking floats pass them in the floating-point
// registers. The validation layer sees the values: 1.0 is a valid line width
// and 2.5 is not (wideLines is not enabled); a zero depth-bias clamp is valid
// and a non-zero one is not (depthBiasClamp is not enabled).
func TestFloatArguments(t *testing.T) {
	td := newTestDevice(t, true)
	dt, dev := td.dt, td.dev
	var pool CommandPool
	require.NoError(t, dt.CreateCommandPool(dev, &CommandPoolCreateInfo{
		SType:            STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		QueueFamilyIndex: td.family,
	}, nil, &pool).Err())
	defer func() { require.NoError(t, dt.DestroyCommandPool(dev, pool, nil)) }()
	var cb CommandBuffer
	require.NoError(t, dt.AllocateCommandBuffers(dev, &CommandBufferAllocateInfo{
		SType:              STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		CommandPool:        pool,
		Level:              COMMAND_BUFFER_LEVEL_PRIMARY,
		CommandBufferCount: 1,
	}, &cb).Err())
	require.NoError(t, dt.BeginCommandBuffer(cb, &CommandBufferBeginInfo{SType: STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO}).Err())

	require.NoError(t, dt.CmdSetLineWidth(cb, 1.0))
	require.NoError(t, dt.CmdSetDepthBias(cb, 1.5, 0, 2.0))
	require.NoError(t, dt.CmdSetBlendConstants(cb, &[4]float32{0.25, 0.5, 0.75, 1}))
	require.Empty(t, td.msgs.take())

	require.NoError(t, dt.CmdSetLineWidth(cb, 2.5))
	got := td.msgs.take()
	require.Len(t, got, 1)
	require.Contains(t, got[0], "VUID-vkCmdSetLineWidth-lineWidth-00788")
	require.Contains(t, got[0], "2.5")

	require.NoError(t, dt.CmdSetDepthBias(cb, 1.5, 0.75, 2.0))
	got = td.msgs.take()
	require.Len(t, got, 1)
	require.Contains(t, got[0], "VUID-vkCmdSetDepthBias-depthBiasClamp-00790")

	require.NoError(t, dt.EndCommandBuffer(cb).Err())
}
