package gokernel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// call lowers a call, conversion or intrinsic. stmt says the call stands as
// a statement; a nil result means nothing (more) is to be emitted.
func (l *lowerer) call(e *ast.CallExpr, stmt bool) ir.Expr {
	if tv := l.info.Types[e.Fun]; tv.IsType() {
		return l.conversion(e)
	}
	switch obj := typeutil.Callee(l.info, e).(type) {
	case *types.Builtin:
		return l.builtinCall(e, obj)
	case *types.Func:
		pkg := obj.Pkg()
		switch {
		case pkg == nil:
			l.errorf(e.Pos(), "%s is not supported in kernels", obj.Name())
		case pkg.Path() == kernelPath:
			return l.intrinsic(e, obj, stmt)
		case pkg.Path() == "math":
			return l.mathCall(e, obj, false)
		case pkg.Path() == "math/bits":
			return l.bitsCall(e, obj)
		case l.c.resolve(obj) != nil:
			return l.userCall(e, obj, stmt)
		case isStd(pkg.Path()):
			l.errorf(e.Pos(), "calls into package %s are not supported in kernels: of the standard library kernels may call only math and math/bits (and the kernel package); write the code in Go in a package of your own", pkg.Path())
		default:
			l.errorf(e.Pos(), "%s has no Go body the compiler can read (package %s did not load): kernels may call Go functions of non-standard packages, math, math/bits and kernel", obj.Name(), pkg.Path())
		}
	default:
		l.errorf(e.Pos(), "calls of function values are not supported in kernels: call a named function directly")
	}
	return nil
}

// isIntrinsic reports whether e calls kernel.<name>.
func (l *lowerer) isIntrinsic(e *ast.CallExpr, name string) bool {
	f, ok := typeutil.Callee(l.info, e).(*types.Func)
	return ok && f.Pkg() != nil && f.Pkg().Path() == kernelPath && f.Name() == name
}

// conversion lowers T(x).
func (l *lowerer) conversion(e *ast.CallExpr) ir.Expr {
	if len(e.Args) != 1 {
		l.errorf(e.Pos(), "conversion takes one value")
		return l.poison(e)
	}
	t := l.typeOf(e)
	if t == ir.TF32 {
		if inner, ok := ast.Unparen(e.Args[0]).(*ast.CallExpr); ok {
			if f, ok := typeutil.Callee(l.info, inner).(*types.Func); ok && f.Pkg() != nil && f.Pkg().Path() == "math" {
				if r := l.mathCall(inner, f, true); r != nil && r.Type() == ir.TF32 {
					return r
				} else if r != nil {
					return l.castTo(r, t, e.Pos())
				}
				return l.poison(e)
			}
		}
	}
	return l.castTo(l.expr(e.Args[0]), t, e.Pos())
}

// castTo converts x to t.
func (l *lowerer) castTo(x ir.Expr, t *ir.Type, pos token.Pos) ir.Expr {
	if x.Type() == t {
		return x
	}
	if err := ir.CastOK(x.Type(), t, false); err != nil {
		l.errorf(pos, "conversion of %s to %s is not supported on the device", x.Type(), t)
		return zero(t)
	}
	return &ir.Cast{X: x, T: t}
}

