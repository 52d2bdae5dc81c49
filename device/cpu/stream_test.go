package cpu_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

func quiet() device.Option { return device.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))) }

func TestViewsAndCopies(t *testing.T) {
	d := open(t)
	a := upload(t, d, []uint32{1, 2, 3, 4, 5, 6, 7, 8})
	b := upload(t, d, make([]uint32, 8))
	run(t, d, b.View(2, 4).CopyFrom(a.View(0, 4)))
	require.Equal(t, []uint32{0, 0, 1, 2, 3, 4, 0, 0}, download(t, d, b))
	got := make([]uint32, 3)
	run(t, d, a.View(5, 3).Download(got))
	require.Equal(t, []uint32{6, 7, 8}, got)

	p := openPlain(t)
	pb, err := device.NewBuffer[uint32](p, 8)
	require.NoError(t, err)
	defer pb.Close()
	s := stream(t, p, device.StreamCompute)
	err = s.Submit(&device.BufferUpload{Buffer: pb.Handle(), Offset: 30, Data: make([]byte, 4)})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "out of buffer")
}

func TestEventsAcrossStreams(t *testing.T) {
	d := openPlain(t) // the validation wrapper cannot see the wait queued before the signal
	up := stream(t, d, device.StreamCopy)
	comp := stream(t, d, device.StreamCompute)
	k := compile(t, d, programs.Saxpy)
	ev, err := d.NewEvent() // the uploads are done at 1
	require.NoError(t, err)
	defer func() { require.NoError(t, ev.Close()) }()
	fin, err := d.NewEvent() // the dispatch is done at 1
	require.NoError(t, err)
	defer func() { require.NoError(t, fin.Close()) }()

	const n = 4096
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), 1
	}
	bx, err := device.NewBuffer[float32](d, n)
	require.NoError(t, err)
	defer bx.Close()
	by, err := device.NewBuffer[float32](d, n)
	require.NoError(t, err)
	defer by.Close()
	// The compute stream waits first: its dispatch must see the uploads.
	require.NoError(t, ev.Wait(comp, 1))
	require.NoError(t, comp.Submit(k.Dispatch([3]uint32{n}, float32(2), bx, by)))
	require.NoError(t, fin.Signal(comp, 1))
	time.Sleep(10 * time.Millisecond)
	done, err := fin.Completed(1)
	require.NoError(t, err)
	require.False(t, done, "the compute stream waits for value 1")
	require.NoError(t, up.Submit(bx.Upload(x), by.Upload(y)))
	require.NoError(t, ev.Signal(up, 1))
	require.NoError(t, fin.Synchronize(ctxT(t), 1))
	done, err = fin.Completed(1)
	require.NoError(t, err)
	require.True(t, done)

	got := make([]float32, n)
	require.NoError(t, up.Submit(by.Download(got)))
	require.NoError(t, up.Synchronize(ctxT(t)))
	for i := range got {
		require.Equal(t, 2*x[i]+y[i], got[i], "element %d", i)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, ev.Synchronize(ctx, 99), context.DeadlineExceeded)
	require.ErrorIs(t, comp.Submit(k.Dispatch([3]uint32{n}, float32(2), bx, by)), nil)
	require.NoError(t, comp.Synchronize(ctxT(t)))
	err = up.Submit(k.Dispatch([3]uint32{n}, float32(2), bx, by))
	require.ErrorIs(t, err, device.ErrInvalidArgument, "a dispatch on a copy stream")
}

func TestCallbacks(t *testing.T) {
	d, err := device.Open(context.Background(), "cpu", quiet())
	require.NoError(t, err)
	defer func() { require.NoError(t, d.Close()) }()
	s := stream(t, d, device.StreamCompute)
	buf, err := device.NewBuffer[uint32](d, 16)
	require.NoError(t, err)
	defer buf.Close()
	got := make([]uint32, 16)
	var seen []uint32
	var after atomic.Bool
	var l device.CommandList
	l.Add(buf.Upload([]uint32{5, 6, 7}), buf.View(0, 3).Download(got[:3]))
	l.OnDone(func() { seen = append([]uint32(nil), got[:3]...) })
	l.OnDone(func() { panic("boom") })
	l.OnDone(func() {
		after.Store(true)
		// Calls back into the device are refused where they would wait for this callback.
		require.ErrorIs(t, s.Synchronize(context.Background()), device.ErrInvalidArgument)
		require.ErrorIs(t, d.Close(), device.ErrInvalidArgument)
	})
	require.NoError(t, s.SubmitList(&l))
	err = s.Synchronize(ctxT(t))
	require.ErrorIs(t, err, device.ErrPanicked)
	require.ErrorContains(t, err, "boom")
	require.Equal(t, []uint32{5, 6, 7}, seen, "callbacks run after the download landed")
	require.True(t, after.Load(), "the later callbacks still run")
	require.NoError(t, s.Synchronize(ctxT(t)), "the panic is reported once")
}

