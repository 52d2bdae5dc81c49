package vulkan

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/stretchr/testify/require"
)

// TestStreamsExchangeThroughEvents: stream A produces, B transforms what A
// made, A consumes what B made; events order the three steps, and B's wait is
// submitted before A's signal (the wait-before-signal case).
func TestStreamsExchangeThroughEvents(t *testing.T) {
	f := newFixture(t)
	d := f.d
	sh, _ := f.shader("step")
	sb, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	defer d.DestroyStream(sb)
	e1, err := d.CreateEvent()
	require.NoError(t, err)
	e2, err := d.CreateEvent()
	require.NoError(t, err)
	defer d.DestroyEvent(e1)
	defer d.DestroyEvent(e2)
	const n = 512
	x, y, z := f.buffer(4*n), f.buffer(4*n), f.buffer(4*n)
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i * i)
	}
	// B first: wait for A's upload, transform, signal.
	require.NoError(t, d.WaitEvent(e1, sb, 1))
	require.NoError(t, d.Dispatch(sb, (&device.CommandList{}).Add(
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: stepArgs(x, y, n, 7)})))
	require.NoError(t, d.SignalEvent(e2, sb, 1))
	done, err := d.EventCompleted(e2, 1)
	require.NoError(t, err)
	require.False(t, done, "B cannot have finished before A signalled")
	// A: upload, signal, wait for B, transform again.
	require.NoError(t, d.Dispatch(f.s, (&device.CommandList{}).Add(&device.BufferUpload{Buffer: x, Data: bytesOfU32(in)})))
	require.NoError(t, d.SignalEvent(e1, f.s, 1))
	require.NoError(t, d.WaitEvent(e2, f.s, 1))
	out := make([]byte, 4*n)
	require.NoError(t, d.Dispatch(f.s, (&device.CommandList{}).Add(
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: stepArgs(y, z, n, 1)},
		&device.BufferDownload{Buffer: z, Data: out})))
	require.NoError(t, d.SynchronizeStream(context.Background(), f.s))
	require.NoError(t, d.SynchronizeEvent(context.Background(), e2, 1))
	done, err = d.EventCompleted(e2, 1)
	require.NoError(t, err)
	require.True(t, done)
	mid := make([]uint32, n)
	for i := range mid {
		mid[i] = in[(i+1)%n]*3 + 7
	}
	for i, v := range u32s(out) {
		require.Equal(t, mid[(i+1)%n]*3+1, v, "element %d", i)
	}
	require.ErrorIs(t, d.SignalEvent(e1, f.s, 1), device.ErrInvalidArgument, "signal values must increase")
}

func TestHostWaitCancelled(t *testing.T) {
	f := newFixture(t)
	e, err := f.d.CreateEvent()
	require.NoError(t, err)
	defer f.d.DestroyEvent(e)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	start := time.Now()
	err = f.d.SynchronizeEvent(ctx, e, 1) // never signalled
	require.ErrorIs(t, err, context.Canceled)
	// Cancellation is noticed within a 5 ms wait slice (typically ~25 ms
	// here); the bound only catches a wait that ignores the context, with
	// room for a loaded two-core machine under -race.
	took := time.Since(start)
	t.Logf("returned %v after the wait began", took)
	require.Less(t, took, 10*time.Second, "returns once the context is cancelled")

	// A stream blocked on that event: its host wait is cancellable too.
	require.NoError(t, f.d.WaitEvent(e, f.s, 1))
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	require.ErrorIs(t, f.d.SynchronizeStream(ctx2, f.s), context.DeadlineExceeded)
	// Unblock it so that the stream drains.
	s2, err := f.d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	require.NoError(t, f.d.SignalEvent(e, s2, 1))
	require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
	require.NoError(t, f.d.DestroyStream(s2))
}

