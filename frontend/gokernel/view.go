package gokernel

import (
	"go/ast"
	"go/types"
	"math"
	"strings"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Views. A sub-slice x[lo:hi] of a buffer is the view [lo, hi) of it: the
// buffer, its first element and its length, held in u32 temporaries (or, in
// a helper taking a view, hidden u32 parameters after its own). Index i of
// the view reads x[lo+i], len is hi-lo, range covers the view, and a view
// may be sliced again or passed on to a helper. The bounds are clamped to
// the buffer as the device's other accesses are bounded (hi to len(x), lo
// to hi), so a view is never longer than its buffer and its length never
// wraps; an index past a view's end is not checked, as a plain buffer
// index is not, but an index or bound a u32 cannot hold (negative, 2³² or
// more) is past the buffer's end, never wrapped back into it (index32).

// view is a sub-range of a buffer.
type view struct {
	buf ir.Expr // the buffer (a Ref)
	lo  ir.Expr // first element, u32
	n   ir.Expr // length, u32
}

func (v *view) copy() *view {
	return &view{buf: copyPlace(v.buf), lo: copyPlace(v.lo), n: copyPlace(v.n)}
}

// at is the buffer element j (a u32, index32) of the view: lo + min(j,
// 0xFFFFFFFF - lo), a sum that cannot wrap, so an index a u32 cannot hold
// stays past the buffer's end instead of landing before the view.
func (v *view) at(j ir.Expr) ir.Expr {
	c := v.copy()
	room := &ir.Binary{Op: ir.Sub, X: ir.LitInt(ir.TU32, math.MaxUint32), Y: copyPlace(c.lo), T: ir.TU32}
	idx := &ir.Binary{Op: ir.Add, X: c.lo, Y: &ir.Call{Op: ir.OpMin, Args: []ir.Expr{j, room}, T: ir.TU32}, T: ir.TU32}
	return &ir.Index{X: c.buf, I: idx, T: c.buf.Type().Elem()}
}

// within is the buffer element j of the view for an integer j known to be
// below its length (a range loop's): lo + j.
func (v *view) within(j ir.Expr) ir.Expr {
	c := v.copy()
	if j.Type() != ir.TU32 {
		j = &ir.Cast{X: j, T: ir.TU32}
	}
	return &ir.Index{X: c.buf, I: &ir.Binary{Op: ir.Add, X: c.lo, Y: j, T: ir.TU32}, T: c.buf.Type().Elem()}
}

// index32 converts integer index x to the u32 a view, a bindless buffer, a
// slice bound or a run-time vector component takes. A value a u32 cannot
// hold, negative or 2³² and more, becomes 0xFFFFFFFF, past the end of
// anything a u32 indexes, instead of wrapping into range: x[1<<32+1] of a
// view is not x[1], nor v[-1] the element before the view. A u32 index is
// taken as it is; a signed or 64-bit one saturates in 64 bits, through a
// temporary unless it is a variable (the compare and the conversion read
// it once).
func (l *lowerer) index32(x ir.Expr) ir.Expr {
	t := x.Type()
	if lit, ok := x.(*ir.Literal); ok {
		v := ir.SignExtend(lit.Bits, lit.T)
		if (t.Kind() == ir.KindInt && int64(v) < 0) || v > math.MaxUint32 {
			v = math.MaxUint32
		}
		return ir.LitInt(ir.TU32, int64(v))
	}
	switch {
	case t == ir.TU32:
		return x
	case t.Kind() == ir.KindUint && t.Bits() < 32:
		return &ir.Cast{X: x, T: ir.TU32}
	}
	w := x
	if t.Kind() == ir.KindInt && t.Bits() < 64 {
		w = &ir.Cast{X: w, T: ir.TI64} // sign-extended: a negative index stays one
	}
	if w.Type() != ir.TU64 {
		w = &ir.Cast{X: w, T: ir.TU64, Bit: true} // a negative index is 2⁶³ or more
	}
	var v *ir.Var
	if r, ok := w.(*ir.Ref); ok {
		v = r.Var
	} else {
		v = l.newTemp(ir.TU64)
		l.emit(&ir.Assign{Dst: &ir.Ref{Var: v}, Src: w})
	}
	max := uint64(math.MaxUint32)
	fits := &ir.Binary{Op: ir.Le, X: &ir.Ref{Var: v}, Y: ir.LitInt(ir.TU64, int64(max)), T: ir.TBool}
	return &ir.Call{Op: ir.OpSelect, Args: []ir.Expr{fits, &ir.Cast{X: &ir.Ref{Var: v}, T: ir.TU32}, ir.LitInt(ir.TU32, int64(max))}, T: ir.TU32}
}

// viewOf returns the view e names: a view local or parameter, or a slice
// expression of a buffer or view (lowered here, its bounds frozen).
func (l *lowerer) viewOf(e ast.Expr) (*view, bool) {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if v, ok := l.views[l.info.Uses[x]]; ok {
			return v.copy(), true
		}
	case *ast.SliceExpr:
		if _, ok := types.Unalias(l.goTypeOf(x.X)).Underlying().(*types.Slice); !ok {
			return nil, false
		}
		return l.slice(x), true
	}
	return nil, false
}

