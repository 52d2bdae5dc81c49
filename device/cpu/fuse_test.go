package cpu_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// fuseGen builds random trees of 32-bit scalar operations over the ids, two
// uniforms, a local and loads of two buffers at computed indices.
type fuseGen struct {
	r  *rand.Rand
	n  uint32 // the buffers' length
	i  dsl.U32
	s  dsl.U32
	fs dsl.F32
	a  dsl.Buf[dsl.U32]
	b  dsl.Buf[dsl.F32]
	v  *dsl.Local[dsl.U32]
	vv *dsl.Local[dsl.F32x3] // a vector local
	// pure: only operations that cannot fault and need no lane list (a
	// tree of them runs on every lane below a batch's last one).
	pure bool
}

func (g *fuseGen) index(d int) dsl.U32 {
	if g.r.IntN(2) == 0 {
		return g.i
	}
	return g.u(d).Rem(dsl.U(g.n))
}

func (g *fuseGen) u(d int) dsl.U32 {
	r := g.r
	if d <= 0 || r.IntN(6) == 0 {
		switch r.IntN(6) {
		case 0:
			return g.i
		case 1:
			return g.s
		case 2:
			return g.a.Read(g.index(d - 1))
		case 3:
			return g.v.Get()
		case 4:
			if g.pure {
				return g.i.Add(g.s)
			}
			return dsl.Convert[uint32](g.canon(g.f(d - 1)))
		}
		return dsl.U([]uint32{0, 1, 7, 31, 32, 0x80000000, 0xffffffff, r.Uint32()}[r.IntN(8)])
	}
	x, y := g.u(d-1), g.u(d-1)
	sx, sy := dsl.Bitcast[int32](x), dsl.Bitcast[int32](y)
	if g.pure {
		switch r.IntN(7) {
		case 0:
			return x.Add(y)
		case 1:
			return x.Sub(y)
		case 2:
			return x.Mul(y).Add(y)
		case 3:
			return x.And(y).Xor(x.Or(y))
		case 4:
			return x.BitNot()
		case 5:
			return dsl.Bitcast[uint32](sx.Neg().Add(sy))
		}
		return dsl.Select(g.cond(d-1), x, y)
	}
	switch r.IntN(16) {
	case 0:
		return x.Add(y)
	case 1:
		return x.Sub(y)
	case 2:
		return x.Mul(y)
	case 3:
		return x.And(y)
	case 4:
		return x.Or(y)
	case 5:
		return x.Xor(y)
	case 6:
		return x.Shl(y)
	case 7:
		return x.Shr(y)
	case 8:
		return x.Div(y.Or(dsl.U(1)))
	case 9:
		if r.IntN(2) == 0 {
			return x.Rem(dsl.U(16)).Add(x.Div(dsl.U(8))) // by literal powers of two
		}
		return x.Rem(y.Or(dsl.U(1)))
	case 10:
		return dsl.Bitcast[uint32](sx.Div(sy.Or(dsl.I(1))))
	case 11:
		return dsl.Bitcast[uint32](sx.Neg().Add(sy.Shr(dsl.U(3))))
	case 12:
		return x.BitNot()
	case 13:
		return dsl.Select(g.cond(d-1), x, y)
	case 14:
		return dsl.Convert[uint32](g.cond(d - 1))
	}
	return dsl.Bitcast[uint32](g.canon(g.f(d - 1)))
}

// canon is x with every NaN made one: the sign and payload of a NaN an
// operation makes are not defined (Go may commute the operands of a
// multiplication, and x86 returns the first NaN operand).
func (g *fuseGen) canon(x dsl.F32) dsl.F32 {
	return dsl.Select(x.Eq(x), x, dsl.F(float32(math.NaN())))
}

