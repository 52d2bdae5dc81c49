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

// TestSynchronizeHelps: a Synchronize finding queued work that no one runs
// yet runs it on its own goroutine, in order, up to the value it waits for;
// it leaves lists with callbacks and event waits to the worker, rings the
// worker for what is left, and leaves everything to a worker running an
// item.
func TestSynchronizeHelps(t *testing.T) {
	d := New(device.Options{})
	defer d.Close()
	// A stream without its worker: nothing else takes the items.
	s := &stream{d: d, wakeup: make(chan struct{}, 1), pending: map[*event]uint64{}, exited: make(chan struct{})}
	me := goid()
	var ran []int
	op := func(i int) func() error {
		return func() error {
			require.Equal(t, me, goid(), "item %d runs on the synchronising goroutine", i)
			ran = append(ran, i)
			return nil
		}
	}
	ev := &event{}
	require.NoError(t, s.enqueue(item{op0: runFunc(op(0))}))
	require.NoError(t, s.enqueue(item{op0: runFunc(op(1)), ops: []runner{runFunc(op(2))}, signal: ev, value: 3}))
	require.NoError(t, s.enqueue(item{op0: runFunc(op(3))}))
	require.NoError(t, s.enqueue(item{op0: runFunc(op(4)), callbacks: []func(){func() {}}}))
	require.NoError(t, s.enqueue(item{op0: runFunc(op(5))}))
	<-s.wakeup // the enqueues' rings
	s.help(2)
	require.Equal(t, []int{0, 1, 2}, ran, "up to the value waited for")
	require.True(t, s.done.reached(2))
	require.True(t, ev.reached(3), "the signal of a list it ran")
	require.Len(t, s.wakeup, 1, "the worker is rung for the items left: it may have slept while they came")
	<-s.wakeup
	s.help(5)
	require.Equal(t, []int{0, 1, 2, 3}, ran, "a list with callbacks stops it")
	require.Len(t, s.q, 2)
	require.Len(t, s.wakeup, 1, "the worker is rung for what is left")
	s.running = true // the worker runs an item: a Synchronize waits instead
	<-s.wakeup
	s.q = s.q[1:]
	s.help(5)
	require.Equal(t, []int{0, 1, 2, 3}, ran)
	require.Empty(t, s.wakeup)
}
