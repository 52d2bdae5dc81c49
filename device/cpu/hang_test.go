package cpu_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// TestCloseStopsAHungKernel: Close waits a bounded time for a kernel that
// never ends, reports ErrDeviceLost naming the stream, and the kernel stops
// at its next loop iteration instead of spinning on.
func TestCloseStopsAHungKernel(t *testing.T) {
	for _, barrier := range []bool{false, true} {
		t.Run(map[bool]string{false: "loop", true: "barriers"}[barrier], func(t *testing.T) { testHung(t, barrier) })
	}
}

func testHung(t *testing.T, barrier bool) {
	defer cpu.SetCloseTimeout(cpu.SetCloseTimeout(50 * time.Millisecond))
	before := runtime.NumGoroutine()
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(t, err)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
		n := dsl.NewVar(k, dsl.U(0))
		k.Loop(func() {
			n.Set(n.Get().Add(dsl.U(1)))
			if barrier {
				k.Barrier()
			}
		})
		out.Write(k.DispatchID().X(), n.Get())
	}, "out")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	out, err := device.NewBuffer[uint32](d, 256)
	require.NoError(t, err)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	require.NoError(t, s.Submit(k.Dispatch([3]uint32{256}, out)))
	start := time.Now()
	err = d.Close()
	require.ErrorIs(t, err, device.ErrDeviceLost)
	require.ErrorContains(t, err, "stream")
	require.Less(t, time.Since(start), 5*time.Second)
	require.Eventually(t, func() bool { return runtime.NumGoroutine() <= before+1 }, 5*time.Second, 10*time.Millisecond,
		"the kernel's workers and the stream's goroutine end")
}

// TestFaultInBarrierKernel: a thread failing before a barrier does not leave
// the others of its block waiting for it, and a dispatch with barriers
// leaves no coroutine behind.
func TestFaultInBarrierKernel(t *testing.T) {
	d := openPlain(t)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, idx, out dsl.Buf[dsl.U32]) {
		s := dsl.NewShared[dsl.U32](k, 64)
		tid := k.ThreadID().X()
		s.Write(tid, out.Read(idx.Read(tid))) // thread 5 reads past out
		k.Barrier()
		out.Write(tid, s.Read(dsl.U(63).Sub(tid)))
	}, "idx", "out")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	ids := make([]uint32, 64)
	ids[5] = 1000
	bi, bo := upload(t, d, ids), upload(t, d, make([]uint32, 64))
	err = runErr(t, d, k.Dispatch([3]uint32{64}, bi, bo))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "argument 1 (out): index 1000 out of range [0, 64)")
	require.ErrorContains(t, err, "thread [5 0 0]")

	before := runtime.NumGoroutine()
	ids[5] = 5
	run(t, d, bi.Upload(ids), k.Dispatch([3]uint32{64}, bi, bo))
	// +1: Eventually runs the condition on a goroutine of its own; a
	// coroutine left behind would make it +2.
	require.Eventually(t, func() bool { return runtime.NumGoroutine() <= before+1 }, 5*time.Second, 10*time.Millisecond)
}

// TestCloseEndsHostWaits: host waits in flight return ErrClosed when Close
// begins, not once it gives up on the work.
func TestCloseEndsHostWaits(t *testing.T) {
	defer cpu.SetCloseTimeout(cpu.SetCloseTimeout(200 * time.Millisecond))
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(t, err)
	ev, err := d.NewEvent()
	require.NoError(t, err)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	require.NoError(t, ev.Wait(s, 1)) // the stream waits for a value nobody signals
	errs := make(chan error, 2)
	go func() { errs <- ev.Synchronize(context.Background(), 1) }()
	go func() { errs <- s.Synchronize(context.Background()) }()
	time.Sleep(20 * time.Millisecond)
	done := make(chan error, 1)
	go func() { done <- d.Close() }()
	for range 2 {
		select {
		case err := <-errs:
			require.ErrorIs(t, err, device.ErrClosed)
		case <-time.After(5 * time.Second):
			t.Fatal("a host wait did not end when Close began")
		}
	}
	require.ErrorIs(t, ev.Signal(s, 1), device.ErrClosed, "a call after Close began")
	err = <-done
	require.ErrorIs(t, err, device.ErrInvalidArgument, "the stream never got its value")
	require.ErrorContains(t, err, "waited for event signals never submitted")
}

// TestCloseDropsHopelessWaits: at Close, a stream waiting for an event value
// no signal was submitted for drops that wait and what follows it (here a
// download and a signal another stream waits for, which that stream drops
// in turn), at once and naming both streams, as the Vulkan backend does;
// Close used to wait its full 10 s and report a lost device. A wait that a
// queued signal will satisfy still runs to the end.
func TestCloseDropsHopelessWaits(t *testing.T) {
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(t, err)
	buf, err := device.NewBuffer[uint32](d, 4)
	require.NoError(t, err)
	never, err := d.NewEvent()
	require.NoError(t, err)
	chained, err := d.NewEvent()
	require.NoError(t, err)
	a, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	b, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	require.NoError(t, never.Wait(a, 1))
	require.NoError(t, a.Submit(buf.Download(make([]uint32, 4))))
	require.NoError(t, chained.Signal(a, 1))
	require.NoError(t, chained.Wait(b, 1))
	require.NoError(t, b.Submit(buf.Fill(1)))

	// c waits for a signal d2 submits after a slow callback.
	late, err := d.NewEvent()
	require.NoError(t, err)
	c, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	s2, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	got := make([]uint32, 4)
	require.NoError(t, late.Wait(c, 1))
	require.NoError(t, c.Submit(buf.Fill(7), buf.Download(got)))
	require.NoError(t, s2.SubmitList((&device.CommandList{}).OnDone(func() { time.Sleep(50 * time.Millisecond) })))
	require.NoError(t, late.Signal(s2, 1))

	start := time.Now()
	err = d.Close()
	require.Less(t, time.Since(start), 5*time.Second)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, fmt.Sprintf("stream %d: invalid argument: 3 item(s) waited for event signals never submitted", a.Handle()))
	require.ErrorContains(t, err, fmt.Sprintf("stream %d: invalid argument: 2 item(s) waited for event signals never submitted", b.Handle()))
	require.NotContains(t, err.Error(), fmt.Sprintf("stream %d", c.Handle()))
	require.Equal(t, []uint32{7, 7, 7, 7}, got, "the wait a queued signal satisfies runs")
}