func (g *fuseGen) f(d int) dsl.F32 {
	r := g.r
	if d <= 0 || r.IntN(6) == 0 {
		switch r.IntN(5) {
		case 0:
			return g.fs
		case 1:
			return g.b.Read(g.index(d - 1))
		case 2:
			return dsl.Convert[float32](g.u(d - 1))
		case 3:
			return dsl.Convert[float32](dsl.Bitcast[int32](g.u(d - 1)))
		}
		return dsl.F([]float32{0, 1, -2.5, 1e30, float32(math.Inf(1)), r.Float32()}[r.IntN(6)])
	}
	switch r.IntN(12) {
	case 0:
		return g.vec(d - 1).Dot(g.vec(d - 1))
	case 1:
		return []func(dsl.F32x3) dsl.F32{dsl.F32x3.X, dsl.F32x3.Y, dsl.F32x3.Z}[r.IntN(3)](g.vec(d - 1))
	case 2:
		if r.IntN(2) == 0 {
			return g.vec(d - 1).Length()
		}
		return dsl.Distance(g.vec(d-1), g.vec(d-1))
	case 3:
		return []func(dsl.F32) dsl.F32{dsl.InverseSqrt[dsl.F32], dsl.Sqrt[dsl.F32], dsl.Abs[dsl.F32], dsl.Floor[dsl.F32]}[r.IntN(4)](g.f(d - 1))
	}
	x, y := g.f(d-1), g.f(d-1)
	switch r.IntN(7) {
	case 0:
		return x.Add(y)
	case 1:
		return x.Sub(y)
	case 2:
		return x.Mul(y)
	case 3:
		return x.Div(y)
	case 4:
		return x.Neg()
	case 5:
		return dsl.Select(g.cond(d-1), x, y)
	}
	return x.Mul(y).Add(g.fs)
}

// vec is a random tree of float32 vector operations, component by
// component: swizzles, constructs, splats, arithmetic with vectors and
// scalars, built-ins.
func (g *fuseGen) vec(d int) dsl.F32x3 {
	r := g.r
	if d <= 0 || r.IntN(5) == 0 {
		switch r.IntN(4) {
		case 0:
			return dsl.V3(g.f(d-1), g.f(d-1), g.f(d-1))
		case 1:
			return dsl.Splat3(g.f(d - 1))
		case 2:
			return g.vv.Get()
		}
		return dsl.V3(dsl.Convert[float32](g.i), g.fs, dsl.F(0.5))
	}
	x := g.vec(d - 1)
	switch r.IntN(9) {
	case 0:
		return x.Add(g.vec(d - 1))
	case 1:
		return x.Sub(g.vec(d - 1))
	case 2:
		return x.Mul(g.vec(d - 1))
	case 3:
		return x.Div(g.vec(d - 1))
	case 4:
		return x.Scale(g.f(d - 1))
	case 5:
		return x.Neg()
	case 6:
		return dsl.V3(x.Z(), x.X(), x.Y()) // a swizzle of a computed vector
	case 7:
		return g.vec(d - 1).Add(x.Mul(g.vec(d - 1))) // z + x*y
	}
	return []func(dsl.F32x3) dsl.F32x3{dsl.InverseSqrt[dsl.F32x3], dsl.Sqrt[dsl.F32x3], dsl.Abs[dsl.F32x3], dsl.Floor[dsl.F32x3]}[r.IntN(4)](x)
}

func (g *fuseGen) cond(d int) dsl.Bool {
	r := g.r
	if d <= 0 {
		return g.u(0).Lt(g.u(0))
	}
	switch r.IntN(9) {
	case 0:
		return g.u(d - 1).Lt(g.u(d - 1))
	case 1:
		return g.u(d - 1).Eq(g.u(d - 1))
	case 2:
		return g.u(d - 1).Ge(g.u(d - 1))
	case 3:
		return dsl.Bitcast[int32](g.u(d - 1)).Lt(dsl.Bitcast[int32](g.u(d - 1)))
	case 4:
		return g.f(d - 1).Lt(g.f(d - 1))
	case 5:
		return g.f(d - 1).Ge(g.f(d - 1))
	case 6:
		return g.cond(d - 1).And(g.cond(d - 1))
	case 7:
		return g.cond(d - 1).Or(g.cond(d - 1)).Not()
	}
	return g.u(d - 1).And(dsl.U(1)).Ne(dsl.U(0))
}

const fuseExprs = 10

