package ir

import (
	"fmt"
	"math"
	"math/bits"
)

// OpInfo is everything the IR defines about a built-in op, written once in
// the ops table: its name (the serialised form and the printer use it), its
// operand count, its type rule, and its CPU reference on 32-bit lanes, which
// both CPU engines (frontend/interp and the cpu backend) run and the device
// tests compare every backend against. Backends add only their lowering.
type OpInfo struct {
	Name string
	// Arity is the operand count; -1 where it depends on the operands (the
	// rule checks it).
	Arity int
	// F32 computes the op on float32 operands (nil: the op has no float
	// scalar reference). Float references follow the GLSL.std.450
	// definitions (step, smoothstep, fract, sign …) evaluated in float64 and
	// rounded to float32; where GLSL leaves a result undefined (NaN operands
	// of min/max/clamp, sin of ±Inf) they return Go's answer and tests do
	// not probe it.
	F32 func(a []float32) float32
	// Int computes the op on 32-bit integer operands, signed when signed
	// is set (nil: no integer reference).
	Int func(signed bool, a []uint32) uint32

	rule func(op Op, args []Expr) (*Type, error)
}

// Info is op's entry in the ops table (an entry with no rule, named
// "Op(n)", for an op out of range).
func (o Op) Info() *OpInfo {
	if o < opCount && ops[o].Name != "" {
		return &ops[o]
	}
	return &OpInfo{Name: fmt.Sprintf("Op(%d)", o), Arity: -1}
}

func (o Op) String() string { return o.Info().Name }

// CallType type-checks a built-in call and returns its result type.
func CallType(op Op, args []Expr) (*Type, error) {
	for i, a := range args {
		if a == nil || a.Type() == nil {
			return nil, mismatch(op, "operand %d is missing", i)
		}
	}
	in := op.Info()
	if in.rule == nil {
		return nil, fmt.Errorf("%w: built-in %s", ErrUnsupported, op)
	}
	if in.Arity >= 0 && len(args) != in.Arity {
		return nil, mismatch(op, "takes %d operands, got %d", in.Arity, len(args))
	}
	return in.rule(op, args)
}

// RefFloat32 evaluates float built-in op on float32 operands; ok is false
// for an op that is not a float scalar built-in.
func RefFloat32(op Op, a ...float32) (r float32, ok bool) {
	if f := op.Info().F32; f != nil {
		return f(a), true
	}
	return 0, false
}

// RefInt evaluates integer built-in op on 32-bit operands (signed when
// signed is set, the bits of a otherwise); ok is false for other ops.
func RefInt(op Op, signed bool, a ...uint32) (r uint32, ok bool) {
	if f := op.Info().Int; f != nil {
		return f(signed, a), true
	}
	return 0, false
}

