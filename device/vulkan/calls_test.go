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
// and the transitions from Go to C they take. The list is the same each
// time, so its recording is submitted again (replay.go): the submit and the
// wait, nothing recorded, nothing read back that the runtime knows (no
// vkGetSemaphoreCounterValue before or after the wait). Recorded afresh
// (noReplay), it makes the calls the fastest re-recording C makes
// (bench/vkbench.c's rt/rerecord), the recording, Begin and End included,
// in one transition.
func TestRoundTripCalls(t *testing.T) {
	for _, replay := range []bool{true, false} {
		t.Run(map[bool]string{true: "replayed", false: "recorded"}[replay], func(t *testing.T) {
			f, round := roundTripFixture(t)
			f.d.noReplay = !replay
			round() // recorded once more with the setting
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
			if replay {
				require.Equal(t, map[string]int{"vkQueueSubmit2": n}, got)
				// The submit and the wait.
				require.LessOrEqual(t, vk.Transitions(), 2*n+2*k)
				return
			}
			require.Equal(t, map[string]int{
				"vkBeginCommandBuffer": n, "vkCmdPipelineBarrier2": n, "vkCmdBindPipeline": n, binding: n,
				"vkCmdDispatch": n, "vkEndCommandBuffer": n, "vkQueueSubmit2": n,
			}, got)
			// The recording, the submit and the wait.
			require.LessOrEqual(t, vk.Transitions(), 3*n+2*k)
		})
	}
}