// fuseKernel is a random kernel of fuseExprs statements: stores of random
// trees (some under a random condition, so that batches have scattered
// lanes) and assignments to a local the later trees read.
func fuseKernel(t *testing.T, seed uint64, block, n uint32) *ir.Function {
	g := &fuseGen{r: rand.New(rand.NewPCG(seed, 77)), n: n}
	f, err := dsl.Kernel1D(int(block), func(k *dsl.K, s dsl.U32, fs dsl.F32, a dsl.Buf[dsl.U32], b dsl.Buf[dsl.F32], out dsl.Buf[dsl.U32]) {
		g.i, g.s, g.fs, g.a, g.b = k.DispatchID().X(), s, fs, a, b
		g.v = dsl.NewVar(k, a.Read(g.i))
		g.vv = dsl.NewVar(k, dsl.V3(b.Read(g.i), g.fs, dsl.Convert[float32](g.i)))
		for j := range fuseExprs {
			o := g.i.Mul(dsl.U(fuseExprs)).Add(dsl.U(uint32(j)))
			body := func() {
				switch g.r.IntN(5) {
				case 4:
					g.vv.Set(g.vec(3))
					out.Write(o, dsl.Bitcast[uint32](g.canon(g.vv.Get().Dot(dsl.V3(dsl.F(1), dsl.F(3), dsl.F(9))))))
				case 0:
					out.Write(o, g.u(4))
				case 1:
					out.Write(o, dsl.Bitcast[uint32](g.canon(g.f(4))))
				case 2:
					g.v.Set(g.u(3))
					out.Write(o, g.v.Get())
				default:
					g.pure = true
					g.v.Set(g.u(4))
					g.pure = false
					out.Write(o, g.v.Get())
				}
			}
			switch g.r.IntN(3) {
			case 0:
				k.If(g.cond(2), body)
			case 1:
				k.If(g.i.And(dsl.U(3)).Ne(dsl.U(0)), body) // three lanes in four
			default:
				body()
			}
		}
	}, "s", "fs", "a", "b", "out")
	require.NoError(t, err)
	return f
}

// TestLaneFusionRandom: random trees give the same bits fused, unfused and
// on the per-thread engine, over blocks of one and of two batches, a last
// block that is partial and lanes scattered by conditions.
func TestLaneFusionRandom(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	const n = 700
	r := rand.New(rand.NewPCG(5, 6))
	as, bs := make([]uint32, n), make([]float32, n)
	for i := range as {
		as[i] = []uint32{0, 1, 0x80000000, 0xffffffff, r.Uint32(), r.Uint32N(100)}[r.IntN(6)]
		bs[i] = []float32{0, -1, 0.5, float32(math.Inf(-1)), float32(math.NaN()), r.Float32()*200 - 100}[r.IntN(6)]
	}
	a, b := newBuf(t, d, as), newBuf(t, d, bs)
	vecs := 0
	for seed := range uint64(40) {
		block := []uint32{64, 2 * cpu.LaneWidth}[seed%2]
		f := fuseKernel(t, seed, block, n)
		on, why, err := cpu.LaneEngine(f)
		require.NoError(t, err)
		require.True(t, on, "seed %d: %s", seed, why)
		nv, err := cpu.LaneFusedVectors(f)
		require.NoError(t, err)
		vecs += nv
		var outs [3][]uint32
		for e := range outs {
			lanes, fuse := e > 0, e == 2
			oldL, oldF := cpu.SetLaneEngine(lanes), cpu.SetLaneFusion(fuse)
			k, err := device.Compile(d, f)
			cpu.SetLaneEngine(oldL)
			cpu.SetLaneFusion(oldF)
			require.NoError(t, err)
			out := newBuf(t, d, make([]uint32, n*fuseExprs))
			outs[e] = make([]uint32, n*fuseExprs)
			require.NoError(t, s.Submit(k.Dispatch([3]uint32{n - 9}, uint32(seed*2654435761), float32(seed)*0.37-3, a, b, out), out.Download(outs[e])))
			require.NoError(t, s.Synchronize(ctxT(t)))
			require.NoError(t, k.Close())
		}
		for i := range outs[2] {
			if outs[1][i] != outs[2][i] || outs[0][i] != outs[2][i] {
				require.Failf(t, "the engines differ", "seed %d, thread %d, statement %d: per-thread %#x, unfused %#x, fused %#x\n%s",
					seed, i/fuseExprs, i%fuseExprs, outs[0][i], outs[1][i], outs[2][i], f)
			}
		}
	}
	require.Greater(t, vecs, 100, "vector nodes fused")
}

