package dsl

import (
	"fmt"
	"reflect"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Value is a DSL value: a scalar Val, a vector, or a Struct. Values are
// immutable expression trees; Var holds mutable state.
type Value interface {
	// Expr is the value's expression.
	Expr() ir.Expr
	wrap(e ir.Expr) Value
	valueType() (*ir.Type, error)
}

// Scalar lists the Go types of DSL scalars.
type Scalar interface {
	~bool | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// Integer lists the Go types of DSL integers.
type Integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

func scalarOf[E Scalar]() *ir.Type {
	t, _ := ir.TypeOf(reflect.TypeFor[E]())
	return t
}

// Val is a scalar value whose Go type is E.
type Val[E Scalar] struct{ e ir.Expr }

// Scalar DSL types.
type (
	F32  = Val[float32]
	F64  = Val[float64]
	I32  = Val[int32]
	U32  = Val[uint32]
	I64  = Val[int64]
	U64  = Val[uint64]
	Bool = Val[bool]
)

// Vector DSL types.
type (
	F32x2 = Vec2[float32]
	F32x3 = Vec3[float32]
	F32x4 = Vec4[float32]
	I32x2 = Vec2[int32]
	I32x3 = Vec3[int32]
	I32x4 = Vec4[int32]
	U32x2 = Vec2[uint32]
	U32x3 = Vec3[uint32]
	U32x4 = Vec4[uint32]
)

func (v Val[E]) Expr() ir.Expr                 { return exprOf(v.e) }
func (Val[E]) wrap(e ir.Expr) Value            { return Val[E]{e} }
func (Val[E]) valueType() (*ir.Type, error)    { return scalarOf[E](), nil }
func (Val[E]) paramType() (*ir.Type, error)    { return scalarOf[E](), nil }
func (Val[E]) bind(_ *K, v *ir.Var) any        { return Val[E]{&ir.Ref{Var: v}} }
func (v Vec2[E]) Expr() ir.Expr                { return exprOf(v.e) }
func (Vec2[E]) wrap(e ir.Expr) Value           { return Vec2[E]{e} }
func (Vec2[E]) valueType() (*ir.Type, error)   { return ir.Vector(scalarOf[E](), 2), nil }
func (Vec2[E]) paramType() (*ir.Type, error)   { return ir.Vector(scalarOf[E](), 2), nil }
func (Vec2[E]) bind(_ *K, v *ir.Var) any       { return Vec2[E]{&ir.Ref{Var: v}} }
func (v Vec3[E]) Expr() ir.Expr                { return exprOf(v.e) }
func (Vec3[E]) wrap(e ir.Expr) Value           { return Vec3[E]{e} }
func (Vec3[E]) valueType() (*ir.Type, error)   { return ir.Vector(scalarOf[E](), 3), nil }
func (Vec3[E]) paramType() (*ir.Type, error)   { return ir.Vector(scalarOf[E](), 3), nil }
func (Vec3[E]) bind(_ *K, v *ir.Var) any       { return Vec3[E]{&ir.Ref{Var: v}} }
func (v Vec4[E]) Expr() ir.Expr                { return exprOf(v.e) }
func (Vec4[E]) wrap(e ir.Expr) Value           { return Vec4[E]{e} }
func (Vec4[E]) valueType() (*ir.Type, error)   { return ir.Vector(scalarOf[E](), 4), nil }
func (Vec4[E]) paramType() (*ir.Type, error)   { return ir.Vector(scalarOf[E](), 4), nil }
func (Vec4[E]) bind(_ *K, v *ir.Var) any       { return Vec4[E]{&ir.Ref{Var: v}} }
func (v Struct[T]) Expr() ir.Expr              { return exprOf(v.e) }
func (Struct[T]) wrap(e ir.Expr) Value         { return Struct[T]{e} }
func (Struct[T]) valueType() (*ir.Type, error) { return ir.TypeOf(reflect.TypeFor[T]()) }
func (Struct[T]) paramType() (*ir.Type, error) { return ir.TypeOf(reflect.TypeFor[T]()) }
func (Struct[T]) bind(_ *K, v *ir.Var) any     { return Struct[T]{&ir.Ref{Var: v}} }

func exprOf(e ir.Expr) ir.Expr {
	if e == nil {
		return poison(fmt.Errorf("%w: use of a zero (unset) value", ErrDSL))
	}
	return e
}

func wrapAs[V Value](e ir.Expr) V {
	var z V
	return z.wrap(e).(V)
}

func typeOfValue[V Value]() (*ir.Type, error) {
	var z V
	return z.valueType()
}

// Lit is the constant v (host values become constants).
func Lit[E Scalar](v E) Val[E] {
	t := scalarOf[E]()
	rv := reflect.ValueOf(v)
	switch t.Kind() {
	case ir.KindBool:
		return Val[E]{ir.LitBool(rv.Bool())}
	case ir.KindFloat:
		return Val[E]{ir.LitFloat(t, rv.Float())}
	case ir.KindInt:
		return Val[E]{ir.LitInt(t, rv.Int())}
	}
	return Val[E]{ir.LitInt(t, int64(rv.Uint()))}
}

// F is the f32 constant v.
func F(v float32) F32 { return Lit(v) }

// I is the i32 constant v.
func I(v int32) I32 { return Lit(v) }

// U is the u32 constant v.
func U(v uint32) U32 { return Lit(v) }

// B is the bool constant v.
func B(v bool) Bool { return Lit(v) }

func unary[V Value](op ir.UnaryOp, x V) V {
	xe := x.Expr()
	if p := poisoned(xe); p != nil {
		return wrapAs[V](p)
	}
	t, err := ir.UnaryType(op, xe.Type())
	if err != nil {
		return wrapAs[V](poison(err))
	}
	return wrapAs[V](&ir.Unary{Op: op, X: xe, T: t})
}

func binop[R Value](op ir.BinaryOp, x, y ir.Expr) R {
	if p := poisoned(x, y); p != nil {
		return wrapAs[R](p)
	}
	t, err := ir.BinaryType(op, x.Type(), y.Type())
	if err != nil {
		return wrapAs[R](poison(err))
	}
	return wrapAs[R](&ir.Binary{Op: op, X: x, Y: y, T: t})
}

// Add is v + w.
func (v Val[E]) Add(w Val[E]) Val[E] { return binop[Val[E]](ir.Add, v.e, w.e) }

// Sub is v - w.
func (v Val[E]) Sub(w Val[E]) Val[E] { return binop[Val[E]](ir.Sub, v.e, w.e) }

// Mul is v * w.
func (v Val[E]) Mul(w Val[E]) Val[E] { return binop[Val[E]](ir.Mul, v.e, w.e) }

// Div is v / w (integer division truncates; by zero it is undefined).
func (v Val[E]) Div(w Val[E]) Val[E] { return binop[Val[E]](ir.Div, v.e, w.e) }

// Rem is v % w, with the sign of v (Go's and C's rule).
func (v Val[E]) Rem(w Val[E]) Val[E] { return binop[Val[E]](ir.Rem, v.e, w.e) }

// And is v & w (or logical and of bools).
func (v Val[E]) And(w Val[E]) Val[E] { return binop[Val[E]](ir.And, v.e, w.e) }

// Or is v | w (or logical or of bools).
func (v Val[E]) Or(w Val[E]) Val[E] { return binop[Val[E]](ir.Or, v.e, w.e) }

// Xor is v ^ w.
func (v Val[E]) Xor(w Val[E]) Val[E] { return binop[Val[E]](ir.Xor, v.e, w.e) }

// Shl is v << n; shifting by the width or more yields 0 (Go's rule).
func (v Val[E]) Shl(n U32) Val[E] { return binop[Val[E]](ir.Shl, v.e, n.e) }

// Shr is v >> n (arithmetic for signed types); by the width or more it
// yields 0, or -1 for negative signed values (Go's rule).
func (v Val[E]) Shr(n U32) Val[E] { return binop[Val[E]](ir.Shr, v.e, n.e) }

// Neg is -v.
func (v Val[E]) Neg() Val[E] { return unary(ir.Neg, v) }

// Not is !v for bools.
func (v Val[E]) Not() Val[E] { return unary(ir.Not, v) }

// BitNot is ^v for integers.
func (v Val[E]) BitNot() Val[E] { return unary(ir.BitNot, v) }

// Eq is v == w.
func (v Val[E]) Eq(w Val[E]) Bool { return binop[Bool](ir.Eq, v.e, w.e) }

// Ne is v != w.
func (v Val[E]) Ne(w Val[E]) Bool { return binop[Bool](ir.Ne, v.e, w.e) }

// Lt is v < w.
func (v Val[E]) Lt(w Val[E]) Bool { return binop[Bool](ir.Lt, v.e, w.e) }

// Le is v <= w.
func (v Val[E]) Le(w Val[E]) Bool { return binop[Bool](ir.Le, v.e, w.e) }

// Gt is v > w.
func (v Val[E]) Gt(w Val[E]) Bool { return binop[Bool](ir.Gt, v.e, w.e) }

// Ge is v >= w.
func (v Val[E]) Ge(w Val[E]) Bool { return binop[Bool](ir.Ge, v.e, w.e) }

// Convert converts v to the scalar type To (floats to integers truncate
// toward zero).
func Convert[To, From Scalar](v Val[From]) Val[To] {
	return Val[To]{castExpr(v.e, scalarOf[To](), false)}
}

// Bitcast reinterprets v's bits as To, of the same size.
func Bitcast[To, From Scalar](v Val[From]) Val[To] {
	return Val[To]{castExpr(v.e, scalarOf[To](), true)}
}

func castExpr(x ir.Expr, t *ir.Type, bit bool) ir.Expr {
	if p := poisoned(x); p != nil {
		return p
	}
	if err := ir.CastOK(x.Type(), t, bit); err != nil {
		return poison(err)
	}
	if x.Type() == t {
		return x
	}
	return &ir.Cast{X: x, T: t, Bit: bit}
}

// Vec2 is a 2-vector of E.
type Vec2[E Scalar] struct{ e ir.Expr }

// Vec3 is a 3-vector of E.
type Vec3[E Scalar] struct{ e ir.Expr }

// Vec4 is a 4-vector of E.
type Vec4[E Scalar] struct{ e ir.Expr }

func construct(t *ir.Type, parts ...ir.Expr) ir.Expr {
	if p := poisoned(parts...); p != nil {
		return p
	}
	if err := ir.ConstructOK(t, parts); err != nil {
		return poison(err)
	}
	return &ir.Construct{T: t, Args: parts}
}

// V2 builds a 2-vector.
func V2[E Scalar](x, y Val[E]) Vec2[E] {
	return Vec2[E]{construct(ir.Vector(scalarOf[E](), 2), x.e, y.e)}
}

// V3 builds a 3-vector.
func V3[E Scalar](x, y, z Val[E]) Vec3[E] {
	return Vec3[E]{construct(ir.Vector(scalarOf[E](), 3), x.e, y.e, z.e)}
}

// V4 builds a 4-vector.
func V4[E Scalar](x, y, z, w Val[E]) Vec4[E] {
	return Vec4[E]{construct(ir.Vector(scalarOf[E](), 4), x.e, y.e, z.e, w.e)}
}

// Splat3 is the 3-vector (x, x, x).
func Splat3[E Scalar](x Val[E]) Vec3[E] { return Vec3[E]{construct(ir.Vector(scalarOf[E](), 3), x.e)} }

// Extend4 is (v.x, v.y, v.z, w).
func Extend4[E Scalar](v Vec3[E], w Val[E]) Vec4[E] {
	return Vec4[E]{construct(ir.Vector(scalarOf[E](), 4), v.e, w.e)}
}

func comp[E Scalar](v ir.Expr, i uint8) Val[E] {
	if p := poisoned(v); p != nil {
		return Val[E]{p}
	}
	t := v.Type()
	if t.Kind() != ir.KindVector || int(i) >= t.Len() {
		return Val[E]{poison(fmt.Errorf("%w: component %d of %s", ErrDSL, i, t))}
	}
	return Val[E]{&ir.Swizzle{X: v, Comps: []uint8{i}, T: t.Elem()}}
}

// dynComp is component i of vector v, i computed at run time and clamped
// to the vector (an index past it reads or writes the last component).
func dynComp[E Scalar](v, i ir.Expr) Val[E] {
	if p := poisoned(v, i); p != nil {
		return Val[E]{p}
	}
	t := v.Type()
	if t.Kind() != ir.KindVector {
		return Val[E]{poison(fmt.Errorf("%w: run-time component of %s, which is not a vector", ErrDSL, t))}
	}
	return Val[E]{&ir.Index{X: v, I: clampComp(i, t.Len()), T: t.Elem()}}
}

func clampComp(i ir.Expr, n int) ir.Expr {
	return &ir.Call{Op: ir.OpMin, Args: []ir.Expr{i, ir.LitInt(ir.TU32, int64(n-1))}, T: ir.TU32}
}

// At is component i (0 is X), i computed at run time; an i past the end
// reads the last component.
func (v Vec2[E]) At(i U32) Val[E] { return dynComp[E](v.e, i.e) }

// At is component i (0 is X), i computed at run time; an i past the end
// reads the last component.
func (v Vec3[E]) At(i U32) Val[E] { return dynComp[E](v.e, i.e) }

// At is component i (0 is X), i computed at run time; an i past the end
// reads the last component.
func (v Vec4[E]) At(i U32) Val[E] { return dynComp[E](v.e, i.e) }

func swz(v ir.Expr, comps ...uint8) ir.Expr {
	if p := poisoned(v); p != nil {
		return p
	}
	return &ir.Swizzle{X: v, Comps: comps, T: ir.Vector(v.Type().Elem(), len(comps))}
}

// X is the first component.
func (v Vec2[E]) X() Val[E] { return comp[E](v.e, 0) }

// Y is the second component.
func (v Vec2[E]) Y() Val[E] { return comp[E](v.e, 1) }

// X is the first component.
func (v Vec3[E]) X() Val[E] { return comp[E](v.e, 0) }

// Y is the second component.
func (v Vec3[E]) Y() Val[E] { return comp[E](v.e, 1) }

// Z is the third component.
func (v Vec3[E]) Z() Val[E] { return comp[E](v.e, 2) }

// XY is (x, y).
func (v Vec3[E]) XY() Vec2[E] { return Vec2[E]{swz(v.e, 0, 1)} }

// X is the first component.
func (v Vec4[E]) X() Val[E] { return comp[E](v.e, 0) }

// Y is the second component.
func (v Vec4[E]) Y() Val[E] { return comp[E](v.e, 1) }

// Z is the third component.
func (v Vec4[E]) Z() Val[E] { return comp[E](v.e, 2) }

// W is the fourth component.
func (v Vec4[E]) W() Val[E] { return comp[E](v.e, 3) }

// XYZ is (x, y, z).
func (v Vec4[E]) XYZ() Vec3[E] { return Vec3[E]{swz(v.e, 0, 1, 2)} }

// Add is v + w.
func (v Vec2[E]) Add(w Vec2[E]) Vec2[E] { return binop[Vec2[E]](ir.Add, v.e, w.e) }

// Sub is v - w.
func (v Vec2[E]) Sub(w Vec2[E]) Vec2[E] { return binop[Vec2[E]](ir.Sub, v.e, w.e) }

// Mul is v * w, componentwise.
func (v Vec2[E]) Mul(w Vec2[E]) Vec2[E] { return binop[Vec2[E]](ir.Mul, v.e, w.e) }

// Scale is v * s.
func (v Vec2[E]) Scale(s Val[E]) Vec2[E] { return binop[Vec2[E]](ir.Mul, v.e, s.e) }

// Add is v + w.
func (v Vec3[E]) Add(w Vec3[E]) Vec3[E] { return binop[Vec3[E]](ir.Add, v.e, w.e) }

// Sub is v - w.
func (v Vec3[E]) Sub(w Vec3[E]) Vec3[E] { return binop[Vec3[E]](ir.Sub, v.e, w.e) }

// Mul is v * w, componentwise.
func (v Vec3[E]) Mul(w Vec3[E]) Vec3[E] { return binop[Vec3[E]](ir.Mul, v.e, w.e) }

// Div is v / w, componentwise.
func (v Vec3[E]) Div(w Vec3[E]) Vec3[E] { return binop[Vec3[E]](ir.Div, v.e, w.e) }

// Scale is v * s.
func (v Vec3[E]) Scale(s Val[E]) Vec3[E] { return binop[Vec3[E]](ir.Mul, v.e, s.e) }

// Neg is -v.
func (v Vec3[E]) Neg() Vec3[E] { return unary(ir.Neg, v) }

// Add is v + w.
func (v Vec4[E]) Add(w Vec4[E]) Vec4[E] { return binop[Vec4[E]](ir.Add, v.e, w.e) }

// Sub is v - w.
func (v Vec4[E]) Sub(w Vec4[E]) Vec4[E] { return binop[Vec4[E]](ir.Sub, v.e, w.e) }

// Mul is v * w, componentwise.
func (v Vec4[E]) Mul(w Vec4[E]) Vec4[E] { return binop[Vec4[E]](ir.Mul, v.e, w.e) }

// Scale is v * s.
func (v Vec4[E]) Scale(s Val[E]) Vec4[E] { return binop[Vec4[E]](ir.Mul, v.e, s.e) }

// Dot is the dot product.
func (v Vec3[E]) Dot(w Vec3[E]) Val[E] { return call[Val[E]](ir.OpDot, v.e, w.e) }

// Cross is the cross product.
func (v Vec3[E]) Cross(w Vec3[E]) Vec3[E] { return call[Vec3[E]](ir.OpCross, v.e, w.e) }

// Length is |v|.
func (v Vec3[E]) Length() Val[E] { return call[Val[E]](ir.OpLength, v.e) }

// Normalize is v / |v|.
func (v Vec3[E]) Normalize() Vec3[E] { return call[Vec3[E]](ir.OpNormalize, v.e) }

// Dot is the dot product.
func (v Vec2[E]) Dot(w Vec2[E]) Val[E] { return call[Val[E]](ir.OpDot, v.e, w.e) }

// Length is |v|.
func (v Vec2[E]) Length() Val[E] { return call[Val[E]](ir.OpLength, v.e) }

// Struct is a value of the Go struct type T, with the same layout. A field
// read as a vector or matrix is declared with ir's host types (ir.Float3,
// ir.Uint4, ir.Float4x4 …); a [3]float32 field is an array.
type Struct[T any] struct{ e ir.Expr }

// Get reads member name of s as the DSL type F.
func Get[F Value, T any](s Struct[T], name string) F {
	x := s.Expr()
	if p := poisoned(x); p != nil {
		return wrapAs[F](p)
	}
	t := x.Type()
	for i, f := range t.Fields() {
		if f.Name == name {
			want, err := typeOfValue[F]()
			if err != nil || want != f.Type {
				return wrapAs[F](poison(fmt.Errorf("%w: field %s of %s is %s, read as %v%s", ir.ErrTypeMismatch, name, t.Name(), f.Type, want, hostHint(want))))
			}
			return wrapAs[F](&ir.Member{X: x, Field: i, T: f.Type})
		}
	}
	return wrapAs[F](poison(fmt.Errorf("%w: struct %s has no field %s", ErrDSL, t.Name(), name)))
}

// hostHint names the Go type a struct field of device type t is declared
// with, where t is a vector or matrix (an array or a struct of the same
// floats is not one).
func hostHint(t *ir.Type) string {
	if t == nil {
		return ""
	}
	switch t.Kind() {
	case ir.KindVector:
		name := map[*ir.Type]string{ir.TF32: "Float", ir.TI32: "Int", ir.TU32: "Uint"}[t.Elem()]
		if name != "" {
			return fmt.Sprintf(" (a %s field is declared as ir.%s%d)", t, name, t.Len())
		}
	case ir.KindMatrix:
		return fmt.Sprintf(" (a %s field is declared as ir.Float%dx%d)", t, t.Len(), t.Len())
	}
	return ""
}

// Make builds a struct value from its fields, in order.
func Make[T any](fields ...Value) Struct[T] {
	t, err := ir.TypeOf(reflect.TypeFor[T]())
	if err != nil {
		return Struct[T]{poison(err)}
	}
	parts := make([]ir.Expr, len(fields))
	for i, f := range fields {
		parts[i] = f.Expr()
	}
	return Struct[T]{construct(t, parts...)}
}

func call[R Value](op ir.Op, args ...ir.Expr) R {
	if p := poisoned(args...); p != nil {
		return wrapAs[R](p)
	}
	t, err := ir.CallType(op, args)
	if err != nil {
		return wrapAs[R](poison(err))
	}
	return wrapAs[R](&ir.Call{Op: op, Args: args, T: t})
}

// Mat4 is a 4×4 float32 matrix (column-major; host type Float4x4).
type Mat4 struct{ e ir.Expr }

func (m Mat4) Expr() ir.Expr              { return exprOf(m.e) }
func (Mat4) wrap(e ir.Expr) Value         { return Mat4{e} }
func (Mat4) valueType() (*ir.Type, error) { return ir.Matrix(4, 4), nil }
func (Mat4) paramType() (*ir.Type, error) { return ir.Matrix(4, 4), nil }
func (Mat4) bind(_ *K, v *ir.Var) any     { return Mat4{&ir.Ref{Var: v}} }

// M4 builds a matrix from its columns.
func M4(c0, c1, c2, c3 F32x4) Mat4 {
	return Mat4{construct(ir.Matrix(4, 4), c0.Expr(), c1.Expr(), c2.Expr(), c3.Expr())}
}

// Col is column i (a constant).
func (m Mat4) Col(i int) F32x4 {
	if p := poisoned(m.e); p != nil {
		return F32x4{p}
	}
	if i < 0 || i > 3 {
		return F32x4{poison(fmt.Errorf("%w: column %d of a 4×4 matrix", ErrDSL, i))}
	}
	return F32x4{&ir.Index{X: m.e, I: ir.LitInt(ir.TU32, int64(i)), T: ir.Vector(ir.TF32, 4)}}
}

// Mul is the matrix product m·n.
func (m Mat4) Mul(n Mat4) Mat4 { return binop[Mat4](ir.Mul, m.e, n.e) }

// Apply is the product m·v.
func (m Mat4) Apply(v F32x4) F32x4 { return binop[F32x4](ir.Mul, m.e, v.Expr()) }

// Add is m + n.
func (m Mat4) Add(n Mat4) Mat4 { return binop[Mat4](ir.Add, m.e, n.e) }

// Scale is m * s.
func (m Mat4) Scale(s F32) Mat4 { return binop[Mat4](ir.Mul, m.e, s.e) }

// Transpose is mᵀ.
func (m Mat4) Transpose() Mat4 { return call[Mat4](ir.OpTranspose, m.e) }

// Inverse is m⁻¹ (undefined for a singular m).
func (m Mat4) Inverse() Mat4 { return call[Mat4](ir.OpInverse, m.e) }

// Determinant is det m.
func (m Mat4) Determinant() F32 { return call[F32](ir.OpDeterminant, m.e) }

// Table is a constant array of scalars, indexed at run time.
type Table[E Scalar] struct{ e ir.Expr }

// ConstTable makes a constant array from host values.
func ConstTable[E Scalar](values ...E) Table[E] {
	t := scalarOf[E]()
	if len(values) == 0 {
		return Table[E]{poison(fmt.Errorf("%w: empty constant table", ErrDSL))}
	}
	lits := make([]*ir.Literal, len(values))
	for i, v := range values {
		lits[i] = Lit(v).e.(*ir.Literal)
	}
	return Table[E]{&ir.ConstArray{T: ir.Array(t, len(values)), Values: lits}}
}

// At is element i (undefined past the end).
func (t Table[E]) At(i U32) Val[E] {
	if p := poisoned(t.e, i.e); p != nil {
		return Val[E]{p}
	}
	if l, ok := i.e.(*ir.Literal); ok && l.Bits >= uint64(t.e.Type().Len()) {
		return Val[E]{poison(fmt.Errorf("%w: constant index %d past the end of a constant table of %d values", ErrDSL, l.Bits, t.e.Type().Len()))}
	}
	return Val[E]{&ir.Index{X: t.e, I: i.e, T: t.e.Type().Elem()}}
}
