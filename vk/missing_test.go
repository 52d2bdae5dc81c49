package vk

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMissingCommand: a command that is not loaded returns an error naming
// it, for every kind of return, instead of crashing.
func TestMissingCommand(t *testing.T) {
	var dt DeviceFuncs // nothing loaded
	err := dt.CmdDispatch(0, 1, 1, 1)
	require.ErrorIs(t, err, ErrMissingCommand)
	require.Contains(t, err.Error(), "vkCmdDispatch")

	r := dt.CreateBuffer(0, &BufferCreateInfo{}, nil, new(Buffer))
	require.ErrorIs(t, r, ErrMissingCommand)
	require.ErrorIs(t, r.Err(), ErrMissingCommand)
	require.Contains(t, r.Error(), "vkCreateBuffer")
	require.Contains(t, r.String(), "vkCreateBuffer")

	addr, err := dt.GetBufferDeviceAddress(0, &BufferDeviceAddressInfo{})
	require.Zero(t, addr)
	require.ErrorIs(t, err, ErrMissingCommand)
	require.Contains(t, err.Error(), "vkGetBufferDeviceAddress")

	// Commands with float arguments go through another path.
	err = dt.CmdSetLineWidth(0, 2)
	require.ErrorIs(t, err, ErrMissingCommand)
	require.Contains(t, err.Error(), "vkCmdSetLineWidth")

	var nilTable *InstanceFuncs
	err = nilTable.DestroyInstance(0, nil)
	require.ErrorIs(t, err, ErrMissingCommand)
	require.Contains(t, err.Error(), "vkDestroyInstance")

	batch := dt.NewCommandBatch()
	err = batch.CmdDispatch(0, 1, 1, 1)
	require.ErrorIs(t, err, ErrMissingCommand)
	require.Contains(t, err.Error(), "vkCmdDispatch")
	require.Zero(t, batch.Len(), "a missing command is not queued")
	batch.Flush()
	var nilBatch *CommandBatch
	require.ErrorIs(t, nilBatch.CmdBindPipeline(0, PIPELINE_BIND_POINT_COMPUTE, 0), ErrMissingCommand)

	_, err = LoadDevice(nil, 1)
	require.ErrorIs(t, err, ErrMissingCommand)
	require.Contains(t, err.Error(), "vkGetDeviceProcAddr")
}

// TestMissingExtensionCommand: on a real device, a command of an extension
// that was not enabled is not loaded, and calling it reports so.
func TestMissingExtensionCommand(t *testing.T) {
	td := newTestDevice(t, true)
	require.True(t, td.dt.Loaded("vkCmdDispatch"))
	require.NotZero(t, td.dt.ProcAddr("vkCmdDispatch"))
	require.Zero(t, td.dt.ProcAddr("vkNoSuchCommand"))
	require.True(t, td.it.Loaded("vkGetPhysicalDeviceProperties2KHR"), "by alias")
	require.False(t, td.it.Loaded("vkCmdDispatch"), "device-level commands are not in the instance table")
	require.True(t, td.dt.Loaded("vkCmdDispatchBaseKHR"), "promoted commands load under their alias names too")
	require.False(t, td.dt.Loaded("vkCmdPushDescriptorSetKHR"))
	err := td.dt.CmdPushDescriptorSetKHR(0, PIPELINE_BIND_POINT_COMPUTE, 0, 0, 0, nil)
	require.ErrorIs(t, err, ErrMissingCommand)
	require.Contains(t, err.Error(), "vkCmdPushDescriptorSetKHR")
	require.True(t, errors.Is(err, ErrMissingCommand))
}
