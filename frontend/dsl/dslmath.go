package dsl

import "github.com/lucent-gpu/lucent/frontend/ir"

// The built-ins as generic DSL functions: V is any scalar or vector DSL
// type the built-in accepts (CallType says which); a wrong one poisons the
// result and the kernel reports the error.

// Abs is the abs built-in, componentwise.
func Abs[V Value](x V) V { return call[V](ir.OpAbs, x.Expr()) }

// Sign is the sign built-in, componentwise.
func Sign[V Value](x V) V { return call[V](ir.OpSign, x.Expr()) }

// Floor is the floor built-in, componentwise.
func Floor[V Value](x V) V { return call[V](ir.OpFloor, x.Expr()) }

// Ceil is the ceil built-in, componentwise.
func Ceil[V Value](x V) V { return call[V](ir.OpCeil, x.Expr()) }

// Round is the round built-in, componentwise.
func Round[V Value](x V) V { return call[V](ir.OpRound, x.Expr()) }

// Trunc is the trunc built-in, componentwise.
func Trunc[V Value](x V) V { return call[V](ir.OpTrunc, x.Expr()) }

// Fract is the fract built-in, componentwise.
func Fract[V Value](x V) V { return call[V](ir.OpFract, x.Expr()) }

// Sqrt is the sqrt built-in, componentwise.
func Sqrt[V Value](x V) V { return call[V](ir.OpSqrt, x.Expr()) }

// InverseSqrt is the inversesqrt built-in, componentwise.
func InverseSqrt[V Value](x V) V { return call[V](ir.OpInverseSqrt, x.Expr()) }

// Exp is the exp built-in, componentwise.
func Exp[V Value](x V) V { return call[V](ir.OpExp, x.Expr()) }

// Exp2 is the exp2 built-in, componentwise.
func Exp2[V Value](x V) V { return call[V](ir.OpExp2, x.Expr()) }

// Log is the log built-in, componentwise.
func Log[V Value](x V) V { return call[V](ir.OpLog, x.Expr()) }

// Log2 is the log2 built-in, componentwise.
func Log2[V Value](x V) V { return call[V](ir.OpLog2, x.Expr()) }

// Sin is the sin built-in, componentwise.
func Sin[V Value](x V) V { return call[V](ir.OpSin, x.Expr()) }

// Cos is the cos built-in, componentwise.
func Cos[V Value](x V) V { return call[V](ir.OpCos, x.Expr()) }

// Tan is the tan built-in, componentwise.
func Tan[V Value](x V) V { return call[V](ir.OpTan, x.Expr()) }

// Asin is the asin built-in, componentwise.
func Asin[V Value](x V) V { return call[V](ir.OpAsin, x.Expr()) }

// Acos is the acos built-in, componentwise.
func Acos[V Value](x V) V { return call[V](ir.OpAcos, x.Expr()) }

// Atan is the atan built-in, componentwise.
func Atan[V Value](x V) V { return call[V](ir.OpAtan, x.Expr()) }

// Sinh is the sinh built-in, componentwise.
func Sinh[V Value](x V) V { return call[V](ir.OpSinh, x.Expr()) }

// Cosh is the cosh built-in, componentwise.
func Cosh[V Value](x V) V { return call[V](ir.OpCosh, x.Expr()) }

// Tanh is the tanh built-in, componentwise.
func Tanh[V Value](x V) V { return call[V](ir.OpTanh, x.Expr()) }

// Asinh is the asinh built-in, componentwise.
func Asinh[V Value](x V) V { return call[V](ir.OpAsinh, x.Expr()) }

// Acosh is the acosh built-in, componentwise.
func Acosh[V Value](x V) V { return call[V](ir.OpAcosh, x.Expr()) }

// Atanh is the atanh built-in, componentwise.
func Atanh[V Value](x V) V { return call[V](ir.OpAtanh, x.Expr()) }

// Radians is the radians built-in, componentwise.
func Radians[V Value](x V) V { return call[V](ir.OpRadians, x.Expr()) }

// Degrees is the degrees built-in, componentwise.
func Degrees[V Value](x V) V { return call[V](ir.OpDegrees, x.Expr()) }

// Saturate is the saturate built-in, componentwise.
func Saturate[V Value](x V) V { return call[V](ir.OpSaturate, x.Expr()) }

// PopCount is the popcount built-in, componentwise.
func PopCount[V Value](x V) V { return call[V](ir.OpPopCount, x.Expr()) }

// Clz is the clz built-in, componentwise.
func Clz[V Value](x V) V { return call[V](ir.OpClz, x.Expr()) }

// Ctz is the ctz built-in, componentwise.
func Ctz[V Value](x V) V { return call[V](ir.OpCtz, x.Expr()) }

// BitReverse is the bitreverse built-in, componentwise.
func BitReverse[V Value](x V) V { return call[V](ir.OpBitReverse, x.Expr()) }

// Pow is the pow built-in, componentwise.
func Pow[V Value](x, y V) V { return call[V](ir.OpPow, x.Expr(), y.Expr()) }

// Atan2 is the atan2 built-in, componentwise.
func Atan2[V Value](x, y V) V { return call[V](ir.OpAtan2, x.Expr(), y.Expr()) }

