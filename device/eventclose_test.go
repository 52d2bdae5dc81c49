package device_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// TestEventClosedWhileWaited closes an event a stream waits for. With no
// signal reaching the value submitted, none can come any more: the stream's
// work from the wait on is dropped and its Synchronize says so, naming the
// event and the value, and the stream runs later work. Both backends used
// to keep the work waiting for ever (Synchronize returned only when its
// context ended). A signal submitted before Close, still queued behind a
// wait of its own, is kept: the waiting stream runs once it comes.
func TestEventClosedWhileWaited(t *testing.T) {
	d := openDevice(t)
	buf, err := device.NewBuffer[float32](d, 64)
	require.NoError(t, err)
	defer buf.Close()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	ev, err := d.NewEvent()
	require.NoError(t, err)
	require.NoError(t, ev.Wait(s, 1))
	out := make([]float32, 64)
	ran := false
	require.NoError(t, s.SubmitList((&device.CommandList{}).Add(buf.Fill(1), buf.Download(out)).OnDone(func() { ran = true })))
	h := ev.Handle()
	require.NoError(t, ev.Close())
	err = s.Synchronize(ctx)
	require.NoError(t, ctx.Err(), "Synchronize waited for the closed event")
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "closed before a signal reaching value 1 was submitted")
	require.Contains(t, err.Error(), fmt.Sprintf("event %d", h))
	require.False(t, ran, "the dropped list's callback ran")
	require.Equal(t, float32(0), out[0], "the dropped download ran")

	// The stream goes on.
	require.NoError(t, s.Submit(buf.Fill(2), buf.Download(out)))
	require.NoError(t, s.Synchronize(ctx))
	require.Equal(t, float32(2), out[63])

	// A signal already submitted, parked on its stream behind a wait for
	// another event, still releases the waiting stream after Close.
	gate, err := d.NewEvent()
	require.NoError(t, err)
	defer gate.Close()
	ev2, err := d.NewEvent()
	require.NoError(t, err)
	s2, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s2.Close()
	require.NoError(t, gate.Wait(s2, 1))
	require.NoError(t, s2.Submit(buf.Fill(3)))
	require.NoError(t, ev2.Signal(s2, 1))
	require.NoError(t, ev2.Wait(s, 1))
	require.NoError(t, s.Submit(buf.Download(out)))
	require.NoError(t, ev2.Close())
	s3, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s3.Close()
	require.NoError(t, gate.Signal(s3, 1)) // s2 may go; s waits for s2's signal
	require.NoError(t, s.Synchronize(ctx))
	require.NoError(t, s2.Synchronize(ctx))
	require.Equal(t, float32(3), out[0])
}

// TestEventClosedEndsHostWait closes an event a host goroutine waits for:
// the wait ends with ErrClosed on every backend. The cpu backend's went on
// until its context ended.
func TestEventClosedEndsHostWait(t *testing.T) {
	d := openDevice(t)
	ev, err := d.NewEvent()
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- ev.Synchronize(context.Background(), 1) }()
	time.Sleep(20 * time.Millisecond) // let it start waiting
	require.NoError(t, ev.Close())
	select {
	case err := <-done:
		require.ErrorIs(t, err, device.ErrClosed)
	case <-time.After(10 * time.Second):
		t.Fatal("a host wait outlived its event")
	}
}
