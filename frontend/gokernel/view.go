package gokernel

import (
	"go/ast"
	"go/types"
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
// index is not.

// view is a sub-range of a buffer.
type view struct {
	buf ir.Expr // the buffer (a Ref)
	lo  ir.Expr // first element, u32
	n   ir.Expr // length, u32
}

func (v *view) copy() *view {
	return &view{buf: copyPlace(v.buf), lo: copyPlace(v.lo), n: copyPlace(v.n)}
}

// at is the buffer element i of the view.
func (v *view) at(i ir.Expr) ir.Expr {
	c := v.copy()
	idx := &ir.Binary{Op: ir.Add, X: c.lo, Y: toU32(i), T: ir.TU32}
	return &ir.Index{X: c.buf, I: idx, T: c.buf.Type().Elem()}
}

func toU32(x ir.Expr) ir.Expr {
	if x.Type() == ir.TU32 {
		return x
	}
	return &ir.Cast{X: x, T: ir.TU32}
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
		return toU32(x)
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
