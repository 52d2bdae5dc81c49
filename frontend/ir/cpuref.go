package ir

import (
	"math"
	"math/bits"
)

// The CPU references of the built-ins: what each computes, in Go, for
// tests to compare a device against. Float built-ins follow GLSL.std.450
// definitions (step, smoothstep, fract, sign …) evaluated in float64 and
// rounded to float32; where GLSL leaves a result undefined (NaN operands of
// min/max/clamp, sin of ±Inf) the reference returns Go's answer and tests do
// not probe it.

// RefFloat32 evaluates float built-in op on float32 operands; ok is false
// for an op that is not a float scalar built-in.
func RefFloat32(op Op, a ...float32) (r float32, ok bool) {
	x := func(i int) float64 { return float64(a[i]) }
	f := func(v float64) (float32, bool) { return float32(v), true }
	switch op {
	case OpAbs:
		return f(math.Abs(x(0)))
	case OpSign:
		switch {
		case a[0] > 0:
			return 1, true
		case a[0] < 0:
			return -1, true
		}
		return a[0], true // ±0 and NaN
	case OpFloor:
		return f(math.Floor(x(0)))
	case OpCeil:
		return f(math.Ceil(x(0)))
	case OpRound:
		return f(math.Round(x(0)))
	case OpTrunc:
		return f(math.Trunc(x(0)))
	case OpFract:
		return a[0] - float32(math.Floor(x(0))), true
	case OpSqrt:
		return f(math.Sqrt(x(0)))
	case OpInverseSqrt:
		return f(1 / math.Sqrt(x(0)))
	case OpExp:
		return f(math.Exp(x(0)))
	case OpExp2:
		return f(math.Exp2(x(0)))
	case OpLog:
		return f(math.Log(x(0)))
	case OpLog2:
		return f(math.Log2(x(0)))
	case OpSin:
		return f(math.Sin(x(0)))
	case OpCos:
		return f(math.Cos(x(0)))
	case OpTan:
		return f(math.Tan(x(0)))
	case OpAsin:
		return f(math.Asin(x(0)))
	case OpAcos:
		return f(math.Acos(x(0)))
	case OpAtan:
		return f(math.Atan(x(0)))
	case OpSinh:
		return f(math.Sinh(x(0)))
	case OpCosh:
		return f(math.Cosh(x(0)))
	case OpTanh:
		return f(math.Tanh(x(0)))
	case OpAsinh:
		return f(math.Asinh(x(0)))
	case OpAcosh:
		return f(math.Acosh(x(0)))
	case OpAtanh:
		return f(math.Atanh(x(0)))
	case OpRadians:
		return f(x(0) * math.Pi / 180)
	case OpDegrees:
		return f(x(0) * 180 / math.Pi)
	case OpSaturate:
		return f(math.Min(math.Max(x(0), 0), 1))
	case OpPow:
		return f(math.Pow(x(0), x(1)))
	case OpAtan2:
		return f(math.Atan2(x(0), x(1)))
	case OpStep:
		if a[1] < a[0] {
			return 0, true
		}
		return 1, true
	case OpMin:
		return f(math.Min(x(0), x(1)))
	case OpMax:
		return f(math.Max(x(0), x(1)))
	case OpClamp:
		return f(math.Min(math.Max(x(0), x(1)), x(2)))
	case OpLerp:
		return f(x(0)*(1-x(2)) + x(1)*x(2))
	case OpSmoothStep:
		t := math.Min(math.Max((x(2)-x(0))/(x(1)-x(0)), 0), 1)
		return f(t * t * (3 - 2*t))
	case OpFma:
		return f(math.FMA(x(0), x(1), x(2)))
	}
	return 0, false
}

// RefInt evaluates integer built-in op on 32-bit operands (signed when
// signed is set, the bits of a otherwise); ok is false for other ops.
func RefInt(op Op, signed bool, a ...uint32) (r uint32, ok bool) {
	s := func(i int) int32 { return int32(a[i]) }
	switch op {
	case OpAbs:
		if signed && s(0) < 0 {
			return uint32(-s(0)), true
		}
		return a[0], true
	case OpSign:
		switch {
		case s(0) > 0:
			return 1, true
		case s(0) < 0:
			return math.MaxUint32, true
		}
		return 0, true
	case OpMin, OpMax:
		less := a[0] < a[1]
		if signed {
			less = s(0) < s(1)
		}
		if less == (op == OpMin) {
			return a[0], true
		}
		return a[1], true
	case OpClamp:
		lo, _ := RefInt(OpMax, signed, a[0], a[1])
		return RefInt(OpMin, signed, lo, a[2])
	case OpPopCount:
		return uint32(bits.OnesCount32(a[0])), true
	case OpClz:
		return uint32(bits.LeadingZeros32(a[0])), true
	case OpCtz:
		return uint32(bits.TrailingZeros32(a[0])), true
	case OpBitReverse:
		return bits.Reverse32(a[0]), true
	}
	return 0, false
}

// RefBinary32 evaluates x op y on 32-bit integers with Go's semantics
// (wrapping arithmetic; shifts by the width or more give 0, or -1 for a
// negative signed value shifted right), which the codegen reproduces.
// Division by zero has no reference (ok is false).
func RefBinary32(op BinaryOp, signed bool, x, y uint32) (r uint32, ok bool) {
	sx, sy := int32(x), int32(y)
	b2u := func(v bool) (uint32, bool) {
		if v {
			return 1, true
		}
		return 0, true
	}
	switch op {
	case Add:
		return x + y, true
	case Sub:
		return x - y, true
	case Mul:
		return x * y, true
	case Div, Rem:
		if y == 0 || signed && sx == math.MinInt32 && sy == -1 {
			return 0, false
		}
		switch {
		case signed && op == Div:
			return uint32(sx / sy), true
		case signed:
			return uint32(sx % sy), true
		case op == Div:
			return x / y, true
		}
		return x % y, true
	case And:
		return x & y, true
	case Or:
		return x | y, true
	case Xor:
		return x ^ y, true
	case Shl:
		return x << y, true
	case Shr:
		if signed {
			return uint32(sx >> y), true
		}
		return x >> y, true
	case Eq:
		return b2u(x == y)
	case Ne:
		return b2u(x != y)
	case Lt:
		if signed {
			return b2u(sx < sy)
		}
		return b2u(x < y)
	case Le:
		if signed {
			return b2u(sx <= sy)
		}
		return b2u(x <= y)
	case Gt:
		if signed {
			return b2u(sx > sy)
		}
		return b2u(x > y)
	case Ge:
		if signed {
			return b2u(sx >= sy)
		}
		return b2u(x >= y)
	}
	return 0, false
}
