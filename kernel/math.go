package kernel

import "math"

// Float32 math. Package math works on float64, which most GPUs compute slowly
// or not at all; these functions take and return float32 and compile to the
// device's float32 instructions (GLSL.std.450). On the CPU each is evaluated
// in float64 and rounded to float32, so it agrees with the device to the
// device's precision. Where GLSL leaves a result undefined (NaN operands of
// Min, Max and Clamp, Sin of ±Inf, Clamp with lo > hi) the CPU result is Go's
// and a kernel should not rely on it.
//
// Constants come from package math as usual (math.Pi, math.MaxFloat32,
// math.SmallestNonzeroFloat32), and so do the values float32(math.Inf(1)),
// float32(math.NaN()) and the tests math.IsNaN, math.IsInf and math.Signbit of
// float64(x) with x a float32 (all exact, so kernels compute them in float32).

func f32(v float64) float32 { return float32(v) }

// Abs returns |x|.
func Abs(x float32) float32 { return f32(math.Abs(float64(x))) }

// Sign returns 1 for x > 0, -1 for x < 0, and x itself for ±0 and NaN.
func Sign(x float32) float32 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x
}

// Floor returns the greatest integer value ≤ x.
func Floor(x float32) float32 { return f32(math.Floor(float64(x))) }

// Ceil returns the least integer value ≥ x.
func Ceil(x float32) float32 { return f32(math.Ceil(float64(x))) }

// Round returns x rounded to the nearest integer, halves away from zero (as
// math.Round).
func Round(x float32) float32 { return f32(math.Round(float64(x))) }

// Trunc returns the integer part of x.
func Trunc(x float32) float32 { return f32(math.Trunc(float64(x))) }

// Fract returns x - Floor(x).
func Fract(x float32) float32 { return x - Floor(x) }

// Sqrt returns √x.
func Sqrt(x float32) float32 { return f32(math.Sqrt(float64(x))) }

// InverseSqrt returns 1/√x.
func InverseSqrt(x float32) float32 { return f32(1 / math.Sqrt(float64(x))) }

// Exp returns eˣ.
func Exp(x float32) float32 { return f32(math.Exp(float64(x))) }

// Exp2 returns 2ˣ.
func Exp2(x float32) float32 { return f32(math.Exp2(float64(x))) }

// Log returns the natural logarithm of x.
func Log(x float32) float32 { return f32(math.Log(float64(x))) }

// Log2 returns the base-2 logarithm of x.
func Log2(x float32) float32 { return f32(math.Log2(float64(x))) }

// Sin returns the sine of x radians.
func Sin(x float32) float32 { return f32(math.Sin(float64(x))) }

// Cos returns the cosine of x radians.
func Cos(x float32) float32 { return f32(math.Cos(float64(x))) }

// Tan returns the tangent of x radians.
func Tan(x float32) float32 { return f32(math.Tan(float64(x))) }

// Asin returns the arcsine of x in radians.
func Asin(x float32) float32 { return f32(math.Asin(float64(x))) }

// Acos returns the arccosine of x in radians.
func Acos(x float32) float32 { return f32(math.Acos(float64(x))) }

// Atan returns the arctangent of x in radians.
func Atan(x float32) float32 { return f32(math.Atan(float64(x))) }

// Atan2 returns the arctangent of y/x in radians, using the signs of both to
// find the quadrant.
func Atan2(y, x float32) float32 { return f32(math.Atan2(float64(y), float64(x))) }

// Sinh returns the hyperbolic sine of x.
func Sinh(x float32) float32 { return f32(math.Sinh(float64(x))) }

// Cosh returns the hyperbolic cosine of x.
func Cosh(x float32) float32 { return f32(math.Cosh(float64(x))) }

// Tanh returns the hyperbolic tangent of x.
func Tanh(x float32) float32 { return f32(math.Tanh(float64(x))) }

// Asinh returns the inverse hyperbolic sine of x.
func Asinh(x float32) float32 { return f32(math.Asinh(float64(x))) }

// Acosh returns the inverse hyperbolic cosine of x.
func Acosh(x float32) float32 { return f32(math.Acosh(float64(x))) }

// Atanh returns the inverse hyperbolic tangent of x.
func Atanh(x float32) float32 { return f32(math.Atanh(float64(x))) }

// Radians converts x degrees to radians.
func Radians(x float32) float32 { return f32(float64(x) * math.Pi / 180) }

// Degrees converts x radians to degrees.
func Degrees(x float32) float32 { return f32(float64(x) * 180 / math.Pi) }

// Pow returns xʸ.
func Pow(x, y float32) float32 { return f32(math.Pow(float64(x), float64(y))) }

// Min returns the smaller of x and y.
func Min(x, y float32) float32 { return f32(math.Min(float64(x), float64(y))) }

// Max returns the larger of x and y.
func Max(x, y float32) float32 { return f32(math.Max(float64(x), float64(y))) }

// Clamp returns x limited to [lo, hi]: Min(Max(x, lo), hi).
func Clamp(x, lo, hi float32) float32 { return Min(Max(x, lo), hi) }

// Saturate returns Clamp(x, 0, 1).
func Saturate(x float32) float32 { return Clamp(x, 0, 1) }

// Step returns 0 for x < edge and 1 otherwise.
func Step(edge, x float32) float32 {
	if x < edge {
		return 0
	}
	return 1
}

// SmoothStep returns the Hermite interpolation t²(3-2t) of t = Saturate((x-e0)/(e1-e0)).
func SmoothStep(e0, e1, x float32) float32 {
	t := math.Min(math.Max((float64(x)-float64(e0))/(float64(e1)-float64(e0)), 0), 1)
	return f32(t * t * (3 - 2*t))
}

// Lerp returns a·(1-t) + b·t, the linear blend of a and b (GLSL's mix).
func Lerp(a, b, t float32) float32 {
	return f32(float64(a)*(1-float64(t)) + float64(b)*float64(t))
}

// Fma returns x·y + z. The device may or may not round the product first;
// the CPU computes it exactly and rounds once.
func Fma(x, y, z float32) float32 { return f32(math.FMA(float64(x), float64(y), float64(z))) }

// IsNaN reports whether x is a NaN.
func IsNaN(x float32) bool { return x != x }

// IsInf reports whether x is +Inf or -Inf.
func IsInf(x float32) bool { return x > math.MaxFloat32 || x < -math.MaxFloat32 }
