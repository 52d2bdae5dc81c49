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
	opCount
)

var opNames = [...]string{"none",
	"abs", "sign", "floor", "ceil", "round", "trunc", "fract", "sqrt", "inverse_sqrt", "exp", "exp2", "log", "log2",
	"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "radians", "degrees",
	"saturate", "pow", "atan2", "step", "min", "max", "clamp", "lerp", "smoothstep", "fma", "select", "isnan", "isinf",
	"dot", "cross", "length", "distance", "normalize", "reflect", "transpose", "determinant", "inverse", "outer_product",
	"reduce_sum", "reduce_prod", "reduce_min", "reduce_max", "any", "all",
	"popcount", "clz", "ctz", "bit_reverse",
	"atomic_exchange", "atomic_cas", "atomic_add", "atomic_sub", "atomic_and", "atomic_or", "atomic_xor", "atomic_min", "atomic_max",
	"barrier", "buffer_size", "texture_read", "texture_write", "texture_size", "texture_sample",
	"bindless_read", "bindless_write", "bindless_size",
	"subgroup_elect", "subgroup_all", "subgroup_any", "subgroup_ballot", "subgroup_broadcast", "subgroup_broadcast_first",
	"subgroup_shuffle", "subgroup_add", "subgroup_mul", "subgroup_min", "subgroup_max", "subgroup_inclusive_add", "subgroup_exclusive_add",
	"bindless_texture_read", "bindless_texture_sample", "bindless_texture_size",
}

var _ = [1]struct{}{}[len(opNames)-int(opCount)]

