package vulkan

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/stretchr/testify/require"
)

// Submission records, the vkQueueSubmit2 structures and the wait structures
// are reused, so a round trip allocates (almost) nothing; a reused record must
// carry nothing of its last use.

// TestRecycledSubmissionsStartEmpty alternates lists with a download and a
// callback and lists with neither on one stream: every callback runs once,
// and a download lands only in the slice of the list it belongs to.
func TestRecycledSubmissionsStartEmpty(t *testing.T) {
	f := newFixture(t)
	buf, other := f.buffer(64), f.buffer(64)
	data := make([]byte, 64)
	for i := range data {
		data[i] = byte(i + 1)
	}
	f.run(&device.BufferUpload{Buffer: buf, Data: data})
	calls := 0
	for round := range 50 {
		dst := make([]byte, 64)
		list := (&device.CommandList{}).Add(&device.BufferDownload{Buffer: buf, Data: dst})
		list.Callbacks = append(list.Callbacks, func() { calls++ })
		require.NoError(t, f.d.Dispatch(f.s, list))
		require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
		require.Equal(t, data, dst, "round %d", round)
		require.Equal(t, round+1, calls)
		// dst is done with: a later list must not write it again.
		clear(dst)
		f.run(&device.BufferCopy{Src: buf, Dst: other, Size: 64})
		require.NoError(t, f.d.Dispatch(f.s, &device.CommandList{})) // an empty list: no command buffer
		require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
		require.Equal(t, make([]byte, 64), dst, "round %d: a recycled submission wrote an old download", round)
		require.Equal(t, round+1, calls, "round %d: a recycled submission ran an old callback", round)
	}
	require.Empty(t, formatMessages(f.msgs.take()))
}

// TestRoundTripAllocations: one submit-and-wait in steady state allocates
// nothing (a completion replaced the channel that wakes host waiters even
// when nobody waited on it: one allocation per round trip).
func TestRoundTripAllocations(t *testing.T) {
	f := newFixture(t)
	sh, _ := f.shader("empty")
	buf := f.buffer(256)
	list := (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1},
		Args: []device.Arg{{Kind: device.ArgBuffer, Handle: buf, Size: device.WholeSize}}})
	f.run(list.Commands...)
	allocs := testing.AllocsPerRun(200, func() {
		require.NoError(t, f.d.Dispatch(f.s, list))
		require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
	})
	require.Zero(t, allocs, "allocations per round trip")
}
