package vulkan

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
	"github.com/stretchr/testify/require"
)

// roundTripFixture returns one round trip (an empty dispatch submitted and
// waited for, BenchmarkRoundTrip's) after a few to warm the stream up.
func roundTripFixture(t *testing.T) (*fixture, func()) {
	f := newFixture(t)
	sh, _ := f.shader("empty")
	buf := f.buffer(256)
	list := (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1},
		Args: []device.Arg{{Kind: device.ArgBuffer, Handle: buf, Size: device.WholeSize}}})
	round := func() {
		require.NoError(t, f.d.Dispatch(f.s, list))
		require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
	}
	for range 3 {
		round()
	}
	return f, round
}

// TestRoundTripCalls counts the Vulkan calls of a round trip in steady state
// and the transitions from Go to C they take: the calls the fastest
// re-recording C makes (bench/vkbench.c's rt/rerecord), nothing read back
// that the runtime knows (no vkGetSemaphoreCounterValue before or after the
// wait), and the recording, Begin and End included, in one transition.
func TestRoundTripCalls(t *testing.T) {
	f, round := roundTripFixture(t)
	binding := "vkCmdBindDescriptorSets"
	if f.d.caps.PushDescriptors {
		binding = "vkCmdPushDescriptorSetKHR"
	}
	const n = 20
	vk.CountCalls(true)
	for range n {
		round()
	}
	vk.CountCalls(false)
	require.Equal(t, map[string]int{
		"vkBeginCommandBuffer": n, "vkCmdPipelineBarrier2": n, "vkCmdBindPipeline": n, binding: n,
		"vkCmdDispatch": n, "vkEndCommandBuffer": n, "vkQueueSubmit2": n, "vkWaitSemaphores": n,
	}, vk.CallCounts(f.d.fn))
	// The recording, the submit and the wait; a stray worker wake-up (every
	// lazyPoll) may add a wait and a read of the semaphore.
	require.LessOrEqual(t, vk.Transitions(), 3*n+2)
}
