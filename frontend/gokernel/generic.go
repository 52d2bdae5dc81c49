package gokernel

import (
	"go/ast"
	"go/types"
	"strings"
)

// Generic helpers.
//
// A generic Go function called from a kernel is lowered once per
// instantiation, like a C++ template: lerp[float32] and lerp[float64] are two
// device functions. The body is walked with go/types' view of the generic
// declaration, where values have type parameter types (T, *T, [4]T); the
// lowerer substitutes the call's type arguments whenever it maps a Go type
// to a device type. Generic types (type Pair[T any] struct{…}) are not
// instantiated.

// instanceKey names one instantiation of a function: the function and its
// type arguments.
type instanceKey struct {
	fn    *types.Func
	targs string
}

func keyOf(fn *types.Func, targs []types.Type) instanceKey {
	var b strings.Builder
	for i, t := range targs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(types.TypeString(t, nil))
	}
	return instanceKey{fn, b.String()}
}

// typeArgs returns the type arguments of the function a call names, with the
// caller's own type parameters substituted; nil for a non-generic callee.
func (l *lowerer) typeArgs(e *ast.CallExpr) []types.Type {
	fun := ast.Unparen(e.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	var id *ast.Ident
	switch x := ast.Unparen(fun).(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	}
	if id == nil {
		return nil
	}
	inst, ok := l.info.Instances[id]
	if !ok || inst.TypeArgs == nil {
		return nil
	}
	out := make([]types.Type, inst.TypeArgs.Len())
	for i := range out {
		out[i] = l.substType(inst.TypeArgs.At(i))
	}
	return out
}

// goTypeOf is the Go type of e in the instantiation being lowered.
func (l *lowerer) goTypeOf(e ast.Expr) types.Type { return l.substType(l.info.TypeOf(e)) }

// substType replaces the type parameters in t by the type arguments of the
// instantiation being lowered.
func (l *lowerer) substType(t types.Type) types.Type {
	if len(l.subst) == 0 || t == nil {
		return t
	}
	switch x := t.(type) {
	case *types.TypeParam:
		if r, ok := l.subst[x]; ok {
			return r
		}
	case *types.Pointer:
		if e := l.substType(x.Elem()); e != x.Elem() {
			return types.NewPointer(e)
		}
	case *types.Slice:
		if e := l.substType(x.Elem()); e != x.Elem() {
			return types.NewSlice(e)
		}
	case *types.Array:
		if e := l.substType(x.Elem()); e != x.Elem() {
			return types.NewArray(e, x.Len())
		}
	}
	return t
}
