package device

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Leaf is one run of a value's layout (Argument.Layout): Count scalars of
// kind Scalar and width ScalarBits, one after another from the value's byte
// Byte. A run is whatever memory cannot tell apart: a vector's components, an
// array's elements, a matrix's columns, adjacent fields of one type.
type Leaf struct {
	Byte       uint32
	Scalar     ScalarKind
	ScalarBits uint8
	Count      uint32
}

// MaxLayoutLeaves is the most runs a layout holds; a type of more (an array
// of structs of several fields, say) has none, so only its size is checked.
const MaxLayoutLeaves = 64

// end is the byte after the leaf's last scalar.
func (l Leaf) end() uint32 { return l.Byte + l.Count*uint32(l.ScalarBits/8) }

func (l Leaf) String() string {
	s := scalarName(l.Scalar, l.ScalarBits, 1)
	if l.Scalar == ScalarBool {
		s = "bool"
	}
	if l.Count > 1 {
		s = fmt.Sprintf("[%d]%s", l.Count, s)
	}
	return fmt.Sprintf("%s@%d", s, l.Byte)
}

// layout gathers a type's runs, merging each scalar into the run before it
// where it continues it; ok turns false past MaxLayoutLeaves.
type layout struct {
	leaves []Leaf
	ok     bool
}

func (b *layout) add(x Leaf) {
	if n := len(b.leaves); n > 0 {
		last := &b.leaves[n-1]
		if last.Scalar == x.Scalar && last.ScalarBits == x.ScalarBits && last.end() == x.Byte {
			last.Count += x.Count
			return
		}
	}
	if len(b.leaves) == MaxLayoutLeaves {
		b.ok = false
		return
	}
	b.leaves = append(b.leaves, x)
}

// array adds n copies of an element whose runs are elem, size bytes apart,
// from byte off: one run where the element is one run filling it.
func (b *layout) array(elem []Leaf, off, size, n uint32) {
	if len(elem) == 1 && elem[0].Byte == 0 && elem[0].end() == size {
		e := elem[0]
		e.Byte, e.Count = off, e.Count*n
		b.add(e)
		return
	}
	for i := range n {
		for _, e := range elem {
			e.Byte += off + i*size
			b.add(e)
		}
		if !b.ok {
			return
		}
	}
}

// kernelLayout is the layout of a kernel type other than a scalar or a
// vector (whose Scalar says all), or nil.
func kernelLayout(t *ir.Type) []Leaf {
	if t.IsScalar() || t.Kind() == ir.KindVector {
		return nil
	}
	b := layout{ok: true}
	kernelLeaves(&b, t, 0)
	if !b.ok || len(b.leaves) == 0 {
		return nil
	}
	return b.leaves
}

func kernelLeaves(b *layout, t *ir.Type, off uint32) {
	switch t.Kind() {
	case ir.KindStruct:
		for _, f := range t.Fields() {
			kernelLeaves(b, f.Type, off+uint32(f.Offset))
		}
	case ir.KindVector, ir.KindMatrix, ir.KindArray:
		e := layout{ok: true}
		kernelLeaves(&e, t.Elem(), 0)
		if !e.ok {
			b.ok = false
			return
		}
		b.array(e.leaves, off, uint32(t.Elem().Size()), uint32(t.Len()))
	default:
		var a Argument
		describeScalar(&a, t)
		if a.Scalar == ScalarUnknown {
			b.ok = false
			return
		}
		b.add(Leaf{Byte: off, Scalar: a.Scalar, ScalarBits: a.ScalarBits, Count: 1})
	}
}

var goLayouts sync.Map // reflect.Type -> []Leaf (nil: none)

// goLayout is the layout of a plain Go type (checkPOD), or nil past
// MaxLayoutLeaves. A complex number is two floats.
func goLayout(t reflect.Type) []Leaf {
	if v, ok := goLayouts.Load(t); ok {
		return v.([]Leaf)
	}
	b := layout{ok: true}
	goLeaves(&b, t, 0)
	if !b.ok {
		b.leaves = nil
	}
	goLayouts.Store(t, b.leaves)
	return b.leaves
}

func goLeaves(b *layout, t reflect.Type, off uint32) {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			goLeaves(b, f.Type, off+uint32(f.Offset))
		}
	case reflect.Array:
		e := layout{ok: true}
		goLeaves(&e, t.Elem(), 0)
		if !e.ok {
			b.ok = false
			return
		}
		b.array(e.leaves, off, uint32(t.Elem().Size()), uint32(t.Len()))
	case reflect.Complex64, reflect.Complex128:
		b.add(Leaf{Byte: off, Scalar: ScalarFloat, ScalarBits: uint8(t.Size() * 4), Count: 2})
	default:
		k, bits, _, ok := scalarOf(t)
		if !ok {
			b.ok = false
			return
		}
		b.add(Leaf{Byte: off, Scalar: k, ScalarBits: bits, Count: 1})
	}
}

