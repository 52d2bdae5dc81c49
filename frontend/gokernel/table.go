package gokernel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Package-level tables.
//
// An unexported package variable that no function of its package assigns
// to, or takes the address of, and whose initializer is a constant (or an
// array literal of constants) never changes: kernels may read it, and it is
// compiled as a constant (a literal, or a constant array). Exported variables
// may be changed by other packages, so they stay host memory and are rejected.

// packageVar is a package-level variable's initializer.
type packageVar struct {
	init ast.Expr
	info *types.Info
}

// addPackageVars records the package-level variables of a package and the
// objects its functions assign to.
func (c *compiler) addPackageVars(files []*ast.File, info *types.Info) {
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, spec := range d.Specs {
					vs := spec.(*ast.ValueSpec)
					if len(vs.Values) != len(vs.Names) {
						continue
					}
					for i, n := range vs.Names {
						if obj, ok := info.Defs[n].(*types.Var); ok {
							c.pkgVars[obj] = packageVar{vs.Values[i], info}
						}
					}
				}
			case *ast.FuncDecl:
				if d.Body != nil {
					for obj := range assigned(info, d.Body) {
						c.written[obj] = true
					}
				}
			}
		}
	}
}

// table returns the constant value of a read-only package variable, or nil
// with the reason it is not one.
func (c *compiler) table(obj *types.Var) (ir.Expr, string) {
	if obj.Exported() {
		return nil, "it is exported, so other packages may change it"
	}
	pv, ok := c.pkgVars[obj]
	if !ok {
		return nil, "it has no initializer"
	}
	if c.written[obj] {
		return nil, "its package assigns to it"
	}
	ft, terr := c.valueType(obj.Type())
	if terr != nil {
		return nil, terr.msg
	}
	lit := func(e ast.Expr, t *ir.Type) *ir.Literal {
		tv := pv.info.Types[e]
		if tv.Value == nil || !t.IsScalar() {
			return nil
		}
		l := (&lowerer{c: c, info: pv.info}).constant(tv.Value, tv.Type, e.Pos())
		if x, ok := l.(*ir.Literal); ok && x.T == t {
			return x
		}
		return nil
	}
	if ft.IsScalar() {
		if x := lit(pv.init, ft); x != nil {
			return x, ""
		}
		return nil, "its initializer is not a constant"
	}
	cl, ok := ast.Unparen(pv.init).(*ast.CompositeLit)
	if ft.Kind() != ir.KindArray || !ft.Elem().IsScalar() || !ok {
		return nil, "only numbers and arrays of numbers with constant initializers are read by kernels"
	}
	if why := valueBound(ft); why != "" {
		return nil, "as a lookup table it " + why + "; pass it in a buffer"
	}
	vals := make([]*ir.Literal, ft.Len())
	next := 0
	for _, elt := range cl.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if tv := pv.info.Types[kv.Key]; tv.Value != nil {
				if k, ok := constantIndex(tv); ok {
					next = k
				}
			}
			elt = kv.Value
		}
		x := lit(elt, ft.Elem())
		if x == nil || next < 0 || next >= len(vals) {
			return nil, "its initializer is not an array literal of constants"
		}
		vals[next] = x
		next++
	}
	for i, v := range vals {
		if v == nil {
			vals[i] = zero(ft.Elem()).(*ir.Literal)
		}
	}
	return &ir.ConstArray{T: ft, Values: vals}, ""
}

func constantIndex(tv types.TypeAndValue) (int, bool) {
	k, ok := constant.Int64Val(constant.ToInt(tv.Value))
	return int(k), ok
}
