package cpu_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/kernel"
)

// bothEngines compiles f twice on d: on the per-thread engine and (where the
// lane engine takes it) on the lane engine.
func bothEngines(t *testing.T, d *device.Device, f *ir.Function) (perThread, lanes *device.Kernel) {
	t.Helper()
	on, why, err := cpu.LaneEngine(f)
	require.NoError(t, err)
	require.True(t, on, "the lane engine runs %s: %s", f.Name, why)
	old := cpu.SetLaneEngine(false)
	perThread, err = device.Compile(d, f)
	cpu.SetLaneEngine(old)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, perThread.Close()) })
	lanes, err = device.Compile(d, f)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, lanes.Close()) })
	return perThread, lanes
}

// TestLaneEngineDivergence: lanes of one batch taking different paths
// (early return, if-else, continue, break, an access guarded by &&, partial
// blocks) give what the per-thread engine and the kernel as Go give.
func TestLaneEngineDivergence(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	pt, ln := bothEngines(t, d, hostKernel(t, "HostBranches"))
	const n = 1000 // 31 whole blocks of 32 and a part
	in := make([]int32, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range in {
		in[i] = r.Int32N(200) - 60
	}
	in[5], in[5+7] = -7, 0 // r == 7 at 5: no write
	const k = 7
	bin := newBuf(t, d, in)
	o1, o2 := newBuf(t, d, make([]int32, n)), newBuf(t, d, make([]int32, n))
	got1, got2 := make([]int32, n), make([]int32, n)
	require.NoError(t, s.Submit(pt.Dispatch([3]uint32{n}, uint32(k), bin, o1), ln.Dispatch([3]uint32{n}, uint32(k), bin, o2),
		o1.Download(got1), o2.Download(got2)))
	require.NoError(t, s.Synchronize(ctxT(t)))
	want := make([]int32, n)
	require.NoError(t, kernel.Run(ctxT(t), kernel.Grid1(32, n), func() { HostBranches(k, in, want) }))
	require.Equal(t, want, got1, "per-thread engine")
	require.Equal(t, want, got2, "lane engine")
	require.Zero(t, got2[5], "the lane that returned early wrote nothing")
}

// TestLaneEnginePrograms: the programs the lane engine takes give the same
// results on both engines, over sizes that are not whole blocks.
func TestLaneEnginePrograms(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	t.Run("saxpy", func(t *testing.T) {
		f, err := programs.Saxpy()
		require.NoError(t, err)
		pt, ln := bothEngines(t, d, f)
		const n = 1000
		xs, ys := make([]float32, n), make([]float32, n)
		for i := range xs {
			xs[i], ys[i] = float32(i)*0.37, float32(3*i+1)
		}
		x, y1, y2 := newBuf(t, d, xs), newBuf(t, d, ys), newBuf(t, d, ys)
		got1, got2 := make([]float32, n), make([]float32, n)
		require.NoError(t, s.Submit(pt.Dispatch([3]uint32{n - 3}, float32(1.5), x, y1), ln.Dispatch([3]uint32{n - 3}, float32(1.5), x, y2),
			y1.Download(got1), y2.Download(got2)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.Equal(t, got1, got2)
		require.Equal(t, ys[n-1], got2[n-1], "past the size")
	})
	t.Run("mandelbrot", func(t *testing.T) {
		f, err := programs.Mandelbrot()
		require.NoError(t, err)
		pt, ln := bothEngines(t, d, f)
		const w, h = 50, 37
		o1, o2 := newBuf(t, d, make([]uint32, w*h)), newBuf(t, d, make([]uint32, w*h))
		got1, got2 := make([]uint32, w*h), make([]uint32, w*h)
		require.NoError(t, s.Submit(pt.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), o1), ln.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), o2),
			o1.Download(got1), o2.Download(got2)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.Equal(t, programs.MandelbrotRef(w, h), got2)
		require.Equal(t, got1, got2)
	})
	t.Run("nbody", func(t *testing.T) {
		f, err := programs.NBody()
		require.NoError(t, err)
		pt, ln := bothEngines(t, d, f)
		const n = 100 // one block of 64 and a part
		r := rand.New(rand.NewPCG(3, 4))
		pos, vel := make([][4]float32, n), make([][4]float32, n)
		for i := range pos {
			pos[i] = [4]float32{r.Float32(), r.Float32(), r.Float32(), 0.5 + r.Float32()}
			vel[i] = [4]float32{r.Float32() - 0.5, 0, r.Float32() - 0.5, 0}
		}
		bp := newBuf(t, d, pos)
		v1, v2 := newBuf(t, d, vel), newBuf(t, d, vel)
		p1, p2 := newBuf(t, d, make([][4]float32, n)), newBuf(t, d, make([][4]float32, n))
		gp1, gp2, gv1, gv2 := make([][4]float32, n), make([][4]float32, n), make([][4]float32, n), make([][4]float32, n)
		require.NoError(t, s.Submit(pt.Dispatch([3]uint32{n}, float32(0.01), uint32(n), bp, v1, p1), ln.Dispatch([3]uint32{n}, float32(0.01), uint32(n), bp, v2, p2),
			p1.Download(gp1), p2.Download(gp2), v1.Download(gv1), v2.Download(gv2)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.Equal(t, gp1, gp2)
		require.Equal(t, gv1, gv2)
		wantPos, _ := programs.NBodyRef(0.01, pos, vel)
		require.InDelta(t, wantPos[7][0], gp2[7][0], 1e-4)
	})
	t.Run("life", func(t *testing.T) {
		f, err := programs.Life()
		require.NoError(t, err)
		pt, ln := bothEngines(t, d, f)
		const w, h = 20, 13
		r := rand.New(rand.NewPCG(5, 6))
		cells := make([]uint32, w*h)
		for i := range cells {
			cells[i] = r.Uint32N(2)
		}
		src := newBuf(t, d, cells)
		o1, o2 := newBuf(t, d, make([]uint32, w*h)), newBuf(t, d, make([]uint32, w*h))
		got1, got2 := make([]uint32, w*h), make([]uint32, w*h)
		require.NoError(t, s.Submit(pt.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), src, o1), ln.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), src, o2),
			o1.Download(got1), o2.Download(got2)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.Equal(t, programs.LifeRef(w, h, cells), got2)
		require.Equal(t, got1, got2)
	})
}

// TestLaneEngineFault: an index out of range on the lane engine fails the
// dispatch with the per-thread engine's error, word for word: the same
// argument, index, range and thread.
func TestLaneEngineFault(t *testing.T) {
	d := openPlain(t)
	s := stream(t, d, device.StreamCompute)
	pt, ln := bothEngines(t, d, hostKernel(t, "HostShift"))
	in, out := newBuf(t, d, make([]uint32, 100)), newBuf(t, d, make([]uint32, 100))
	var errs [2]error
	for i, k := range []*device.Kernel{pt, ln} {
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{100}, uint32(1), in, out)))
		errs[i] = s.Synchronize(ctxT(t))
		require.ErrorIs(t, errs[i], device.ErrInvalidArgument)
	}
	var f *device.KernelFault
	require.ErrorAs(t, errs[1], &f)
	require.Equal(t, [3]uint32{99, 0, 0}, f.Thread)
	require.Regexp(t, `hostkernels_test\.go:58:3$`, f.Pos)
	require.Contains(t, errs[1].Error(), "argument 1 (in): index 100 out of range [0, 100)")
	require.Equal(t, errs[0].Error(), errs[1].Error())
}