// checkLayout compares the Go type t of a uniform or a buffer's element with
// the layout the argument declares, scalar by scalar: kinds, widths and
// offsets must agree, field names need not. It says nothing where either side
// has no layout. A Go 16-bit integer stands for a float16 (Go has none).
func checkLayout(a Argument, t reflect.Type) error {
	if a.Layout == nil {
		return nil
	}
	g := goLayout(t)
	if g == nil {
		return nil
	}
	k, gl := a.Layout, g
	var ki, gi uint32 // scalars of k[0] and g[0] already compared
	for len(k) > 0 && len(gl) > 0 {
		x, y := k[0], gl[0]
		xo, yo := x.Byte+ki*uint32(x.ScalarBits/8), y.Byte+gi*uint32(y.ScalarBits/8)
		if xo != yo || !sameScalar(x, y) {
			switch {
			case xo < yo:
				return fmt.Errorf("byte %d: kernel expects %s, %s has padding there", xo, leafType(x), t)
			case yo < xo:
				return fmt.Errorf("byte %d: kernel expects padding, got %s (%s)", yo, leafType(y), goFieldAt(t, yo))
			}
			return fmt.Errorf("byte %d: kernel expects %s, got %s (%s)", xo, leafType(x), leafType(y), goFieldAt(t, yo))
		}
		n := min(x.Count-ki, y.Count-gi)
		if ki += n; ki == x.Count {
			k, ki = k[1:], 0
		}
		if gi += n; gi == y.Count {
			gl, gi = gl[1:], 0
		}
	}
	if len(k) > 0 {
		o := k[0].Byte + ki*uint32(k[0].ScalarBits/8)
		return fmt.Errorf("byte %d: kernel expects %s, %s has padding there", o, leafType(k[0]), t)
	}
	if len(gl) > 0 {
		o := gl[0].Byte + gi*uint32(gl[0].ScalarBits/8)
		return fmt.Errorf("byte %d: kernel expects padding, got %s (%s)", o, leafType(gl[0]), goFieldAt(t, o))
	}
	return nil
}

// sameScalar says whether a Go scalar y is the kernel's scalar x.
func sameScalar(x, y Leaf) bool {
	if x.ScalarBits != y.ScalarBits {
		return false
	}
	return x.Scalar == y.Scalar || x.Scalar == ScalarFloat && x.ScalarBits == 16 && y.Scalar != ScalarBool
}

func leafType(l Leaf) string {
	if l.Scalar == ScalarBool {
		return "bool"
	}
	return scalarName(l.Scalar, l.ScalarBits, 1)
}

// goFieldAt names the scalar of t at byte off: "T.A.B[2]".
func goFieldAt(t reflect.Type, off uint32) string {
	path := t.String()
	for {
		switch t.Kind() {
		case reflect.Struct:
			found := false
			for i := range t.NumField() {
				f := t.Field(i)
				if off >= uint32(f.Offset) && off < uint32(f.Offset+f.Type.Size()) {
					path += "." + f.Name
					t, off, found = f.Type, off-uint32(f.Offset), true
					break
				}
			}
			if !found {
				return path
			}
		case reflect.Array:
			es := uint32(t.Elem().Size())
			path += fmt.Sprintf("[%d]", off/es)
			t, off = t.Elem(), off%es
		default:
			return path
		}
	}
}

// layoutText spells a layout for SignatureText: "{float32@0, [3]int32@4}".
func layoutText(l []Leaf) string {
	s := make([]string, len(l))
	for i, x := range l {
		s[i] = x.String()
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// structText matches a struct's type in a SignatureText, its layout
// (submatch 2) where it has one.
var structText = regexp.MustCompile(`(struct\(\d+ bytes\))(\{[^}]*\})?`)

// sameSignatureText says whether a kernel of signature text got may be
// loaded by a program written against signature text want: they are equal
// but where one side gives a struct no layout (a text, record or launcher
// made before signatures carried layouts), whose size alone then counts.
func sameSignatureText(want, got string) bool {
	if want == got {
		return true
	}
	w, g := structText.FindAllStringSubmatch(want, -1), structText.FindAllStringSubmatch(got, -1)
	if len(w) != len(g) || structText.ReplaceAllString(want, "$1") != structText.ReplaceAllString(got, "$1") {
		return false
	}
	for i := range w {
		if w[i][2] != "" && g[i][2] != "" && w[i][2] != g[i][2] {
			return false
		}
	}
	return true
}