// The ops table. Each line is one op; the rules and references below are
// shared by ops alike in shape.
var ops = [opCount]OpInfo{
	OpAbs:         {Name: "abs", Arity: 1, rule: ruleAbsSign, F32: f1(math.Abs), Int: intAbs},
	OpSign:        {Name: "sign", Arity: 1, rule: ruleAbsSign, F32: f32Sign, Int: intSign},
	OpFloor:       {Name: "floor", Arity: 1, rule: ruleFloat1, F32: f1(math.Floor)},
	OpCeil:        {Name: "ceil", Arity: 1, rule: ruleFloat1, F32: f1(math.Ceil)},
	OpRound:       {Name: "round", Arity: 1, rule: ruleFloat1, F32: f1(math.Round)},
	OpTrunc:       {Name: "trunc", Arity: 1, rule: ruleFloat1, F32: f1(math.Trunc)},
	OpFract:       {Name: "fract", Arity: 1, rule: ruleFloat1, F32: func(a []float32) float32 { return a[0] - float32(math.Floor(float64(a[0]))) }},
	OpSqrt:        {Name: "sqrt", Arity: 1, rule: ruleFloat1, F32: f1(math.Sqrt)},
	OpInverseSqrt: {Name: "inverse_sqrt", Arity: 1, rule: ruleFloat1, F32: f1(func(x float64) float64 { return 1 / math.Sqrt(x) })},
	OpExp:         {Name: "exp", Arity: 1, rule: ruleFloat1, F32: f1(math.Exp)},
	OpExp2:        {Name: "exp2", Arity: 1, rule: ruleFloat1, F32: f1(math.Exp2)},
	OpLog:         {Name: "log", Arity: 1, rule: ruleFloat1, F32: f1(math.Log)},
	OpLog2:        {Name: "log2", Arity: 1, rule: ruleFloat1, F32: f1(math.Log2)},
	OpSin:         {Name: "sin", Arity: 1, rule: ruleFloat1, F32: f1(math.Sin)},
	OpCos:         {Name: "cos", Arity: 1, rule: ruleFloat1, F32: f1(math.Cos)},
	OpTan:         {Name: "tan", Arity: 1, rule: ruleFloat1, F32: f1(math.Tan)},
	OpAsin:        {Name: "asin", Arity: 1, rule: ruleFloat1, F32: f1(math.Asin)},
	OpAcos:        {Name: "acos", Arity: 1, rule: ruleFloat1, F32: f1(math.Acos)},
	OpAtan:        {Name: "atan", Arity: 1, rule: ruleFloat1, F32: f1(math.Atan)},
	OpSinh:        {Name: "sinh", Arity: 1, rule: ruleFloat1, F32: f1(math.Sinh)},
	OpCosh:        {Name: "cosh", Arity: 1, rule: ruleFloat1, F32: f1(math.Cosh)},
	OpTanh:        {Name: "tanh", Arity: 1, rule: ruleFloat1, F32: f1(math.Tanh)},
	OpAsinh:       {Name: "asinh", Arity: 1, rule: ruleFloat1, F32: f1(math.Asinh)},
	OpAcosh:       {Name: "acosh", Arity: 1, rule: ruleFloat1, F32: f1(math.Acosh)},
	OpAtanh:       {Name: "atanh", Arity: 1, rule: ruleFloat1, F32: f1(math.Atanh)},
	OpRadians:     {Name: "radians", Arity: 1, rule: ruleFloat1, F32: f1(func(x float64) float64 { return x * math.Pi / 180 })},
	OpDegrees:     {Name: "degrees", Arity: 1, rule: ruleFloat1, F32: f1(func(x float64) float64 { return x * 180 / math.Pi })},
	OpSaturate:    {Name: "saturate", Arity: 1, rule: ruleFloat1, F32: f1(func(x float64) float64 { return math.Min(math.Max(x, 0), 1) })},
	OpPow:         {Name: "pow", Arity: 2, rule: ruleFloatSame, F32: f2(math.Pow)},
	OpAtan2:       {Name: "atan2", Arity: 2, rule: ruleFloatSame, F32: f2(math.Atan2)},
	OpStep:        {Name: "step", Arity: 2, rule: ruleFloatSame, F32: f32Step},
	OpMin:         {Name: "min", Arity: 2, rule: ruleNumSame, F32: f2(math.Min), Int: intMinMax(true)},
	OpMax:         {Name: "max", Arity: 2, rule: ruleNumSame, F32: f2(math.Max), Int: intMinMax(false)},
	OpClamp:       {Name: "clamp", Arity: 3, rule: ruleNumSame, F32: f3(func(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }), Int: intClamp},
	OpLerp:        {Name: "lerp", Arity: 3, rule: ruleFloatSame, F32: f3(func(a, b, t float64) float64 { return a*(1-t) + b*t })},
	OpSmoothStep:  {Name: "smoothstep", Arity: 3, rule: ruleFloatSame, F32: f3(smoothStep)},
	OpFma:         {Name: "fma", Arity: 3, rule: ruleFloatSame, F32: f3(math.FMA)},
	OpSelect:      {Name: "select", Arity: 3, rule: ruleSelect},
	OpIsNaN:       {Name: "isnan", Arity: 1, rule: ruleFloatTest},
	OpIsInf:       {Name: "isinf", Arity: 1, rule: ruleFloatTest},

	OpDot:          {Name: "dot", Arity: 2, rule: ruleVecPair},
	OpCross:        {Name: "cross", Arity: 2, rule: ruleVecPair},
	OpLength:       {Name: "length", Arity: 1, rule: ruleVecOne},
	OpDistance:     {Name: "distance", Arity: 2, rule: ruleVecPair},
	OpNormalize:    {Name: "normalize", Arity: 1, rule: ruleVecOne},
	OpReflect:      {Name: "reflect", Arity: 2, rule: ruleVecPair},
	OpTranspose:    {Name: "transpose", Arity: 1, rule: ruleMatrix},
	OpDeterminant:  {Name: "determinant", Arity: 1, rule: ruleMatrix},
	OpInverse:      {Name: "inverse", Arity: 1, rule: ruleMatrix},
	OpOuterProduct: {Name: "outer_product", Arity: 2, rule: ruleOuter},
	OpReduceSum:    {Name: "reduce_sum", Arity: 1, rule: ruleReduce},
	OpReduceProd:   {Name: "reduce_prod", Arity: 1, rule: ruleReduce},
	OpReduceMin:    {Name: "reduce_min", Arity: 1, rule: ruleReduce},
	OpReduceMax:    {Name: "reduce_max", Arity: 1, rule: ruleReduce},
	OpAny:          {Name: "any", Arity: 1, rule: ruleBoolVec},
	OpAll:          {Name: "all", Arity: 1, rule: ruleBoolVec},

	OpPopCount:   {Name: "popcount", Arity: 1, rule: ruleBits, Int: i1(func(x uint32) uint32 { return uint32(bits.OnesCount32(x)) })},
	OpClz:        {Name: "clz", Arity: 1, rule: ruleBits, Int: i1(func(x uint32) uint32 { return uint32(bits.LeadingZeros32(x)) })},
	OpCtz:        {Name: "ctz", Arity: 1, rule: ruleBits, Int: i1(func(x uint32) uint32 { return uint32(bits.TrailingZeros32(x)) })},
	OpBitReverse: {Name: "bit_reverse", Arity: 1, rule: ruleBits, Int: i1(bits.Reverse32)},

	OpAtomicExchange: {Name: "atomic_exchange", Arity: 2, rule: ruleAtomic},
	OpAtomicCAS:      {Name: "atomic_cas", Arity: 3, rule: ruleAtomic},
	OpAtomicAdd:      {Name: "atomic_add", Arity: 2, rule: ruleAtomic},
	OpAtomicSub:      {Name: "atomic_sub", Arity: 2, rule: ruleAtomic},
	OpAtomicAnd:      {Name: "atomic_and", Arity: 2, rule: ruleAtomic},
	OpAtomicOr:       {Name: "atomic_or", Arity: 2, rule: ruleAtomic},
	OpAtomicXor:      {Name: "atomic_xor", Arity: 2, rule: ruleAtomic},
	OpAtomicMin:      {Name: "atomic_min", Arity: 2, rule: ruleAtomic},
	OpAtomicMax:      {Name: "atomic_max", Arity: 2, rule: ruleAtomic},

	OpBarrier:       {Name: "barrier", Arity: 0, rule: func(Op, []Expr) (*Type, error) { return TVoid, nil }},
	OpBufferSize:    {Name: "buffer_size", Arity: 1, rule: ruleBufferSize},
	OpTextureRead:   {Name: "texture_read", Arity: 2, rule: ruleTexture},
	OpTextureWrite:  {Name: "texture_write", Arity: 3, rule: ruleTexture},
	OpTextureSize:   {Name: "texture_size", Arity: 1, rule: ruleTexture},
	OpTextureSample: {Name: "texture_sample", Arity: 2, rule: ruleTexture},
	OpBindlessRead:  {Name: "bindless_read", Arity: 3, rule: ruleBindless},
	OpBindlessWrite: {Name: "bindless_write", Arity: 4, rule: ruleBindless},
	OpBindlessSize:  {Name: "bindless_size", Arity: 3, rule: ruleBindless},

	OpSubgroupElect:          {Name: "subgroup_elect", Arity: 0, rule: func(Op, []Expr) (*Type, error) { return TBool, nil }},
	OpSubgroupAll:            {Name: "subgroup_all", Arity: 1, rule: ruleSubgroupBool},
	OpSubgroupAny:            {Name: "subgroup_any", Arity: 1, rule: ruleSubgroupBool},
	OpSubgroupBallot:         {Name: "subgroup_ballot", Arity: 1, rule: ruleSubgroupBool},
	OpSubgroupBroadcast:      {Name: "subgroup_broadcast", Arity: 2, rule: ruleSubgroupLane},
	OpSubgroupBroadcastFirst: {Name: "subgroup_broadcast_first", Arity: 1, rule: func(_ Op, a []Expr) (*Type, error) { return a[0].Type(), nil }},
	OpSubgroupShuffle:        {Name: "subgroup_shuffle", Arity: 2, rule: ruleSubgroupLane},
	OpSubgroupAdd:            {Name: "subgroup_add", Arity: 1, rule: ruleSubgroupNum},
	OpSubgroupMul:            {Name: "subgroup_mul", Arity: 1, rule: ruleSubgroupNum},
	OpSubgroupMin:            {Name: "subgroup_min", Arity: 1, rule: ruleSubgroupNum},
	OpSubgroupMax:            {Name: "subgroup_max", Arity: 1, rule: ruleSubgroupNum},
	OpSubgroupInclusiveAdd:   {Name: "subgroup_inclusive_add", Arity: 1, rule: ruleSubgroupNum},
	OpSubgroupExclusiveAdd:   {Name: "subgroup_exclusive_add", Arity: 1, rule: ruleSubgroupNum},

	OpBindlessTexRead:   {Name: "bindless_texture_read", Arity: 3, rule: bindlessTexType},
	OpBindlessTexSample: {Name: "bindless_texture_sample", Arity: 3, rule: bindlessTexType},
	OpBindlessTexSize:   {Name: "bindless_texture_size", Arity: 2, rule: bindlessTexType},

	OpRayClosest: {Name: "ray_closest", Arity: 6, rule: ruleRay},
	OpRayAny:     {Name: "ray_any", Arity: 6, rule: ruleRay},

	OpRayCandidate:        {Name: "ray_candidate", Arity: 0, rule: ruleCandidate},
	OpRayCommitProcedural: {Name: "ray_commit_procedural", Arity: 1, rule: ruleCandidate},
	OpRayCommitTriangle:   {Name: "ray_commit_triangle", Arity: 0, rule: ruleCandidate},
	OpRayTerminate:        {Name: "ray_terminate", Arity: 0, rule: ruleCandidate},
}

