package ir

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
)

// Print formats Args by Format, as Go's fmt.Printf would format the same
// values, and hands the text to the log of whatever runs the kernel, with
// the kernel's name and the thread's dispatch id (kernel.Printf in the Go
// subset, K.Printf in the DSL). Each argument is a scalar or a vector; a
// vector prints as the struct of the kernel package does ({1 2 3}).
//
// Format takes the verbs %d %u %x %X %f %F %e %E %g %G %t %v with Go's
// flags, width and precision, and %%; %u is %d for unsigned integers (the
// only verb fmt lacks). Validate holds the verbs to the arguments' types.
type Print struct {
	Format string
	Args   []Expr
	Pos    string // source position (StmtPos)
}

func (*Print) stmtNode() {}

// MaxPrintArgs bounds the arguments of one Print, and MaxPrintFormat the
// length of its format.
const (
	MaxPrintArgs   = 16
	MaxPrintFormat = 1024
)

// PrintVerb is one conversion of a print format.
type PrintVerb struct {
	Verb  byte // d u x X f F e E g G t v
	Flags string
}

// ParsePrintFormat splits a print format into its verbs (%% excluded),
// refusing what Print does not take: argument indexes, '*' widths, unknown
// verbs, a '%' at the end.
func ParsePrintFormat(format string) ([]PrintVerb, error) {
	var verbs []PrintVerb
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		start := i
		i++
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			i++
		}
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			i++
		}
		if i < len(format) && format[i] == '.' {
			i++
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
		}
		if i >= len(format) {
			return nil, fmt.Errorf("format %q ends inside a verb", format)
		}
		c := format[i]
		switch {
		case c == '%' && i == start+1:
			continue
		case strings.IndexByte("duxXfFeEgGtv", c) >= 0:
			flags := format[start+1 : i]
			if c == 'v' && strings.IndexByte(flags, '#') >= 0 {
				return nil, fmt.Errorf("format %q: %%#v is not supported (it prints Go syntax of host types)", format)
			}
			verbs = append(verbs, PrintVerb{Verb: c, Flags: flags})
		default:
			return nil, fmt.Errorf("format %q: verb %%%s is not supported (use %%d %%u %%x %%f %%e %%g %%t %%v)", format, format[start+1:i+1])
		}
	}
	return verbs, nil
}

// accepts reports whether verb v formats a value whose scalar type is s.
func (v PrintVerb) accepts(s *Type) bool {
	switch v.Verb {
	case 'v':
		return true
	case 'd':
		return s.IsInteger()
	case 'u':
		return s.Kind() == KindUint
	case 'x', 'X':
		return s.IsNumeric()
	case 't':
		return s.Kind() == KindBool
	}
	return s.Kind() == KindFloat // f F e E g G
}

// CheckPrint is Validate's rule for a Print whose arguments are valid:
// the format parses, and its verbs fit the arguments' types.
func CheckPrint(p *Print) error {
	if len(p.Format) > MaxPrintFormat {
		return fmt.Errorf("print format of %d bytes (MaxPrintFormat is %d)", len(p.Format), MaxPrintFormat)
	}
	if len(p.Args) > MaxPrintArgs {
		return fmt.Errorf("print of %d arguments (MaxPrintArgs is %d)", len(p.Args), MaxPrintArgs)
	}
	verbs, err := ParsePrintFormat(p.Format)
	if err != nil {
		return err
	}
	if len(verbs) != len(p.Args) {
		return fmt.Errorf("format %q has %d verbs for %d arguments", p.Format, len(verbs), len(p.Args))
	}
	for i, a := range p.Args {
		t := a.Type()
		if !t.IsScalar() && !(t.Kind() == KindVector && t.Elem().IsScalar()) {
			return fmt.Errorf("format %q: argument %d is a %s; print takes scalars and vectors", p.Format, i, t)
		}
		if !verbs[i].accepts(t.Scalar()) {
			return fmt.Errorf("format %q: verb %%%c does not format argument %d, a %s", p.Format, verbs[i].Verb, i, t)
		}
	}
	return nil
}

// GoPrintFormat is format as Go's fmt takes it: %u becomes %d.
func GoPrintFormat(format string) string {
	if !strings.Contains(format, "u") {
		return format
	}
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		b.WriteByte(c)
		if c != '%' {
			continue
		}
		for i+1 < len(format) && strings.IndexByte("+-# 0.0123456789", format[i+1]) >= 0 {
			i++
			b.WriteByte(format[i])
		}
		if i+1 < len(format) {
			i++
			if format[i] == 'u' {
				b.WriteByte('d')
			} else {
				b.WriteByte(format[i])
			}
		}
	}
	return b.String()
}

// PrintWords is how many 32-bit words a print argument of type t takes in a
// print record: one per component, two for a 64-bit one.
func PrintWords(t *Type) int {
	n := 1
	if t.Kind() == KindVector {
		n = t.Len()
	}
	if t.Scalar().Bits() == 64 {
		n *= 2
	}
	return n
}