// TestCallbacksRunAfterGPU: callbacks see the downloads of their list done,
// run in order, and run even when nobody synchronizes.
func TestCallbacksRunAfterGPU(t *testing.T) {
	f := newFixture(t)
	b := f.buffer(64)
	var order []int
	var mu sync.Mutex
	done := make(chan struct{})
	for i := 0; i < 5; i++ {
		data := bytesOfU32([]uint32{uint32(i), uint32(i * 10)})
		out := make([]byte, 8)
		list := (&device.CommandList{}).Add(
			&device.BufferUpload{Buffer: b, Data: data},
			&device.BufferDownload{Buffer: b, Data: out})
		list.OnDone(func() {
			mu.Lock()
			defer mu.Unlock()
			if u32s(out)[1] == uint32(i*10) {
				order = append(order, i)
			}
			if i == 4 {
				close(done)
			}
		})
		require.NoError(t, f.d.Dispatch(f.s, list))
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("callbacks did not run")
	}
	mu.Lock()
	require.Equal(t, []int{0, 1, 2, 3, 4}, order)
	mu.Unlock()
}

// TestConcurrentUse: goroutines create, use and destroy resources on several
// streams at once (run with -race), each checking its own results.
func TestConcurrentUse(t *testing.T) {
	f := newFixture(t)
	d := f.d
	sh, _ := f.shader("add")
	var streams []device.Handle
	for i := 0; i < 3; i++ {
		s, err := d.CreateStream(device.StreamCompute)
		require.NoError(t, err)
		streams = append(streams, s)
	}
	var wg sync.WaitGroup
	var failures atomic.Int32
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := 0; it < 10; it++ {
				if err := concurrentStep(d, sh, streams[(g+it)%len(streams)], g*100+it); err != nil {
					failures.Add(1)
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.Zero(t, failures.Load())
	for _, s := range streams {
		require.NoError(t, d.DestroyStream(s))
	}
}

func concurrentStep(d *Device, sh, s device.Handle, seed int) error {
	n := uint32(64 + seed%200)
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(seed+i), float32(i%7)
	}
	var hs []device.Handle
	for range 3 {
		h, err := d.CreateBuffer(device.BufferDesc{Size: uint64(4 * n)})
		if err != nil {
			return err
		}
		hs = append(hs, h)
	}
	out := make([]byte, 4*n)
	err := d.Dispatch(s, (&device.CommandList{}).Add(
		&device.BufferUpload{Buffer: hs[0], Data: bytesOfF32(a)},
		&device.BufferUpload{Buffer: hs[1], Data: bytesOfF32(b)},
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgBuffer, Handle: hs[0], Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: hs[1], Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: hs[2], Size: device.WholeSize},
			{Kind: device.ArgUniform, Uniform: uniform32(n)}, {Kind: device.ArgUniform, Uniform: uniformF(2)},
		}},
		&device.BufferDownload{Buffer: hs[2], Data: out}))
	if err != nil {
		return err
	}
	// Destroy before waiting: release is deferred until the GPU is done.
	for _, h := range hs {
		if err := d.DestroyBuffer(h); err != nil {
			return err
		}
	}
	if err := d.SynchronizeStream(context.Background(), s); err != nil {
		return err
	}
	for i, v := range f32s(out) {
		if want := a[i] + 2*b[i]; v != want {
			return fmt.Errorf("seed %d element %d: got %v, want %v", seed, i, v, want)
		}
	}
	return nil
}

func TestOutOfMemory(t *testing.T) {
	f := newFixture(t)
	d := f.d
	heap := uint64(d.phys.mem.MemoryHeaps[0].Size)
	_, err := d.CreateBuffer(device.BufferDesc{Size: heap + 1<<20})
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	// Fill the heap with large buffers until it refuses.
	var hs []device.Handle
	for i := 0; i < 64; i++ {
		h, err := d.CreateBuffer(device.BufferDesc{Size: 512 << 20})
		if err != nil {
			require.ErrorIs(t, err, device.ErrOutOfMemory)
			break
		}
		hs = append(hs, h)
	}
	require.Less(t, len(hs), 64, "the heap never ran out")
	for _, h := range hs {
		require.NoError(t, d.DestroyBuffer(h))
	}
	// The device still works.
	b := f.buffer(16)
	out := make([]byte, 16)
	f.run(&device.BufferUpload{Buffer: b, Data: bytesOfU32([]uint32{1, 2, 3, 4})}, &device.BufferDownload{Buffer: b, Data: out})
	require.Equal(t, []uint32{1, 2, 3, 4}, u32s(out))
}

