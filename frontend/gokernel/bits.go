package gokernel

import (
	"go/ast"
	"go/types"
	"strings"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// bitsCall lowers a call of package math/bits: the counts, lengths,
// reversals and rotations of each width, built from the IR's 32-bit
// popcount, clz, ctz and bit_reverse with shifts and masks, and computing
// exactly Go's results (LeadingZeros32(0) == 32, Len(0) == 0, RotateLeft
// with a negative k rotating right). uint is 64 bits on the device, as on
// the host, so the forms without a width are the 64-bit ones.
func (l *lowerer) bitsCall(e *ast.CallExpr, f *types.Func) ir.Expr {
	name := f.Name()
	base, width := name, 0
	for _, w := range []struct {
		suffix string
		bits   int
	}{{"8", 8}, {"16", 16}, {"32", 32}, {"64", 64}} {
		if s, ok := strings.CutSuffix(name, w.suffix); ok {
			base, width = s, w.bits
			break
		}
	}
	if width == 0 {
		width = 64 // uint
	}
	switch base {
	case "OnesCount", "LeadingZeros", "TrailingZeros", "Len", "Reverse", "RotateLeft", "ReverseBytes":
	case "Add", "Sub", "Mul":
		l.multiCall(e, 2) // a statement: the results unused
		return nil
	default:
		l.errorf(e.Pos(), "%s", bitsUnsupported(name))
		return nil
	}
	if base == "ReverseBytes" && width == 8 {
		l.errorf(e.Pos(), "bits.%s is not a function of package math/bits", name) // the type checker says so first
		return nil
	}
	x := l.expr(e.Args[0])
	res := l.typeOf(e)
	if width == 64 {
		return l.bits64(base, x, e, res)
	}
	// Widths up to 32 compute on uint32.
	y := l.convert(x, ir.TU32)
	var r ir.Expr
	switch base {
	case "OnesCount":
		r = bitOp(ir.OpPopCount, y)
	case "LeadingZeros":
		r = bitOp(ir.OpClz, y)
		if width < 32 {
			r = bin(ir.Sub, r, u32(32-width))
		}
	case "TrailingZeros":
		if width < 32 {
			y = bin(ir.Or, y, u32(1<<width)) // a zero x has width trailing zeros
		}
		r = bitOp(ir.OpCtz, y)
	case "Len":
		r = bin(ir.Sub, u32(32), bitOp(ir.OpClz, y))
	case "Reverse":
		r = bitOp(ir.OpBitReverse, y)
		if width < 32 {
			r = bin(ir.Shr, r, u32(32-width))
		}
	case "RotateLeft":
		y = l.hold(y)
		s := l.hold(bin(ir.And, l.convert(l.expr(e.Args[1]), ir.TU32), u32(width-1)))
		back := bin(ir.And, bin(ir.Sub, u32(width), s), u32(width-1))
		r = bin(ir.Or, bin(ir.Shl, y, s), bin(ir.Shr, y, back))
	case "ReverseBytes":
		y = l.hold(y)
		if width == 16 {
			r = bin(ir.Or, bin(ir.Shr, y, u32(8)), bin(ir.Shl, y, u32(8)))
		} else {
			r = bswap32(y)
		}
	}
	return l.convert(r, res) // int for the counts and lengths, else x's type
}

// bitsUnsupported says that bits.name is not compiled, and what is.
func bitsUnsupported(name string) string {
	why := ""
	if strings.HasPrefix(name, "Div") || strings.HasPrefix(name, "Rem") {
		why = " (Go's panics on a zero or overflowing divisor have no device equivalent)"
	}
	return "bits." + name + " is not supported in kernels" + why + ": of package math/bits kernels may call OnesCount, LeadingZeros, TrailingZeros, Len, Reverse, RotateLeft, ReverseBytes, Add, Sub and Mul (each width); divide with / and % on uint64"
}

// bitsMulti lowers bits.Add, Sub and Mul (each width), returning the
// temporaries holding their two results, as Go computes them: the
// carry and borrow from the operands' top bits, the high half of the
// product from the halves of the operands, so that no width needs a wider
// integer than its own.
func (l *lowerer) bitsMulti(e *ast.CallExpr, f *types.Func) []*ir.Var {
	name := f.Name()
	base := strings.TrimSuffix(strings.TrimSuffix(name, "32"), "64")
	if base != "Add" && base != "Sub" && base != "Mul" {
		l.errorf(e.Pos(), "%s", bitsUnsupported(name))
		return nil
	}
	var args []ir.Expr
	for _, a := range e.Args {
		args = append(args, l.hold(l.expr(a)))
	}
	t := args[0].Type()
	for i := range args {
		args[i] = l.hold(l.convert(args[i], t))
	}
	top := lit(t, int64(t.Bits()-1))
	x, y := args[0], args[1]
	var r0, r1 ir.Expr
	switch base {
	case "Add":
		// sum = x + y + carry; carryOut = ((x & y) | ((x | y) &^ sum)) >> (n-1)
		sum := l.hold(bin(ir.Add, bin(ir.Add, x, y), args[2]))
		notSum := &ir.Unary{Op: ir.BitNot, X: sum, T: t}
		r0 = sum
		r1 = bin(ir.Shr, bin(ir.Or, bin(ir.And, x, y), bin(ir.And, bin(ir.Or, x, y), notSum)), top)
	case "Sub":
		// diff = x - y - borrow; borrowOut = ((^x & y) | (^(x ^ y) & diff)) >> (n-1)
		diff := l.hold(bin(ir.Sub, bin(ir.Sub, x, y), args[2]))
		notX := &ir.Unary{Op: ir.BitNot, X: x, T: t}
		same := &ir.Unary{Op: ir.BitNot, X: bin(ir.Xor, x, y), T: t}
		r0 = diff
		r1 = bin(ir.Shr, bin(ir.Or, bin(ir.And, notX, y), bin(ir.And, same, diff)), top)
	case "Mul":
		// Go's Mul64 on the halves of the operands: hi, lo.
		half := lit(t, int64(t.Bits()/2))
		mask := lit(t, int64(uint64(1)<<(t.Bits()/2)-1))
		x0, x1 := l.hold(bin(ir.And, x, mask)), l.hold(bin(ir.Shr, x, half))
		y0, y1 := l.hold(bin(ir.And, y, mask)), l.hold(bin(ir.Shr, y, half))
		w0 := l.hold(bin(ir.Mul, x0, y0))
		tt := l.hold(bin(ir.Add, bin(ir.Mul, x1, y0), bin(ir.Shr, w0, half)))
		w1 := l.hold(bin(ir.Add, bin(ir.And, tt, mask), bin(ir.Mul, x0, y1)))
		r0 = bin(ir.Add, bin(ir.Add, bin(ir.Mul, x1, y1), bin(ir.Shr, tt, half)), bin(ir.Shr, w1, half))
		r1 = bin(ir.Mul, x, y)
	}
	outs := []*ir.Var{l.newTemp(t), l.newTemp(t)}
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: outs[0]}, Src: r0})
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: outs[1]}, Src: r1})
	return outs
}

