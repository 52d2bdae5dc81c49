package cpu_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// TestLaneMergedBlocks: consecutive one-dimensional blocks of a kernel
// that reads neither its thread nor its block id run as one batch (up to
// 128 lanes), with the per-thread engine's results on dispatches of whole
// and partial merged blocks, over a grid with a y dimension, and its
// faults word for word (the thread, its block and its place in the block
// of a lane in a later block of the batch); a kernel reading the thread
// or the block id is not merged.
func TestLaneMergedBlocks(t *testing.T) {
	d := openPlain(t)
	s := stream(t, d, device.StreamCompute)
	kern := func(block int) func(k *dsl.K, m, bad dsl.U32, in, out dsl.Buf[dsl.U32]) {
		return func(k *dsl.K, m, bad dsl.U32, in, out dsl.Buf[dsl.U32]) {
			id := k.DispatchID()
			i := id.X().Add(id.Y().Mul(m))
			j := dsl.NewVar(k, i)
			k.If(i.Eq(bad), func() { j.Set(i.Add(dsl.U(1 << 20))) })
			k.If(id.X().Lt(m), func() { out.Write(i, in.Read(j.Get()).Mul(dsl.U(3)).Add(i)) })
		}
	}
	for _, c := range []struct{ block, merge int }{{16, 8}, {32, 4}, {64, 2}, {128, 1}} {
		f, err := dsl.Kernel1D(c.block, kern(c.block), "m", "bad", "in", "out")
		require.NoError(t, err)
		m, err := cpu.LaneMerged(f)
		require.NoError(t, err)
		require.Equal(t, uint32(c.merge), m, "blocks of %d merged", c.block)
		pt, ln := bothEngines(t, d, f)
		for _, n := range []uint32{1, 15, 31, 32, 33, 100, 127, 128, 129, 300, 1000} {
			t.Run(fmt.Sprintf("block%d/n%d", c.block, n), func(t *testing.T) {
				const rows = 3
				vals := make([]uint32, n*rows)
				for i := range vals {
					vals[i] = uint32(i*2654435761) >> 7
				}
				in := newBuf(t, d, vals)
				var got [2][]uint32
				for e, k := range []*device.Kernel{pt, ln} {
					o := newBuf(t, d, make([]uint32, n*rows))
					got[e] = make([]uint32, n*rows)
					require.NoError(t, s.Submit(k.Dispatch([3]uint32{n, rows}, n, ^uint32(0), in, o), o.Download(got[e])))
					require.NoError(t, s.Synchronize(ctxT(t)))
				}
				want := make([]uint32, n*rows)
				for i := range want {
					want[i] = vals[i]*3 + uint32(i)
				}
				require.Equal(t, want, got[0], "per-thread engine")
				require.Equal(t, want, got[1], "lane engine")
				// One faulting thread, in the last block of the dispatch's
				// first row: its error on both engines.
				bad := n - 1
				var errs [2]error
				for e, k := range []*device.Kernel{pt, ln} {
					o := newBuf(t, d, make([]uint32, n*rows))
					require.NoError(t, s.Submit(k.Dispatch([3]uint32{n, rows}, n, bad, in, o)))
					errs[e] = s.Synchronize(ctxT(t))
					require.ErrorIs(t, errs[e], device.ErrInvalidArgument)
				}
				var kf *device.KernelFault
				require.ErrorAs(t, errs[1], &kf)
				require.Equal(t, [3]uint32{bad, 0, 0}, kf.Thread)
				require.Equal(t, errs[0].Error(), errs[1].Error())
			})
		}
	}
	for name, fn := range map[string]func(k *dsl.K, out dsl.Buf[dsl.U32]){
		"thread": func(k *dsl.K, out dsl.Buf[dsl.U32]) { out.Write(k.DispatchID().X(), k.ThreadID().X()) },
		"block":  func(k *dsl.K, out dsl.Buf[dsl.U32]) { out.Write(k.DispatchID().X(), k.BlockID().X()) },
	} {
		f, err := dsl.Kernel1D(32, fn, "out")
		require.NoError(t, err)
		m, err := cpu.LaneMerged(f)
		require.NoError(t, err)
		require.Equal(t, uint32(1), m, "a kernel reading its %s id", name)
		pt, ln := bothEngines(t, d, f)
		const n = 200
		var got [2][]uint32
		for e, k := range []*device.Kernel{pt, ln} {
			o := newBuf(t, d, make([]uint32, n))
			got[e] = make([]uint32, n)
			require.NoError(t, s.Submit(k.Dispatch([3]uint32{n}, o), o.Download(got[e])))
			require.NoError(t, s.Synchronize(ctxT(t)))
		}
		require.Equal(t, got[0], got[1], name)
		for i, v := range got[1] {
			want := uint32(i % 32) // the thread id
			if name == "block" {
				want = uint32(i / 32)
			}
			require.Equal(t, want, v, "%s id of thread %d", name, i)
		}
	}
}

