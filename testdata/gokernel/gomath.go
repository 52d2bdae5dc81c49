package kernels

import (
	"math"

	"github.com/lucent-gpu/lucent/kernel"
)

// FloatMathCols is the number of results FloatMath writes per input.
const FloatMathCols = 12

// FloatMath applies the float32 math of package kernel and the constants and
// tests of package math to in[i], as Go programmers write them: no float64
// round trips.
//
//lucent:kernel block=64
func FloatMath(in []float32, out []float32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	x := in[i]
	ax := kernel.Abs(x)
	o := i * FloatMathCols
	out[o+0] = kernel.Sqrt(ax) + kernel.InverseSqrt(ax+1)
	out[o+1] = kernel.Sin(x) + kernel.Cos(x) + kernel.Tan(x*0.5)
	out[o+2] = kernel.Exp(x*0.5) + kernel.Log(ax+1) + kernel.Exp2(x) + kernel.Log2(ax+1)
	out[o+3] = kernel.Pow(ax, 1.5) + kernel.Atan2(x, 1.5)
	out[o+4] = kernel.Floor(x*3) + kernel.Ceil(x*2) + kernel.Round(x) + kernel.Trunc(x) + kernel.Fract(x) + kernel.Sign(x)
	out[o+5] = kernel.Min(x, 0.25) + kernel.Max(x, -0.25) + kernel.Clamp(x, -0.5, 0.5) + kernel.Saturate(x)
	out[o+6] = kernel.Fma(x, 2, 1) + kernel.Lerp(x, 1, 0.25) + kernel.SmoothStep(-1, 1, x) + kernel.Step(0, x)
	out[o+7] = kernel.Asin(x*0.4) + kernel.Acos(x*0.4) + kernel.Atan(x)
	out[o+8] = kernel.Sinh(x) + kernel.Cosh(x) + kernel.Tanh(x) + kernel.Asinh(x) + kernel.Acosh(ax+1) + kernel.Atanh(x*0.4)
	out[o+9] = x*math.Pi + math.SmallestNonzeroFloat32 + kernel.Radians(x) + kernel.Degrees(x)*0.01
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	var flags uint32
	if math.IsInf(float64(inf), 1) && math.IsInf(float64(-inf), -1) && !math.IsInf(float64(x), 0) {
		flags |= 1
	}
	if math.IsNaN(float64(nan)) && !math.IsNaN(float64(x)) {
		flags |= 2
	}
	if kernel.IsNaN(nan) && kernel.IsInf(-inf) && !kernel.IsInf(x) {
		flags |= 4
	}
	if x < math.MaxFloat32 && x > -math.MaxFloat32 {
		flags |= 8
	}
	if math.Signbit(float64(x)) {
		flags |= 16
	}
	out[o+10] = float32(flags)
	out[o+11] = kernel.Min(x, inf) + kernel.Max(x, -inf)
}

// FloatTotals is what FloatAtomics accumulates.
type FloatTotals struct {
	Sum, Diff, Min, Max, Last, Swapped, Winners, BlockMin float32
}

// FloatAtomics updates float32 totals from every thread with each atomic
// operation that takes float32.
//
//lucent:kernel block=64
func FloatAtomics(vals []float32, t []FloatTotals) {
	lowest := kernel.Shared[float32]()
	if kernel.ThreadID().X == 0 {
		*lowest = float32(math.Inf(1))
	}
	kernel.Barrier()
	i := kernel.DispatchID().X
	v := vals[i]
	kernel.AtomicAdd(&t[0].Sum, v) // quarters: exact in any order
	kernel.AtomicSub(&t[0].Diff, v)
	kernel.AtomicMin(&t[0].Min, v)
	kernel.AtomicMax(&t[0].Max, v)
	kernel.AtomicExchange(&t[0].Last, 7.5)
	if kernel.AtomicCompareExchange(&t[0].Swapped, 0, 1.5) == 0 { // exactly one thread wins
		kernel.AtomicAdd(&t[0].Winners, 1)
	}
	kernel.AtomicMin(lowest, v)
	kernel.Barrier()
	if kernel.ThreadID().X == 0 {
		kernel.AtomicMin(&t[0].BlockMin, *lowest)
	}
}