func TestUseAfterClose(t *testing.T) {
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(t, err)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	b, err := device.NewBuffer[float32](d, 4)
	require.NoError(t, err)
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "idempotent")
	require.ErrorIs(t, s.Submit(b.Upload([]float32{1})), device.ErrClosed)
	iface := d.Interface()
	require.ErrorIs(t, iface.DestroyBuffer(b.Handle()), device.ErrClosed)
	require.ErrorIs(t, iface.DestroyBuffer(0), device.ErrInvalidArgument)
	require.NoError(t, d.Close())
	_, err = iface.CreateBuffer(device.BufferDesc{Size: 4})
	require.ErrorIs(t, err, device.ErrClosed)
	_, err = device.NewBuffer[float32](d, 4)
	require.ErrorIs(t, err, device.ErrClosed)
	require.NoError(t, iface.Close(), "a second Close")
}

// TestCloseRacesCalls closes the device while goroutines submit work: every
// call completes or fails with ErrClosed, and nothing panics.
func TestCloseRacesCalls(t *testing.T) {
	for range 20 {
		d, err := device.Open(context.Background(), "cpu")
		require.NoError(t, err)
		iface := d.Interface()
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					if err := raceStep(iface, g+i); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(200) * time.Microsecond)
		require.NoError(t, iface.Close())
		wg.Wait()
		close(errs)
		for err := range errs {
			require.ErrorIs(t, err, device.ErrClosed)
		}
	}
}

func raceStep(d device.Interface, i int) error {
	b, err := d.CreateBuffer(device.BufferDesc{Size: 64})
	if err != nil {
		return err
	}
	s, err := d.CreateStream(device.StreamCompute)
	if err != nil {
		return err
	}
	out := make([]byte, 64)
	if err := d.Dispatch(s, &device.CommandList{Commands: []device.Command{
		&device.BufferUpload{Buffer: b, Data: []byte{byte(i)}}, &device.BufferDownload{Buffer: b, Data: out}}}); err != nil {
		return err
	}
	if err := d.SynchronizeStream(context.Background(), s); err != nil {
		return err
	}
	if out[0] != byte(i) {
		return errors.New("download did not see the upload")
	}
	if err := d.DestroyStream(s); err != nil {
		return err
	}
	return d.DestroyBuffer(b)
}

func TestIndirectDispatch(t *testing.T) {
	d := open(t)
	k := compile(t, d, programs.DispatchInfo)
	groups := upload(t, d, []uint32{3, 2, 1})
	out := upload(t, d, make([]uint32, 6))
	run(t, d, k.DispatchIndirect(groups.View(0, 3), out))
	bs := k.Function().BlockSize
	require.Equal(t, []uint32{3 * bs[0], 2 * bs[1], bs[2], 3, 2, 1}, download(t, d, out))
	run(t, d, k.Dispatch([3]uint32{20, 7}, out))
	require.Equal(t, []uint32{20, 7, 1, (20 + bs[0] - 1) / bs[0], (7 + bs[1] - 1) / bs[1], 1}, download(t, d, out))
}

// TestUnsupported: what the backend does not implement is refused with
// ErrUnsupported naming it, never a panic.
func TestUnsupported(t *testing.T) {
	d := open(t)
	_, err := d.NewShader(device.ShaderDesc{SPIRV: []uint32{0x07230203, 0x10000, 0, 1, 0}})
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "SPIR-V")
}

func TestArgumentErrors(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	k := compile(t, d, programs.Saxpy)
	bx, err := device.NewBuffer[float32](d, 8)
	require.NoError(t, err)
	defer bx.Close()
	b2, err := device.NewBuffer[[2]float32](d, 8)
	require.NoError(t, err)
	defer b2.Close()
	for _, c := range []struct {
		name string
		args []any
		want string
	}{
		{"count", []any{float32(1), bx}, "takes 3 argument(s)"},
		{"uniform for buffer", []any{float32(1), float32(1), bx}, "argument 1 (x)"},
		{"element size", []any{float32(1), b2, bx}, "argument 1 (x)"},
		{"uniform type", []any{int32(1), bx, bx}, "argument 0 (a)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := s.Submit(k.Dispatch([3]uint32{8}, c.args...))
			require.ErrorIs(t, err, device.ErrInvalidArgument)
			require.ErrorContains(t, err, c.want)
		})
	}
	require.NoError(t, s.Synchronize(ctxT(t)))
}

