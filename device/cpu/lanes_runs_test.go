package cpu_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestLaneBoundsByEnds: an if comparing the x id (dispatch or thread) of a
// one-dimensional block with a uniform, each way round, with and without
// an else, is decided by a batch's first and last lanes where they agree,
// and lane by lane where the bound falls inside the batch; every bound and
// dispatch size gives what the per-thread engine and Go give, with blocks
// of 64 (one batch) and two batches of cpu.LaneWidth.
func TestLaneBoundsByEnds(t *testing.T) {
	d := openPlain(t)
	s := stream(t, d, device.StreamCompute)
	type cond struct {
		name string
		f    func(id, m dsl.U32) dsl.Bool
		g    func(id, m uint32) bool
	}
	conds := []cond{
		{"id<m", func(id, m dsl.U32) dsl.Bool { return id.Lt(m) }, func(id, m uint32) bool { return id < m }},
		{"id<=m", func(id, m dsl.U32) dsl.Bool { return id.Le(m) }, func(id, m uint32) bool { return id <= m }},
		{"id>m", func(id, m dsl.U32) dsl.Bool { return id.Gt(m) }, func(id, m uint32) bool { return id > m }},
		{"id>=m", func(id, m dsl.U32) dsl.Bool { return id.Ge(m) }, func(id, m uint32) bool { return id >= m }},
		{"m>id", func(id, m dsl.U32) dsl.Bool { return m.Gt(id) }, func(id, m uint32) bool { return m > id }},
		{"m<=id", func(id, m dsl.U32) dsl.Bool { return m.Le(id) }, func(id, m uint32) bool { return m <= id }},
	}
	for _, block := range []int{64, 2 * cpu.LaneWidth} {
		for _, thread := range []bool{false, true} {
			for _, c := range conds {
				for _, els := range []bool{false, true} {
					name := fmt.Sprintf("block%d/thread%v/%s/else%v", block, thread, c.name, els)
					t.Run(name, func(t *testing.T) {
						f, err := dsl.Kernel1D(block, func(k *dsl.K, m dsl.U32, out dsl.Buf[dsl.U32]) {
							i := k.DispatchID().X()
							id := i
							if thread {
								id = k.ThreadID().X()
							}
							ch := k.If(c.f(id, m), func() { out.Write(i, i.Add(dsl.U(1))) })
							if els {
								ch.Else(func() { out.Write(i, dsl.U(7)) })
							}
						}, "m", "out")
						require.NoError(t, err)
						nd, err := cpu.LaneEndsDecided(f)
						require.NoError(t, err)
						require.Equal(t, 1, nd, "the if is decided by a batch's ends")
						pt, ln := bothEngines(t, d, f)
						const n = 1000 // not whole blocks
						for _, m := range []uint32{0, 1, 63, 64, 100, 127, 128, 129, cpu.LaneWidth - 1, cpu.LaneWidth, cpu.LaneWidth + 1, 500, 999, 1000, 5000} {
							var got [2][]uint32
							for e, k := range []*device.Kernel{pt, ln} {
								o := newBuf(t, d, make([]uint32, n))
								got[e] = make([]uint32, n)
								require.NoError(t, s.Submit(k.Dispatch([3]uint32{n}, m, o), o.Download(got[e])))
								require.NoError(t, s.Synchronize(ctxT(t)))
							}
							want := make([]uint32, n)
							for i := range want {
								id := uint32(i)
								if thread {
									id = uint32(i % block)
								}
								switch {
								case c.g(id, m):
									want[i] = uint32(i) + 1
								case els:
									want[i] = 7
								}
							}
							require.Equal(t, want, got[0], "per-thread engine, m %d", m)
							require.Equal(t, want, got[1], "lane engine, m %d", m)
						}
					})
				}
			}
		}
	}
	// Not of that shape: a signed id, a bound that varies by lane, ==.
	for name, body := range map[string]func(k *dsl.K, m dsl.U32, out dsl.Buf[dsl.U32]){
		"varying": func(k *dsl.K, m dsl.U32, out dsl.Buf[dsl.U32]) {
			i := k.DispatchID().X()
			k.If(i.Lt(out.Read(i)), func() { out.Write(i, m) })
		},
		"eq": func(k *dsl.K, m dsl.U32, out dsl.Buf[dsl.U32]) {
			i := k.DispatchID().X()
			k.If(i.Eq(m), func() { out.Write(i, m) })
		},
	} {
		f, err := dsl.Kernel1D(64, body, "m", "out")
		require.NoError(t, err)
		nd, err := cpu.LaneEndsDecided(f)
		require.NoError(t, err)
		require.Zero(t, nd, name)
	}
}

