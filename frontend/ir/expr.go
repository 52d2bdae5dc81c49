package ir

import "math"

// Expr is an expression node. Every expression knows its type.
type Expr interface {
	Type() *Type
	exprNode()
}

// UnaryOp is the operator of a Unary expression.
type UnaryOp uint8

// Unary operators.
const (
	Neg    UnaryOp = iota // -x (numeric)
	Not                   // !x (bool)
	BitNot                // ^x (integer)
)

// BinaryOp is the operator of a Binary expression.
type BinaryOp uint8

// Binary operators. Arithmetic operands have equal types, except that a
// vector or matrix may be scaled by its scalar, and Mul multiplies matrices
// by vectors and matrices (linear-algebra products). Shifts take any integer
// count; comparisons yield bool (or a bool vector).
const (
	Add BinaryOp = iota
	Sub
	Mul
	Div
	Rem
	And
	Or
	Xor
	Shl
	Shr
	LogicAnd
	LogicOr
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
)

var binaryNames = [...]string{"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "&&", "||", "==", "!=", "<", "<=", ">", ">="}

func (o BinaryOp) String() string { return binaryNames[o] }

var unaryNames = [...]string{"-", "!", "^"}

func (o UnaryOp) String() string { return unaryNames[o] }

// IsCompare reports the comparison operators.
func (o BinaryOp) IsCompare() bool { return o >= Eq }

// Unary is op X.
type Unary struct {
	Op UnaryOp
	X  Expr
	T  *Type
}

// Binary is X op Y.
type Binary struct {
	Op   BinaryOp
	X, Y Expr
	T    *Type
}

// Member is X.Field on a struct.
type Member struct {
	X     Expr
	Field int
	T     *Type
}

// Swizzle selects vector components: Comps holds indices 0–3.
type Swizzle struct {
	X     Expr
	Comps []uint8
	T     *Type
}

// Index is X[I] on an array, vector or matrix (a matrix yields a column).
type Index struct {
	X, I Expr
	T    *Type
}

// Literal is a scalar constant; Bits holds the value's bit pattern
// (floats as IEEE bits of their width, integers sign-extended to 64 bits).
type Literal struct {
	T    *Type
	Bits uint64
}

// ConstArray is a constant array of literals.
type ConstArray struct {
	T      *Type
	Values []*Literal
}

// Ref reads a variable.
type Ref struct {
	Var *Var
}

// Call is a built-in operation (Func == nil) or a call of a callable.
type Call struct {
	Op   Op
	Func *Function
	Args []Expr
	T    *Type
}

// Cast converts X to T: a value conversion between numeric scalars or
// vectors (and to or from bool), or, when Bit is set, a reinterpretation of
// the bits between types of the same size.
type Cast struct {
	X   Expr
	T   *Type
	Bit bool
}

// Construct builds a vector, matrix, array or struct from its parts (a
// vector also from one scalar, splatted, and an array from one element,
// repeated: the AST of a zero array stays the size of its element's).
type Construct struct {
	T    *Type
	Args []Expr
}

// Poison stands for an expression whose construction failed (a builder such
// as the DSL makes one and keeps going); it carries the error to the first
// statement that uses it. Validate rejects it.
type Poison struct{ Err error }

func (*Poison) Type() *Type { return TVoid }
func (*Poison) exprNode()   {}

func (e *Unary) Type() *Type      { return e.T }
func (e *Binary) Type() *Type     { return e.T }
func (e *Member) Type() *Type     { return e.T }
func (e *Swizzle) Type() *Type    { return e.T }
func (e *Index) Type() *Type      { return e.T }
func (e *Literal) Type() *Type    { return e.T }
func (e *ConstArray) Type() *Type { return e.T }
func (e *Ref) Type() *Type        { return e.Var.Type }
func (e *Call) Type() *Type       { return e.T }
func (e *Cast) Type() *Type       { return e.T }
func (e *Construct) Type() *Type  { return e.T }

func (*Unary) exprNode()      {}
func (*Binary) exprNode()     {}
func (*Member) exprNode()     {}
func (*Swizzle) exprNode()    {}
func (*Index) exprNode()      {}
func (*Literal) exprNode()    {}
func (*ConstArray) exprNode() {}
func (*Ref) exprNode()        {}
func (*Call) exprNode()       {}
func (*Cast) exprNode()       {}
func (*Construct) exprNode()  {}

// LitFloat is a float literal of type t (16, 32 or 64 bits).
func LitFloat(t *Type, v float64) *Literal {
	switch t.bits {
	case 16:
		return &Literal{T: t, Bits: uint64(Float32ToHalf(float32(v)))}
	case 32:
		return &Literal{T: t, Bits: uint64(math.Float32bits(float32(v)))}
	}
	return &Literal{T: t, Bits: math.Float64bits(v)}
}

// LitInt is an integer literal of type t, truncated to its width.
func LitInt(t *Type, v int64) *Literal {
	return &Literal{T: t, Bits: truncBits(uint64(v), t)}
}

// LitBool is a bool literal.
func LitBool(v bool) *Literal {
	if v {
		return &Literal{T: TBool, Bits: 1}
	}
	return &Literal{T: TBool}
}

// truncBits keeps the low width bits, sign-extending signed types.
func truncBits(v uint64, t *Type) uint64 {
	if t.bits >= 64 {
		return v
	}
	s := 64 - uint(t.bits)
	if t.kind == KindInt {
		return uint64(int64(v<<s) >> s)
	}
	return v << s >> s
}

// Float returns a float literal's value.
func (e *Literal) Float() float64 {
	switch e.T.bits {
	case 16:
		return float64(HalfToFloat32(uint16(e.Bits)))
	case 32:
		return float64(math.Float32frombits(uint32(e.Bits)))
	}
	return math.Float64frombits(e.Bits)
}

// Float32ToHalf rounds a float32 to the nearest IEEE binary16 (ties to even):
// the conversion every 16-bit float in lucent goes through.
func Float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN
		return sign | 0x7e00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint(14 - exp)
		h := man >> shift
		rem := man & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++
	}
	return sign | uint16(h)
}

// Float64ToHalf rounds a float64 to the nearest IEEE binary16 (ties to
// even) in one step: rounding through float32 first could round twice
// (1 + 2^-11 + 2^-40 would become 1 instead of 1 + 2^-10).
func Float64ToHalf(f float64) uint16 {
	b := math.Float64bits(f)
	sign := uint16(b>>48) & 0x8000
	exp := int(b>>52&0x7ff) - 1023 + 15
	man := b & (1<<52 - 1)
	switch {
	case b&^(1<<63) > 0x7ff0000000000000: // NaN
		return sign | 0x7e00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		man |= 1 << 52
		shift := uint(43 - exp)
		h := man >> shift
		rem := man & (1<<shift - 1)
		half := uint64(1) << (shift - 1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint64(exp)<<10 | man>>42
	rem := man & (1<<42 - 1)
	if rem > 1<<41 || rem == 1<<41 && h&1 == 1 {
		h++
	}
	return sign | uint16(h)
}

// HalfToFloat32 widens a half exactly.
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(man) / 1024 / 16384
		if sign != 0 {
			return -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}