// TestRefusedAtCompile: an operation the backend does not run is refused
// when the kernel is compiled, naming it, never at run time.
func TestRefusedAtCompile(t *testing.T) {
	d := open(t)
	f := ir.NewKernel("wide_sin", 1, [3]uint32{64, 1, 1})
	out := f.AddParam("out", ir.Buffer(ir.TF64), ir.VarArg)
	dst := &ir.Index{X: &ir.Ref{Var: out}, I: dispatchX(), T: ir.TF64}
	f.Body.Stmts = append(f.Body.Stmts, &ir.Assign{Dst: dst, Src: &ir.Call{Op: ir.OpSin, Args: []ir.Expr{dst}, T: ir.TF64}})
	require.NoError(t, f.Validate())
	_, err := device.Compile(d, f)
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "sin on f64")
}

func dispatchX() ir.Expr {
	did := &ir.Ref{Var: &ir.Var{Name: "dispatch_id", Type: ir.DispatchID.Type(), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}}
	return &ir.Swizzle{X: did, Comps: []uint8{0}, T: ir.TU32}
}

// TestSynchronizeKeepsOrder: lists submitted by one goroutine complete in
// order while other goroutines synchronise the stream at the same time
// (running queued lists themselves) and the worker runs the lists with
// callbacks; every Synchronize sees its work done.
func TestSynchronizeKeepsOrder(t *testing.T) {
	d := openPlain(t)
	s := stream(t, d, device.StreamCompute)
	buf, err := device.NewBuffer[uint32](d, 1)
	require.NoError(t, err)
	defer buf.Close()
	const n = 400
	got := make([][]uint32, n)
	var mu sync.Mutex
	var order []int
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.Synchronize(context.Background()); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range n {
		// List i reads what list i-1 left and leaves i+1.
		got[i] = make([]uint32, 1)
		var l device.CommandList
		l.Add(buf.Download(got[i]), buf.Upload([]uint32{uint32(i + 1)}))
		if i%3 == 0 {
			l.OnDone(func() { mu.Lock(); order = append(order, i); mu.Unlock() })
		}
		require.NoError(t, s.SubmitList(&l))
		if i%5 == 0 {
			require.NoError(t, s.Synchronize(context.Background()))
			require.Equal(t, []uint32{uint32(i)}, got[i], "list %d done when Synchronize returns", i)
		}
	}
	require.NoError(t, s.Synchronize(context.Background()))
	close(stop)
	wg.Wait()
	for i := range n {
		require.Equal(t, []uint32{uint32(i)}, got[i], "list %d", i)
	}
	for j := 1; j < len(order); j++ {
		require.Less(t, order[j-1], order[j])
	}
	require.Len(t, order, (n+2)/3)
}

// TestDispatchAllocations bounds what one small dispatch, submitted and
// waited for, allocates: the Submit's command list and its variadic slice
// (package device); the dispatch's record is recycled once it ran. Each
// further allocation on the path is a regression.
func TestDispatchAllocations(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector's instrumentation allocates")
	}
	d := openPlain(t)
	f, err := programs.Saxpy()
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	x, err := device.NewBuffer[float32](d, 1)
	require.NoError(t, err)
	defer x.Close()
	s := stream(t, d, device.StreamCompute)
	cmd := k.Dispatch([3]uint32{1}, float32(2), x, x)
	ctx := context.Background()
	require.NoError(t, s.Submit(cmd))
	require.NoError(t, s.Synchronize(ctx))
	allocs := testing.AllocsPerRun(200, func() {
		_ = s.Submit(cmd)
		_ = s.Synchronize(ctx)
	})
	require.LessOrEqual(t, allocs, 2.0, "allocations per Submit+Synchronize of a one-thread dispatch")
}

// TestSignalValuesMustIncrease: a signal at or below the event's last
// signalled value is refused naming the event and both values, as on the
// Vulkan backend; it used to be queued and ignored, so a program relying on
// it behaved differently there.
func TestSignalValuesMustIncrease(t *testing.T) {
	d := openPlain(t)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	ev, err := d.NewEvent()
	require.NoError(t, err)
	err = ev.Signal(s, 0)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "signal value 0 does not exceed the last signalled value 0")
	require.NoError(t, ev.Signal(s, 5))
	for _, v := range []uint64{3, 5} {
		err = ev.Signal(s, v)
		require.True(t, errors.Is(err, device.ErrInvalidArgument), "signal %d: %v", v, err)
		require.ErrorContains(t, err, "does not exceed the last signalled value 5")
	}
	require.NoError(t, ev.Signal(s, 6))
	require.NoError(t, ev.Synchronize(ctxT(t), 6))
}