func (l *lowerer) builtinCall(e *ast.CallExpr, b *types.Builtin) ir.Expr {
	switch b.Name() {
	case "len":
		if v, ok := l.bindlessView(e.Args[0]); ok {
			return &ir.Cast{X: bindlessLen(v), T: l.typeOf(e)}
		}
		if !l.isBad(e.Args[0]) && l.isViewExpr(e.Args[0]) {
			before := l.nerrs
			v, _ := l.viewOf(e.Args[0])
			if l.nerrs > before || v.buf == nil {
				return l.poison(e)
			}
			return l.convert(v.n, l.typeOf(e))
		}
		before := l.nerrs
		x := l.expr(e.Args[0])
		if l.nerrs > before {
			return l.poison(e)
		}
		if x.Type().Kind() != ir.KindBuffer {
			l.errorf(e.Pos(), "len of a %s is not supported in kernels", x.Type())
			return l.poison(e)
		}
		n := &ir.Call{Op: ir.OpBufferSize, Args: []ir.Expr{x}, T: ir.TU32}
		return &ir.Cast{X: n, T: l.typeOf(e)}
	case "min", "max":
		op := ir.OpMin
		if b.Name() == "max" {
			op = ir.OpMax
		}
		t := l.typeOf(e)
		var r ir.Expr
		for _, a := range e.Args {
			x := l.castTo(l.expr(a), t, a.Pos())
			if r == nil {
				r = x
			} else {
				r = &ir.Call{Op: op, Args: []ir.Expr{r, x}, T: t}
			}
		}
		return r
	case "make", "new", "append":
		l.errorf(e.Pos(), "%s allocates memory, which kernels cannot: use a fixed-size local array, kernel.Shared memory, or a buffer parameter", b.Name())
	case "panic":
		l.errorf(e.Pos(), "panic is not supported in kernels: the device cannot stop a dispatch; write an error code to a buffer and return")
	case "print", "println":
		l.errorf(e.Pos(), "%s is not supported in kernels: use kernel.Printf(format, values…), which prints on the device and on the CPU runner", b.Name())
	case "close":
		l.errorf(e.Pos(), "channels are not supported in kernels: threads of a block communicate through kernel.Shared memory with kernel.Barrier, or through atomics")
	case "cap":
		l.errorf(e.Pos(), "cap is not supported in kernels: use len, the buffer's size")
	case "copy":
		l.errorf(e.Pos(), "copy is not supported in kernels: copy elements in a loop, or let each thread copy its own element")
	case "delete", "clear":
		l.errorf(e.Pos(), "%s is not supported in kernels: there are no maps; clear elements in a loop", b.Name())
	case "complex", "real", "imag":
		l.errorf(e.Pos(), "complex numbers are not supported in kernels: use a kernel.Float2 holding (re, im)")
	case "recover":
		l.errorf(e.Pos(), "recover is not supported in kernels: nothing panics on the device")
	default:
		l.errorf(e.Pos(), "built-in %s is not supported in kernels", b.Name())
	}
	return nil
}

// userArgs lowers the arguments of a call of cl (receiver first). It returns
// the argument list and the copy-back assignments for pointer arguments that
// are not local variables (buffer elements, shared memory), which pass
// through a temporary.
func (l *lowerer) userArgs(e *ast.CallExpr, sel *types.Selection, cl *callable) ([]ir.Expr, []ir.Stmt) {
	var args []ir.Expr
	var back []ir.Stmt
	var exprs []ast.Expr
	recvPtr := false
	if sel != nil && len(sel.Index()) > 1 {
		l.errorf(e.Pos(), "methods promoted through embedded fields are not supported in kernels: name the field, x.Field.%s(…)", sel.Obj().Name())
		return nil, nil
	}
	if sel != nil {
		exprs = append(exprs, e.Fun.(*ast.SelectorExpr).X)
		sig := sel.Obj().Type().(*types.Signature)
		_, recvPtr = sig.Recv().Type().(*types.Pointer)
	}
	exprs = append(exprs, e.Args...)
	var hidden []ir.Expr // the start and length of each view argument
	for i, a := range exprs {
		ref := i < len(cl.refs) && cl.refs[i]
		if v, ok := l.viewOf(a); ok && !ref {
			if v.buf == nil {
				args = append(args, l.poison(a))
				continue
			}
			args = append(args, v.buf)
			hidden = append(hidden, v.lo, v.n)
			continue
		}
		if !ref {
			x := a
			if i == 0 && sel != nil && !recvPtr {
				if _, isPtr := l.goTypeOf(a).(*types.Pointer); isPtr {
					args = append(args, l.deref(&ast.StarExpr{Star: a.Pos(), X: a}))
					continue
				}
			}
			if _, isView := l.bindlessView(x); isView && i < len(cl.fn.Params) && cl.fn.Params[i].Type.Kind() == ir.KindBuffer {
				l.errorf(a.Pos(), "a bindless buffer is a slot of a bindless array, not a buffer: pass the array and the slot to %s, and index kernel.BindlessBuffer[T](arr, slot) there", cl.fn.Name)
				args = append(args, l.poison(a))
				continue
			}
			args = append(args, l.expr(x))
			continue
		}
		var p ir.Expr
		switch {
		case i == 0 && sel != nil:
			if _, isPtr := l.goTypeOf(a).(*types.Pointer); isPtr {
				p = l.deref(&ast.StarExpr{Star: a.Pos(), X: a})
			} else {
				p = l.place(a)
			}
		default:
			if u, ok := ast.Unparen(a).(*ast.UnaryExpr); ok && u.Op == token.AND {
				p = l.place(u.X)
			} else if _, isPtr := l.goTypeOf(a).(*types.Pointer); isPtr {
				p = l.deref(&ast.StarExpr{Star: a.Pos(), X: a})
			} else {
				l.errorf(a.Pos(), "pass a pointer argument as &variable")
				p = l.poison(a)
			}
		}
		if !passesByRef(p) {
			if ir.IsPlace(p) {
				// The place as Go takes its address, here: its indices are
				// evaluated once, before the call.
				p = l.freeze(p)
			}
			tmp := l.newTemp(p.Type())
			l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: p})
			if ir.IsPlace(p) {
				back = append(back, &ir.Assign{Dst: copyPlace(p), Src: &ir.Ref{Var: tmp}})
			}
			p = &ir.Ref{Var: tmp}
		}
		args = append(args, p)
	}
	return append(args, hidden...), back
}

