package gokernel_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/kernel"
	kernels "github.com/lucent-gpu/lucent/testdata/gokernel"
)

// The float32 math of package kernel computes on the CPU exactly what
// frontend's references of the built-ins it compiles to compute.
func TestKernelMathMatchesBuiltins(t *testing.T) {
	unary := map[ir.Op]func(float32) float32{
		ir.OpAbs: kernel.Abs, ir.OpSign: kernel.Sign, ir.OpFloor: kernel.Floor, ir.OpCeil: kernel.Ceil,
		ir.OpRound: kernel.Round, ir.OpTrunc: kernel.Trunc, ir.OpFract: kernel.Fract, ir.OpSqrt: kernel.Sqrt,
		ir.OpInverseSqrt: kernel.InverseSqrt, ir.OpExp: kernel.Exp, ir.OpExp2: kernel.Exp2, ir.OpLog: kernel.Log,
		ir.OpLog2: kernel.Log2, ir.OpSin: kernel.Sin, ir.OpCos: kernel.Cos, ir.OpTan: kernel.Tan,
		ir.OpAsin: kernel.Asin, ir.OpAcos: kernel.Acos, ir.OpAtan: kernel.Atan, ir.OpSinh: kernel.Sinh,
		ir.OpCosh: kernel.Cosh, ir.OpTanh: kernel.Tanh, ir.OpAsinh: kernel.Asinh, ir.OpAcosh: kernel.Acosh,
		ir.OpAtanh: kernel.Atanh, ir.OpRadians: kernel.Radians, ir.OpDegrees: kernel.Degrees, ir.OpSaturate: kernel.Saturate,
	}
	binary := map[ir.Op]func(a, b float32) float32{
		ir.OpPow: kernel.Pow, ir.OpAtan2: kernel.Atan2, ir.OpStep: kernel.Step,
		ir.OpMin: kernel.Min, ir.OpMax: kernel.Max,
	}
	ternary := map[ir.Op]func(a, b, c float32) float32{
		ir.OpClamp: kernel.Clamp, ir.OpLerp: kernel.Lerp, ir.OpSmoothStep: kernel.SmoothStep, ir.OpFma: kernel.Fma,
	}
	same := func(op ir.Op, want, got float32) {
		if math.IsNaN(float64(want)) {
			require.True(t, math.IsNaN(float64(got)), "%s: got %v, want NaN", op, got)
			return
		}
		require.Equal(t, math.Float32bits(want), math.Float32bits(got), "%s: got %v, want %v", op, got, want)
	}
	vals := []float32{0, float32(math.Copysign(0, -1)), 0.25, -0.5, 0.5, 1, -1, 1.75, -2.5, 3, 10, 1e-3, float32(math.Inf(1)), float32(math.NaN())}
	for _, a := range vals {
		for op, f := range unary {
			want, ok := ir.RefFloat32(op, a)
			require.True(t, ok)
			same(op, want, f(a))
		}
		for _, b := range vals {
			for op, f := range binary {
				if (op == ir.OpMin || op == ir.OpMax) && (a != a || b != b) {
					continue // undefined on the device
				}
				want, _ := ir.RefFloat32(op, a, b)
				same(op, want, f(a, b))
			}
			for _, c := range vals {
				for op, f := range ternary {
					if op == ir.OpClamp && (a != a || b != b || c != c || b > c) {
						continue // undefined on the device
					}
					want, _ := ir.RefFloat32(op, a, b, c)
					same(op, want, f(a, b, c))
				}
			}
		}
	}
	require.True(t, kernel.IsNaN(float32(math.NaN())))
	require.False(t, kernel.IsNaN(1))
	require.True(t, kernel.IsInf(float32(math.Inf(-1))))
	require.False(t, kernel.IsInf(math.MaxFloat32))
}

func floatMathInput(n int) []float32 {
	in := randFloats(rand.New(rand.NewPCG(15, 1)), n, -2, 2)
	in[0], in[1] = 0, -1.25
	return in
}

