package cpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// Kernels are checked: an out-of-range access or an integer division by zero
// fails the stream's Synchronize with an error naming the kernel, the
// argument or variable, the index and the thread.
func TestCheckedAccesses(t *testing.T) {
	// Without the validation wrapper: it takes a stream whose Synchronize
	// failed as one whose work may still run.
	d := openPlain(t)
	oob, err := dsl.Kernel1D(64, func(k *dsl.K, src, dst dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		dst.Write(i, src.Read(i.Add(dsl.U(1))))
	}, "src", "dst")
	require.NoError(t, err)
	oob.Name = "shift"
	k, err := device.Compile(d, oob)
	require.NoError(t, err)
	defer k.Close()
	src, dst := upload(t, d, make([]uint32, 100)), upload(t, d, make([]uint32, 100))
	err = runErr(t, d, k.Dispatch([3]uint32{100}, src, dst))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "kernel shift")
	require.ErrorContains(t, err, "argument 0 (src): index 100 out of range [0, 100)")
	require.ErrorContains(t, err, "thread [99 0 0]")
	run(t, d, k.Dispatch([3]uint32{99}, src, dst)) // in range: no error, and the stream goes on

	div, err := dsl.Kernel1D(64, func(k *dsl.K, a, b dsl.Buf[dsl.I32]) {
		i := k.DispatchID().X()
		a.Write(i, a.Read(i).Div(b.Read(i)))
	}, "a", "b")
	require.NoError(t, err)
	kd, err := device.Compile(d, div)
	require.NoError(t, err)
	defer kd.Close()
	a, b := upload(t, d, []int32{10, 20, 30, 40}), upload(t, d, []int32{2, 5, 0, 1})
	err = runErr(t, d, kd.Dispatch([3]uint32{4}, a, b))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "integer division by zero")
	require.ErrorContains(t, err, "thread [2 0 0]")

	sh, err := dsl.Kernel1D(32, func(k *dsl.K, idx, out dsl.Buf[dsl.U32]) {
		s := dsl.NewShared[dsl.U32](k, 32)
		tid := k.ThreadID().X()
		s.Write(tid, tid)
		k.Barrier()
		out.Write(tid, s.Read(idx.Read(tid)))
	}, "idx", "out")
	require.NoError(t, err)
	ks, err := device.Compile(d, sh)
	require.NoError(t, err)
	defer ks.Close()
	ids := make([]uint32, 32)
	for i := range ids {
		ids[i] = uint32(31 - i)
	}
	bi, bo := upload(t, d, ids), upload(t, d, make([]uint32, 32))
	run(t, d, ks.Dispatch([3]uint32{32}, bi, bo))
	require.Equal(t, ids, download(t, d, bo), "the shared array reversed")
	ids[7] = 32
	run(t, d, bi.Upload(ids))
	err = runErr(t, d, ks.Dispatch([3]uint32{32}, bi, bo))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "shared variable")
	require.ErrorContains(t, err, "index 32 out of range [0, 32)")
	require.ErrorContains(t, err, "thread [7 0 0]")
}

// TestLoopInvariants: expressions hoisted out of loops give the loop's
// results, and an invariant integer division the loop guards is not
// evaluated early (it would divide by zero).
func TestLoopInvariants(t *testing.T) {
	d := openPlain(t)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, n, q dsl.U32, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		base := i.Mul(dsl.U(3)).Add(n) // invariant: hoisted
		acc := dsl.NewVar(k, dsl.U(0))
		dsl.Range(k, dsl.U(0), n, func(j dsl.U32) {
			acc.Set(acc.Get().Add(base).Add(j)) // acc varies: not hoisted
			k.If(q.Ne(dsl.U(0)), func() {
				acc.Set(acc.Get().Add(n.Div(q))) // guarded: never evaluated with q == 0
			})
		})
		out.Write(i, acc.Get())
	}, "n", "q", "out")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	out := upload(t, d, make([]uint32, 64))
	for _, q := range []uint32{0, 3} {
		run(t, d, k.Dispatch([3]uint32{64}, uint32(10), q, out))
		got := download(t, d, out)
		for i := range got {
			want := uint32(0)
			for j := range uint32(10) {
				want += uint32(i)*3 + 10 + j
				if q != 0 {
					want += 10 / q
				}
			}
			require.Equal(t, want, got[i], "q=%d thread %d", q, i)
		}
	}
}

// TestFaultNamesSource: for a kernel compiled from Go source the fault is
// a *device.KernelFault naming the faulting statement's file:line:col.
func TestFaultNamesSource(t *testing.T) {
	testenv.NeedGoCommand(t)
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel")
	require.Empty(t, errs)
	var saxpy *gokernel.Kernel
	for _, k := range ks {
		if k.Name == "Saxpy" {
			saxpy = k
		}
	}
	require.NotNil(t, saxpy)
	d := openPlain(t)
	k, err := device.Compile(d, saxpy.Func)
	require.NoError(t, err)
	defer k.Close()
	x, y := upload(t, d, make([]float32, 10)), upload(t, d, make([]float32, 20)) // x too short
	err = runErr(t, d, k.Dispatch([3]uint32{20}, float32(2), x, y))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	var f *device.KernelFault
	require.ErrorAs(t, err, &f)
	require.Equal(t, device.KernelFault{Kernel: "Saxpy", Kind: device.FaultBufferIndex, What: "argument 1 (x)", Index: 10, Len: 10,
		Thread: [3]uint32{10, 0, 0}, Pos: f.Pos, Count: 1}, *f)
	require.Regexp(t, `/testdata/gokernel/basic\.go:15:3$`, f.Pos)
	require.Regexp(t, `basic\.go:15:3: kernel Saxpy: thread \[10 0 0\]: argument 1 \(x\): index 10 out of range \[0, 10\)`, err.Error())
}

// TestFaultWithValidation: a fault reported by Synchronize still orders the
// stream's work before the host, so the validation wrapper lets the
// buffers it used be used on another stream (it took the stream as still
// running before, and refused that as a hazard).
func TestFaultWithValidation(t *testing.T) {
	d := open(t)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, src, dst dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		dst.Write(i, src.Read(i.Add(dsl.U(1))))
	}, "src", "dst")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	src, dst := upload(t, d, make([]uint32, 100)), upload(t, d, make([]uint32, 100))
	err = runErr(t, d, k.Dispatch([3]uint32{100}, src, dst))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "index 100 out of range")
	run(t, d, k.Dispatch([3]uint32{99}, src, dst)) // on another stream

	// The same after a callback that panicked.
	q, err := device.Open(context.Background(), "cpu", device.WithValidation(), quiet())
	require.NoError(t, err)
	defer func() { require.NoError(t, q.Close()) }()
	b, err := device.NewBuffer[uint32](q, 4)
	require.NoError(t, err)
	defer b.Close()
	s1, err := q.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s1.Close()
	l := &device.CommandList{Commands: []device.Command{b.Upload([]uint32{1, 2, 3, 4})}}
	l.OnDone(func() { panic("boom") })
	require.NoError(t, s1.SubmitList(l))
	require.ErrorIs(t, s1.Synchronize(ctxT(t)), device.ErrPanicked)
	got := make([]uint32, 4)
	run(t, q, b.Download(got))
	require.Equal(t, []uint32{1, 2, 3, 4}, got)
}
