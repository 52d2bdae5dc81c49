package ir

// UnaryType type-checks op x and returns the result type.
func UnaryType(op UnaryOp, x *Type) (*Type, error) {
	switch op {
	case Neg:
		if isNumy(x) && x.Scalar().kind != KindUint || x.kind == KindMatrix {
			return x, nil
		}
	case Not:
		if isBooly(x) {
			return x, nil
		}
	case BitNot:
		if isInty(x) {
			return x, nil
		}
	}
	return nil, mismatch(op, "operand is %s", x)
}

// BinaryType type-checks x op y and returns the result type.
func BinaryType(op BinaryOp, x, y *Type) (*Type, error) {
	switch op {
	case Add, Sub, Mul, Div, Rem:
		if x == y && isNumy(x) && !(op == Rem && false) {
			return x, nil
		}
		if op == Mul || op == Div {
			// vector or matrix scaled by its scalar
			if (x.kind == KindVector || x.kind == KindMatrix) && y == x.Scalar() && x.Scalar().kind == KindFloat {
				return x, nil
			}
		}
		if x == y && x.kind == KindMatrix && (op == Add || op == Sub) {
			return x, nil
		}
		if op == Mul {
			if x.kind == KindMatrix && y.kind == KindVector && y == Vector(TF32, x.n) {
				return x.elem, nil
			}
			if x.kind == KindVector && y.kind == KindMatrix && x == y.elem {
				return Vector(TF32, y.n), nil
			}
			if x.kind == KindMatrix && y.kind == KindMatrix && x.n == y.elem.n {
				return Matrix(y.n, x.elem.n), nil
			}
		}
	case And, Or, Xor:
		if x == y && (isInty(x) || isBooly(x)) {
			return x, nil
		}
	case Shl, Shr:
		if isInty(x) && isInty(y) && x.Components() == y.Components() {
			return x, nil
		}
	case LogicAnd, LogicOr:
		if x == y && x == TBool {
			return x, nil
		}
	case Eq, Ne:
		if x == y && (isNumy(x) || isBooly(x)) {
			return BoolLike(x), nil
		}
	case Lt, Le, Gt, Ge:
		if x == y && isNumy(x) {
			return BoolLike(x), nil
		}
	}
	return nil, mismatch(op, "operands are %s and %s", x, y)
}

// CastOK reports whether x converts (or, with bit set, bit-casts) to t.
func CastOK(x, t *Type, bit bool) error {
	if bit {
		if (x.IsNumeric() || x.kind == KindVector && x.elem.IsNumeric()) &&
			(t.IsNumeric() || t.kind == KindVector && t.elem.IsNumeric()) && x.size == t.size {
			return nil
		}
		return mismatch(stringer("bitcast"), "%s to %s: sizes or kinds differ", x, t)
	}
	if x.Components() == t.Components() && (x.IsScalar() || x.kind == KindVector) && (t.IsScalar() || t.kind == KindVector) {
		return nil
	}
	return mismatch(stringer("cast"), "cannot convert %s to %s", x, t)
}

type stringer string

func (s stringer) String() string { return string(s) }