// TestLaneEngineAtomics: buffer atomics on the lane engine give what the
// per-thread engine and the kernel as Go give: counts, old values that
// place each thread once, min and max, compare-and-swap claims.
func TestLaneEngineAtomics(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	pt, ln := bothEngines(t, d, hostKernel(t, "HostAtomics"))
	const n = 1000
	in := make([]int32, n)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range in {
		in[i] = r.Int32N(2000) - 1000
	}
	type outs struct {
		bins, order, claimed []uint32
		minmax               []int32
		sum                  []float32
	}
	run := func(k *device.Kernel) outs {
		bin := newBuf(t, d, in)
		bb, bo, bc := newBuf(t, d, make([]uint32, 8)), newBuf(t, d, make([]uint32, n+1)), newBuf(t, d, make([]uint32, 17))
		bm, bs := newBuf(t, d, []int32{1 << 30, -1 << 30}), newBuf(t, d, make([]float32, 1))
		o := outs{make([]uint32, 8), make([]uint32, n+1), make([]uint32, 17), make([]int32, 2), make([]float32, 1)}
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{n}, bin, bb, bo, bc, bm, bs),
			bb.Download(o.bins), bo.Download(o.order), bc.Download(o.claimed), bm.Download(o.minmax), bs.Download(o.sum)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		return o
	}
	want := outs{make([]uint32, 8), make([]uint32, n+1), make([]uint32, 17), []int32{1 << 30, -1 << 30}, make([]float32, 1)}
	require.NoError(t, kernel.Run(ctxT(t), kernel.Grid1(64, n), func() { HostAtomics(in, want.bins, want.order, want.claimed, want.minmax, want.sum) }))
	for name, got := range map[string]outs{"per-thread engine": run(pt), "lane engine": run(ln)} {
		require.Equal(t, want.bins, got.bins, name)
		require.Equal(t, want.minmax, got.minmax, name)
		require.Equal(t, want.sum, got.sum, name) // small integers: exact in any order
		require.Equal(t, uint32(n), got.order[0], name)
		seen := make([]bool, n)
		for _, i := range got.order[1:] {
			require.False(t, seen[i], "%s: thread %d placed twice", name, i)
			seen[i] = true
		}
		// Each claimed slot holds a thread whose value maps to it; the
		// claims are counted once each.
		claims := uint32(0)
		for j, c := range got.claimed[:16] {
			if c != 0 {
				claims++
				require.Equal(t, uint32(j), uint32(in[c-1])%16, name)
			}
		}
		require.Equal(t, claims, got.claimed[16], name)
		require.Equal(t, want.claimed[16], got.claimed[16], name)
	}
}