// passesByRef reports whether a place may be handed to a by-reference
// parameter directly: a whole local variable or by-reference parameter.
// Any other place (a field or element of one, a buffer or shared element)
// is passed in a temporary stored back after the call, the same on every
// backend (SPIR-V passes only whole variables to a function).
func passesByRef(p ir.Expr) bool {
	x, ok := p.(*ir.Ref)
	return ok && (x.Var.Kind == ir.VarLocal || x.Var.Kind == ir.VarRefParam)
}

// userCall lowers a call of a function or method of the package.
func (l *lowerer) userCall(e *ast.CallExpr, obj *types.Func, stmt bool) ir.Expr {
	cl := l.c.callableFor(obj, e.Pos(), l.typeArgs(e), l.viewMask(e))
	if cl == nil {
		l.nerrs++
		return nil
	}
	if cl.outs {
		if !stmt {
			l.errorf(e.Pos(), "%s returns several values: assign them to variables (a, b := %s(…))", obj.Name(), obj.Name())
			return nil
		}
		l.multiCall(e, cl.results)
		return nil
	}
	var sel *types.Selection
	if s, ok := e.Fun.(*ast.SelectorExpr); ok {
		sel = l.info.Selections[s]
	}
	args, back := l.userArgs(e, sel, cl)
	if len(args) != len(cl.fn.Params) {
		return nil
	}
	c := &ir.Call{Func: cl.fn, Args: args, T: cl.fn.Result}
	if len(back) == 0 {
		return c
	}
	if c.T == ir.TVoid {
		l.emit(&ir.ExprStmt{X: c})
		for _, s := range back {
			l.emit(s)
		}
		return nil
	}
	tmp := l.newTemp(c.T)
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: c})
	for _, s := range back {
		l.emit(s)
	}
	return &ir.Ref{Var: tmp}
}

// multiCall lowers a call of a function with n results, returning the
// temporaries that hold them.
func (l *lowerer) multiCall(e *ast.CallExpr, n int) []*ir.Var {
	obj, ok := typeutil.Callee(l.info, e).(*types.Func)
	if ok && obj.Pkg() != nil && obj.Pkg().Path() == "math/bits" {
		return l.bitsMulti(e, obj)
	}
	if !ok || l.c.resolve(obj) == nil {
		l.errorf(e.Pos(), "only Go functions of non-standard packages may return several values to a kernel")
		return nil
	}
	cl := l.c.callableFor(obj, e.Pos(), l.typeArgs(e), l.viewMask(e))
	if cl == nil {
		l.nerrs++
		return nil
	}
	if !cl.outs || cl.results != n {
		l.errorf(e.Pos(), "%s returns %d values, not %d", obj.Name(), cl.results, n)
		return nil
	}
	var sel *types.Selection
	if s, ok := e.Fun.(*ast.SelectorExpr); ok {
		sel = l.info.Selections[s]
	}
	args, back := l.userArgs(e, sel, cl)
	if len(args)+n != len(cl.fn.Params) {
		return nil
	}
	outs := make([]*ir.Var, n)
	for i := range outs {
		outs[i] = l.newTemp(cl.fn.Params[len(cl.fn.Params)-n+i].Type)
		args = append(args, &ir.Ref{Var: outs[i]})
	}
	l.emit(&ir.ExprStmt{X: &ir.Call{Func: cl.fn, Args: args, T: ir.TVoid}})
	for _, s := range back {
		l.emit(s)
	}
	return outs
}