// TestLaneFusionVectors: n-body's vector arithmetic (the differences, the
// dot, the scaled sum into the accelerator) fuses component by component.
func TestLaneFusionVectors(t *testing.T) {
	f, err := programs.NBody()
	require.NoError(t, err)
	n, err := cpu.LaneFusedVectors(f)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, 4, "the difference, the dot, the scale, the sum")
}

// TestLaneFusionFaults: a fused load and a fused store out of range, and a
// fused division by zero, in batches of scattered lanes, fail naming the
// same argument, index, thread and position as unfused.
func TestLaneFusionFaults(t *testing.T) {
	d := openPlain(t)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, lim dsl.U32, a, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		k.If(i.Rem(dsl.U(3)).Ne(dsl.U(0)), func() {
			x := a.Read(i.Mul(dsl.U(2)).Add(dsl.U(1)).Rem(lim))
			out.Write(i.Add(x.And(dsl.U(1))), x.Mul(dsl.U(3)).Div(x.Sub(dsl.U(5))))
		})
	}, "lim", "a", "out")
	require.NoError(t, err)
	f.Name = "fused"
	const n = 100
	as := make([]uint32, n)
	for i := range as {
		as[i] = 2 * uint32(i)
	}
	as[99] = 5 // lane 49 (index 99) divides by zero
	cases := []struct {
		name   string
		lim    uint32
		size   uint32
		outLen int
		want   []string
	}{
		{"load", 1000, 64, n, []string{"argument 1 (a): index 101 out of range [0, 100)", "thread [50 0 0]"}},
		{"divide", 100, 64, n, []string{"integer division by zero", "thread [49 0 0]"}},
		{"store", 100, 47, 40, []string{"argument 2 (out): index 40 out of range [0, 40)", "thread [40 0 0]"}},
	}
	for _, c := range cases {
		sameFault(t, d, f, c.name, func() []any {
			return []any{c.lim, upload(t, d, as), upload(t, d, make([]uint32, c.outLen))}
		}, c.size, append(c.want, "kernel fused")...)
	}

	// Consecutive indices (the x id plus a uniform), read and written as
	// runs of words where they are in range.
	g, err := dsl.Kernel1D(64, func(k *dsl.K, off dsl.U32, a, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		out.Write(i.Add(off), a.Read(i.Add(off)).Add(dsl.U(1)))
	}, "off", "a", "out")
	require.NoError(t, err)
	g.Name = "runs"
	sameFault(t, d, g, "a run's load", func() []any {
		return []any{uint32(60), upload(t, d, as), upload(t, d, make([]uint32, 200))}
	}, 64, "kernel runs", "argument 1 (a): index 100 out of range [0, 100)", "thread [40 0 0]")
	sameFault(t, d, g, "a run's store", func() []any {
		return []any{uint32(60), upload(t, d, make([]uint32, 200)), upload(t, d, make([]uint32, 80))}
	}, 64, "kernel runs", "argument 2 (out): index 80 out of range [0, 80)", "thread [20 0 0]")
	sameFault(t, d, g, "a run that wraps", func() []any {
		return []any{uint32(0xffffffe0), upload(t, d, make([]uint32, 200)), upload(t, d, make([]uint32, 200))}
	}, 64, "kernel runs", "argument 1 (a): index 4294967264 out of range [0, 200)", "thread [0 0 0]")

	// An index the same in every lane (a uniform): one read a batch, the
	// first lane of the batch faulting.
	u, err := dsl.Kernel1D(64, func(k *dsl.K, off dsl.U32, a dsl.Buf[dsl.U32], v dsl.Buf[dsl.F32x4], out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		k.If(i.Rem(dsl.U(3)).Ne(dsl.U(0)), func() {
			q := v.Read(off.Shr(dsl.U(1)))
			out.Write(i, a.Read(off).Add(dsl.Bitcast[uint32](q.W())))
		})
	}, "off", "a", "v", "out")
	require.NoError(t, err)
	u.Name = "uniform"
	vs := make([][4]float32, 60)
	for i := range vs {
		vs[i][3] = float32(i)
	}
	sameFault(t, d, u, "a uniform load", func() []any {
		return []any{uint32(100), upload(t, d, as), upload(t, d, vs), upload(t, d, make([]uint32, 64))}
	}, 64, "kernel uniform", "argument 1 (a): index 100 out of range [0, 100)", "thread [1 0 0]")
	sameFault(t, d, u, "a uniform load of a vector", func() []any {
		return []any{uint32(120), upload(t, d, make([]uint32, 200)), upload(t, d, vs), upload(t, d, make([]uint32, 64))}
	}, 64, "kernel uniform", "argument 2 (v): index 60 out of range [0, 60)", "thread [1 0 0]")
	for _, lanes := range []bool{false, true} {
		old := cpu.SetLaneEngine(lanes)
		k, err := device.Compile(d, u)
		cpu.SetLaneEngine(old)
		require.NoError(t, err)
		out := upload(t, d, make([]uint32, 64))
		run(t, d, k.Dispatch([3]uint32{64}, uint32(77), upload(t, d, as), upload(t, d, vs), out))
		got := download(t, d, out)
		for i := range 64 {
			want := uint32(0)
			if i%3 != 0 {
				want = as[77] + math.Float32bits(38)
			}
			require.Equal(t, want, got[i], "lanes %v, thread %d", lanes, i)
		}
		require.NoError(t, k.Close())
	}

	a, out := upload(t, d, as), upload(t, d, make([]uint32, 200))
	for _, fuse := range []bool{false, true} {
		old := cpu.SetLaneFusion(fuse)
		k, err := device.Compile(d, g)
		cpu.SetLaneFusion(old)
		require.NoError(t, err)
		run(t, d, k.Dispatch([3]uint32{70}, uint32(30), a, out))
		got := download(t, d, out)
		for i := range 70 {
			require.Equal(t, as[i+30]+1, got[i+30], "fused %v", fuse)
		}
		require.NoError(t, k.Close())
	}
}

