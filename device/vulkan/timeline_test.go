package vulkan

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/stretchr/testify/require"
)

// Waits for timeline values. The validation layer tracks timeline
// semaphores itself and, when a wait it sees is for a value no submitted
// batch signals exactly, waits for its own bookkeeping for 10 s and then
// reports UNASSIGNED-VkSemaphore-state-timeout. These tests wait for values
// between two signals and for values not submitted yet, on the host and on
// streams; openDevice fails them on any validation error.

// TestWaitBetweenSignals: signals 1 and 3, waits for 2 on the host and on a
// stream.
func TestWaitBetweenSignals(t *testing.T) {
	f := newFixture(t)
	s2, err := f.d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	defer f.d.DestroyStream(s2)
	for i := 0; i < 5; i++ {
		e, err := f.d.CreateEvent()
		require.NoError(t, err)
		errc := make(chan error, 1)
		go func() { errc <- f.d.SynchronizeEvent(context.Background(), e, 2) }()
		require.NoError(t, f.d.WaitEvent(e, s2, 2))
		require.NoError(t, f.d.SignalEvent(e, f.s, 1))
		require.NoError(t, f.d.SignalEvent(e, f.s, 3))
		start := time.Now()
		require.NoError(t, <-errc)
		require.NoError(t, f.d.SynchronizeStream(context.Background(), s2))
		done, err := f.d.EventCompleted(e, 3)
		require.NoError(t, err)
		require.True(t, done)
		require.NoError(t, f.d.DestroyEvent(e))
		t.Logf("waits ended %v after the signals", time.Since(start))
	}
}

// TestHostWaitBeforeSubmission: host waits for an event value and a stream
// value whose batches are not submitted yet (the stream is parked behind an
// event wait), then the signal arrives.
func TestHostWaitBeforeSubmission(t *testing.T) {
	f := newFixture(t)
	s2, err := f.d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	defer f.d.DestroyStream(s2)
	for i := 0; i < 5; i++ {
		gate, err := f.d.CreateEvent()
		require.NoError(t, err)
		e, err := f.d.CreateEvent()
		require.NoError(t, err)
		// f.s: wait for gate, then signal e; nothing of it can be submitted yet.
		require.NoError(t, f.d.WaitEvent(gate, f.s, 1))
		require.NoError(t, f.d.SignalEvent(e, f.s, 1))
		evc, sc := make(chan error, 1), make(chan error, 1)
		go func() { evc <- f.d.SynchronizeEvent(context.Background(), e, 1) }()
		go func() { sc <- f.d.SynchronizeStream(context.Background(), f.s) }()
		time.Sleep(15 * time.Millisecond) // let both waits start (not required for correctness)
		require.NoError(t, f.d.SignalEvent(gate, s2, 1))
		require.NoError(t, <-evc)
		require.NoError(t, <-sc)
		require.NoError(t, f.d.DestroyEvent(e))
		require.NoError(t, f.d.DestroyEvent(gate))
	}
}

// TestFailedStreamReleasesNoWaits: a stream that fails with a signal still
// parked never submits it, so a wait for it on another stream must stay
// parked (a submitted wait would block the shared queue, and Close with it).
func TestFailedStreamReleasesNoWaits(t *testing.T) {
	msgs := &messages{}
	d, err := Open(device.Options{DeviceIndex: -1, ValidationLayer: true, Debug: msgs.add})
	testenv.Need(t, "a Vulkan device with the validation layer", err)
	closed := false
	defer func() {
		if !closed {
			d.Close()
		}
	}()
	var ss [3]device.Handle
	for i := range ss {
		ss[i], err = d.CreateStream(device.StreamCompute)
		require.NoError(t, err)
	}
	a, b, c := ss[0], ss[1], ss[2]
	gate, err := d.CreateEvent()
	require.NoError(t, err)
	e, err := d.CreateEvent()
	require.NoError(t, err)
	require.NoError(t, d.WaitEvent(gate, a, 1))
	require.NoError(t, d.SignalEvent(e, a, 1)) // parked behind the gate
	require.NoError(t, d.WaitEvent(e, b, 1))   // parked behind a's signal
	sa, err := lookupStream(d, a)
	require.NoError(t, err)
	lost := fmt.Errorf("stream failure for the test: %w", device.ErrDeviceLost)
	sa.fail(lost)
	require.NoError(t, d.SignalEvent(gate, c, 1)) // a's parked work is flushed, on the host only
	require.NoError(t, d.SynchronizeStream(context.Background(), c))
	require.ErrorIs(t, d.SynchronizeStream(context.Background(), a), device.ErrDeviceLost)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, d.SynchronizeStream(ctx, b), context.DeadlineExceeded, "b waits for a signal that never reached the queue")
	require.ErrorIs(t, d.SynchronizeEvent(ctx, e, 1), context.DeadlineExceeded)
	done := make(chan error, 1)
	go func() { done <- d.Close() }()
	select {
	case err := <-done:
		closed = true
		// The failed stream a, or b's dropped wait, whichever Close meets first.
		require.True(t, errors.Is(err, device.ErrDeviceLost) || errors.Is(err, device.ErrInvalidArgument), "Close: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("Close hung on a wait submitted for a signal that was never submitted")
	}
	require.Empty(t, formatMessages(msgs.take()))
}