// TestLaneRunFaults: shared loads and stores and deferred adds at the
// thread id run as one copy where every lane's element is in range; where
// one is not, the lanes' own checks fault at the first, naming the thread,
// the variable or argument and the index word for word as the per-thread
// engine does. Shared atomics whose old values go nowhere and ones whose
// old values are read give the per-thread engine's results.
func TestLaneRunFaults(t *testing.T) {
	d := openPlain(t)
	s := stream(t, d, device.StreamCompute)
	kernels := map[string]struct {
		f    func(k *dsl.K, in, out dsl.Buf[dsl.U32])
		want string
		tid  uint32
		nout int
	}{
		"store": {func(k *dsl.K, in, out dsl.Buf[dsl.U32]) {
			sh := dsl.NewShared[dsl.U32](k, 40)
			sh.Write(k.ThreadID().X(), dsl.U(1))
			k.Barrier()
		}, "shared variable shared1: index 40 out of range [0, 40)", 40, 64},
		"masked add": {func(k *dsl.K, in, out dsl.Buf[dsl.U32]) {
			sh := dsl.NewShared[dsl.U32](k, 40)
			sh.Atomic(ir.OpAtomicAdd, k.ThreadID().X().Rem(dsl.U(64)), dsl.U(1)) // x % 64 masked in the add's loop
			k.Barrier()
		}, "shared variable shared1: index 40 out of range [0, 40)", 40, 64},
		"load": {func(k *dsl.K, in, out dsl.Buf[dsl.U32]) {
			sh := dsl.NewShared[dsl.U32](k, 64)
			big := dsl.NewShared[dsl.U32](k, 50)
			tid := k.ThreadID().X()
			sh.Write(tid, tid)
			k.Barrier()
			out.Write(k.DispatchID().X(), sh.Read(tid).Add(big.Read(tid)))
		}, "shared variable shared2: index 50 out of range [0, 50)", 50, 64},
		"add": {func(k *dsl.K, in, out dsl.Buf[dsl.U32]) {
			sh := dsl.NewShared[dsl.U32](k, 64)
			tid := k.ThreadID().X()
			sh.Write(tid, tid)
			k.Barrier()
			out.AtomicAdd(tid, sh.Read(tid)) // out has 20 words: the adds are deferred, checked where they are
		}, "argument 1 (out): index 20 out of range [0, 20)", 20, 20},
	}
	for name, c := range kernels {
		t.Run(name, func(t *testing.T) {
			f, err := dsl.Kernel1D(64, c.f, "in", "out")
			require.NoError(t, err)
			pt, ln := bothEngines(t, d, f)
			var errs [2]error
			for i, k := range []*device.Kernel{pt, ln} { // one block: its first fault is the thread's
				in, out := newBuf(t, d, make([]uint32, 64)), newBuf(t, d, make([]uint32, c.nout))
				require.NoError(t, s.Submit(k.Dispatch([3]uint32{64}, in, out)))
				errs[i] = s.Synchronize(ctxT(t))
				require.ErrorIs(t, errs[i], device.ErrInvalidArgument)
			}
			var kf *device.KernelFault
			require.ErrorAs(t, errs[1], &kf)
			require.Equal(t, [3]uint32{c.tid, 0, 0}, kf.Thread)
			require.Contains(t, errs[1].Error(), c.want)
			require.Equal(t, errs[0].Error(), errs[1].Error())
		})
	}

	// In range: the runs' results, with shared atomics (one addend, old
	// values unread; a lane's addend, old values written out).
	f, err := dsl.Kernel1D(64, func(k *dsl.K, in, out, bins dsl.Buf[dsl.U32]) {
		sh := dsl.NewShared[dsl.U32](k, 64)
		cnt := dsl.NewShared[dsl.U32](k, 8)
		tid, i := k.ThreadID().X(), k.DispatchID().X()
		sh.Write(tid, in.Read(i))
		k.If(tid.Lt(dsl.U(8)), func() { cnt.Write(tid, tid) })
		k.Barrier()
		v := sh.Read(tid.Xor(dsl.U(1)))
		cnt.Atomic(ir.OpAtomicAdd, v.Rem(dsl.U(8)), dsl.U(1))
		k.Barrier() // the adds of old values in thread order on both engines
		old := cnt.Atomic(ir.OpAtomicAdd, v.Shr(dsl.U(3)).Rem(dsl.U(8)), tid)
		k.Barrier()
		out.Write(i, old.Add(sh.Read(tid)))
		k.If(tid.Lt(dsl.U(8)), func() { bins.AtomicAdd(tid, cnt.Read(tid)) })
	}, "in", "out", "bins")
	require.NoError(t, err)
	pt, ln := bothEngines(t, d, f)
	const n = 64 * 9
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i*2654435761) >> 7
	}
	var outs, binss [2][]uint32
	for e, k := range []*device.Kernel{pt, ln} {
		bi, o, b := newBuf(t, d, in), newBuf(t, d, make([]uint32, n)), newBuf(t, d, make([]uint32, 8))
		outs[e], binss[e] = make([]uint32, n), make([]uint32, 8)
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{n}, bi, o, b), o.Download(outs[e]), b.Download(binss[e])))
		require.NoError(t, s.Synchronize(ctxT(t)))
	}
	wantOut, wantBins := make([]uint32, n), make([]uint32, 8)
	for b0 := 0; b0 < n; b0 += 64 {
		blk := in[b0 : b0+64]
		var cnt [8]uint32
		for j := range cnt {
			cnt[j] = uint32(j)
		}
		for j := range blk {
			cnt[blk[j^1]%8]++
		}
		for j := range blk { // in thread order, as the per-thread engine's block runs
			p := &cnt[blk[j^1]>>3%8]
			wantOut[b0+j] = *p + blk[j]
			*p += uint32(j)
		}
		for j, c := range cnt {
			wantBins[j] += c
		}
	}
	require.Equal(t, wantOut, outs[0], "per-thread engine")
	require.Equal(t, wantOut, outs[1], "lane engine")
	require.Equal(t, wantBins, binss[0], "per-thread engine")
	require.Equal(t, wantBins, binss[1], "lane engine")
}

