package ir

// A value held on the CPU (by frontend/interp and the cpu backend) is its
// scalar leaves, each a uint64 with the scalar's bits at its own width.

// Leaves is the number of scalars in a value of t (0 for void).
func Leaves(t *Type) int {
	switch t.kind {
	case KindVector:
		return t.n
	case KindMatrix, KindArray:
		return t.n * Leaves(t.elem)
	case KindStruct:
		n := 0
		for _, f := range t.fields {
			n += Leaves(f.Type)
		}
		return n
	case KindVoid:
		return 0
	}
	return 1
}

// SignExtend widens a leaf of t's scalar, held in its low bits, to 64 bits
// (a no-op unless the scalar is a signed integer narrower than 64 bits).
func SignExtend(v uint64, t *Type) uint64 {
	s := t.Scalar()
	if s.Kind() != KindInt || s.Bits() == 64 {
		return v
	}
	sh := 64 - uint(s.Bits())
	return uint64(int64(v<<sh) >> sh)
}

// Truncate keeps the bits of v a leaf of scalar type t holds.
func Truncate(v uint64, t *Type) uint64 {
	if t.Bits() >= 64 || t == TBool {
		return v
	}
	return v & (1<<uint(t.Bits()) - 1)
}
