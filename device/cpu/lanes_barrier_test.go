package cpu_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// TestLaneEngineBarrierPrograms: kernels with shared memory and barriers in
// uniform control flow run on the lane engine, a whole block as one batch,
// and give what the per-thread engine and the CPU references give, over
// inputs that are not whole blocks.
func TestLaneEngineBarrierPrograms(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	r := rand.New(rand.NewPCG(7, 8))
	u32s := func(n int, lim uint32) []uint32 {
		v := make([]uint32, n)
		for i := range v {
			v[i] = r.Uint32N(lim)
		}
		return v
	}
	// run dispatches size threads of both kernels, each over its own copy
	// of the buffers, and returns each buffer's contents after.
	run := func(t *testing.T, pt, ln *device.Kernel, size [3]uint32, uniforms []any, bufs ...[]uint32) (got1, got2 [][]uint32) {
		t.Helper()
		for i, k := range []*device.Kernel{pt, ln} {
			var args []any
			args = append(args, uniforms...)
			var cmds []device.Command
			var outs [][]uint32
			for _, b := range bufs {
				bb := newBuf(t, d, b)
				args = append(args, bb)
				o := make([]uint32, len(b))
				outs = append(outs, o)
				cmds = append(cmds, bb.Download(o))
			}
			require.NoError(t, s.Submit(append([]device.Command{k.Dispatch(size, args...)}, cmds...)...))
			require.NoError(t, s.Synchronize(ctxT(t)))
			if i == 0 {
				got1 = outs
			} else {
				got2 = outs
			}
		}
		return got1, got2
	}
	t.Run("reduce", func(t *testing.T) {
		pt, ln := bothEngines(t, d, must(programs.Reduce()))
		const n = 3 * programs.ReduceBlock
		in := u32s(n, 1000)
		g1, g2 := run(t, pt, ln, [3]uint32{n}, nil, in, make([]uint32, 3))
		require.Equal(t, programs.ReduceRef(in), g2[1])
		require.Equal(t, g1, g2)
	})
	t.Run("scan", func(t *testing.T) {
		pt, ln := bothEngines(t, d, must(programs.Scan()))
		const n = 2 * programs.ReduceBlock
		in := make([]float32, n)
		for i := range in {
			in[i] = float32(r.IntN(9)) // small integers: exact sums
		}
		b := newBuf(t, d, in)
		o1, o2 := newBuf(t, d, make([]float32, n)), newBuf(t, d, make([]float32, n))
		got1, got2 := make([]float32, n), make([]float32, n)
		require.NoError(t, s.Submit(pt.Dispatch([3]uint32{n}, b, o1), ln.Dispatch([3]uint32{n}, b, o2), o1.Download(got1), o2.Download(got2)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.Equal(t, programs.ScanRef(in), got2)
		require.Equal(t, got1, got2)
	})
	t.Run("histogram", func(t *testing.T) {
		pt, ln := bothEngines(t, d, must(programs.Histogram()))
		const n = 1000 // in 16 blocks of 64, the last one's last threads past the input
		in := u32s(n, 1<<20)
		g1, g2 := run(t, pt, ln, [3]uint32{1024}, nil, in, make([]uint32, programs.HistogramBins))
		require.Equal(t, programs.HistogramRef(in), g2[1])
		require.Equal(t, g1, g2)
	})
	t.Run("matmul", func(t *testing.T) {
		pt, ln := bothEngines(t, d, must(programs.MatMul()))
		const n = 2 * programs.Tile
		a, b := make([]float32, n*n), make([]float32, n*n)
		for i := range a {
			a[i], b[i] = float32(r.IntN(5)), float32(r.IntN(5)-2)
		}
		ba, bb := newBuf(t, d, a), newBuf(t, d, b)
		c1, c2 := newBuf(t, d, make([]float32, n*n)), newBuf(t, d, make([]float32, n*n))
		got1, got2 := make([]float32, n*n), make([]float32, n*n)
		require.NoError(t, s.Submit(pt.Dispatch([3]uint32{n, n}, uint32(n), ba, bb, c1), ln.Dispatch([3]uint32{n, n}, uint32(n), ba, bb, c2),
			c1.Download(got1), c2.Download(got2)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.Equal(t, programs.MatMulRef(n, a, b), got2)
		require.Equal(t, got1, got2)
	})
	t.Run("atomics", func(t *testing.T) {
		pt, ln := bothEngines(t, d, must(programs.Atomics[uint32]()))
		const n = programs.AtomicBlock // one block: sharedOut is that block's
		in := u32s(n, 1<<16)
		init := []uint32{5, 9, ^uint32(0), 0, 3, ^uint32(0), 0}
		g1, g2 := run(t, pt, ln, [3]uint32{n}, nil, in, init, append([]uint32(nil), init...), make([]uint32, len(init)))
		want := programs.AtomicsRef(in, init)
		require.Equal(t, want, g2[2], "buffer atomics")
		require.Equal(t, want, g2[3], "shared atomics")
		require.Equal(t, g1, g2)
	})
	t.Run("float-atomics-shared", func(t *testing.T) {
		pt, ln := bothEngines(t, d, must(programs.FloatAtomicsShared()))
		const n = programs.AtomicBlock
		in := make([]float32, n)
		for i := range in {
			in[i] = float32(r.IntN(7) - 3)
		}
		b := newBuf(t, d, in)
		o1, o2 := newBuf(t, d, make([]float32, 4)), newBuf(t, d, make([]float32, 4))
		got1, got2 := make([]float32, 4), make([]float32, 4)
		require.NoError(t, s.Submit(pt.Dispatch([3]uint32{n}, b, o1), ln.Dispatch([3]uint32{n}, b, o2), o1.Download(got1), o2.Download(got2)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.Equal(t, got1, got2)
	})
	t.Run("go-subset-reverse", func(t *testing.T) {
		pt, ln := bothEngines(t, d, hostKernel(t, "HostReverse"))
		const n = 3 * 64
		in := u32s(n, 1000)
		g1, g2 := run(t, pt, ln, [3]uint32{n}, nil, in)
		for i := range in {
			require.Equal(t, in[i/64*64+63-i%64], g2[0][i])
		}
		require.Equal(t, g1, g2)
	})
}

// barrierKernel builds a 1-D kernel of 64 threads with a 64-element shared
// array, an argument k and buffers in and out, whose body body writes.
func barrierKernel(t *testing.T, body func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32])) *ir.Function {
	t.Helper()
	f, err := dsl.Kernel1D(64, func(k *dsl.K, kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
		s := dsl.NewShared[dsl.U32](k, 64)
		body(k, s, kk, in, out)
	})
	require.NoError(t, err)
	return f
}

// TestLaneEngineBarrierUniformity: a barrier runs on the lane engine only
// where every enclosing branch and loop is provably uniform over the block
// (conditions of uniforms, block ids, sizes and variables assigned only such
// values in such control flow, no break or continue taken by some lanes
// only); anywhere else the kernel keeps the per-thread engine, saying why.
// Where the lane engine takes it, both engines give the same results.
func TestLaneEngineBarrierUniformity(t *testing.T) {
	rotate := func(k *dsl.K, s dsl.Shared[dsl.U32], in, out dsl.Buf[dsl.U32]) {
		tid, i := k.ThreadID().X(), k.DispatchID().X()
		s.Write(tid, in.Read(i))
		k.Barrier()
		out.Write(i, s.Read(tid.Add(dsl.U(1)).And(dsl.U(63))))
		k.Barrier()
	}
	cases := []struct {
		name  string
		body  func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32])
		lanes bool
	}{
		{"uniform loop on an argument", func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			dsl.Range(k, dsl.U(0), kk, func(dsl.U32) { rotate(k, s, in, out) })
		}, true},
		{"uniform while with a uniform break", func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			n := dsl.NewVar(k, kk)
			k.While(func() dsl.Bool { return n.Get().Gt(dsl.U(0)) }, func() {
				k.If(n.Get().Eq(dsl.U(2)), k.Break)
				rotate(k, s, in, out)
				n.Set(n.Get().Sub(dsl.U(1)))
			})
		}, true},
		{"an early return by some lanes", func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			k.If(k.DispatchID().X().Ge(dsl.U(140)), k.Return)
			rotate(k, s, in, out)
		}, true},
		{"an if on the block id", func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			k.If(k.BlockID().X().Lt(kk), func() { rotate(k, s, in, out) })
		}, true},
		{"an if on the thread id", func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			k.If(k.ThreadID().X().Lt(kk), func() { rotate(k, s, in, out) })
		}, false},
		{"an if on a variable derived from the thread id", func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			a := dsl.NewVar(k, kk)
			b := dsl.NewVar(k, dsl.U(0))
			dsl.Range(k, dsl.U(0), dsl.U(2), func(dsl.U32) {
				b.Set(a.Get().Add(dsl.U(1))) // b depends on a, which is set after it
				a.Set(k.ThreadID().X().And(dsl.U(1)))
			})
			k.If(b.Get().Gt(dsl.U(1)), func() { rotate(k, s, in, out) })
		}, false},
		{"an if on a variable set under a divergent branch", func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			a := dsl.NewVar(k, dsl.U(0))
			k.If(k.ThreadID().X().Eq(dsl.U(5)), func() { a.Set(dsl.U(1)) })
			k.If(a.Get().Eq(dsl.U(0)), func() { rotate(k, s, in, out) })
		}, false},
		{"an if on a value read from shared memory", func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			k.If(s.Read(dsl.U(0)).Eq(dsl.U(0)), func() { rotate(k, s, in, out) })
		}, false},
		{"a loop on the thread id", func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			dsl.Range(k, dsl.U(0), k.ThreadID().X().And(dsl.U(3)), func(dsl.U32) { rotate(k, s, in, out) })
		}, false},
		{"a uniform loop left early by some lanes", func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			dsl.Range(k, dsl.U(0), kk, func(j dsl.U32) {
				k.If(k.ThreadID().X().Lt(j), k.Break)
				rotate(k, s, in, out)
			})
		}, false},
		{"a uniform loop some lanes continue early", func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			dsl.Range(k, dsl.U(0), kk, func(j dsl.U32) {
				k.If(k.ThreadID().X().Lt(j), k.Continue)
				rotate(k, s, in, out)
			})
		}, false},
	}
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	const n = 256 // 4 blocks
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i*37 + 1)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := barrierKernel(t, c.body)
			on, why, err := cpu.LaneEngine(f)
			require.NoError(t, err)
			if !c.lanes {
				require.False(t, on, "the lane engine took it")
				require.Contains(t, why, "barrier in control flow not provably uniform")
				return
			}
			require.True(t, on, why)
			pt, ln := bothEngines(t, d, f)
			bin := newBuf(t, d, in)
			o1, o2 := newBuf(t, d, make([]uint32, n)), newBuf(t, d, make([]uint32, n))
			got1, got2 := make([]uint32, n), make([]uint32, n)
			require.NoError(t, s.Submit(pt.Dispatch([3]uint32{n}, uint32(3), bin, o1), ln.Dispatch([3]uint32{n}, uint32(3), bin, o2), o1.Download(got1), o2.Download(got2)))
			require.NoError(t, s.Synchronize(ctxT(t)))
			require.Equal(t, got1, got2)
			require.NotEqual(t, make([]uint32, n), got2, "the kernel wrote")
		})
	}
}