// TestLaneSubstitution: a local assigned a load and read once, in the next
// statement (a store, a shared atomic, a deferred add), is compiled as the
// load within that statement: the results are the per-thread engine's and
// Go's, and a fault of the load names its own statement's position, the
// thread and the index word for word as the per-thread engine does. A
// local read twice, or whose next statement can fault in its operands
// (a division by a loaded value), is not substituted.
func TestLaneSubstitution(t *testing.T) {
	d := openPlain(t)
	s := stream(t, d, device.StreamCompute)
	var loadLine string
	f, err := dsl.Kernel1D(64, func(k *dsl.K, kk dsl.U32, in, out, bins dsl.Buf[dsl.U32]) {
		sh := dsl.NewShared[dsl.U32](k, 16)
		tid, i := k.ThreadID().X(), k.DispatchID().X()
		k.If(tid.Lt(dsl.U(16)), func() { sh.Write(tid, dsl.U(0)) })
		k.Barrier()
		v := in.Read(i.Add(kk))
		_, file, line, _ := runtime.Caller(0)
		loadLine = fmt.Sprintf("%s:%d", file, line-1)
		out.Write(i, v.Mul(dsl.U(3)).Add(dsl.U(1)))
		w := in.Read(i)
		sh.Atomic(ir.OpAtomicAdd, w.Rem(dsl.U(16)), dsl.U(1))
		k.Barrier()
		k.If(tid.Lt(dsl.U(16)), func() {
			c := sh.Read(tid)
			bins.AtomicAdd(tid, c)
		})
	}, "kk", "in", "out", "bins")
	require.NoError(t, err)
	ns, err := cpu.LaneSubstituted(f)
	require.NoError(t, err)
	require.Equal(t, 3, ns, "v, w and c are compiled at their reads")
	pt, ln := bothEngines(t, d, f)
	const n = 64 * 7
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i*2654435761) >> 5
	}
	var outs, binss [2][]uint32
	for e, k := range []*device.Kernel{pt, ln} {
		bi, o, b := newBuf(t, d, in), newBuf(t, d, make([]uint32, n)), newBuf(t, d, make([]uint32, 16))
		outs[e], binss[e] = make([]uint32, n), make([]uint32, 16)
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{n}, uint32(0), bi, o, b), o.Download(outs[e]), b.Download(binss[e])))
		require.NoError(t, s.Synchronize(ctxT(t)))
	}
	wantOut, wantBins := make([]uint32, n), make([]uint32, 16)
	for i, v := range in {
		wantOut[i] = v*3 + 1
		wantBins[v%16]++
	}
	require.Equal(t, wantOut, outs[0], "per-thread engine")
	require.Equal(t, wantOut, outs[1], "lane engine")
	require.Equal(t, wantBins, binss[0], "per-thread engine")
	require.Equal(t, wantBins, binss[1], "lane engine")

	// kk 1: the last thread's load of v is past in (one block: its first
	// fault is the thread's).
	var errs [2]error
	for e, k := range []*device.Kernel{pt, ln} {
		bi, o, b := newBuf(t, d, in[:64]), newBuf(t, d, make([]uint32, 64)), newBuf(t, d, make([]uint32, 16))
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{64}, uint32(1), bi, o, b)))
		errs[e] = s.Synchronize(ctxT(t))
		require.ErrorIs(t, errs[e], device.ErrInvalidArgument)
	}
	var kf *device.KernelFault
	require.ErrorAs(t, errs[1], &kf)
	require.Equal(t, [3]uint32{63, 0, 0}, kf.Thread)
	require.Contains(t, errs[1].Error(), "argument 1 (in): index 64 out of range [0, 64)")
	require.Equal(t, loadLine, kf.Pos, "the load's statement, not its reader's")
	require.Equal(t, errs[0].Error(), errs[1].Error(), "the load's own position, as on the per-thread engine")

	for name, body := range map[string]func(k *dsl.K, kk dsl.U32, in, out, bins dsl.Buf[dsl.U32]){
		"read twice": func(k *dsl.K, kk dsl.U32, in, out, bins dsl.Buf[dsl.U32]) {
			i := k.DispatchID().X()
			v := in.Read(i)
			out.Write(i, v.Add(v))
		},
		"division by a load": func(k *dsl.K, kk dsl.U32, in, out, bins dsl.Buf[dsl.U32]) {
			i := k.DispatchID().X()
			out.Write(i, in.Read(i).Div(bins.Read(i)))
		},
	} {
		f, err := dsl.Kernel1D(64, body, "kk", "in", "out", "bins")
		require.NoError(t, err)
		ns, err := cpu.LaneSubstituted(f)
		require.NoError(t, err)
		require.Zero(t, ns, name)
	}
}