// Step is the step built-in, componentwise.
func Step[V Value](x, y V) V { return call[V](ir.OpStep, x.Expr(), y.Expr()) }

// Min is the min built-in, componentwise.
func Min[V Value](x, y V) V { return call[V](ir.OpMin, x.Expr(), y.Expr()) }

// Max is the max built-in, componentwise.
func Max[V Value](x, y V) V { return call[V](ir.OpMax, x.Expr(), y.Expr()) }

// Clamp is the clamp built-in, componentwise.
func Clamp[V Value](x, y, z V) V { return call[V](ir.OpClamp, x.Expr(), y.Expr(), z.Expr()) }

// Lerp is the lerp built-in, componentwise.
func Lerp[V Value](x, y, z V) V { return call[V](ir.OpLerp, x.Expr(), y.Expr(), z.Expr()) }

// SmoothStep is the smoothstep built-in, componentwise.
func SmoothStep[V Value](x, y, z V) V { return call[V](ir.OpSmoothStep, x.Expr(), y.Expr(), z.Expr()) }

// Fma is the fma built-in, componentwise.
func Fma[V Value](x, y, z V) V { return call[V](ir.OpFma, x.Expr(), y.Expr(), z.Expr()) }

// Select is a when cond holds, else b.
func Select[V Value](cond Bool, a, b V) V {
	return call[V](ir.OpSelect, cond.Expr(), a.Expr(), b.Expr())
}

// IsNaN reports whether x is NaN.
func IsNaN[E Scalar](x Val[E]) Bool { return call[Bool](ir.OpIsNaN, x.Expr()) }

// IsInf reports whether x is ±Inf.
func IsInf[E Scalar](x Val[E]) Bool { return call[Bool](ir.OpIsInf, x.Expr()) }

// Reflect reflects i about the normal n.
func Reflect[E Scalar](i, n Vec3[E]) Vec3[E] { return call[Vec3[E]](ir.OpReflect, i.Expr(), n.Expr()) }

// Distance is |a - b|.
func Distance[E Scalar](a, b Vec3[E]) Val[E] { return call[Val[E]](ir.OpDistance, a.Expr(), b.Expr()) }

// ReduceSum adds a vector's components.
func ReduceSum[E Scalar](v Vec4[E]) Val[E] { return call[Val[E]](ir.OpReduceSum, v.Expr()) }

// Apply calls built-in op on operands of one DSL type V and returns a V
// (for table-driven code; the named functions read better).
func Apply[V Value](op ir.Op, args ...V) V {
	es := make([]ir.Expr, len(args))
	for i, a := range args {
		es[i] = a.Expr()
	}
	return call[V](op, es...)
}

// ApplyBinary is x op y for operands and result of one DSL type V.
func ApplyBinary[V Value](op ir.BinaryOp, x, y V) V { return binop[V](op, x.Expr(), y.Expr()) }

// SubgroupAdd is the sum of x over the active lanes of the subgroup.
func SubgroupAdd[V Value](x V) V { return call[V](ir.OpSubgroupAdd, x.Expr()) }

// SubgroupMul is the product of x over the active lanes.
func SubgroupMul[V Value](x V) V { return call[V](ir.OpSubgroupMul, x.Expr()) }

// SubgroupMin is the minimum of x over the active lanes.
func SubgroupMin[V Value](x V) V { return call[V](ir.OpSubgroupMin, x.Expr()) }

// SubgroupMax is the maximum of x over the active lanes.
func SubgroupMax[V Value](x V) V { return call[V](ir.OpSubgroupMax, x.Expr()) }

// SubgroupInclusiveAdd is the sum of x over the active lanes up to this one.
func SubgroupInclusiveAdd[V Value](x V) V { return call[V](ir.OpSubgroupInclusiveAdd, x.Expr()) }

// SubgroupExclusiveAdd is the sum of x over the active lanes below this one.
func SubgroupExclusiveAdd[V Value](x V) V { return call[V](ir.OpSubgroupExclusiveAdd, x.Expr()) }

// SubgroupBroadcast is x of lane (a constant).
func SubgroupBroadcast[V Value](x V, lane uint32) V {
	return call[V](ir.OpSubgroupBroadcast, x.Expr(), U(lane).Expr())
}

// SubgroupBroadcastFirst is x of the lowest active lane.
func SubgroupBroadcastFirst[V Value](x V) V { return call[V](ir.OpSubgroupBroadcastFirst, x.Expr()) }

// SubgroupShuffle is x of lane.
func SubgroupShuffle[V Value](x V, lane U32) V {
	return call[V](ir.OpSubgroupShuffle, x.Expr(), lane.Expr())
}

// SubgroupBallot is a bit mask of the lanes where p holds.
func SubgroupBallot(p Bool) U32x4 { return call[U32x4](ir.OpSubgroupBallot, p.Expr()) }

// SubgroupAll reports whether p holds in every active lane.
func SubgroupAll(p Bool) Bool { return call[Bool](ir.OpSubgroupAll, p.Expr()) }

// SubgroupAny reports whether p holds in some active lane.
func SubgroupAny(p Bool) Bool { return call[Bool](ir.OpSubgroupAny, p.Expr()) }

// SubgroupElect is true in exactly one active lane.
func SubgroupElect() Bool { return call[Bool](ir.OpSubgroupElect) }
