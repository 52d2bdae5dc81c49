package programs

import (
	"fmt"
	"math"

	fe "github.com/lucent-gpu/lucent/frontend"
)

// FloatOp is a float built-in with the operand count and the tolerance its
// device result deserves against RefFloat32.
type FloatOp struct {
	Op    fe.Op
	Arity int
	// SignedZero is false when GLSL leaves the sign of a zero result open
	// (sign(-0), min/max/clamp of -0 and +0): zeros then match either way.
	SignedZero bool
	// Tol is the allowed error: |got-want| <= Tol*max(1,|want|) (relative
	// above 1, absolute below). 0 means exact (bit-equal, NaN matching NaN).
	Tol float64
	// Domain filters the operands the op is tested on (nil: all of FloatInputs).
	Domain func(a ...float32) bool
}

// Tolerances follow the Vulkan spec's precision table for lavapipe-class
// devices: correctly rounded ops are exact, sqrt/inversesqrt within a few
// ULP, exp/log/pow within 3+2|x| ULP, trig absolute 2^-11 in [-π, π].
var FloatOps = []FloatOp{
	{Op: fe.OpAbs, Arity: 1, SignedZero: true}, {Op: fe.OpSign, Arity: 1, Domain: notNaN}, {Op: fe.OpFloor, Arity: 1, SignedZero: true}, {Op: fe.OpCeil, Arity: 1, SignedZero: true},
	{Op: fe.OpRound, Arity: 1, SignedZero: true}, {Op: fe.OpTrunc, Arity: 1, SignedZero: true},
	{Op: fe.OpFract, Arity: 1, Tol: 1e-6, Domain: finite},
	{Op: fe.OpSqrt, Arity: 1, Tol: 1e-6, Domain: nonNeg},
	{Op: fe.OpInverseSqrt, Arity: 1, Tol: 1e-6, Domain: positiveFinite},
	{Op: fe.OpExp, Arity: 1, Tol: 1e-5, Domain: within(80)}, {Op: fe.OpExp2, Arity: 1, Tol: 1e-5, Domain: within(100)},
	{Op: fe.OpLog, Arity: 1, Tol: 1e-5, Domain: positiveNormal}, {Op: fe.OpLog2, Arity: 1, Tol: 1e-5, Domain: positiveNormal},
	{Op: fe.OpSin, Arity: 1, Tol: 1e-3, Domain: within(math.Pi)}, {Op: fe.OpCos, Arity: 1, Tol: 1e-3, Domain: within(math.Pi)},
	{Op: fe.OpTan, Arity: 1, Tol: 1e-3, Domain: within(1.2)},
	{Op: fe.OpAsin, Arity: 1, Tol: 1e-3, Domain: within(1)}, {Op: fe.OpAcos, Arity: 1, Tol: 1e-3, Domain: within(1)},
	{Op: fe.OpAtan, Arity: 1, Tol: 1e-3, Domain: finite},
	{Op: fe.OpSinh, Arity: 1, Tol: 1e-4, Domain: within(10)}, {Op: fe.OpCosh, Arity: 1, Tol: 1e-4, Domain: within(10)},
	{Op: fe.OpTanh, Arity: 1, Tol: 1e-4, Domain: within(10)},
	{Op: fe.OpAsinh, Arity: 1, Tol: 1e-4, Domain: within(1e3)}, {Op: fe.OpAcosh, Arity: 1, Tol: 1e-4, Domain: between(1, 1e3)},
	{Op: fe.OpAtanh, Arity: 1, Tol: 1e-4, Domain: within(0.9)},
	{Op: fe.OpRadians, Arity: 1, Tol: 1e-6, Domain: finite}, {Op: fe.OpDegrees, Arity: 1, Tol: 1e-6, Domain: finite},
	{Op: fe.OpSaturate, Arity: 1, SignedZero: true, Domain: notNaN},
	{Op: fe.OpPow, Arity: 2, Tol: 1e-4, Domain: func(a ...float32) bool {
		return a[0] > 0 && a[0] < 100 && math.Abs(float64(a[1])) < 10
	}},
	{Op: fe.OpAtan2, Arity: 2, Tol: 1e-3, Domain: func(a ...float32) bool { return finite(a...) && (a[0] != 0 || a[1] != 0) }},
	{Op: fe.OpStep, Arity: 2, Domain: notNaN},
	{Op: fe.OpMin, Arity: 2, Domain: notNaN}, {Op: fe.OpMax, Arity: 2, Domain: notNaN},
	{Op: fe.OpClamp, Arity: 3, Domain: func(a ...float32) bool { return notNaN(a...) && a[1] <= a[2] }},
	{Op: fe.OpLerp, Arity: 3, Tol: 1e-5, Domain: within(1e3)},
	{Op: fe.OpSmoothStep, Arity: 3, Tol: 1e-5, Domain: func(a ...float32) bool { return within(1e3)(a...) && a[0] < a[1] }},
	{Op: fe.OpFma, Arity: 3, Tol: 1e-6, Domain: within(1e3)},
}