// TestLaneUniformDivisor: uint32 division and remainder by a divisor the
// same in every lane (an argument, a sum of arguments, a literal), on
// every lane and on lanes a condition thinned, give the per-thread
// engine's results, and a zero divisor its fault word for word.
func TestLaneUniformDivisor(t *testing.T) {
	d := openPlain(t)
	s := stream(t, d, device.StreamCompute)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, m, c dsl.U32, in, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		v := in.Read(i)
		out.Write(i.Mul(dsl.U(4)), v.Rem(m))
		out.Write(i.Mul(dsl.U(4)).Add(dsl.U(1)), v.Div(m.Add(c)))
		out.Write(i.Mul(dsl.U(4)).Add(dsl.U(2)), v.Rem(dsl.U(1000)).Add(v.Div(dsl.U(7))))
		k.If(v.Rem(dsl.U(3)).Eq(dsl.U(0)), func() { out.Write(i.Mul(dsl.U(4)).Add(dsl.U(3)), v.Div(m).Add(v.Rem(m.Add(c)))) })
	}, "m", "c", "in", "out")
	require.NoError(t, err)
	pt, ln := bothEngines(t, d, f)
	const n = 1000
	vals := make([]uint32, n)
	for i := range vals {
		vals[i] = uint32(i*2654435761) ^ uint32(i)<<3
	}
	vals[0], vals[1], vals[2] = 0, 1<<32-1, 1<<31
	in := newBuf(t, d, vals)
	for _, mc := range [][2]uint32{{1, 0}, {1, 1}, {2, 1}, {3, 4}, {7, 0}, {10, 246}, {1 << 31, 1}, {1<<32 - 1, 0}, {65537, 1<<32 - 65538}, {5, 1<<32 - 5}} {
		var got [2][]uint32
		var errs [2]error
		size := uint32(n)
		if mc[0]+mc[1] == 0 {
			// Every thread faults: one block, whose first fault is the
			// thread's (across blocks, whichever worker faults first).
			size = 64
		}
		for e, k := range []*device.Kernel{pt, ln} {
			o := newBuf(t, d, make([]uint32, 4*n))
			got[e] = make([]uint32, 4*n)
			require.NoError(t, s.Submit(k.Dispatch([3]uint32{size}, mc[0], mc[1], in, o), o.Download(got[e])))
			errs[e] = s.Synchronize(ctxT(t))
		}
		if mc[0]+mc[1] == 0 { // m + c wraps to zero: both fault
			require.ErrorIs(t, errs[1], device.ErrInvalidArgument, "m=%d c=%d", mc[0], mc[1])
			var kf *device.KernelFault
			require.ErrorAs(t, errs[1], &kf)
			require.Equal(t, [3]uint32{0, 0, 0}, kf.Thread)
			require.Equal(t, errs[0].Error(), errs[1].Error())
			continue
		}
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
		require.Equal(t, got[0], got[1], "m=%d c=%d", mc[0], mc[1])
		require.Equal(t, vals[5]%mc[0], got[1][4*5+0])
		require.Equal(t, vals[6]/(mc[0]+mc[1]), got[1][4*6+1])
	}
	for e, k := range []*device.Kernel{pt, ln} {
		o := newBuf(t, d, make([]uint32, 4*n))
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{64}, uint32(0), uint32(3), in, o))) // one block, as above
		err := s.Synchronize(ctxT(t))
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		var kf *device.KernelFault
		require.ErrorAs(t, err, &kf)
		require.Equal(t, [3]uint32{0, 0, 0}, kf.Thread, "engine %d", e)
	}
	// A zero divisor on lanes an if thinned: the first of them faults.
	g, err := dsl.Kernel1D(64, func(k *dsl.K, m dsl.U32, in, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		v := in.Read(i)
		k.If(v.Gt(dsl.U(100)), func() { out.Write(i, v.Div(m)) })
	}, "m", "in", "out")
	require.NoError(t, err)
	pg, lg := bothEngines(t, d, g)
	small := make([]uint32, 64)
	for i := range small {
		small[i] = uint32(i * 10) // lanes from 11 on take the if
	}
	sin := newBuf(t, d, small)
	var errs [2]error
	for e, k := range []*device.Kernel{pg, lg} {
		o := newBuf(t, d, make([]uint32, 64))
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{64}, uint32(0), sin, o)))
		errs[e] = s.Synchronize(ctxT(t))
		var kf *device.KernelFault
		require.ErrorAs(t, errs[e], &kf)
		require.Equal(t, [3]uint32{11, 0, 0}, kf.Thread, "engine %d", e)
	}
	require.Equal(t, errs[0].Error(), errs[1].Error())
}