// TestLaneBinnedWords: a shared atomic add at in[id] % 2^k (a histogram's
// binning) reads the run of words itself where the whole run is in the
// buffer and every masked index in the array; where the run passes the
// buffer's end it falls back to the load, which faults at the first lane
// past it as the per-thread engine does; an array shorter than the mask
// checks each index.
func TestLaneBinnedWords(t *testing.T) {
	d := openPlain(t)
	s := stream(t, d, device.StreamCompute)
	for _, bins := range []int{16, 12} { // 12: x % 16 may pass the array
		f, err := dsl.Kernel1D(64, func(k *dsl.K, in, out dsl.Buf[dsl.U32]) {
			sh := dsl.NewShared[dsl.U32](k, bins)
			tid, i := k.ThreadID().X(), k.DispatchID().X()
			w := in.Read(i)
			sh.Atomic(ir.OpAtomicAdd, w.Rem(dsl.U(16)), dsl.U(1))
			k.Barrier()
			out.Write(i, sh.Read(tid.Rem(dsl.U(uint32(bins)))))
		}, "in", "out")
		require.NoError(t, err)
		pt, ln := bothEngines(t, d, f)
		const n = 64 * 5
		in := make([]uint32, n)
		for i := range in {
			in[i] = uint32(i*2654435761) >> 9
			if bins == 12 {
				in[i] %= 12 // in range
			}
		}
		var outs [2][]uint32
		for e, k := range []*device.Kernel{pt, ln} {
			bi, o := newBuf(t, d, in), newBuf(t, d, make([]uint32, n))
			outs[e] = make([]uint32, n)
			require.NoError(t, s.Submit(k.Dispatch([3]uint32{n}, bi, o), o.Download(outs[e])))
			require.NoError(t, s.Synchronize(ctxT(t)))
		}
		want := make([]uint32, n)
		for b0 := 0; b0 < n; b0 += 64 {
			sh := make([]uint32, bins)
			for _, v := range in[b0 : b0+64] {
				sh[v%16]++
			}
			for j := range 64 {
				want[b0+j] = sh[j%bins]
			}
		}
		require.Equal(t, want, outs[0], "per-thread engine, %d bins", bins)
		require.Equal(t, want, outs[1], "lane engine, %d bins", bins)

		// A buffer of 40 words under a block of 64 (one block: its first
		// fault is the thread's); with 12 bins, a word of 13 at lane 7 of
		// a whole buffer.
		short := append([]uint32(nil), in[:40]...)
		wantErr := "argument 0 (in): index 40 out of range [0, 40)"
		tid := uint32(40)
		if bins == 12 {
			short = append([]uint32(nil), in[:64]...)
			short[7] = 13
			wantErr, tid = "shared variable shared1: index 13 out of range [0, 12)", 7
		}
		var errs [2]error
		for e, k := range []*device.Kernel{pt, ln} {
			bi, o := newBuf(t, d, short), newBuf(t, d, make([]uint32, 64))
			require.NoError(t, s.Submit(k.Dispatch([3]uint32{64}, bi, o)))
			errs[e] = s.Synchronize(ctxT(t))
			require.ErrorIs(t, errs[e], device.ErrInvalidArgument)
		}
		var kf *device.KernelFault
		require.ErrorAs(t, errs[1], &kf)
		require.Equal(t, [3]uint32{tid, 0, 0}, kf.Thread, "%d bins", bins)
		require.Contains(t, errs[1].Error(), wantErr)
		require.Equal(t, errs[0].Error(), errs[1].Error())
	}
}