// sameFault runs kernel f fused and unfused over size threads with the
// arguments args makes: both fail with the same message, which holds want.
func sameFault(t *testing.T, d *device.Device, f *ir.Function, name string, args func() []any, size uint32, want ...string) {
	t.Helper()
	var msgs [2]string
	for e, fuse := range []bool{false, true} {
		old := cpu.SetLaneFusion(fuse)
		k, err := device.Compile(d, f)
		cpu.SetLaneFusion(old)
		require.NoError(t, err)
		err = runErr(t, d, k.Dispatch([3]uint32{size}, args()...))
		require.Error(t, err, name)
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		for _, w := range want {
			require.ErrorContains(t, err, w, "%s (fused %v)", name, fuse)
		}
		_, msgs[e], _ = strings.Cut(err.Error(), ": kernel") // past the stream's number
		require.NoError(t, k.Close())
	}
	require.Equal(t, msgs[0], msgs[1], name)
}

// TestLaneLocalsZeroed: a local that some lanes of a batch do not assign
// reads zero in them, batch after batch, while one the body assigns before
// any read is not zeroed per batch and still right.
func TestLaneLocalsZeroed(t *testing.T) {
	d := open(t)
	f, err := dsl.Kernel1D(256, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		v := dsl.NewVar(k, dsl.U(0))
		u := dsl.NewVar(k, dsl.U(0))
		w := dsl.NewVar(k, i.Mul(dsl.U(3)))
		u.Set(u.Get().Add(i))                                                 // read before it is written
		k.If(i.Rem(dsl.U(3)).Eq(dsl.U(0)), func() { v.Set(i.Add(dsl.U(7))) }) // lane l's thread is 0 mod 3 in one batch of three
		out.Write(i, v.Get().Add(w.Get().Shl(dsl.U(16))).Add(u.Get().Xor(i)))
	}, "out")
	require.NoError(t, err)
	// Without the assignments of zero the DSL writes: the IR's own zero.
	for _, s := range f.Body.Stmts[:2] {
		a, ok := s.(*ir.Assign)
		require.True(t, ok, "the kernel starts with v = 0, u = 0")
		lit, ok := a.Src.(*ir.Literal)
		require.True(t, ok && lit.Bits == 0, "the kernel starts with v = 0, u = 0")
	}
	f.Body.Stmts = f.Body.Stmts[2:]
	on, why, err := cpu.LaneEngine(f)
	require.NoError(t, err)
	require.True(t, on, why)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	const n = 1000
	out := upload(t, d, make([]uint32, n))
	run(t, d, k.Dispatch([3]uint32{n}, out))
	got := download(t, d, out)
	for i := range uint32(n) {
		want := 3 * i << 16
		if i%3 == 0 {
			want += i + 7
		}
		require.Equal(t, want, got[i], "thread %d", i)
	}
}

