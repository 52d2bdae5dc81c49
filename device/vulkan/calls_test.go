package vulkan

import (
	"context"
	"testing"
	"time"

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
	start := time.Now()
	vk.CountCalls(true)
	for range n {
		round()
	}
	vk.CountCalls(false)
	// The worker wakes every lazyPoll and, finding a round trip in flight,
	// waits for it and reads the semaphore: at most k such wake-ups.
	k := int(time.Since(start)/lazyPoll) + 1
	got := vk.CallCounts(f.d.fn)
	require.GreaterOrEqual(t, got["vkWaitSemaphores"], n)
	require.LessOrEqual(t, got["vkWaitSemaphores"], n+k)
	require.LessOrEqual(t, got["vkGetSemaphoreCounterValue"], k)
	delete(got, "vkWaitSemaphores")
	delete(got, "vkGetSemaphoreCounterValue")
	require.Equal(t, map[string]int{
		"vkBeginCommandBuffer": n, "vkCmdPipelineBarrier2": n, "vkCmdBindPipeline": n, binding: n,
		"vkCmdDispatch": n, "vkEndCommandBuffer": n, "vkQueueSubmit2": n,
	}, got)
	// The recording, the submit and the wait.
	require.LessOrEqual(t, vk.Transitions(), 3*n+2*k)
}