// TestLaneEngineAtomicFault: an atomic past the end of its buffer on the
// lane engine faults naming the argument, the index and the thread.
func TestLaneEngineAtomicFault(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	_, ln := bothEngines(t, d, hostKernel(t, "HostAtomics"))
	in := []int32{1, 2, 3, 4, 5}
	bin := newBuf(t, d, in)
	bb, bo, bc := newBuf(t, d, make([]uint32, 2)), newBuf(t, d, make([]uint32, 6)), newBuf(t, d, make([]uint32, 17))
	bm, bs := newBuf(t, d, make([]int32, 2)), newBuf(t, d, make([]float32, 1))
	require.NoError(t, s.Submit(ln.Dispatch([3]uint32{5}, bin, bb, bo, bc, bm, bs)))
	err := s.Synchronize(ctxT(t))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	t.Log(err)
	require.ErrorContains(t, err, "bins")
	require.ErrorContains(t, err, "index 2 out of range [0, 2)")
	require.ErrorContains(t, err, "thread [1 0 0]")
}

// TestLaneEngineNorms: dot, length and distance of float32 vectors, and
// sqrt, inverseSqrt, abs and floor of a float32, on the lane engine give the
// per-thread engine's bits, on batches where every lane
// runs and on batches thinned by a branch (the lanes with a negative first
// component return early), including signed zeros and values whose float64
// sums round differently from float32 ones.
func TestLaneEngineNorms(t *testing.T) {
	f, err := dsl.Kernel1D(32, func(k *dsl.K, half dsl.U32, in dsl.Buf[dsl.F32x4], out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		a, b := in.Read(i), in.Read(i.Add(half))
		put := func(base int) {
			o := i.Mul(dsl.U(14)).Add(dsl.U(uint32(base)))
			out.Write(o, a.XYZ().Dot(b.XYZ()))
			out.Write(o.Add(dsl.U(1)), a.XYZ().Length())
			out.Write(o.Add(dsl.U(2)), dsl.Distance(a.XYZ(), b.XYZ()))
			out.Write(o.Add(dsl.U(3)), dsl.Sqrt(b.Y()))
			out.Write(o.Add(dsl.U(4)), dsl.InverseSqrt(b.Y()))
			out.Write(o.Add(dsl.U(5)), dsl.Abs(b.Z()))
			out.Write(o.Add(dsl.U(6)), dsl.Floor(b.Z()))
		}
		put(0)
		k.If(a.X().Lt(dsl.F(0)), func() { k.Return() })
		put(7)
	})
	require.NoError(t, err)
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	pt, ln := bothEngines(t, d, f)
	const n = 300 // whole batches and a part
	r := rand.New(rand.NewPCG(7, 8))
	in := make([][4]float32, 2*n)
	for i := range in {
		for c := range 4 {
			in[i][c] = (r.Float32() - 0.5) * float32(int(1)<<r.IntN(20))
		}
	}
	in[3] = [4]float32{float32(math.Copysign(0, -1)), 0, float32(math.Copysign(0, -1)), 0}
	in[3+n] = [4]float32{1, float32(math.Copysign(0, -1)), 1, 0}
	in[4] = [4]float32{1e-30, 1e30, -1e30, 0}
	bin := newBuf(t, d, in)
	o1, o2 := newBuf(t, d, make([]float32, 14*n)), newBuf(t, d, make([]float32, 14*n))
	got1, got2 := make([]float32, 14*n), make([]float32, 14*n)
	require.NoError(t, s.Submit(pt.Dispatch([3]uint32{n}, uint32(n), bin, o1), ln.Dispatch([3]uint32{n}, uint32(n), bin, o2),
		o1.Download(got1), o2.Download(got2)))
	require.NoError(t, s.Synchronize(ctxT(t)))
	bits := func(v []float32) []uint32 {
		u := make([]uint32, len(v))
		for i, x := range v {
			u[i] = math.Float32bits(x)
		}
		return u
	}
	require.Equal(t, bits(got1), bits(got2))
	require.Zero(t, got2[3*14])
	require.False(t, math.Signbit(float64(got2[3*14])), "a dot of products that are all -0 is +0: the sum starts at +0")
	early := 0
	for i := range n {
		if in[i][0] < 0 {
			early++
			require.Zero(t, got2[14*i+7], "lane %d returned before its second writes", i)
		}
	}
	require.Greater(t, early, 10, "a branch thins the batches")
	require.Less(t, early, n-10)
}