func TestBadInput(t *testing.T) {
	f := newFixture(t)
	d := f.d
	b := f.buffer(64)
	sh, _ := f.shader("add")
	cases := []struct {
		name string
		cmd  device.Command
	}{
		{"upload past the end", &device.BufferUpload{Buffer: b, Offset: 60, Data: make([]byte, 8)}},
		{"unknown buffer", &device.BufferDownload{Buffer: 999999, Data: make([]byte, 4)}},
		{"overlapping self copy", &device.BufferCopy{Src: b, Dst: b, SrcOffset: 0, DstOffset: 8, Size: 16}},
		{"too few arguments", &device.ShaderDispatch{Shader: sh, Size: [3]uint32{1, 1, 1}}},
		{"wrong argument kind", &device.ShaderDispatch{Shader: sh, Size: [3]uint32{1, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgUniform}, {Kind: device.ArgBuffer, Handle: b, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: b, Size: device.WholeSize},
			{Kind: device.ArgUniform, Uniform: uniform32(1)}, {Kind: device.ArgUniform, Uniform: uniformF(1)}}}},
		{"short uniform", &device.ShaderDispatch{Shader: sh, Size: [3]uint32{1, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgBuffer, Handle: b, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: b, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: b, Size: device.WholeSize},
			{Kind: device.ArgUniform, Uniform: []byte{1}}, {Kind: device.ArgUniform, Uniform: uniformF(1)}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// After valid commands already recorded: the list is dropped whole.
			err := d.Dispatch(f.s, (&device.CommandList{}).Add(
				&device.BufferUpload{Buffer: b, Data: make([]byte, 16)},
				&device.BufferCopy{Src: b, Dst: b, SrcOffset: 0, DstOffset: 32, Size: 16},
				c.cmd))
			require.ErrorIs(t, err, device.ErrInvalidArgument)
			err = d.Dispatch(f.s, (&device.CommandList{}).Add(c.cmd))
			require.Error(t, err)
			require.True(t, errors.Is(err, device.ErrInvalidArgument), "%v", err)
		})
	}
	_, _, err := d.CreateShader(device.ShaderDesc{SPIRV: []uint32{1, 2, 3}})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = d.CreateBuffer(device.BufferDesc{})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorIs(t, d.DestroyBuffer(b+1000), device.ErrInvalidArgument)
	h, err := d.CreateBuffer(device.BufferDesc{Size: 4})
	require.NoError(t, err)
	require.NoError(t, d.DestroyBuffer(h))
	require.ErrorIs(t, d.DestroyBuffer(h), device.ErrClosed, "destroying twice")
	require.ErrorIs(t, d.DestroyStream(b), device.ErrInvalidArgument, "a buffer is not a stream")
	// The stream still works after the rejected lists.
	out := make([]byte, 4)
	f.run(&device.BufferUpload{Buffer: b, Data: []byte{1, 2, 3, 4}}, &device.BufferDownload{Buffer: b, Data: out})
	require.Equal(t, []byte{1, 2, 3, 4}, out)
}

func TestCopyStreamRejectsDispatch(t *testing.T) {
	f := newFixture(t)
	sh, _ := f.shader("step")
	cp, err := f.d.CreateStream(device.StreamCopy)
	require.NoError(t, err)
	defer f.d.DestroyStream(cp)
	b := f.buffer(256)
	err = f.d.Dispatch(cp, (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{1, 1, 1}, Args: stepArgs(b, b, 1, 1)}))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	out := make([]byte, 8)
	require.NoError(t, f.d.Dispatch(cp, (&device.CommandList{}).Add(
		&device.BufferUpload{Buffer: b, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}}, &device.BufferDownload{Buffer: b, Data: out})))
	require.NoError(t, f.d.SynchronizeStream(context.Background(), cp))
	require.Equal(t, []byte{1, 2, 3, 4, 5, 6, 7, 8}, out)
}

