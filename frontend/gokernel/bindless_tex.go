package gokernel

import (
	"go/ast"
	"go/types"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Bindless textures.
//
// arr.Texture2D(slot) is a kernel.BindlessTexture2D on the CPU. The device
// reads, sizes and samples a slot's texture by (array, slot) with no texture
// value in between, so the compiler accepts the forms that map onto that:
//
//	arr.Texture2D(s).Read(x, y)      OpBindlessTexRead
//	arr.Texture2D(s).Size()          OpBindlessTexSize
//	arr.Texture2D(s).Sample(uv)      OpBindlessTexSample (the slot's sampler)
//	tex := arr.Texture2D(s)          a view: tex.Read, tex.Size, tex.Sample
//
// A view's slot is evaluated once, where the view is declared.

// bindlessTexView is the texture in a slot of a bindless array.
type bindlessTexView struct {
	arr, slot ir.Expr
}

// isBindlessTexCall reports whether e calls the Texture2D method of
// kernel.Bindless.
func (l *lowerer) isBindlessTexCall(e ast.Expr) (*ast.CallExpr, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || !l.isIntrinsic(call, "Texture2D") || len(call.Args) != 1 {
		return nil, false
	}
	_, ok = call.Fun.(*ast.SelectorExpr)
	return call, ok
}

// bindlessTexView recognises a bindless texture: an arr.Texture2D(slot) call
// or a variable declared from one.
func (l *lowerer) bindlessTexView(x ast.Expr) (*bindlessTexView, bool) {
	x = ast.Unparen(x)
	if id, ok := x.(*ast.Ident); ok {
		v, ok := l.btviews[l.info.Uses[id]]
		return v, ok
	}
	call, ok := l.isBindlessTexCall(x)
	if !ok {
		return nil, false
	}
	return &bindlessTexView{
		arr:  l.expr(call.Fun.(*ast.SelectorExpr).X),
		slot: l.toU32(l.expr(call.Args[0]), call.Args[0].Pos()),
	}, true
}

// bindlessTexDecl lowers tex := arr.Texture2D(slot).
func (l *lowerer) bindlessTexDecl(lhs ast.Expr, call *ast.CallExpr, define bool) {
	id, ok := lhs.(*ast.Ident)
	obj := l.info.Defs[id]
	if !ok || !define || obj == nil {
		l.errorf(call.Pos(), "a bindless texture must be used directly or named by a new variable: tex := arr.Texture2D(slot)")
		return
	}
	v, _ := l.bindlessTexView(call)
	if v == nil {
		return
	}
	if _, ok := v.slot.(*ir.Literal); !ok {
		tmp := l.newTemp(ir.TU32)
		l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: v.slot})
		v.slot = &ir.Ref{Var: tmp}
	}
	l.btviews[obj] = v
}

// bindlessTexMethod lowers Read, Size or Sample of a bindless texture.
func (l *lowerer) bindlessTexMethod(e *ast.CallExpr, f *types.Func) ir.Expr {
	sel := e.Fun.(*ast.SelectorExpr)
	v, ok := l.bindlessTexView(sel.X)
	if id, isID := ast.Unparen(sel.X).(*ast.Ident); !ok && isID && l.bad[l.info.Uses[id]] {
		l.nerrs++ // reported where it was declared
		return nil
	}
	if !ok {
		l.errorf(sel.X.Pos(), "a bindless texture must come from arr.Texture2D(slot) or a variable declared from it (tex := arr.Texture2D(slot))")
		return nil
	}
	args := make([]ir.Expr, len(e.Args))
	for i, a := range e.Args {
		args[i] = l.expr(a)
	}
	var c *ir.Call
	switch f.Name() {
	case "Read":
		xy := &ir.Construct{T: ir.Vector(ir.TU32, 2), Args: args}
		c = &ir.Call{Op: ir.OpBindlessTexRead, Args: []ir.Expr{v.arr, v.slot, xy}}
	case "Size":
		c = &ir.Call{Op: ir.OpBindlessTexSize, Args: []ir.Expr{v.arr, v.slot}}
	case "Sample":
		c = &ir.Call{Op: ir.OpBindlessTexSample, Args: []ir.Expr{v.arr, v.slot, args[0]}}
	default:
		l.errorf(e.Pos(), "BindlessTexture2D.%s is host code, not a kernel intrinsic: call it outside the kernel", f.Name())
		return nil
	}
	t, err := ir.CallType(c.Op, c.Args)
	if err != nil {
		l.errorf(e.Pos(), "BindlessTexture2D.%s is not supported on the device: %v", f.Name(), err)
		return nil
	}
	c.T = t
	return c
}