func (o Op) String() string {
	if o < opCount {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", o)
}

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

// CallType type-checks a built-in call and returns its result type.
func CallType(op Op, args []Expr) (*Type, error) {
	for i, a := range args {
		if a == nil || a.Type() == nil {
			return nil, mismatch(op, "operand %d is missing", i)
		}
	}
	n := len(args)
	want := func(k int) error {
		if n != k {
			return mismatch(op, "takes %d operands, got %d", k, n)
		}
		return nil
	}
	same := func() error {
		for i := 1; i < n; i++ {
			if args[i].Type() != args[0].Type() {
				return mismatch(op, "operand %d is %s, operand 0 is %s", i, args[i].Type(), args[0].Type())
			}
		}
		return nil
	}
	switch {
	case op >= OpBindlessTexRead && op <= OpBindlessTexSize:
		return bindlessTexType(op, args)
	case op >= OpAbs && op <= OpSaturate:
		if err := want(1); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if op == OpAbs || op == OpSign {
			if !isNumy(t) || t.Scalar().kind == KindUint && op == OpSign {
				return nil, mismatch(op, "operand is %s, want a signed or float scalar or vector", t)
			}
			return t, nil
		}
		if !isFloaty(t) {
			return nil, mismatch(op, "operand is %s, want a float scalar or vector", t)
		}
		return t, nil
	case op == OpPow || op == OpAtan2 || op == OpStep || op == OpMin || op == OpMax:
		if err := want(2); err != nil {
			return nil, err
		}
		if err := same(); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if (op == OpMin || op == OpMax) && isNumy(t) || isFloaty(t) {
			return t, nil
		}
		return nil, mismatch(op, "operands are %s", t)
	case op == OpClamp || op == OpLerp || op == OpSmoothStep || op == OpFma:
		if err := want(3); err != nil {
			return nil, err
		}
		if err := same(); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if op == OpClamp && isNumy(t) || isFloaty(t) {
			return t, nil
		}
		return nil, mismatch(op, "operands are %s", t)
	case op == OpSelect:
		if err := want(3); err != nil {
			return nil, err
		}
		c, a, b := args[0].Type(), args[1].Type(), args[2].Type()
		if a != b {
			return nil, mismatch(op, "branches are %s and %s", a, b)
		}
		if c != TBool && c != BoolLike(a) {
			return nil, mismatch(op, "condition is %s, want bool or %s", c, BoolLike(a))
		}
		if !a.IsScalar() && a.kind != KindVector {
			return nil, mismatch(op, "cannot select %s", a)
		}
		return a, nil
	case op == OpIsNaN || op == OpIsInf:
		if err := want(1); err != nil {
			return nil, err
		}
		if !isFloaty(args[0].Type()) {
			return nil, mismatch(op, "operand is %s, want float", args[0].Type())
		}
		return BoolLike(args[0].Type()), nil
	case op == OpDot || op == OpDistance || op == OpReflect || op == OpCross:
		if err := want(2); err != nil {
			return nil, err
		}
		if err := same(); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if t.kind != KindVector || t.elem.kind != KindFloat || op == OpCross && (t.n != 3 || t.elem != TF32) {
			return nil, mismatch(op, "operands are %s, want float vectors", t)
		}
		if op == OpReflect || op == OpCross {
			return t, nil
		}
		return t.elem, nil
	case op == OpLength || op == OpNormalize:
		if err := want(1); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if t.kind != KindVector || t.elem.kind != KindFloat {
			return nil, mismatch(op, "operand is %s, want a float vector", t)
		}
		if op == OpLength {
			return t.elem, nil
		}
		return t, nil
	case op == OpTranspose || op == OpDeterminant || op == OpInverse:
		if err := want(1); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if t.kind != KindMatrix || op != OpTranspose && t.n != t.elem.n {
			return nil, mismatch(op, "operand is %s, want a (square) matrix", t)
		}
		switch op {
		case OpTranspose:
			return Matrix(t.elem.n, t.n), nil
		case OpDeterminant:
			return TF32, nil
		}
		return t, nil
	case op == OpOuterProduct:
		if err := want(2); err != nil {
			return nil, err
		}
		a, b := args[0].Type(), args[1].Type()
		if a.kind != KindVector || b.kind != KindVector || a.elem != TF32 || b.elem != TF32 {
			return nil, mismatch(op, "operands are %s and %s, want f32 vectors", a, b)
		}
		return Matrix(b.n, a.n), nil
	case op >= OpReduceSum && op <= OpReduceMax:
		if err := want(1); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if t.kind != KindVector || !t.elem.IsNumeric() {
			return nil, mismatch(op, "operand is %s, want a numeric vector", t)
		}
		return t.elem, nil
	case op == OpAny || op == OpAll:
		if err := want(1); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if t.kind != KindVector || t.elem != TBool {
			return nil, mismatch(op, "operand is %s, want a bool vector", t)
		}
		return TBool, nil
	case op >= OpPopCount && op <= OpBitReverse:
		if err := want(1); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if !isInty(t) || t.Scalar().bits != 32 {
			return nil, mismatch(op, "operand is %s, want a 32-bit integer", t)
		}
		return t, nil
	case op >= OpAtomicExchange && op <= OpAtomicMax:
		k := 2
		if op == OpAtomicCAS {
			k = 3
		}
		if err := want(k); err != nil {
			return nil, err
		}
		if !IsPlace(args[0]) {
			return nil, mismatch(op, "operand 0 is not a buffer element or shared variable")
		}
		if r := PlaceRoot(args[0]); r == nil || r.Kind != VarShared && r.Type.kind != KindBuffer {
			return nil, mismatch(op, "operand 0 is not a buffer element or shared variable")
		}
		if err := same(); err != nil {
			return nil, err
		}
		t := args[0].Type()
		switch t {
		case TI32, TU32, TI64, TU64:
		case TF32:
			if op != OpAtomicExchange && op != OpAtomicAdd && op != OpAtomicSub && op != OpAtomicMin && op != OpAtomicMax && op != OpAtomicCAS {
				return nil, mismatch(op, "bitwise atomics do not apply to f32")
			}
		default:
			return nil, mismatch(op, "atomics need i32, u32, i64, u64 or f32, got %s", t)
		}
		return t, nil
	case op == OpBarrier:
		if err := want(0); err != nil {
			return nil, err
		}
		return TVoid, nil
	case op == OpBufferSize:
		if err := want(1); err != nil {
			return nil, err
		}
		if args[0].Type().kind != KindBuffer {
			return nil, mismatch(op, "operand is %s, want a buffer", args[0].Type())
		}
		return TU32, nil
	case op >= OpTextureRead && op <= OpTextureSample:
		if n == 0 || args[0].Type().kind != KindTexture {
			return nil, mismatch(op, "operand 0 must be a texture")
		}
		t := args[0].Type()
		coord := Vector(TU32, t.n)
		switch op {
		case OpTextureSize:
			return coord, want(1)
		case OpTextureSample:
			coord = Vector(TF32, t.n)
		}
		k := 2
		if op == OpTextureWrite {
			k = 3
		}
		if err := want(k); err != nil {
			return nil, err
		}
		if args[1].Type() != coord {
			return nil, mismatch(op, "coordinate is %s, want %s", args[1].Type(), coord)
		}
		if op == OpTextureWrite {
			if args[2].Type() != t.elem {
				return nil, mismatch(op, "texel is %s, want %s", args[2].Type(), t.elem)
			}
			return TVoid, nil
		}
		if op == OpTextureSample && t.elem.elem != TF32 {
			return nil, mismatch(op, "sampling needs a float texture, got %s", t)
		}
		return t.elem, nil
	case op >= OpBindlessRead && op <= OpBindlessSize:
		k := 3
		if op == OpBindlessWrite {
			k = 4
		}
		if err := want(k); err != nil {
			return nil, err
		}
		if args[0].Type() != Bindless || args[1].Type() != TU32 || args[2].Type() != TU32 {
			return nil, mismatch(op, "operands are %s, %s, %s; want bindless, u32, u32", args[0].Type(), args[1].Type(), args[2].Type())
		}
		switch op {
		case OpBindlessWrite:
			if t := args[3].Type(); !storable(t) {
				return nil, mismatch(op, "cannot store %s through a bindless slot", t)
			}
			return TVoid, nil
		case OpBindlessSize:
			if l, ok := args[2].(*Literal); !ok || l.Bits == 0 {
				return nil, mismatch(op, "element size must be a non-zero literal")
			}
			return TU32, nil
		}
		// The element type is the Call's own T, checked by BindlessReadType.
		return nil, nil
	case op == OpSubgroupElect:
		return TBool, want(0)
	case op == OpSubgroupAll || op == OpSubgroupAny || op == OpSubgroupBallot:
		if err := want(1); err != nil {
			return nil, err
		}
		if args[0].Type() != TBool {
			return nil, mismatch(op, "operand is %s, want bool", args[0].Type())
		}
		if op == OpSubgroupBallot {
			return Vector(TU32, 4), nil
		}
		return TBool, nil
	case op == OpSubgroupBroadcast || op == OpSubgroupShuffle:
		if err := want(2); err != nil {
			return nil, err
		}
		if args[1].Type() != TU32 {
			return nil, mismatch(op, "lane is %s, want u32", args[1].Type())
		}
		if op == OpSubgroupBroadcast {
			if _, ok := args[1].(*Literal); !ok {
				return nil, mismatch(op, "lane must be a constant")
			}
		}
		t := args[0].Type()
		if !t.IsScalar() && t.kind != KindVector {
			return nil, mismatch(op, "operand is %s, want a scalar or vector", t)
		}
		return t, nil
	case op == OpSubgroupBroadcastFirst:
		if err := want(1); err != nil {
			return nil, err
		}
		return args[0].Type(), nil
	case op >= OpSubgroupAdd && op <= OpSubgroupExclusiveAdd:
		if err := want(1); err != nil {
			return nil, err
		}
		if !isNumy(args[0].Type()) {
			return nil, mismatch(op, "operand is %s, want numeric", args[0].Type())
		}
		return args[0].Type(), nil
	}
	return nil, fmt.Errorf("%w: built-in %s", ErrUnsupported, op)
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