// TestDestroyWhileInFlight destroys a stream, its buffers, shader and an
// event right after submitting work that uses them; the work completes (its
// callback sees the right data) and nothing is released early (the
// validation layer would report a destroyed object in use).
func TestDestroyWhileInFlight(t *testing.T) {
	f := newFixture(t)
	d := f.d
	sh, _, err := d.CreateShader(device.ShaderDesc{SPIRV: compile(t, "step"), Name: "step"})
	require.NoError(t, err)
	require.NoError(t, d.SetName(sh, "step kernel"))
	s, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	ev, err := d.CreateEvent()
	require.NoError(t, err)
	const n = 1 << 16
	x, err := d.CreateBuffer(device.BufferDesc{Size: 4 * n})
	require.NoError(t, err)
	y, err := d.CreateBuffer(device.BufferDesc{Size: 4 * n})
	require.NoError(t, err)
	require.NoError(t, d.SetName(x, "x"))
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i)
	}
	out := make([]byte, 4*n)
	done := make(chan struct{})
	list := (&device.CommandList{}).Add(&device.BufferUpload{Buffer: x, Data: bytesOfU32(in)})
	for k := uint32(0); k < 20; k++ {
		list.Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: stepArgs(x, y, n, k)},
			&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: stepArgs(y, x, n, k)})
	}
	list.Add(&device.BufferDownload{Buffer: x, Data: out})
	list.OnDone(func() { close(done) })
	require.NoError(t, d.Dispatch(s, list))
	require.NoError(t, d.SignalEvent(ev, s, 1))
	require.NoError(t, d.WaitEvent(ev, f.s, 1))
	for _, err := range []error{d.DestroyBuffer(x), d.DestroyBuffer(y), d.DestroyShader(sh), d.DestroyEvent(ev), d.DestroyStream(s)} {
		require.NoError(t, err)
	}
	require.ErrorIs(t, d.SetName(x, "gone"), device.ErrClosed)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("work on a destroyed stream never completed")
	}
	want := in
	for k := uint32(0); k < 20; k++ {
		for range 2 {
			next := make([]uint32, n)
			for i := range next {
				next[i] = want[(i+1)%n]*3 + k
			}
			want = next
		}
	}
	require.Equal(t, want, u32s(out))
	require.NoError(t, d.SynchronizeStream(context.Background(), f.s))
}

// TestHostWaitsEndOnDestroy: a host wait on an event that is destroyed, and
// one on a device that is closed, return ErrClosed instead of waiting on a
// released semaphore.
func TestHostWaitsEndOnDestroy(t *testing.T) {
	f := newFixture(t)
	e, err := f.d.CreateEvent()
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() { errc <- f.d.SynchronizeEvent(context.Background(), e, 1) }()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, f.d.DestroyEvent(e))
	select {
	case err := <-errc:
		require.ErrorIs(t, err, device.ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not end")
	}

	msgs := &messages{}
	d, err := Open(device.Options{DeviceIndex: -1, ValidationLayer: true, Debug: msgs.add})
	require.NoError(t, err)
	e2, err := d.CreateEvent()
	require.NoError(t, err)
	go func() { errc <- d.SynchronizeEvent(context.Background(), e2, 1) }()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, d.Close())
	require.ErrorIs(t, <-errc, device.ErrClosed)
	require.Empty(t, formatMessages(msgs.take()))
}

// TestHostWaitsConcurrent synchronizes one stream from several goroutines
// at once while lists are dispatched on it: one host wait at a time uses the
// stream's own wait record and the others one from the pool, and every wait
// returns once its work is done (-race checks the record is not shared).
func TestHostWaitsConcurrent(t *testing.T) {
	f := newFixture(t)
	add, _ := f.shader("add")
	a, b, c := f.buffer(4*replayN), f.buffer(4*replayN), f.buffer(4*replayN)
	list := addList(add, a, b, c, 1)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 16 {
				if err := f.d.Dispatch(f.s, list); err != nil {
					errs <- err
					return
				}
				if err := f.d.SynchronizeStream(context.Background(), f.s); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	s, err := lookupStream(f.d, f.s)
	require.NoError(t, err)
	require.False(t, s.semBusy.Load(), "the stream's wait record is given back")
}
