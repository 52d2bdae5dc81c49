package ir

import (
	"errors"
	"fmt"
)

// Op names a built-in operation of a Call.
type Op uint16

// Built-in operations. The comment gives the operand shapes: T is a float
// scalar or vector, N numeric, I integer, V a float vector, M a matrix.
const (
	OpNone Op = iota
	// Float math (T → T), the GLSL.std.450 set.
	OpAbs // N
	OpSign
	OpFloor
	OpCeil
	OpRound // half away from zero
	OpTrunc
	OpFract
	OpSqrt
	OpInverseSqrt
	OpExp
	OpExp2
	OpLog
	OpLog2
	OpSin
	OpCos
	OpTan
	OpAsin
	OpAcos
	OpAtan
	OpSinh
	OpCosh
	OpTanh
	OpAsinh
	OpAcosh
	OpAtanh
	OpRadians
	OpDegrees
	OpSaturate // clamp(x, 0, 1)
	OpPow      // (T, T) → T
	OpAtan2    // (y T, x T) → T
	OpStep     // (edge T, x T) → T
	OpMin      // (N, N) → N
	OpMax      // (N, N) → N
	OpClamp    // (N, lo N, hi N) → N
	OpLerp     // (a T, b T, t T) → T
	OpSmoothStep
	OpFma
	OpSelect // (cond bool or bool vector, a, b) → a if cond else b
	OpIsNaN  // T → bool
	OpIsInf
	// Vector and matrix operations.
	OpDot       // (V, V) → scalar
	OpCross     // (vec3, vec3) → vec3
	OpLength    // V → scalar
	OpDistance  // (V, V) → scalar
	OpNormalize // V → V
	OpReflect   // (i V, n V) → V
	OpTranspose // M → M'
	OpDeterminant
	OpInverse
	OpOuterProduct // (vecR, vecC) → matCxR
	OpReduceSum    // vector of N → N
	OpReduceProd
	OpReduceMin
	OpReduceMax
	OpAny // bool vector → bool
	OpAll
	// Bit operations on 32-bit integers (scalars or vectors).
	OpPopCount
	OpClz // count of leading zeros (32 for 0)
	OpCtz // count of trailing zeros (32 for 0)
	OpBitReverse
	// Atomics: the first operand is a place (a buffer element or a shared
	// variable or element) of i32, u32, i64, u64 or f32; they yield the old value.
	OpAtomicExchange
	OpAtomicCAS // (place, compare, value)
	OpAtomicAdd
	OpAtomicSub
	OpAtomicAnd
	OpAtomicOr
	OpAtomicXor
	OpAtomicMin
	OpAtomicMax
	// Synchronisation.
	OpBarrier // workgroup execution and memory barrier
	// Resources.
	OpBufferSize   // buffer → u32 element count
	OpTextureRead  // (texture, uvec2/3) → texel
	OpTextureWrite // (texture, uvec2/3, texel) → void
	OpTextureSize  // texture → uvec2/3
	OpTextureSample
	// Bindless buffers: the first operand is a bindless array, the second a
	// slot (u32). Reads name their element type in the Call's T.
	OpBindlessRead  // (bindless, slot, index u32) → T; zero past the slot's range
	OpBindlessWrite // (bindless, slot, index u32, value) → void; ignored past the range
	OpBindlessSize  // (bindless, slot, element size u32 literal) → u32 elements
	// Subgroups.
	OpSubgroupElect          // () → bool
	OpSubgroupAll            // bool → bool
	OpSubgroupAny            // bool → bool
	OpSubgroupBallot         // bool → vec4<u32>
	OpSubgroupBroadcast      // (x, lane u32) → x, lane uniform
	OpSubgroupBroadcastFirst // x → x
	OpSubgroupShuffle        // (x, lane u32) → x
	OpSubgroupAdd            // N → N (reduction)
	OpSubgroupMul
	OpSubgroupMin
	OpSubgroupMax
	OpSubgroupInclusiveAdd
	OpSubgroupExclusiveAdd
	// Bindless 2D textures: (bindless, slot u32, …); see bindless_tex.go.
	OpBindlessTexRead   // (bindless, slot, uvec2) → vec4<f32>; zero outside or when empty
	OpBindlessTexSample // (bindless, slot, vec2) → vec4<f32>, filtered as the slot's sampler says
	OpBindlessTexSize   // (bindless, slot) → uvec2; zero when empty
	// Ray tracing: (accel, origin vec3<f32>, tmin f32, dir vec3<f32>, tmax
	// f32, mask u32), the ray of docs/accel.md; instances whose mask ANDed
	// with the ray's is zero are skipped.
	OpRayClosest // → RayHit: the closest hit in [tmin, tmax] (Kind HitMiss when none)
	OpRayAny     // → bool: whether anything is hit in [tmin, tmax] (shadow rays)
	// Candidate loops (rayquery.go): valid only inside a RayQuery's body.
	OpRayCandidate        // () → RayCandidate: the candidate in hand
	OpRayCommitProcedural // (t f32) → void: commit the procedural candidate at t
	OpRayCommitTriangle   // () → void: commit the triangle candidate
	OpRayTerminate        // () → void: end the traversal after this candidate
	opCount
)