// TestLaneDeferredAdds: atomic adds a worker sums and makes at the end (to
// a buffer the kernel only adds to) leave the words the adds made one by
// one leave, and an add out of range faults naming its lane.
func TestLaneDeferredAdds(t *testing.T) {
	d := openPlain(t)
	h, err := programs.Histogram()
	require.NoError(t, err)
	const n = 64 * 1563 // the histogram has barriers: whole blocks
	in := make([]uint32, n)
	r := rand.New(rand.NewPCG(8, 9))
	for i := range in {
		in[i] = r.Uint32()
	}
	f, err := dsl.Kernel1D(64, func(k *dsl.K, x dsl.Buf[dsl.I32], sums dsl.Buf[dsl.I32]) {
		i := k.DispatchID().X()
		sums.AtomicAdd(dsl.Bitcast[uint32](x.Read(i)).And(dsl.U(7)), x.Read(i))
	}, "x", "sums")
	require.NoError(t, err)
	xs := make([]int32, n-5)
	want := make([]int32, 8)
	for i := range xs {
		xs[i] = r.Int32() - 1<<30
		want[uint32(xs[i])&7] += xs[i]
	}
	for _, lanes := range []bool{false, true} {
		old := cpu.SetLaneEngine(lanes)
		kh, err := device.Compile(d, h)
		require.NoError(t, err)
		ks, err := device.Compile(d, f)
		require.NoError(t, err)
		cpu.SetLaneEngine(old)
		bins := upload(t, d, make([]uint32, programs.HistogramBins))
		run(t, d, kh.Dispatch([3]uint32{n}, upload(t, d, in), bins))
		require.Equal(t, programs.HistogramRef(in), download(t, d, bins), "lanes %v", lanes)
		sums := upload(t, d, make([]int32, 8))
		run(t, d, ks.Dispatch([3]uint32{n - 5}, upload(t, d, xs), sums))
		require.Equal(t, want, download(t, d, sums), "lanes %v", lanes)
		require.NoError(t, kh.Close())
		require.NoError(t, ks.Close())
	}

	g, err := dsl.Kernel1D(64, func(k *dsl.K, idx, bins dsl.Buf[dsl.U32]) {
		bins.AtomicAdd(idx.Read(k.DispatchID().X()), dsl.U(1))
	}, "idx", "bins")
	require.NoError(t, err)
	g.Name = "adds"
	idx := make([]uint32, 64)
	idx[37] = 8
	var msgs [2]string
	for e, lanes := range []bool{false, true} {
		old := cpu.SetLaneEngine(lanes)
		k, err := device.Compile(d, g)
		cpu.SetLaneEngine(old)
		require.NoError(t, err)
		err = runErr(t, d, k.Dispatch([3]uint32{64}, upload(t, d, idx), upload(t, d, make([]uint32, 8))))
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		require.ErrorContains(t, err, "kernel adds")
		require.ErrorContains(t, err, "argument 1 (bins): index 8 out of range [0, 8)")
		require.ErrorContains(t, err, "thread [37 0 0]")
		_, msgs[e], _ = strings.Cut(err.Error(), ": kernel")
		require.NoError(t, k.Close())
	}
	require.Equal(t, msgs[0], msgs[1])
}