func init() {
	ops[OpNone] = OpInfo{Name: "none", Arity: -1}
	for op := OpNone + 1; op < opCount; op++ {
		if ops[op].rule == nil || ops[op].Name == "" {
			panic(fmt.Sprintf("ir: op %d has no entry in the ops table", op))
		}
	}
}

// The references.

func f1(f func(float64) float64) func([]float32) float32 {
	return func(a []float32) float32 { return float32(f(float64(a[0]))) }
}

func f2(f func(x, y float64) float64) func([]float32) float32 {
	return func(a []float32) float32 { return float32(f(float64(a[0]), float64(a[1]))) }
}

func f3(f func(x, y, z float64) float64) func([]float32) float32 {
	return func(a []float32) float32 { return float32(f(float64(a[0]), float64(a[1]), float64(a[2]))) }
}

func i1(f func(uint32) uint32) func(bool, []uint32) uint32 {
	return func(_ bool, a []uint32) uint32 { return f(a[0]) }
}

func f32Sign(a []float32) float32 {
	switch {
	case a[0] > 0:
		return 1
	case a[0] < 0:
		return -1
	}
	return a[0] // ±0 and NaN
}

func f32Step(a []float32) float32 {
	if a[1] < a[0] {
		return 0
	}
	return 1
}

func smoothStep(e0, e1, x float64) float64 {
	t := math.Min(math.Max((x-e0)/(e1-e0), 0), 1)
	return t * t * (3 - 2*t)
}

