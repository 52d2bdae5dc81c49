package gokernel

import (
	"go/ast"
	"go/types"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Ray queries.
//
//	acc.TraceClosest(r)   OpRayClosest → kernel.Hit (ir.RayHit)
//	acc.TraceAny(r)       OpRayAny → bool
//
// acc is a kernel parameter of type kernel.Accel; r a kernel.Ray value,
// whose fields become the ops' operands (origin, tmin, dir, tmax, mask). A
// ray that is not a variable is evaluated once, into a temporary.

// rayQuery lowers a method of kernel.Accel.
func (l *lowerer) rayQuery(e *ast.CallExpr, f *types.Func) ir.Expr {
	op := ir.OpRayClosest
	switch f.Name() {
	case "TraceClosest":
	case "TraceAny":
		op = ir.OpRayAny
	default:
		l.errorf(e.Pos(), "Accel.%s is host code, not a kernel intrinsic: call it outside the kernel", f.Name())
		return nil
	}
	sel := e.Fun.(*ast.SelectorExpr)
	before := l.nerrs
	acc := l.expr(sel.X)
	if l.nerrs > before {
		return nil
	}
	// A helper's accel parameter is specialised per call site (ir.Specialize)
	// into the kernel's own argument.
	if r, ok := acc.(*ir.Ref); !ok || r.Var.Kind != ir.VarArg && r.Var.Kind != ir.VarParam {
		l.errorf(sel.X.Pos(), "an accel must be a kernel or helper parameter (kernel.Accel) to be traced")
		return nil
	}
	ray := l.expr(e.Args[0])
	if l.nerrs > before {
		return nil
	}
	rt := ray.Type()
	if rt.Kind() != ir.KindStruct || len(rt.Fields()) != 5 {
		l.errorf(e.Args[0].Pos(), "Accel.%s takes a kernel.Ray, not %s", f.Name(), rt)
		return nil
	}
	if !ir.IsPlace(ray) {
		tmp := l.newTemp(rt)
		l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: ray})
		ray = &ir.Ref{Var: tmp}
	}
	args := []ir.Expr{acc}
	for i, fd := range rt.Fields() {
		args = append(args, &ir.Member{X: ray, Field: i, T: fd.Type})
	}
	t, err := ir.CallType(op, args)
	if err != nil {
		l.errorf(e.Pos(), "Accel.%s is not supported on the device: %v", f.Name(), err)
		return nil
	}
	return &ir.Call{Op: op, Args: args, T: t}
}
