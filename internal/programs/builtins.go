package programs

import (
	"fmt"
	"math"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// FloatOp is a float built-in with the operand count and the tolerance its
// device result deserves against RefFloat32.
type FloatOp struct {
	Op    ir.Op
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
	{Op: ir.OpAbs, Arity: 1, SignedZero: true}, {Op: ir.OpSign, Arity: 1, Domain: notNaN}, {Op: ir.OpFloor, Arity: 1, SignedZero: true}, {Op: ir.OpCeil, Arity: 1, SignedZero: true},
	{Op: ir.OpRound, Arity: 1, SignedZero: true}, {Op: ir.OpTrunc, Arity: 1, SignedZero: true},
	{Op: ir.OpFract, Arity: 1, Tol: 1e-6, Domain: finite},
	{Op: ir.OpSqrt, Arity: 1, Tol: 1e-6, Domain: nonNeg},
	{Op: ir.OpInverseSqrt, Arity: 1, Tol: 1e-6, Domain: positiveFinite},
	{Op: ir.OpExp, Arity: 1, Tol: 1e-5, Domain: within(80)}, {Op: ir.OpExp2, Arity: 1, Tol: 1e-5, Domain: within(100)},
	{Op: ir.OpLog, Arity: 1, Tol: 1e-5, Domain: positiveNormal}, {Op: ir.OpLog2, Arity: 1, Tol: 1e-5, Domain: positiveNormal},
	{Op: ir.OpSin, Arity: 1, Tol: 1e-3, Domain: within(math.Pi)}, {Op: ir.OpCos, Arity: 1, Tol: 1e-3, Domain: within(math.Pi)},
	{Op: ir.OpTan, Arity: 1, Tol: 1e-3, Domain: within(1.2)},
	{Op: ir.OpAsin, Arity: 1, Tol: 1e-3, Domain: within(1)}, {Op: ir.OpAcos, Arity: 1, Tol: 1e-3, Domain: within(1)},
	{Op: ir.OpAtan, Arity: 1, Tol: 1e-3, Domain: finite},
	{Op: ir.OpSinh, Arity: 1, Tol: 1e-4, Domain: within(10)}, {Op: ir.OpCosh, Arity: 1, Tol: 1e-4, Domain: within(10)},
	{Op: ir.OpTanh, Arity: 1, Tol: 1e-4, Domain: within(10)},
	{Op: ir.OpAsinh, Arity: 1, Tol: 1e-4, Domain: within(1e3)}, {Op: ir.OpAcosh, Arity: 1, Tol: 1e-4, Domain: between(1, 1e3)},
	{Op: ir.OpAtanh, Arity: 1, Tol: 1e-4, Domain: within(0.9)},
	{Op: ir.OpRadians, Arity: 1, Tol: 1e-6, Domain: finite}, {Op: ir.OpDegrees, Arity: 1, Tol: 1e-6, Domain: finite},
	{Op: ir.OpSaturate, Arity: 1, SignedZero: true, Domain: notNaN},
	{Op: ir.OpPow, Arity: 2, Tol: 1e-4, Domain: func(a ...float32) bool {
		return a[0] > 0 && a[0] < 100 && math.Abs(float64(a[1])) < 10
	}},
	{Op: ir.OpAtan2, Arity: 2, Tol: 1e-3, Domain: func(a ...float32) bool { return finite(a...) && (a[0] != 0 || a[1] != 0) }},
	{Op: ir.OpStep, Arity: 2, Domain: notNaN},
	{Op: ir.OpMin, Arity: 2, Domain: notNaN}, {Op: ir.OpMax, Arity: 2, Domain: notNaN},
	{Op: ir.OpClamp, Arity: 3, Domain: func(a ...float32) bool { return notNaN(a...) && a[1] <= a[2] }},
	{Op: ir.OpLerp, Arity: 3, Tol: 1e-5, Domain: within(1e3)},
	{Op: ir.OpSmoothStep, Arity: 3, Tol: 1e-5, Domain: func(a ...float32) bool { return within(1e3)(a...) && a[0] < a[1] }},
	{Op: ir.OpFma, Arity: 3, Tol: 1e-6, Domain: within(1e3)},
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
func FloatBuiltin(o FloatOp) (*ir.Function, error) {
	body := func(k *dsl.K, ins []dsl.Buf[dsl.F32], out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		args := make([]dsl.F32, len(ins))
		for j, b := range ins {
			args[j] = b.Read(i)
		}
		out.Write(i, dsl.Apply(o.Op, args...))
	}
	switch o.Arity {
	case 1:
		return dsl.Kernel1D(64, func(k *dsl.K, a, out dsl.Buf[dsl.F32]) { body(k, []dsl.Buf[dsl.F32]{a}, out) })
	case 2:
		return dsl.Kernel1D(64, func(k *dsl.K, a, b, out dsl.Buf[dsl.F32]) { body(k, []dsl.Buf[dsl.F32]{a, b}, out) })
	case 3:
		return dsl.Kernel1D(64, func(k *dsl.K, a, b, c, out dsl.Buf[dsl.F32]) { body(k, []dsl.Buf[dsl.F32]{a, b, c}, out) })
	}
	return nil, fmt.Errorf("arity %d", o.Arity)
}

// IntInputs are the 32-bit operands tried for integer built-ins and operators.
var IntInputs = []uint32{0, 1, 2, 3, 7, 31, 32, 33, 100, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff, 0xfffffffe, 0x12345678, 0xdeadbeef}

// IntOps are the integer built-ins.
var IntOps = []struct {
	Op    ir.Op
	Arity int
}{{ir.OpAbs, 1}, {ir.OpSign, 1}, {ir.OpMin, 2}, {ir.OpMax, 2}, {ir.OpClamp, 3}, {ir.OpPopCount, 1}, {ir.OpClz, 1}, {ir.OpCtz, 1}, {ir.OpBitReverse, 1}}

// IntBuiltin is a kernel computing out[i] = op(a[i], b[i], c[i]) on i32
// (signed) or u32 operands, all three buffers always bound.
func IntBuiltin(op ir.Op, arity int, signed bool) (*ir.Function, error) {
	if signed {
		return dsl.Kernel1D(64, func(k *dsl.K, a, b, c, out dsl.Buf[dsl.I32]) {
			i := k.DispatchID().X()
			args := []dsl.I32{a.Read(i), b.Read(i), c.Read(i)}[:arity]
			out.Write(i, dsl.Apply(op, args...))
		})
	}
	return dsl.Kernel1D(64, func(k *dsl.K, a, b, c, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		args := []dsl.U32{a.Read(i), b.Read(i), c.Read(i)}[:arity]
		out.Write(i, dsl.Apply(op, args...))
	})
}

// IntBinary is a kernel computing out[i] = a[i] op b[i] on i32 or u32
// (comparisons give 1 or 0); shifts take b[i] as the count.
func IntBinary(op ir.BinaryOp, signed bool) (*ir.Function, error) {
	if signed {
		return dsl.Kernel1D(64, func(k *dsl.K, a, b, out dsl.Buf[dsl.I32]) {
			i := k.DispatchID().X()
			x, y := a.Read(i), b.Read(i)
			out.Write(i, intBin(op, x, y, func(v dsl.U32) dsl.I32 { return dsl.Bitcast[int32](v) }))
		})
	}
	return dsl.Kernel1D(64, func(k *dsl.K, a, b, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		out.Write(i, intBin(op, a.Read(i), b.Read(i), func(v dsl.U32) dsl.U32 { return v }))
	})
}

func intBin[E int32 | uint32](op ir.BinaryOp, x, y dsl.Val[E], from func(dsl.U32) dsl.Val[E]) dsl.Val[E] {
	switch {
	case op == ir.Shl:
		return x.Shl(dsl.Bitcast[uint32](y))
	case op == ir.Shr:
		return x.Shr(dsl.Bitcast[uint32](y))
	case op.IsCompare():
		var c dsl.Bool
		switch op {
		case ir.Eq:
			c = x.Eq(y)
		case ir.Ne:
			c = x.Ne(y)
		case ir.Lt:
			c = x.Lt(y)
		case ir.Le:
			c = x.Le(y)
		case ir.Gt:
			c = x.Gt(y)
		default:
			c = x.Ge(y)
		}
		return from(dsl.Convert[uint32](c))
	}
	return dsl.ApplyBinary(op, x, y)
}

// IntBinaryOps are the operators IntBinary tests.
var IntBinaryOps = []ir.BinaryOp{ir.Add, ir.Sub, ir.Mul, ir.Div, ir.Rem, ir.And, ir.Or, ir.Xor, ir.Shl, ir.Shr, ir.Eq, ir.Ne, ir.Lt, ir.Le, ir.Gt, ir.Ge}
