package cpu_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// TestCustomRunsInStreamOrder: a Custom command's Func runs at its place in
// the list, with native command buffer 0, on the stream's worker: after the
// earlier commands' work (an upload, a dispatch, a download it reads),
// before the later ones (a dispatch and a download it finds untouched), and
// not before the stream reaches it (a list ahead of it blocks). A
// Synchronize of its own stream from Func is refused, not a deadlock.
func TestCustomRunsInStreamOrder(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	k := compile(t, d, programs.Saxpy)
	const n = 300
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), 1
	}
	x, y := upload(t, d, xs), upload(t, d, make([]float32, n))
	gate := make(chan struct{})
	require.NoError(t, s.Submit(&device.Custom{Name: "gate", Func: func(uintptr) error { <-gate; return nil }}))

	before, after := make([]float32, n), make([]float32, n)
	var mu sync.Mutex
	var seen []float32 // what Func found in before and after
	var native []uintptr
	var syncErr error
	calls := 0
	custom := &device.Custom{Name: "probe",
		Resources: []device.Usage{{Handle: y.Handle(), Kind: device.KindBuffer, Access: device.Read}},
		Func: func(cb uintptr) error {
			mu.Lock()
			defer mu.Unlock()
			calls++
			native = append(native, cb)
			seen = append(seen, before[n-1], after[n-1])
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			syncErr = s.Synchronize(ctx) // refused at once on the worker; waits for itself elsewhere
			return nil
		}}
	require.NoError(t, s.Submit(y.Upload(ys), k.Dispatch([3]uint32{n}, float32(2), x, y), y.Download(before),
		custom, k.Dispatch([3]uint32{n}, float32(10), x, y), y.Download(after)))
	mu.Lock()
	require.Zero(t, calls, "Func ran before the stream reached it")
	mu.Unlock()
	close(gate)
	// With a context that cannot end, Synchronize runs queued lists itself
	// where it can: not these, which must run on the worker.
	require.NoError(t, s.Synchronize(context.Background()))

	require.Equal(t, 1, calls)
	require.Equal(t, []uintptr{0}, native)
	require.Equal(t, []float32{2*(n-1) + 1, 0}, seen, "Func saw the earlier download done and the later one not started")
	require.ErrorIs(t, syncErr, device.ErrInvalidArgument, "Synchronize of its own stream from Func")
	require.Equal(t, float32(12*(n-1)+1), after[n-1])
}

// TestCustomErrorFailsTheList: an error from Func fails the submission: the
// stream's next Synchronize returns it, wrapped with the command's name,
// and the list's later commands do not run; the stream goes on with the
// next list.
func TestCustomErrorFailsTheList(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	b := upload(t, d, []uint32{7, 8})
	boom := errors.New("boom")
	got := make([]uint32, 2)
	require.NoError(t, s.Submit(&device.Custom{Name: "failing", Func: func(uintptr) error { return boom }}, b.Download(got)))
	err := s.Synchronize(ctxT(t))
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, `custom command "failing"`)
	require.Equal(t, []uint32{0, 0}, got, "the command after the failed one ran")
	require.NoError(t, s.Submit(b.Download(got)))
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.Equal(t, []uint32{7, 8}, got)
}

// TestCustomPanicFailsTheList: a panic in Func is recovered and logged; the
// stream's next Synchronize returns an error wrapping device.ErrPanicked
// that names the command and the panic, and the list's later commands do
// not run.
func TestCustomPanicFailsTheList(t *testing.T) {
	var logs bytes.Buffer
	d, err := device.Open(ctxT(t), "cpu", device.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	s := stream(t, d, device.StreamCompute)
	b := upload(t, d, []uint32{7, 8})
	got := make([]uint32, 2)
	require.NoError(t, s.Submit(&device.Custom{Name: "bad", Func: func(uintptr) error { panic("boom in Custom") }}, b.Download(got)))
	err = s.Synchronize(ctxT(t))
	require.ErrorIs(t, err, device.ErrPanicked)
	require.ErrorContains(t, err, `custom command "bad"`)
	require.ErrorContains(t, err, "boom in Custom")
	require.Equal(t, []uint32{0, 0}, got, "the command after the panicking one ran")
	require.Contains(t, logs.String(), "boom in Custom")
}

// TestCustomBadResources: a Custom command with no Func, or declaring a
// buffer that does not exist or a range past its end, is refused at
// Submit, naming the command, and nothing of the list runs.
func TestCustomBadResources(t *testing.T) {
	d := openPlain(t)
	s := stream(t, d, device.StreamCompute)
	b := upload(t, d, []uint32{1, 2, 3, 4})
	ran := false
	fn := func(uintptr) error { ran = true; return nil }
	for _, tc := range []struct {
		c    *device.Custom
		want string
	}{
		{&device.Custom{Name: "nofunc"}, `custom command "nofunc" has no Func`},
		{&device.Custom{Name: "gone", Func: fn, Resources: []device.Usage{{Handle: b.Handle() + 1000, Kind: device.KindBuffer}}}, `custom command "gone": resource 0`},
		{&device.Custom{Name: "past", Func: fn, Resources: []device.Usage{{Handle: b.Handle(), Kind: device.KindBuffer, Offset: 8, Size: 16}}}, `custom command "past": resource 0`},
		{&device.Custom{Name: "far", Func: fn, Resources: []device.Usage{{Handle: b.Handle(), Kind: device.KindBuffer, Offset: 32}}}, `custom command "far": resource 0`},
	} {
		err := s.Submit(tc.c)
		require.ErrorIs(t, err, device.ErrInvalidArgument, tc.c.Name)
		require.ErrorContains(t, err, tc.want)
	}
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.False(t, ran)
	ok := &device.Custom{Name: "whole", Func: fn, Resources: []device.Usage{{Handle: b.Handle(), Kind: device.KindBuffer, Offset: 4}}}
	require.NoError(t, s.Submit(ok))
	require.NoError(t, s.Synchronize(ctxT(t)))
	require.True(t, ran)
}

// TestCustomRunsOnTheWorker: Func runs on the stream's worker goroutine,
// where its callbacks run, even when a Synchronize that could run queued
// work itself (a context that cannot end) finds the list first.
func TestCustomRunsOnTheWorker(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	var worker uint64
	require.NoError(t, s.SubmitList((&device.CommandList{}).OnDone(func() { worker = goroutine() })))
	require.NoError(t, s.Synchronize(context.Background()))
	require.NotZero(t, worker)
	var ran []uint64
	custom := &device.Custom{Name: "where", Func: func(uintptr) error { ran = append(ran, goroutine()); return nil }}
	for range 200 {
		require.NoError(t, s.Submit(custom))
		require.NoError(t, s.Synchronize(context.Background()))
	}
	require.Len(t, ran, 200)
	for i, g := range ran {
		require.Equal(t, worker, g, "run %d", i)
	}
}

// goroutine returns the calling goroutine's id.
func goroutine() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return id
}