// TestLaneUniformLoop: a loop condition the same in every lane, decided by
// the first lane still in the loop, after lanes (lane 0 first) have left it
// by return and by the condition of another loop, gives the per-thread
// engine's results.
func TestLaneUniformLoop(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, n dsl.U32, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		c := dsl.NewVar(k, dsl.U(1))
		dsl.Range(k, dsl.U(0), n, func(j dsl.U32) {
			k.If(j.Eq(i.Rem(dsl.U(7))).And(i.Rem(dsl.U(3)).Eq(dsl.U(0))), func() {
				out.Write(i, c.Get())
				k.Return()
			})
			c.Set(c.Get().Mul(dsl.U(3)).Add(j.Mul(i)))
		})
		dsl.Range(k, dsl.U(0), n.Div(dsl.U(2)), func(j dsl.U32) {
			c.Set(c.Get().Xor(j))
		})
		// A counter the same in every lane still in the loop, though lanes
		// leave it alone.
		dsl.Range(k, dsl.U(0), n, func(j dsl.U32) {
			k.If(j.Eq(i.Rem(dsl.U(5))), func() { k.Continue() })
			k.If(j.Mul(i).Gt(n.Mul(dsl.U(3))), func() { k.Break() })
			c.Set(c.Get().Add(j.Mul(dsl.U(7))))
		})
		out.Write(i, c.Get())
	}, "n", "out")
	require.NoError(t, err)
	f.Name = "uniformloop"
	nu, err := cpu.LaneUniformLoops(f)
	require.NoError(t, err)
	require.Equal(t, 3, nu, "loops decided by one lane")
	// Not where the counter starts at a varying value or the body steps it.
	g, err := dsl.Kernel1D(64, func(k *dsl.K, n dsl.U32, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		a := dsl.NewVar(k, i.Rem(dsl.U(4)))
		k.While(func() dsl.Bool { return a.Get().Lt(n) }, func() { a.Set(a.Get().Add(dsl.U(1))) })
		b := dsl.NewVar(k, dsl.U(0))
		dsl.Range(k, dsl.U(0), n, func(j dsl.U32) {
			k.If(i.Eq(dsl.U(3)), func() { b.Set(b.Get().Add(dsl.U(2))) })
			b.Set(b.Get().Add(dsl.U(1)))
		})
		c := dsl.NewVar(k, dsl.U(0))
		k.While(func() dsl.Bool { return c.Get().Lt(n) }, func() {
			k.If(i.Eq(dsl.U(3)), func() { c.Set(c.Get().Add(dsl.U(2))) })
			c.Set(c.Get().Add(dsl.U(1)))
		})
		out.Write(i, a.Get().Add(b.Get()).Add(c.Get()))
	}, "n", "out")
	require.NoError(t, err)
	nu, err = cpu.LaneUniformLoops(g)
	require.NoError(t, err)
	require.Equal(t, 1, nu, "only the Range, whose counter nothing else steps")
	pg, lg := bothEngines(t, d, g)
	{
		o1, o2 := newBuf(t, d, make([]uint32, 64)), newBuf(t, d, make([]uint32, 64))
		got1, got2 := make([]uint32, 64), make([]uint32, 64)
		require.NoError(t, s.Submit(pg.Dispatch([3]uint32{64}, uint32(9), o1), lg.Dispatch([3]uint32{64}, uint32(9), o2), o1.Download(got1), o2.Download(got2)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.Equal(t, got1, got2)
	}
	mb, err := programs.Mandelbrot()
	require.NoError(t, err)
	nu, err = cpu.LaneUniformLoops(mb)
	require.NoError(t, err)
	require.Equal(t, 1, nu, "mandelbrot's loop, which lanes leave alone")
	pt, ln := bothEngines(t, d, f)
	const size = 200
	for _, n := range []uint32{0, 1, 5, 40} {
		o1, o2 := newBuf(t, d, make([]uint32, size)), newBuf(t, d, make([]uint32, size))
		got1, got2 := make([]uint32, size), make([]uint32, size)
		require.NoError(t, s.Submit(pt.Dispatch([3]uint32{size}, n, o1), ln.Dispatch([3]uint32{size}, n, o2), o1.Download(got1), o2.Download(got2)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.Equal(t, got1, got2, "n %d", n)
		if n == 40 {
			require.NotEqual(t, got1[1], got1[2])
		}
	}
}