// bits64 lowers the 64-bit forms on the two 32-bit halves of x (the
// rotation on 64-bit shifts).
func (l *lowerer) bits64(base string, x ir.Expr, e *ast.CallExpr, res *ir.Type) ir.Expr {
	t := x.Type()
	if base == "RotateLeft" {
		x = l.hold(x)
		s := l.hold(bin(ir.And, l.convert(l.expr(e.Args[1]), t), lit(t, 63)))
		back := bin(ir.And, bin(ir.Sub, lit(t, 64), s), lit(t, 63))
		return bin(ir.Or, bin(ir.Shl, x, s), bin(ir.Shr, x, back))
	}
	x = l.hold(x)
	lo := l.hold(&ir.Cast{X: x, T: ir.TU32})
	hi := l.hold(&ir.Cast{X: bin(ir.Shr, x, lit(t, 32)), T: ir.TU32})
	var r ir.Expr
	switch base {
	case "OnesCount":
		r = bin(ir.Add, bitOp(ir.OpPopCount, lo), bitOp(ir.OpPopCount, hi))
	case "LeadingZeros", "Len":
		// clz(hi), or 32 + clz(lo) where hi is 0 (clz(0) is 32).
		r = sel(bin(ir.Eq, hi, u32(0)), bin(ir.Add, u32(32), bitOp(ir.OpClz, lo)), bitOp(ir.OpClz, hi))
		if base == "Len" {
			r = bin(ir.Sub, u32(64), r)
		}
	case "TrailingZeros":
		r = sel(bin(ir.Eq, lo, u32(0)), bin(ir.Add, u32(32), bitOp(ir.OpCtz, hi)), bitOp(ir.OpCtz, lo))
	case "Reverse", "ReverseBytes":
		// Each half reversed, the halves swapped.
		f := func(h ir.Expr) ir.Expr { return bitOp(ir.OpBitReverse, h) }
		if base == "ReverseBytes" {
			f = bswap32
		}
		r = bin(ir.Or, bin(ir.Shl, &ir.Cast{X: f(lo), T: t}, lit(t, 32)), &ir.Cast{X: f(hi), T: t})
		return r
	}
	return l.convert(r, res)
}

// bswap32 reverses the bytes of y, a uint32 read more than once (held).
func bswap32(y ir.Expr) ir.Expr {
	b0 := bin(ir.Shl, y, u32(24))
	b1 := bin(ir.Shl, bin(ir.And, y, u32(0xff00)), u32(8))
	b2 := bin(ir.And, bin(ir.Shr, y, u32(8)), u32(0xff00))
	b3 := bin(ir.Shr, y, u32(24))
	return bin(ir.Or, bin(ir.Or, b0, b1), bin(ir.Or, b2, b3))
}

// hold is e, or a temporary holding it where e is not a variable or a
// literal: for an operand read more than once.
func (l *lowerer) hold(e ir.Expr) ir.Expr {
	switch e.(type) {
	case *ir.Ref, *ir.Literal:
		return e
	}
	tmp := l.newTemp(e.Type())
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: e})
	return &ir.Ref{Var: tmp}
}

func bin(op ir.BinaryOp, x, y ir.Expr) ir.Expr {
	t := x.Type()
	if op.IsCompare() {
		t = ir.TBool
	}
	return &ir.Binary{Op: op, X: x, Y: y, T: t}
}

func bitOp(op ir.Op, x ir.Expr) ir.Expr {
	return &ir.Call{Op: op, Args: []ir.Expr{x}, T: x.Type()}
}

func sel(c, a, b ir.Expr) ir.Expr {
	return &ir.Call{Op: ir.OpSelect, Args: []ir.Expr{c, a, b}, T: a.Type()}
}

func u32(v int) ir.Expr { return ir.LitInt(ir.TU32, int64(v)) }

func lit(t *ir.Type, v int64) ir.Expr { return ir.LitInt(t, v) }
