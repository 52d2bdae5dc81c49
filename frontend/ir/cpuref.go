package ir

import (
	"math"
)

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