// TestParkRaceWithSignal: one goroutine parks a stream behind an event wait
// while another submits the signal, round after round. A stream that checked
// the event before the signal was submitted, but joined the set of parked
// streams only after the signal's submission had woken that set, used to
// stay parked for good (a lost wake-up: Synchronize hung).
func TestParkRaceWithSignal(t *testing.T) {
	f := newFixture(t)
	d := f.d
	b, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	defer d.DestroyStream(b)
	e1, err := d.CreateEvent()
	require.NoError(t, err)
	defer d.DestroyEvent(e1)
	e2, err := d.CreateEvent()
	require.NoError(t, err)
	defer d.DestroyEvent(e2)
	rounds := 400
	if testing.Short() {
		rounds = 50
	}
	for i := uint64(1); i <= uint64(rounds); i++ {
		errc := make(chan error, 2)
		go func() {
			if err := d.WaitEvent(e1, b, i); err != nil {
				errc <- err
				return
			}
			errc <- d.SignalEvent(e2, b, i)
		}()
		go func() {
			if err := d.SignalEvent(e1, f.s, i); err != nil {
				errc <- err
				return
			}
			errc <- d.WaitEvent(e2, f.s, i)
		}()
		require.NoError(t, <-errc)
		require.NoError(t, <-errc)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		require.NoError(t, d.SynchronizeStream(ctx, f.s), "round %d", i)
		require.NoError(t, d.SynchronizeStream(ctx, b), "round %d", i)
		cancel()
	}
}

// TestEventDestroyAfterStream signals an event on a new stream after a
// buffer fill, destroys the stream and then the event at once, again and
// again, every other stream and event kept alive until the end (without the
// validation layer, whose wrapping hides the race). The event's release had
// no later batch to wait for on the destroyed stream and waited for the
// signal alone: lavapipe's submit thread crashed (SIGSEGV, or a failed
// mutex assertion) in about every other run of 1000 rounds.
func TestEventDestroyAfterStream(t *testing.T) {
	d, err := Open(device.Options{DeviceIndex: -1})
	testenv.Need(t, "a Vulkan device", err)
	defer func() { require.NoError(t, d.Close()) }()
	buf, err := d.CreateBuffer(device.BufferDesc{Size: 4096})
	require.NoError(t, err)
	defer func() { require.NoError(t, d.DestroyBuffer(buf)) }()
	rounds := 1000
	if testing.Short() {
		rounds = 100
	}
	var kept []device.Handle
	for i := 0; i < rounds; i++ {
		s, err := d.CreateStream(device.StreamCompute)
		require.NoError(t, err)
		e, err := d.CreateEvent()
		require.NoError(t, err)
		require.NoError(t, d.Dispatch(s, (&device.CommandList{}).Add(&device.BufferFill{Buffer: buf, Size: device.WholeSize, Value: uint32(i)})))
		require.NoError(t, d.SignalEvent(e, s, 1))
		if i%2 == 1 {
			kept = append(kept, e, s)
			continue
		}
		require.NoError(t, d.DestroyStream(s))
		require.NoError(t, d.DestroyEvent(e))
	}
	for i := 0; i < len(kept); i += 2 {
		require.NoError(t, d.DestroyEvent(kept[i]))
		require.NoError(t, d.DestroyStream(kept[i+1]))
	}
}

// TestEventDestroyAfterWait destroys an event as soon as the host has seen
// the stream that waited for it complete, again and again. Mesa's queue
// drops its reference to a waited-for timeline after the batch's own
// signal is visible; destroying the event at that point crashed lavapipe's
// submit thread (SIGSEGV) within a few hundred rounds, most often under
// -cpu 1.
func TestEventDestroyAfterWait(t *testing.T) {
	f := newFixture(t)
	d := f.d
	b, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	defer d.DestroyStream(b)
	rounds := 300
	if testing.Short() {
		rounds = 50
	}
	for i := 0; i < rounds; i++ {
		e, err := d.CreateEvent()
		require.NoError(t, err)
		require.NoError(t, d.SignalEvent(e, b, 1))
		require.NoError(t, d.WaitEvent(e, f.s, 1))
		require.NoError(t, d.SynchronizeStream(context.Background(), f.s))
		require.NoError(t, d.SynchronizeStream(context.Background(), b))
		require.NoError(t, d.DestroyEvent(e))
	}
}