// TestLaneVectorIntoVariable: a vector operation assigned to a variable
// writes the variable itself only where no operand reads a component of it
// an earlier component overwrote (v = v.yzx + w, v = v * v.x).
func TestLaneVectorIntoVariable(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	build := func(src func(v, w *ir.Var) ir.Expr) *ir.Function {
		f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
			i := k.DispatchID().X()
			v := dsl.NewVar(k, dsl.V3(dsl.Convert[float32](i), dsl.F(1), dsl.F(2)))
			w := dsl.NewVar(k, dsl.V3(dsl.F(10), dsl.F(20), dsl.F(30)))
			v.Set(w.Get()) // replaced below
			x := v.Get()
			out.Write(i.Mul(dsl.U(3)), x.X())
			out.Write(i.Mul(dsl.U(3)).Add(dsl.U(1)), x.Y())
			out.Write(i.Mul(dsl.U(3)).Add(dsl.U(2)), x.Z())
		}, "out")
		require.NoError(t, err)
		var vars []*ir.Var
		for _, st := range f.Body.Stmts {
			if a, ok := st.(*ir.Assign); ok {
				if r, ok := a.Dst.(*ir.Ref); ok && r.Var.Type.Kind() == ir.KindVector && len(vars) < 2 {
					vars = append(vars, r.Var)
				}
			}
		}
		require.Len(t, vars, 2, "v and w")
		replaced := false
		for _, st := range f.Body.Stmts {
			if a, ok := st.(*ir.Assign); ok && !replaced {
				if r, ok := a.Dst.(*ir.Ref); ok && r.Var == vars[0] && a != f.Body.Stmts[0] {
					if _, lit := a.Src.(*ir.Construct); !lit {
						a.Src, replaced = src(vars[0], vars[1]), true
					}
				}
			}
		}
		require.True(t, replaced, "v.Set(...)")
		return f
	}
	v3 := ir.Vector(ir.TF32, 3)
	cases := []struct {
		name string
		src  func(v, w *ir.Var) ir.Expr
		want func(i float32) [3]float32
	}{
		{"v = v.yzx + w", func(v, w *ir.Var) ir.Expr {
			return &ir.Binary{Op: ir.Add, X: &ir.Swizzle{X: &ir.Ref{Var: v}, Comps: []uint8{1, 2, 0}, T: v3}, Y: &ir.Ref{Var: w}, T: v3}
		}, func(i float32) [3]float32 { return [3]float32{11, 22, i + 30} }},
		{"v = v * v.x", func(v, w *ir.Var) ir.Expr {
			return &ir.Binary{Op: ir.Mul, X: &ir.Ref{Var: v}, Y: &ir.Swizzle{X: &ir.Ref{Var: v}, Comps: []uint8{0}, T: ir.TF32}, T: v3}
		}, func(i float32) [3]float32 { return [3]float32{i * i, i, 2 * i} }},
		{"v = v + w", func(v, w *ir.Var) ir.Expr {
			return &ir.Binary{Op: ir.Add, X: &ir.Ref{Var: v}, Y: &ir.Ref{Var: w}, T: v3}
		}, func(i float32) [3]float32 { return [3]float32{i + 10, 21, 32} }},
	}
	for _, c := range cases {
		name := c.name
		f := build(c.src)
		pt, ln := bothEngines(t, d, f)
		const n = 100
		o1, o2 := newBuf(t, d, make([]float32, 3*n)), newBuf(t, d, make([]float32, 3*n))
		g1, g2 := make([]float32, 3*n), make([]float32, 3*n)
		require.NoError(t, s.Submit(pt.Dispatch([3]uint32{n}, o1), ln.Dispatch([3]uint32{n}, o2), o1.Download(g1), o2.Download(g2)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		for i := range n {
			want := c.want(float32(i))
			require.Equal(t, want[:], g2[3*i:3*i+3], "%s: thread %d", name, i)
		}
		require.Equal(t, g1, g2, name)
	}
}
