package ir

import "fmt"

// The compiler's input bounds. Validate holds every kernel (DSL-built or
// lowered from Go) to them, and the Go-subset compiler reports them at the
// offending construct's file:line:col, so that no input makes the compiler
// allocate in proportion to an array's length, recurse without bound or hand
// the driver a module it can spend unbounded time on. Each is far above what
// a real kernel needs; RATIONALE.md ("Compiler input bounds") gives the
// reasons for the numbers.
const (
	// MaxTypeSize is the most bytes any type may take: a buffer element, a
	// shared variable, a struct or an array.
	MaxTypeSize = 1 << 20
	// MaxValueSize is the most bytes of a value one thread holds: a local
	// variable, a parameter, a result, a lookup table, a constructed value
	// or a whole-value copy. Private memory is per thread; 16 KiB of it is
	// 16 MiB for a block of 1024 threads.
	MaxValueSize = 16 << 10
	// MaxValueParts is the most parts (scalars, vectors and matrices,
	// counted through arrays and structs) a value one thread holds may
	// have. Drivers lower a whole-array operation (a zero value, a copy, a
	// table) element by element at a cost that grows with the square of the
	// count: lavapipe takes 0.16 s for a 1024-entry table, 3 s for 4096.
	// It also keeps every composite within one SPIR-V instruction (at most
	// 65532 parts).
	MaxValueParts = 1024
	// MaxNesting is the deepest statements may nest (if, for, loop,
	// switch, block inside one another) in one function.
	MaxNesting = 64
	// MaxExprDepth is the deepest an expression may nest (a+b+c… counts one
	// level per operator).
	MaxExprDepth = 1024
	// MaxStatements is the most statements one function may hold, counting
	// nested ones.
	MaxStatements = 1 << 16
	// MaxLocals is the most local variables one function may declare
	// (compiler temporaries included).
	MaxLocals = 1 << 16
	// MaxSourceSize is the most bytes of one Go source file the Go-subset
	// compiler reads.
	MaxSourceSize = 4 << 20
)

// ArrayType is Array with its bounds reported as an error (wrapping ErrType)
// instead of a panic: n must be positive, elem sized, and the array at most
// MaxTypeSize bytes.
func ArrayType(elem *Type, n int) (*Type, error) {
	if elem == nil || elem.size == 0 || elem.IsResource() {
		return nil, fmt.Errorf("%w: no array of %v", ErrType, elem)
	}
	if n <= 0 {
		return nil, fmt.Errorf("%w: an array of %s needs a positive length, not %d", ErrType, elem, n)
	}
	if n > MaxTypeSize/elem.size {
		return nil, fmt.Errorf("%w: an array of %d %s is %s, more than the %s a type may take", ErrType, n, elem, SizeText(uint64(n)*uint64(elem.size)), SizeText(MaxTypeSize))
	}
	return Array(elem, n), nil
}

// Parts is the number of scalars, vectors and matrices in a value of type
// t, counted through arrays and structs (MaxValueParts bounds it).
func Parts(t *Type) int {
	switch t.kind {
	case KindArray:
		return t.n * Parts(t.elem)
	case KindStruct:
		n := 0
		for _, f := range t.fields {
			n += Parts(f.Type)
		}
		return n
	}
	return 1
}

// SizeText is how limit messages write a byte count: in TiB, GiB, MiB or KiB
// when it is a whole number of them (16384 is "16 KiB"), in bytes otherwise.
func SizeText(n uint64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