func finite(a ...float32) bool {
	for _, x := range a {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

func notNaN(a ...float32) bool {
	for _, x := range a {
		if x != x {
			return false
		}
	}
	return true
}

func nonNeg(a ...float32) bool { return notNaN(a...) && a[0] >= 0 }

func positiveFinite(a ...float32) bool { return finite(a...) && a[0] > 0 }

// positiveNormal excludes denormals, which devices may flush or approximate
// (lavapipe's log of a denormal answers as for the smallest normal).
func positiveNormal(a ...float32) bool { return finite(a...) && a[0] >= 1.17549435e-38 }

func within(m float64) func(a ...float32) bool {
	return func(a ...float32) bool {
		for _, x := range a {
			if !(math.Abs(float64(x)) <= m) {
				return false
			}
		}
		return true
	}
}

func between(lo, hi float64) func(a ...float32) bool {
	return func(a ...float32) bool { return float64(a[0]) >= lo && float64(a[0]) <= hi && finite(a...) }
}

// FloatInputs are the scalar operands tried: signed zeros, infinities, NaN,
// the extremes of float32, halves (for rounding) and ordinary values.
var FloatInputs = []float32{
	0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
	math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1.17549435e-38,
	0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, 1, -1, 2, 3, 0.1, -0.7, 0.9, 1.2, 3.14159, -3, 7.25, 10, -10, 99.5, 1000,
}

// FloatCases expands FloatInputs into the operand tuples of an op of arity
// n within its domain (pairs and triples are drawn from a smaller grid).
func FloatCases(o FloatOp) [][]float32 {
	in := FloatInputs
	if o.Arity > 1 {
		in = []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.NaN()), 0.5, -1.5, 1, 2, 3.14159, -10, 99.5}
	}
	var out [][]float32
	var rec func(prefix []float32)
	rec = func(prefix []float32) {
		if len(prefix) == o.Arity {
			if o.Domain == nil || o.Domain(prefix...) {
				out = append(out, append([]float32(nil), prefix...))
			}
			return
		}
		for _, x := range in {
			rec(append(prefix, x))
		}
	}
	rec(nil)
	return out
}

// FloatBuiltin is a kernel computing out[i] = op(a[i], b[i], c[i]) (as many
// operand buffers as the op's arity).
func FloatBuiltin(o FloatOp) (*fe.Function, error) {
	body := func(k *fe.K, ins []fe.Buf[fe.F32], out fe.Buf[fe.F32]) {
		i := k.DispatchID().X()
		args := make([]fe.F32, len(ins))
		for j, b := range ins {
			args[j] = b.Read(i)
		}
		out.Write(i, fe.Apply(o.Op, args...))
	}
	switch o.Arity {
	case 1:
		return fe.Kernel1D(64, func(k *fe.K, a, out fe.Buf[fe.F32]) { body(k, []fe.Buf[fe.F32]{a}, out) })
	case 2:
		return fe.Kernel1D(64, func(k *fe.K, a, b, out fe.Buf[fe.F32]) { body(k, []fe.Buf[fe.F32]{a, b}, out) })
	case 3:
		return fe.Kernel1D(64, func(k *fe.K, a, b, c, out fe.Buf[fe.F32]) { body(k, []fe.Buf[fe.F32]{a, b, c}, out) })
	}
	return nil, fmt.Errorf("arity %d", o.Arity)
}

