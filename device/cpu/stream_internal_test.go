package cpu

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// TestDestroyedStreams: a destroyed stream takes no more work (its worker
// may have ended, so the work would never run) and, once its worker ends,
// the device forgets it.
func TestDestroyedStreams(t *testing.T) {
	d := New(device.Options{})
	defer d.Close()
	var last *stream
	for range 50 {
		h, err := d.CreateStream(device.StreamCompute)
		require.NoError(t, err)
		s, err := lookup[*stream](d, h, "stream")
		require.NoError(t, err)
		require.NoError(t, d.DestroyStream(h))
		last = s
	}
	require.ErrorIs(t, last.enqueue(item{}), device.ErrClosed, "work for a destroyed stream, queued after a Dispatch looked it up")
	require.Eventually(t, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return len(d.streams) == 0
	}, 5*time.Second, time.Millisecond, "ended streams are forgotten")
}