// slice lowers x[lo:hi] of a buffer or a view.
func (l *lowerer) slice(e *ast.SliceExpr) *view {
	poison := &view{buf: nil}
	if e.Slice3 {
		l.errorf(e.Pos(), "three-index slices are not supported in kernels: a view has no capacity; write x[lo:hi]")
		return poison
	}
	before := l.nerrs
	base, ok := l.viewOf(e.X)
	if !ok {
		b := l.expr(e.X)
		if l.nerrs > before {
			return poison
		}
		if b.Type().Kind() != ir.KindBuffer {
			l.errorf(e.Pos(), "slicing a %s is not supported in kernels: only buffers are sliced, into views", b.Type())
			return poison
		}
		base = &view{buf: b, lo: ir.LitInt(ir.TU32, 0), n: &ir.Call{Op: ir.OpBufferSize, Args: []ir.Expr{b}, T: ir.TU32}}
	}
	if base.buf == nil {
		return poison
	}
	bound := func(b ast.Expr) ir.Expr {
		if b == nil {
			return nil
		}
		x := l.expr(b)
		if !x.Type().IsInteger() {
			l.errorf(b.Pos(), "slice bound of type %s: bounds are integers", x.Type())
			return ir.LitInt(ir.TU32, 0)
		}
		return l.index32(x)
	}
	lo, hi := bound(e.Low), bound(e.High)
	if l.nerrs > before {
		return poison
	}
	if hi == nil {
		hi = base.n
	} else {
		hi = &ir.Call{Op: ir.OpMin, Args: []ir.Expr{hi, base.n}, T: ir.TU32}
	}
	hiT := l.newTemp(ir.TU32)
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: hiT}, Src: hi})
	if lo == nil {
		lo = ir.LitInt(ir.TU32, 0)
	} else {
		lo = &ir.Call{Op: ir.OpMin, Args: []ir.Expr{lo, &ir.Ref{Var: hiT}}, T: ir.TU32}
	}
	loT, nT := l.newTemp(ir.TU32), l.newTemp(ir.TU32)
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: loT}, Src: lo})
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: nT}, Src: &ir.Binary{Op: ir.Sub, X: &ir.Ref{Var: hiT}, Y: &ir.Ref{Var: loT}, T: ir.TU32}})
	start := &ir.Binary{Op: ir.Add, X: copyPlace(base.lo), Y: &ir.Ref{Var: loT}, T: ir.TU32}
	startT := l.newTemp(ir.TU32)
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: startT}, Src: start})
	return &view{buf: base.buf, lo: &ir.Ref{Var: startT}, n: &ir.Ref{Var: nT}}
}

// bindView binds the view local obj, declared at id, to the view rhs.
func (l *lowerer) bindView(id *ast.Ident, obj types.Object, rhs ast.Expr) bool {
	before := l.nerrs
	v, ok := l.viewOf(rhs)
	if !ok {
		return false
	}
	if l.nerrs > before || v.buf == nil {
		l.bad[obj] = true
		return true
	}
	if l.asg[obj] {
		l.errorf(id.Pos(), "view %s is reassigned or its address is taken: a view names the one range it is bound to; declare a new one for another range", id.Name)
		l.bad[obj] = true
		return true
	}
	l.views[obj] = v
	return true
}

// viewMask says which arguments of a call (receiver first) are views: the
// callee is lowered once per mask, a view parameter taking two hidden u32
// parameters (its start and length) after the callee's own.
func (l *lowerer) viewMask(e *ast.CallExpr) string {
	var b strings.Builder
	any := false
	if s, ok := e.Fun.(*ast.SelectorExpr); ok {
		if sel := l.info.Selections[s]; sel != nil && sel.Kind() == types.MethodVal {
			b.WriteByte('-')
		}
	}
	for _, a := range e.Args {
		if l.isViewExpr(a) {
			b.WriteByte('v')
			any = true
		} else {
			b.WriteByte('-')
		}
	}
	if !any {
		return ""
	}
	return b.String()
}

// isViewExpr reports whether e is a view (without lowering it).
func (l *lowerer) isViewExpr(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		_, ok := l.views[l.info.Uses[x]]
		return ok
	case *ast.SliceExpr:
		_, ok := types.Unalias(l.goTypeOf(x.X)).Underlying().(*types.Slice)
		return ok
	}
	return false
}

// viewName names a callee's instance for its views.
func viewName(name, mask string, params []string) string {
	var vs []string
	for i, c := range mask {
		if c == 'v' && i < len(params) {
			vs = append(vs, params[i])
		}
	}
	return name + "/view(" + strings.Join(vs, ",") + ")"
}