// floatMathRef computes FloatMath in float64 from the definitions.
func floatMathRef(x float32) [kernels.FloatMathCols]float64 {
	v := float64(x)
	ax := math.Abs(v)
	sign := 0.0
	if v > 0 {
		sign = 1
	} else if v < 0 {
		sign = -1
	}
	clamp := func(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }
	t := clamp((v+1)/2, 0, 1)
	step := 1.0
	if v < 0 {
		step = 0
	}
	flags := 1.0 + 2 + 4 + 8
	if math.Signbit(v) {
		flags += 16
	}
	return [...]float64{
		math.Sqrt(ax) + 1/math.Sqrt(ax+1),
		math.Sin(v) + math.Cos(v) + math.Tan(v*0.5),
		math.Exp(v*0.5) + math.Log(ax+1) + math.Exp2(v) + math.Log2(ax+1),
		math.Pow(ax, 1.5) + math.Atan2(v, 1.5),
		math.Floor(v*3) + math.Ceil(v*2) + math.Round(v) + math.Trunc(v) + (v - math.Floor(v)) + sign,
		math.Min(v, 0.25) + math.Max(v, -0.25) + clamp(v, -0.5, 0.5) + clamp(v, 0, 1),
		v*2 + 1 + v*0.75 + 0.25 + t*t*(3-2*t) + step,
		math.Asin(v*0.4) + math.Acos(v*0.4) + math.Atan(v),
		math.Sinh(v) + math.Cosh(v) + math.Tanh(v) + math.Asinh(v) + math.Acosh(ax+1) + math.Atanh(v*0.4),
		v*math.Pi + v*math.Pi/180 + v*180/math.Pi*0.01,
		flags,
		2 * v,
	}
}

func TestCPUFloatMath(t *testing.T) {
	in := floatMathInput(200)
	out := make([]float32, len(in)*kernels.FloatMathCols)
	run(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.FloatMath(in, out) })
	for i, x := range in {
		for j, want := range floatMathRef(x) {
			require.InDelta(t, want, out[i*kernels.FloatMathCols+j], 1e-4*max(1, math.Abs(want)), "x=%v column %d", x, j)
		}
	}
}

func TestDeviceFloatMath(t *testing.T) {
	g := compileOn(t, openDevice(t), corpus(t)["FloatMath"])
	in := floatMathInput(200)
	ob := upload(g, make([]float32, len(in)*kernels.FloatMathCols))
	g.submit(g.k.Dispatch([3]uint32{uint32(len(in))}, upload(g, in), ob))
	want := make([]float32, len(in)*kernels.FloatMathCols)
	cpu(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.FloatMath(in, want) })
	got := download(g, ob)
	for i := range want {
		require.InDelta(t, want[i], got[i], 2e-3*max(1, math.Abs(float64(want[i]))), "x=%v column %d", in[i/kernels.FloatMathCols], i%kernels.FloatMathCols)
	}
}

// floatAtomicsInput is a whole number of 64-thread blocks of quarters.
func floatAtomicsInput(n int) ([]float32, []kernels.FloatTotals) {
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32(i*37%41-20) / 4
	}
	return vals, []kernels.FloatTotals{{Min: 1e9, Max: -1e9, BlockMin: 1e9}}
}

func TestCPUFloatAtomics(t *testing.T) {
	vals, tot := floatAtomicsInput(256)
	run(t, kernel.Grid1(64, uint32(len(vals))), func() { kernels.FloatAtomics(vals, tot) })
	want := kernels.FloatTotals{Min: 1e9, Max: -1e9, Last: 7.5, Swapped: 1.5, Winners: 1}
	for _, v := range vals {
		want.Sum += v
		want.Diff -= v
		want.Min = min(want.Min, v)
		want.Max = max(want.Max, v)
	}
	want.BlockMin = want.Min
	require.Equal(t, want, tot[0])
}

func TestDeviceFloatAtomics(t *testing.T) {
	g := compileOn(t, openDevice(t), corpus(t)["FloatAtomics"])
	vals, tot := floatAtomicsInput(256)
	tb := upload(g, tot)
	g.submit(g.k.Dispatch([3]uint32{uint32(len(vals))}, upload(g, vals), tb))
	cpu(t, kernel.Grid1(64, uint32(len(vals))), func() { kernels.FloatAtomics(vals, tot) })
	require.Equal(t, tot, download(g, tb))
}

// A float32 compare-and-swap compares bit patterns on the CPU, as on the
// device.
func TestAtomicCompareExchangeFloatBits(t *testing.T) {
	x := float32(0)
	require.Equal(t, float32(0), kernel.AtomicCompareExchange(&x, float32(math.Copysign(0, -1)), 1))
	require.Equal(t, float32(0), x, "-0 must not match +0")
	nan := float32(math.NaN())
	y := nan
	kernel.AtomicCompareExchange(&y, nan, 2)
	require.Equal(t, float32(2), y, "a NaN matches its own bits")
}