// ErrUnsupported is wrapped by errors about operations the kernel language
// or its codegen does not support.
var ErrUnsupported = errors.New("frontend: unsupported")

// ErrTypeMismatch is wrapped by errors about operands of the wrong type.
var ErrTypeMismatch = errors.New("frontend: type mismatch")

func mismatch(op fmt.Stringer, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrTypeMismatch, op, fmt.Sprintf(format, args...))
}

func isFloaty(t *Type) bool {
	return (t.kind == KindFloat || t.kind == KindVector && t.elem.kind == KindFloat)
}

func isNumy(t *Type) bool { return t.IsNumeric() || t.kind == KindVector && t.elem.IsNumeric() }

func isInty(t *Type) bool { return t.IsInteger() || t.kind == KindVector && t.elem.IsInteger() }

func isBooly(t *Type) bool { return t == TBool || t.kind == KindVector && t.elem == TBool }

// BoolLike is bool shaped like t (bool or a bool vector).
func BoolLike(t *Type) *Type {
	if t.kind == KindVector {
		return Vector(TBool, t.n)
	}
	return TBool
}

// IsPlace reports whether e names storage: a variable (not a by-value
// parameter, built-in or argument), a buffer element, or a member or index
// of a place.
func IsPlace(e Expr) bool {
	switch e := e.(type) {
	case *Ref:
		return e.Var.Kind == VarLocal || e.Var.Kind == VarShared || e.Var.Kind == VarRefParam
	case *Index:
		if e.X.Type().kind == KindBuffer {
			_, ok := e.X.(*Ref)
			return ok
		}
		return IsPlace(e.X)
	case *Member:
		return IsPlace(e.X)
	}
	return false
}

// PlaceRoot is the variable under a place.
func PlaceRoot(e Expr) *Var {
	for {
		switch x := e.(type) {
		case *Ref:
			return x.Var
		case *Index:
			e = x.X
		case *Member:
			e = x.X
		default:
			return nil
		}
	}
}

// storable reports types that live in buffers (no bool, no opaque types).
func storable(t *Type) bool {
	return t != nil && t.size > 0 && t.kind != KindBool && t.kind != KindMatrix && !(t.kind == KindVector && t.elem == TBool)
}

// CallResult type-checks call c of a built-in, taking a bindless read's
// element type from c.T.
func CallResult(c *Call) (*Type, error) {
	t, err := CallType(c.Op, c.Args)
	if err == nil && c.Op == OpBindlessRead {
		if !storable(c.T) {
			return nil, mismatch(c.Op, "cannot read %v through a bindless slot", c.T)
		}
		return c.T, nil
	}
	return t, err
}