// TestLaneEngineSharedFault: an index past a shared array on the lane
// engine fails the dispatch with the per-thread engine's error, word for
// word (the shared variable, index, range and thread), for a store, a load
// and an atomic.
func TestLaneEngineSharedFault(t *testing.T) {
	d := openPlain(t)
	s := stream(t, d, device.StreamCompute)
	kernels := map[string]*ir.Function{
		"store": barrierKernel(t, func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			s.Write(k.ThreadID().X().Add(kk), dsl.U(1))
			k.Barrier()
		}),
		"load": barrierKernel(t, func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			tid := k.ThreadID().X()
			s.Write(tid, dsl.U(1))
			k.Barrier()
			out.Write(k.DispatchID().X(), s.Read(tid.Add(kk)))
		}),
		"atomic": barrierKernel(t, func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
			s.Atomic(ir.OpAtomicAdd, k.ThreadID().X().Add(kk), dsl.U(1))
		}),
	}
	for name, f := range kernels {
		t.Run(name, func(t *testing.T) {
			pt, ln := bothEngines(t, d, f)
			in, out := newBuf(t, d, make([]uint32, 64)), newBuf(t, d, make([]uint32, 64))
			var errs [2]error
			for i, k := range []*device.Kernel{pt, ln} { // one block: its first fault is the thread's
				require.NoError(t, s.Submit(k.Dispatch([3]uint32{64}, uint32(1), in, out)))
				errs[i] = s.Synchronize(ctxT(t))
				require.ErrorIs(t, errs[i], device.ErrInvalidArgument)
			}
			var f *device.KernelFault
			require.ErrorAs(t, errs[1], &f)
			require.Equal(t, device.FaultSharedIndex, f.Kind)
			require.Equal(t, [3]uint32{63, 0, 0}, f.Thread)
			require.Contains(t, errs[1].Error(), "thread [63 0 0]: shared variable shared1: index 64 out of range [0, 64)")
			require.Equal(t, errs[0].Error(), errs[1].Error())
		})
	}
}