func intAbs(signed bool, a []uint32) uint32 {
	if signed && int32(a[0]) < 0 {
		return uint32(-int32(a[0]))
	}
	return a[0]
}

func intSign(_ bool, a []uint32) uint32 {
	switch s := int32(a[0]); {
	case s > 0:
		return 1
	case s < 0:
		return math.MaxUint32
	}
	return 0
}

func intMinMax(isMin bool) func(bool, []uint32) uint32 {
	return func(signed bool, a []uint32) uint32 {
		less := a[0] < a[1]
		if signed {
			less = int32(a[0]) < int32(a[1])
		}
		if less == isMin {
			return a[0]
		}
		return a[1]
	}
}

var intMin, intMax = intMinMax(true), intMinMax(false)

func intClamp(signed bool, a []uint32) uint32 {
	lo := intMax(signed, a[:2])
	return intMin(signed, []uint32{lo, a[2]})
}

// The type rules; the operand count is checked before a rule runs.

func sameTypes(op Op, args []Expr) error {
	for i := 1; i < len(args); i++ {
		if args[i].Type() != args[0].Type() {
			return mismatch(op, "operand %d is %s, operand 0 is %s", i, args[i].Type(), args[0].Type())
		}
	}
	return nil
}

func ruleAbsSign(op Op, args []Expr) (*Type, error) {
	t := args[0].Type()
	if !isNumy(t) || t.Scalar().kind == KindUint && op == OpSign {
		return nil, mismatch(op, "operand is %s, want a signed or float scalar or vector", t)
	}
	return t, nil
}