// PrintValue decodes an argument of type t from the words of a print record
// (components in order, 64-bit ones low word first; bools as 0 or 1, 8- and
// 16-bit integers widened to 32 bits, 16-bit floats as 32-bit ones) into the
// Go value fmt formats as the kernel package's type: a scalar of the Go type
// of t, a vector as a struct of fields X, Y, Z, W.
func PrintValue(t *Type, words []uint32) any {
	if t.Kind() != KindVector {
		return printScalar(t, words)
	}
	st := vectorStruct(t)
	v := reflect.New(st).Elem()
	per := PrintWords(t.Elem())
	for i := range t.Len() {
		v.Field(i).Set(reflect.ValueOf(printScalar(t.Elem(), words[i*per:])))
	}
	return v.Interface()
}

func printScalar(t *Type, w []uint32) any {
	lo := w[0]
	var x64 uint64
	if t.Bits() == 64 {
		x64 = uint64(lo) | uint64(w[1])<<32
	}
	switch t.Kind() {
	case KindBool:
		return lo != 0
	case KindInt:
		switch t.Bits() {
		case 8:
			return int8(lo)
		case 16:
			return int16(lo)
		case 64:
			return int64(x64)
		}
		return int32(lo)
	case KindUint:
		switch t.Bits() {
		case 8:
			return uint8(lo)
		case 16:
			return uint16(lo)
		case 64:
			return x64
		}
		return lo
	case KindFloat:
		if t.Bits() == 64 {
			return math.Float64frombits(x64)
		}
		return math.Float32frombits(lo)
	}
	return nil
}

var (
	vectorStructMu sync.Mutex
	vectorStructs  = map[*Type]reflect.Type{}
)

// vectorStruct is the struct type a vector prints as: fields X, Y, Z, W of
// the element's Go type, as the kernel package's vector types have.
func vectorStruct(t *Type) reflect.Type {
	vectorStructMu.Lock()
	defer vectorStructMu.Unlock()
	if st, ok := vectorStructs[t]; ok {
		return st
	}
	et := reflect.TypeOf(printScalar(t.Elem(), []uint32{0, 0}))
	fields := make([]reflect.StructField, t.Len())
	for i := range fields {
		fields[i] = reflect.StructField{Name: string("XYZW"[i]), Type: et}
	}
	st := reflect.StructOf(fields)
	vectorStructs[t] = st
	return st
}

// FormatPrint formats the decoded arguments of p as Go's fmt does.
func FormatPrint(format string, args []any) string {
	return fmt.Sprintf(GoPrintFormat(format), args...)
}

// Prints lists the Print statements of kernel f and the callables it
// reaches, each once, in a stable order (f's body, then its callees in
// Callees order, each in statement order): a Print's index in it is its
// print site, which records name instead of the format.
func (f *Function) Prints() []*Print {
	var out []*Print
	visit := func(g *Function) {
		WalkStmts(g.Body, func(s Stmt) {
			if p, ok := s.(*Print); ok {
				out = append(out, p)
			}
		})
	}
	visit(f)
	for _, g := range f.Callees() {
		visit(g)
	}
	return out
}

// WalkStmts calls fn for every statement of b, nested ones included, outer
// ones first.
func WalkStmts(b *Block, fn func(Stmt)) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		fn(s)
		switch s := s.(type) {
		case *Block:
			WalkStmts(s, fn)
		case *If:
			WalkStmts(s.Then, fn)
			WalkStmts(s.Else, fn)
		case *Loop:
			WalkStmts(s.Body, fn)
		case *RayQuery:
			WalkStmts(s.Body, fn)
		case *For:
			WalkStmts(s.Body, fn)
			WalkStmts(s.Update, fn)
		case *Switch:
			for _, c := range s.Cases {
				WalkStmts(c.Body, fn)
			}
			WalkStmts(s.Default, fn)
		}
	}
}

// AppendPrintWords appends the print-record words of a value of type t (a
// scalar or vector Print argument) given as its leaves, each a scalar's bits
// at its own width (frontend/interp's and the cpu backend's form).
func AppendPrintWords(dst []uint32, t *Type, leaves []uint64) []uint32 {
	s := t.Scalar()
	for _, x := range leaves[:t.Components()] {
		switch {
		case s.Bits() == 64:
			dst = append(dst, uint32(x), uint32(x>>32))
		case s.Kind() == KindFloat && s.Bits() == 16:
			dst = append(dst, math.Float32bits(HalfToFloat32(uint16(x))))
		default:
			dst = append(dst, uint32(x))
		}
	}
	return dst
}

// PrintText formats Print p from the words of its record's arguments.
func PrintText(p *Print, words []uint32) string {
	args := make([]any, len(p.Args))
	for i, a := range p.Args {
		n := PrintWords(a.Type())
		args[i] = PrintValue(a.Type(), words[:n])
		words = words[n:]
	}
	return FormatPrint(p.Format, args)
}