// TestLaneEngineSharedSubsets: shared loads, stores and atomic adds whose
// index the access checks itself run on every lane of a block and on
// scattered subsets of it (contended adds on a few bins among them), and an
// if taken by every lane whose body returns from one, as the per-thread
// engine runs them; an index past the array on one lane of a subset fails
// at that lane. With the shared index an i32 (sign-extended; -1 is past
// the array) as with a u32.
func TestLaneEngineSharedSubsets(t *testing.T) {
	t.Run("u32", func(t *testing.T) { testSharedSubsets(t, false) })
	t.Run("i32", func(t *testing.T) { testSharedSubsets(t, true) })
}

func testSharedSubsets(t *testing.T, i32 bool) {
	d := openPlain(t)
	s := stream(t, d, device.StreamCompute)
	f := barrierKernel(t, func(k *dsl.K, s dsl.Shared[dsl.U32], kk dsl.U32, in, out dsl.Buf[dsl.U32]) {
		tid, id := k.ThreadID().X(), k.DispatchID().X()
		v := in.Read(id)
		s.Write(tid, tid.Mul(dsl.U(3)))
		k.Barrier()
		k.If(v.And(dsl.U(1)).Ne(dsl.U(0)), func() {
			s.Atomic(ir.OpAtomicAdd, v.Shr(dsl.U(8)).Rem(dsl.U(4)), dsl.U(5)) // four bins, many lanes each
		})
		k.Barrier()
		k.If(v.And(dsl.U(2)).Ne(dsl.U(0)), func() {
			out.Write(id, s.Read(v.Shr(dsl.U(2)).Rem(dsl.U(64))))
		}).Else(func() {
			out.Write(id, s.Read(tid.Add(kk)))
		})
		k.Barrier()
		k.If(v.And(dsl.U(4)).Ne(dsl.U(0)), func() {
			k.If(v.And(dsl.U(8)).Ne(dsl.U(0)), func() { s.Write(tid, v) }) // some of some lanes
		})
		k.Barrier()
		k.If(tid.Lt(dsl.U(64)), func() { // every lane
			k.If(tid.Eq(dsl.U(5)), func() { k.Return() })
		})
		out.Write(id, out.Read(id).Add(s.Read(tid)))
	})
	if i32 {
		n := 0
		ir.WalkExprs(f, func(e ir.Expr) {
			if ix, ok := e.(*ir.Index); ok {
				if r, ok := ix.X.(*ir.Ref); ok && r.Var.Kind == ir.VarShared {
					ix.I = &ir.Cast{X: ix.I, T: ir.TI32}
					n++
				}
			}
		})
		require.Equal(t, 6, n, "the shared accesses")
	}
	pt, ln := bothEngines(t, d, f)
	r := rand.New(rand.NewPCG(3, 4))
	const n = 4 * 64
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	in[64] |= 1 // block 1's first lane adds; ...
	in[127] = 0 // and its last neither adds nor loads scattered
	in[0] &^= 2 // block 0's first lane loads by kk
	b := newBuf(t, d, in)
	run := func(k *device.Kernel, size, kk uint32) ([]uint32, error) {
		o := newBuf(t, d, make([]uint32, n))
		got := make([]uint32, n)
		if err := s.Submit(k.Dispatch([3]uint32{size}, kk, b, o), o.Download(got)); err != nil {
			return nil, err
		}
		return got, s.Synchronize(ctxT(t))
	}
	want, err := run(pt, n, 0)
	require.NoError(t, err)
	got, err := run(ln, n, 0)
	require.NoError(t, err)
	require.Equal(t, want, got)
	ref := make([]uint32, n) // the kernel as Go, kk 0
	for b0 := 0; b0 < n; b0 += 64 {
		var sh [64]uint32
		for j := range sh {
			sh[j] = uint32(j) * 3
		}
		blk := in[b0 : b0+64]
		for _, v := range blk {
			if v&1 != 0 {
				sh[v>>8%4] += 5
			}
		}
		for j, v := range blk {
			ref[b0+j] = sh[j]
			if v&2 != 0 {
				ref[b0+j] = sh[v>>2%64]
			}
		}
		for j, v := range blk {
			if v&12 == 12 {
				sh[j] = v
			}
		}
		for j := range blk {
			if j != 5 {
				ref[b0+j] += sh[j]
			}
		}
	}
	require.Equal(t, ref, got)
	// A fault on the else side's lanes only, in one block: the first of
	// them past the array.
	var errs [2]error
	kk := uint32(40) // lanes 24.. are past the array
	if i32 {
		kk = ^uint32(0) // lane 0 is at -1
	}
	for i, k := range []*device.Kernel{pt, ln} {
		_, errs[i] = run(k, 64, kk)
		require.ErrorIs(t, errs[i], device.ErrInvalidArgument)
	}
	var kf *device.KernelFault
	require.ErrorAs(t, errs[1], &kf)
	require.Equal(t, device.FaultSharedIndex, kf.Kind)
	require.Equal(t, errs[0].Error(), errs[1].Error())
	if i32 {
		require.Contains(t, errs[1].Error(), "thread [0 0 0]: shared variable shared1: index -1 out of range [0, 64)")
	}
}