func ruleFloat1(op Op, args []Expr) (*Type, error) {
	if t := args[0].Type(); isFloaty(t) {
		return t, nil
	}
	return nil, mismatch(op, "operand is %s, want a float scalar or vector", args[0].Type())
}

func ruleFloatSame(op Op, args []Expr) (*Type, error) {
	if err := sameTypes(op, args); err != nil {
		return nil, err
	}
	if t := args[0].Type(); isFloaty(t) {
		return t, nil
	}
	return nil, mismatch(op, "operands are %s", args[0].Type())
}

func ruleNumSame(op Op, args []Expr) (*Type, error) {
	if err := sameTypes(op, args); err != nil {
		return nil, err
	}
	if t := args[0].Type(); isNumy(t) {
		return t, nil
	}
	return nil, mismatch(op, "operands are %s", args[0].Type())
}

func ruleSelect(op Op, args []Expr) (*Type, error) {
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
}

func ruleFloatTest(op Op, args []Expr) (*Type, error) {
	if !isFloaty(args[0].Type()) {
		return nil, mismatch(op, "operand is %s, want float", args[0].Type())
	}
	return BoolLike(args[0].Type()), nil
}

func ruleVecPair(op Op, args []Expr) (*Type, error) {
	if err := sameTypes(op, args); err != nil {
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
}

func ruleVecOne(op Op, args []Expr) (*Type, error) {
	t := args[0].Type()
	if t.kind != KindVector || t.elem.kind != KindFloat {
		return nil, mismatch(op, "operand is %s, want a float vector", t)
	}
	if op == OpLength {
		return t.elem, nil
	}
	return t, nil
}

func ruleMatrix(op Op, args []Expr) (*Type, error) {
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
}

func ruleOuter(op Op, args []Expr) (*Type, error) {
	a, b := args[0].Type(), args[1].Type()
	if a.kind != KindVector || b.kind != KindVector || a.elem != TF32 || b.elem != TF32 {
		return nil, mismatch(op, "operands are %s and %s, want f32 vectors", a, b)
	}
	return Matrix(b.n, a.n), nil
}

func ruleReduce(op Op, args []Expr) (*Type, error) {
	t := args[0].Type()
	if t.kind != KindVector || !t.elem.IsNumeric() {
		return nil, mismatch(op, "operand is %s, want a numeric vector", t)
	}
	return t.elem, nil
}

func ruleBoolVec(op Op, args []Expr) (*Type, error) {
	t := args[0].Type()
	if t.kind != KindVector || t.elem != TBool {
		return nil, mismatch(op, "operand is %s, want a bool vector", t)
	}
	return TBool, nil
}

func ruleBits(op Op, args []Expr) (*Type, error) {
	t := args[0].Type()
	if !isInty(t) || t.Scalar().bits != 32 {
		return nil, mismatch(op, "operand is %s, want a 32-bit integer", t)
	}
	return t, nil
}

func ruleAtomic(op Op, args []Expr) (*Type, error) {
	if !IsPlace(args[0]) {
		return nil, mismatch(op, "operand 0 is not a buffer element or shared variable")
	}
	if r := PlaceRoot(args[0]); r == nil || r.Kind != VarShared && r.Type.kind != KindBuffer {
		return nil, mismatch(op, "operand 0 is not a buffer element or shared variable")
	}
	if err := sameTypes(op, args); err != nil {
		return nil, err
	}
	t := args[0].Type()
	switch t {
	case TI32, TU32, TI64, TU64:
	case TF32:
		if op == OpAtomicAnd || op == OpAtomicOr || op == OpAtomicXor {
			return nil, mismatch(op, "bitwise atomics do not apply to f32")
		}
	default:
		return nil, mismatch(op, "atomics need i32, u32, i64, u64 or f32, got %s", t)
	}
	return t, nil
}

func ruleBufferSize(op Op, args []Expr) (*Type, error) {
	if args[0].Type().kind != KindBuffer {
		return nil, mismatch(op, "operand is %s, want a buffer", args[0].Type())
	}
	return TU32, nil
}

func ruleTexture(op Op, args []Expr) (*Type, error) {
	t := args[0].Type()
	if t.kind != KindTexture {
		return nil, mismatch(op, "operand 0 must be a texture")
	}
	coord := Vector(TU32, t.n)
	switch op {
	case OpTextureSize:
		return coord, nil
	case OpTextureSample:
		coord = Vector(TF32, t.n)
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
}

func ruleBindless(op Op, args []Expr) (*Type, error) {
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
	// The element type is the Call's own T, checked by CallResult.
	return nil, nil
}

func ruleSubgroupBool(op Op, args []Expr) (*Type, error) {
	if args[0].Type() != TBool {
		return nil, mismatch(op, "operand is %s, want bool", args[0].Type())
	}
	if op == OpSubgroupBallot {
		return Vector(TU32, 4), nil
	}
	return TBool, nil
}

func ruleSubgroupLane(op Op, args []Expr) (*Type, error) {
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
}

func ruleSubgroupNum(op Op, args []Expr) (*Type, error) {
	if !isNumy(args[0].Type()) {
		return nil, mismatch(op, "operand is %s, want numeric", args[0].Type())
	}
	return args[0].Type(), nil
}

func ruleRay(op Op, args []Expr) (*Type, error) {
	v3 := Vector(TF32, 3)
	want := []*Type{Accel, v3, TF32, v3, TF32, TU32}
	names := []string{"the accel", "the origin", "tmin", "the direction", "tmax", "the mask"}
	for i, w := range want {
		if args[i].Type() != w {
			return nil, mismatch(op, "operand %d (%s) is %s, want %s", i, names[i], args[i].Type(), w)
		}
	}
	if op == OpRayAny {
		return TBool, nil
	}
	return RayHit, nil
}
