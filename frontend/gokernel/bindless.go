package gokernel

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Bindless buffers.
//
// kernel.BindlessBuffer[T](arr, slot) is a []T on the CPU. The device reads
// and writes a slot's elements by (array, slot, index) with no slice value
// in between, so the compiler accepts the forms that map onto that:
//
//	kernel.BindlessBuffer[T](arr, s)[i]          read, or the target of = and op=
//	len(kernel.BindlessBuffer[T](arr, s))        element count
//	buf := kernel.BindlessBuffer[T](arr, s)      a view: buf[i], len(buf)
//
// A view's slot is evaluated once, where the view is declared.

// bindlessView is a slot of a bindless array seen as a buffer of elem.
type bindlessView struct {
	arr, slot ir.Expr
	elem      *ir.Type
}

// toU32 converts an integer index to u32 (index32), reporting one that is
// not an integer.
func (l *lowerer) toU32(e ir.Expr, pos token.Pos) ir.Expr {
	if !e.Type().IsInteger() {
		l.errorf(pos, "index of type %s: indices are integers", e.Type())
		return ir.LitInt(ir.TU32, 0)
	}
	return l.index32(e)
}

// bindlessView recognises a bindless buffer: a BindlessBuffer call or a
// variable declared from one.
func (l *lowerer) bindlessView(x ast.Expr) (*bindlessView, bool) {
	x = ast.Unparen(x)
	if id, ok := x.(*ast.Ident); ok {
		v, ok := l.bviews[l.info.Uses[id]]
		return v, ok
	}
	call, ok := x.(*ast.CallExpr)
	if !ok || !l.isIntrinsic(call, "BindlessBuffer") || len(call.Args) != 2 {
		return nil, false
	}
	sl, ok := l.goTypeOf(call).(*types.Slice)
	if !ok {
		return nil, false
	}
	elem := l.typeAt(sl.Elem(), call.Pos())
	if elem == ir.TBool || elem.IsResource() {
		l.errorf(call.Pos(), "bindless buffers of %s have no device layout: %s", elem, noLayoutHint(elem))
	}
	return &bindlessView{
		arr:  l.expr(call.Args[0]),
		slot: l.toU32(l.expr(call.Args[1]), call.Args[1].Pos()),
		elem: elem,
	}, true
}

// bindlessDecl lowers buf := kernel.BindlessBuffer[T](arr, slot).
func (l *lowerer) bindlessDecl(lhs ast.Expr, call *ast.CallExpr, define bool) {
	id, ok := lhs.(*ast.Ident)
	obj := l.info.Defs[id]
	if !ok || !define || obj == nil {
		l.errorf(call.Pos(), "a bindless buffer must be indexed directly or named by a new variable: buf := kernel.BindlessBuffer[T](arr, slot)")
		return
	}
	v, _ := l.bindlessView(call)
	if v == nil {
		return
	}
	if _, ok := v.slot.(*ir.Literal); !ok {
		tmp := l.newTemp(ir.TU32)
		l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: v.slot})
		v.slot = &ir.Ref{Var: tmp}
	}
	l.bviews[obj] = v
}

// bindlessRead is view[i].
func (l *lowerer) bindlessRead(v *bindlessView, i ast.Expr) ir.Expr {
	idx := l.toU32(l.expr(i), i.Pos())
	return &ir.Call{Op: ir.OpBindlessRead, Args: []ir.Expr{v.arr, v.slot, idx}, T: v.elem}
}

// bindlessStore lowers a store to view[i] (op is token.ILLEGAL for a plain
// assignment, else the operator of op= or ++/--); it reports false when lhs
// is not a bindless element.
func (l *lowerer) bindlessStore(lhs ast.Expr, op token.Token, rhs func() ir.Expr) bool {
	ix, ok := ast.Unparen(lhs).(*ast.IndexExpr)
	if !ok {
		return false
	}
	v, ok := l.bindlessView(ix.X)
	if !ok {
		return false
	}
	idx := l.toU32(l.expr(ix.Index), ix.Index.Pos())
	if _, ok := idx.(*ir.Literal); !ok && op != token.ILLEGAL {
		tmp := l.newTemp(ir.TU32)
		l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: idx})
		idx = &ir.Ref{Var: tmp}
	}
	val := rhs()
	if op != token.ILLEGAL {
		old := &ir.Call{Op: ir.OpBindlessRead, Args: []ir.Expr{v.arr, v.slot, idx}, T: v.elem}
		val = l.binary(op, old, val, v.elem, lhs.Pos())
	}
	l.emit(&ir.ExprStmt{X: &ir.Call{Op: ir.OpBindlessWrite, Args: []ir.Expr{v.arr, v.slot, idx, val}, T: ir.TVoid}})
	return true
}

// bindlessLen is len(view).
func bindlessLen(v *bindlessView) ir.Expr {
	return &ir.Call{Op: ir.OpBindlessSize, Args: []ir.Expr{v.arr, v.slot, ir.LitInt(ir.TU32, int64(v.elem.Size()))}, T: ir.TU32}
}