// IntInputs are the 32-bit operands tried for integer built-ins and operators.
var IntInputs = []uint32{0, 1, 2, 3, 7, 31, 32, 33, 100, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff, 0xfffffffe, 0x12345678, 0xdeadbeef}

// IntOps are the integer built-ins.
var IntOps = []struct {
	Op    fe.Op
	Arity int
}{{fe.OpAbs, 1}, {fe.OpSign, 1}, {fe.OpMin, 2}, {fe.OpMax, 2}, {fe.OpClamp, 3}, {fe.OpPopCount, 1}, {fe.OpClz, 1}, {fe.OpCtz, 1}, {fe.OpBitReverse, 1}}

// IntBuiltin is a kernel computing out[i] = op(a[i], b[i], c[i]) on i32
// (signed) or u32 operands, all three buffers always bound.
func IntBuiltin(op fe.Op, arity int, signed bool) (*fe.Function, error) {
	if signed {
		return fe.Kernel1D(64, func(k *fe.K, a, b, c, out fe.Buf[fe.I32]) {
			i := k.DispatchID().X()
			args := []fe.I32{a.Read(i), b.Read(i), c.Read(i)}[:arity]
			out.Write(i, fe.Apply(op, args...))
		})
	}
	return fe.Kernel1D(64, func(k *fe.K, a, b, c, out fe.Buf[fe.U32]) {
		i := k.DispatchID().X()
		args := []fe.U32{a.Read(i), b.Read(i), c.Read(i)}[:arity]
		out.Write(i, fe.Apply(op, args...))
	})
}

// IntBinary is a kernel computing out[i] = a[i] op b[i] on i32 or u32
// (comparisons give 1 or 0); shifts take b[i] as the count.
func IntBinary(op fe.BinaryOp, signed bool) (*fe.Function, error) {
	if signed {
		return fe.Kernel1D(64, func(k *fe.K, a, b, out fe.Buf[fe.I32]) {
			i := k.DispatchID().X()
			x, y := a.Read(i), b.Read(i)
			out.Write(i, intBin(op, x, y, func(v fe.U32) fe.I32 { return fe.Bitcast[int32](v) }))
		})
	}
	return fe.Kernel1D(64, func(k *fe.K, a, b, out fe.Buf[fe.U32]) {
		i := k.DispatchID().X()
		out.Write(i, intBin(op, a.Read(i), b.Read(i), func(v fe.U32) fe.U32 { return v }))
	})
}

func intBin[E int32 | uint32](op fe.BinaryOp, x, y fe.Val[E], from func(fe.U32) fe.Val[E]) fe.Val[E] {
	switch {
	case op == fe.Shl:
		return x.Shl(fe.Bitcast[uint32](y))
	case op == fe.Shr:
		return x.Shr(fe.Bitcast[uint32](y))
	case op.IsCompare():
		var c fe.Bool
		switch op {
		case fe.Eq:
			c = x.Eq(y)
		case fe.Ne:
			c = x.Ne(y)
		case fe.Lt:
			c = x.Lt(y)
		case fe.Le:
			c = x.Le(y)
		case fe.Gt:
			c = x.Gt(y)
		default:
			c = x.Ge(y)
		}
		return from(fe.Convert[uint32](c))
	}
	return fe.ApplyBinary(op, x, y)
}

// IntBinaryOps are the operators IntBinary tests.
var IntBinaryOps = []fe.BinaryOp{fe.Add, fe.Sub, fe.Mul, fe.Div, fe.Rem, fe.And, fe.Or, fe.Xor, fe.Shl, fe.Shr, fe.Eq, fe.Ne, fe.Lt, fe.Le, fe.Gt, fe.Ge}
