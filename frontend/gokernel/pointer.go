package gokernel

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Pointer locals. The device has no pointers a thread can store, so a
// pointer local is lowered as an alias: p := &ps[i] binds p to the place
// ps[i] (the IR's Index/Member chain), its run-time indices frozen in
// temporaries at the binding as Go evaluates them there, and every use of p
// (p.Vel = …, *p, passing p to a helper taking *Particle) is that place.
// This is exact for a pointer bound once and never reassigned, which is
// what the compiler accepts; a pointer reassigned, declared without a
// value, or bound to something that is not a place is rejected at the
// declaration, and its uses stay quiet.

// isPointerLocal reports whether the defined identifier e names a new local
// of pointer type (kernel.Shared declarations excepted, handled before).
func (l *lowerer) isPointerLocal(e ast.Expr) (types.Object, bool) {
	id, ok := e.(*ast.Ident)
	if !ok || id.Name == "_" {
		return nil, false
	}
	obj := l.info.Defs[id]
	if obj == nil {
		return nil, false
	}
	_, ok = types.Unalias(l.substType(obj.Type())).(*types.Pointer)
	return obj, ok
}

// bindPointer binds the pointer local obj, declared at id, to the place
// rhs points to.
func (l *lowerer) bindPointer(id *ast.Ident, obj types.Object, rhs ast.Expr) {
	if l.asg[obj] {
		l.errorf(id.Pos(), "pointer local %s is reassigned or its address is taken: a pointer local names the one place it is bound to (p := &buf[i]); declare a new one for another place, or keep an index instead", id.Name)
		l.bad[obj] = true
		return
	}
	before := l.nerrs
	p := l.pointee(rhs)
	if l.nerrs > before {
		l.bad[obj] = true
		return
	}
	if !ir.IsPlace(p) {
		l.errorf(rhs.Pos(), "pointer local %s must point to a variable, a buffer element or a field of one (p := &buf[i], p := &v.Field): kernels have no memory to allocate a pointed-to value in", id.Name)
		l.bad[obj] = true
		return
	}
	l.aliases[obj] = l.freeze(p)
}

// pointee lowers the place a pointer expression points to: &place, a
// pointer local or parameter, or a kernel.Shared variable.
func (l *lowerer) pointee(e ast.Expr) ir.Expr {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.AND {
		if _, isLit := ast.Unparen(u.X).(*ast.CompositeLit); isLit {
			l.errorf(e.Pos(), "&T{…} allocates, which kernels cannot: declare a variable (v := T{…}) and take &v")
			return l.poison(u.X)
		}
		return l.place(u.X)
	}
	if _, ok := ast.Unparen(e).(*ast.Ident); ok {
		return l.deref(&ast.StarExpr{Star: e.Pos(), X: e})
	}
	before := l.nerrs
	x := l.expr(e) // new(T), a call: reported there
	if l.nerrs == before {
		l.errorf(e.Pos(), "a pointer local must be bound to &place or to another pointer variable")
	}
	return x
}

// freeze copies the place p, replacing each run-time index by a temporary
// that holds its value now.
func (l *lowerer) freeze(p ir.Expr) ir.Expr {
	switch x := p.(type) {
	case *ir.Index:
		i := x.I
		if _, ok := i.(*ir.Literal); !ok {
			tmp := l.newTemp(i.Type())
			l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: i})
			i = &ir.Ref{Var: tmp}
		}
		return &ir.Index{X: l.freeze(x.X), I: i, T: x.T}
	case *ir.Member:
		return &ir.Member{X: l.freeze(x.X), Field: x.Field, T: x.T}
	}
	return p
}

// aliasOf returns a fresh copy of the place the pointer local obj is bound
// to (each use gets its own nodes).
func (l *lowerer) aliasOf(obj types.Object) (ir.Expr, bool) {
	p, ok := l.aliases[obj]
	if !ok {
		return nil, false
	}
	return copyPlace(p), true
}

func copyPlace(p ir.Expr) ir.Expr {
	switch x := p.(type) {
	case *ir.Index:
		i := x.I
		switch y := i.(type) {
		case *ir.Ref:
			i = &ir.Ref{Var: y.Var}
		case *ir.Literal:
			c := *y
			i = &c
		}
		return &ir.Index{X: copyPlace(x.X), I: i, T: x.T}
	case *ir.Member:
		return &ir.Member{X: copyPlace(x.X), Field: x.Field, T: x.T}
	case *ir.Ref:
		return &ir.Ref{Var: x.Var}
	}
	return p
}
