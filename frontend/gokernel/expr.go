package gokernel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// expr lowers a Go expression to a value.
func (l *lowerer) expr(e ast.Expr) ir.Expr {
	if tv, ok := l.info.Types[e]; ok && tv.Value != nil {
		return l.constant(tv.Value, tv.Type, e.Pos())
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return l.expr(e.X)
	case *ast.Ident:
		return l.ident(e)
	case *ast.BinaryExpr:
		return l.binaryExpr(e)
	case *ast.UnaryExpr:
		return l.unary(e)
	case *ast.CallExpr:
		if r := l.call(e, false); r != nil {
			return r
		}
		return l.poison(e)
	case *ast.IndexExpr:
		return l.index(e)
	case *ast.SelectorExpr:
		return l.selector(e)
	case *ast.StarExpr:
		return l.deref(e)
	case *ast.CompositeLit:
		return l.composite(e)
	case *ast.FuncLit:
		l.errorf(e.Pos(), "function literals (closures) are not supported in kernels: write a named function and pass what it uses as parameters")
	case *ast.TypeAssertExpr:
		l.errorf(e.Pos(), "type assertions are not supported in kernels: there are no interfaces on the device; use concrete types")
	case *ast.SliceExpr:
		if l.isViewExpr(e) {
			l.errorf(e.Pos(), "a view x[lo:hi] of a buffer can only be indexed, measured (len), ranged over, sliced, named (v := x[lo:hi]) or passed to a helper")
		} else {
			l.errorf(e.Pos(), "slicing is not supported in kernels: only buffers are sliced, into views (x[lo:hi] of a buffer parameter)")
		}
	case *ast.IndexListExpr:
		l.errorf(e.Pos(), "generic instantiation is only supported in calls of the kernel package's intrinsics")
	case *ast.BasicLit:
		l.errorf(e.Pos(), "literal %s is not supported in kernels", e.Value)
	default:
		l.errorf(e.Pos(), "this expression is not supported in kernels")
	}
	return l.poison(e)
}

// poison stands in for an expression that was rejected, typed as the Go
// expression when possible so no second error follows from it. It counts a
// quiet error, so that a function holding one never compiles.
func (l *lowerer) poison(e ast.Expr) ir.Expr {
	l.nerrs++
	t := ir.TI32
	if gt := l.goTypeOf(e); gt != nil {
		if ft, err := l.c.valueType(gt); err == nil && ft.IsScalar() {
			t = ft
		} else if err == nil {
			return zero(ft)
		}
	}
	return zero(t)
}

// constant lowers a value the type checker folded.
func (l *lowerer) constant(v constant.Value, t types.Type, pos token.Pos) ir.Expr {
	ft := l.typeAt(t, pos)
	switch {
	case ft == ir.TBool:
		return ir.LitBool(constant.BoolVal(v))
	case ft.Kind() == ir.KindFloat:
		f, _ := constant.Float64Val(constant.ToFloat(v))
		return ir.LitFloat(ft, f)
	case ft.IsInteger():
		iv := constant.ToInt(v)
		if x, ok := constant.Int64Val(iv); ok {
			return ir.LitInt(ft, x)
		}
		x, _ := constant.Uint64Val(iv)
		return &ir.Literal{T: ft, Bits: x}
	}
	return zero(ft)
}

func (l *lowerer) ident(id *ast.Ident) ir.Expr {
	obj := l.info.Uses[id]
	if obj == nil {
		obj = l.info.Defs[id]
	}
	if l.bad[obj] {
		l.nerrs++
		return l.poison(id)
	}
	if _, ok := l.bviews[obj]; ok {
		l.errorf(id.Pos(), "bindless buffer %s can only be indexed (%s[i]) or measured (len(%s)) in kernels", id.Name, id.Name, id.Name)
		return l.poison(id)
	}
	if _, ok := l.btviews[obj]; ok {
		l.errorf(id.Pos(), "bindless texture %s can only be read (%s.Read), sized (%s.Size) or sampled (%s.Sample) in kernels", id.Name, id.Name, id.Name, id.Name)
		return l.poison(id)
	}
	if l.queryValue(id, obj) {
		return l.poison(id)
	}
	if p, ok := l.aliasOf(obj); ok {
		return p
	}
	if _, ok := l.views[obj]; ok {
		l.errorf(id.Pos(), "view %s can only be indexed (%s[i]), measured (len(%s)), ranged over, sliced or passed to a helper", id.Name, id.Name, id.Name)
		return l.poison(id)
	}
	switch o := obj.(type) {
	case *types.Var:
		if v, ok := l.vars[o]; ok {
			return &ir.Ref{Var: v}
		}
		if v, ok := l.shared[o]; ok {
			return &ir.Ref{Var: v}
		}
		if o.Parent() == o.Pkg().Scope() {
			x, why := l.c.table(o)
			if x != nil {
				return x
			}
			if l.c.badVars[o] {
				return l.poison(id) // reported at its first use
			}
			l.c.badVars[o] = true
			l.errorf(id.Pos(), "package variable %s lives in host memory (%s): pass it as a kernel parameter, or make it a constant or an unexported, never-assigned variable with a constant initializer", id.Name, why)
			return l.poison(id)
		}
		return &ir.Ref{Var: l.local(o, id.Pos())}
	case *types.Nil:
		l.errorf(id.Pos(), "nil is not supported in kernels: there are no pointers, slices to allocate, maps or interfaces on the device")
	case *types.Func:
		l.errorf(id.Pos(), "function values are not supported in kernels: call %s directly", id.Name)
	default:
		l.errorf(id.Pos(), "%s is not a value in kernels", id.Name)
	}
	return l.poison(id)
}

var binaryOps = map[token.Token]ir.BinaryOp{
	token.ADD: ir.Add, token.SUB: ir.Sub, token.MUL: ir.Mul, token.QUO: ir.Div,
	token.REM: ir.Rem, token.AND: ir.And, token.OR: ir.Or, token.XOR: ir.Xor,
	token.SHL: ir.Shl, token.SHR: ir.Shr, token.LAND: ir.LogicAnd, token.LOR: ir.LogicOr,
	token.EQL: ir.Eq, token.NEQ: ir.Ne, token.LSS: ir.Lt, token.LEQ: ir.Le,
	token.GTR: ir.Gt, token.GEQ: ir.Ge,
}

func (l *lowerer) binaryExpr(e *ast.BinaryExpr) ir.Expr {
	if e.Op == token.LAND || e.Op == token.LOR {
		return l.logical(e)
	}
	x, y := l.expr(e.X), l.expr(e.Y)
	switch e.Op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		return l.compare(e.Op, x, y, e.OpPos)
	}
	return l.binary(e.Op, x, y, l.typeOf(e), e.OpPos)
}

// logical lowers x && y and x || y, which evaluate y only where x does not
// decide the result. A y that may act or fault (statements of its own, a
// call of a function or of an op with effects, an index, an integer
// division) is evaluated under an if, into a temporary; any other y is
// evaluated with x, which costs no branch.
func (l *lowerer) logical(e *ast.BinaryExpr) ir.Expr {
	x := l.expr(e.X)
	return l.lazy(e.Op, x, func() ir.Expr { return l.expr(e.Y) }, l.typeOf(e), e.OpPos)
}

// lazy builds x && y (op token.LAND) or x || y (token.LOR) of type t, y
// lowered by lowerY where Go evaluates it: only where x does not decide.
func (l *lowerer) lazy(op token.Token, x ir.Expr, lowerY func() ir.Expr, t *ir.Type, pos token.Pos) ir.Expr {
	outer := l.block
	ys := &ir.Block{}
	l.block = ys
	y := lowerY()
	l.block = outer
	if len(ys.Stmts) == 0 && !mayAct(y) {
		return l.binary(op, x, y, t, pos)
	}
	tmp := l.newTemp(t)
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: l.convert(x, t)})
	var cond ir.Expr = &ir.Ref{Var: tmp}
	if op == token.LOR {
		cond = &ir.Unary{Op: ir.Not, X: cond, T: t}
	}
	ys.Stmts = append(ys.Stmts, &ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: l.convert(y, t)})
	l.emit(&ir.If{Cond: cond, Then: ys})
	return &ir.Ref{Var: tmp}
}

// mayAct reports whether evaluating e may have an effect or a fault that
// Go's && and || would skip: a call of a function or of an op other than
// the pure built-ins, an index (out of range where x guards it), or an
// integer division (by zero).
func mayAct(e ir.Expr) bool {
	found := false
	holder := &ir.Function{Body: &ir.Block{Stmts: []ir.Stmt{&ir.ExprStmt{X: e}}}}
	ir.WalkExprs(holder, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Call:
			found = found || acts(x)
		case *ir.Index:
			found = true
		case *ir.Binary:
			found = found || (x.Op == ir.Div || x.Op == ir.Rem) && x.T.Scalar().Kind() != ir.KindFloat
		}
	})
	return found
}

// hasEffect reports whether evaluating e calls a function or an op other
// than the pure built-ins, which may write memory.
func hasEffect(e ir.Expr) bool {
	found := false
	holder := &ir.Function{Body: &ir.Block{Stmts: []ir.Stmt{&ir.ExprStmt{X: e}}}}
	ir.WalkExprs(holder, func(x ir.Expr) {
		if c, ok := x.(*ir.Call); ok {
			found = found || acts(c)
		}
	})
	return found
}

// acts reports whether c calls a function or an op other than the pure
// built-ins.
func acts(c *ir.Call) bool { return c.Func != nil || c.Op < ir.OpAbs || c.Op > ir.OpBitReverse }

// binary builds x op y of result type t.
func (l *lowerer) binary(op token.Token, x, y ir.Expr, t *ir.Type, pos token.Pos) ir.Expr {
	if op == token.AND_NOT {
		ny := &ir.Unary{Op: ir.BitNot, X: y, T: y.Type()}
		return &ir.Binary{Op: ir.And, X: x, Y: ny, T: t}
	}
	bop, ok := binaryOps[op]
	if !ok {
		l.errorf(pos, "operator %s is not supported in kernels", op)
		return zero(t)
	}
	if (bop == ir.Shl || bop == ir.Shr) && y.Type().Components() != x.Type().Components() {
		y = &ir.Construct{T: ir.Vector(y.Type(), x.Type().Components()), Args: []ir.Expr{y}}
	}
	if _, err := ir.BinaryType(bop, x.Type(), y.Type()); err != nil {
		l.errorf(pos, "operator %s on %s and %s is not supported on the device", op, x.Type(), y.Type())
		return zero(t)
	}
	return &ir.Binary{Op: bop, X: x, Y: y, T: t}
}

// compare builds a comparison; == and != on vectors compare every component.
func (l *lowerer) compare(op token.Token, x, y ir.Expr, pos token.Pos) ir.Expr {
	bop := binaryOps[op]
	xt := x.Type()
	switch xt.Kind() {
	case ir.KindVector:
		if op != token.EQL && op != token.NEQ {
			break
		}
		cmp := &ir.Binary{Op: bop, X: x, Y: y, T: ir.Vector(ir.TBool, xt.Len())}
		red := ir.OpAll
		if op == token.NEQ {
			red = ir.OpAny
		}
		return &ir.Call{Op: red, Args: []ir.Expr{cmp}, T: ir.TBool}
	case ir.KindStruct, ir.KindArray, ir.KindMatrix:
		l.errorf(pos, "comparing %s values with %s is not supported in kernels: compare their fields or elements one by one", xt, op)
		return ir.LitBool(false)
	}
	if _, err := ir.BinaryType(bop, xt, y.Type()); err != nil {
		l.errorf(pos, "comparison %s on %s and %s is not supported on the device", op, xt, y.Type())
		return ir.LitBool(false)
	}
	return &ir.Binary{Op: bop, X: x, Y: y, T: ir.TBool}
}

func (l *lowerer) unary(e *ast.UnaryExpr) ir.Expr {
	switch e.Op {
	case token.ADD:
		return l.expr(e.X)
	case token.SUB, token.NOT, token.XOR:
		x := l.expr(e.X)
		op := map[token.Token]ir.UnaryOp{token.SUB: ir.Neg, token.NOT: ir.Not, token.XOR: ir.BitNot}[e.Op]
		if op == ir.Neg && x.Type().Scalar().Kind() == ir.KindUint {
			// -u on unsigned wraps, as 0-u does.
			return &ir.Binary{Op: ir.Sub, X: zero(x.Type()), Y: x, T: x.Type()}
		}
		if _, err := ir.UnaryType(op, x.Type()); err != nil {
			l.errorf(e.Pos(), "operator %s on %s is not supported on the device", e.Op, x.Type())
			return x
		}
		return &ir.Unary{Op: op, X: x, T: x.Type()}
	case token.AND:
		l.errorf(e.Pos(), "taking an address is not supported here: kernels use & only to bind a pointer local (p := &buf[i]), for the first argument of kernel.Atomic* (&buf[i]) and for pointer parameters of helper functions (&local)")
	case token.ARROW:
		l.errorf(e.Pos(), "channel receives are not supported in kernels: read the value from a buffer or kernel.Shared memory instead")
	default:
		l.errorf(e.Pos(), "operator %s is not supported in kernels", e.Op)
	}
	return l.poison(e)
}

// index lowers x[i] on a buffer, an array, a shared array or a matrix.
func (l *lowerer) index(e *ast.IndexExpr) ir.Expr {
	if tv := l.info.Types[e.X]; tv.IsType() || l.isFuncValue(e.X) {
		l.errorf(e.Pos(), "generic instantiation is only supported in calls of the kernel package's intrinsics")
		return l.poison(e)
	}
	if v, ok := l.bindlessView(e.X); ok {
		return l.bindlessRead(v, e.Index)
	}
	if !l.isBad(e.X) && l.isViewExpr(e.X) {
		before := l.nerrs
		v, _ := l.viewOf(e.X)
		i := l.expr(e.Index)
		if l.nerrs > before || v.buf == nil {
			return l.poison(e)
		}
		if !i.Type().IsInteger() {
			l.errorf(e.Index.Pos(), "index of type %s: indices are integers", i.Type())
			return l.poison(e)
		}
		return v.at(l.index32(i))
	}
	xt := l.goTypeOf(e.X)
	if l.isBad(e.X) {
		l.nerrs++ // its declaration was reported
		return l.poison(e)
	}
	if _, ok := types.Unalias(xt).Underlying().(*types.Map); ok {
		l.errorf(e.Pos(), "maps are not supported in kernels: use a buffer ([]T) indexed by a computed key")
		return l.poison(e)
	}
	before := l.nerrs
	x := l.expr(e.X)
	i := l.expr(e.Index)
	if l.nerrs > before {
		return l.poison(e)
	}
	if !i.Type().IsInteger() {
		l.errorf(e.Index.Pos(), "index of type %s: indices are integers", i.Type())
		return l.poison(e)
	}
	switch x.Type().Kind() {
	case ir.KindBuffer, ir.KindArray, ir.KindVector, ir.KindMatrix:
		return &ir.Index{X: x, I: i, T: x.Type().Elem()}
	}
	l.errorf(e.Pos(), "cannot index a %s in kernels", x.Type())
	return l.poison(e)
}

// isBad reports whether e is rooted in an object whose declaration was
// reported.
func (l *lowerer) isBad(e ast.Expr) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			obj := l.info.Uses[x]
			return obj != nil && l.bad[obj]
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return false
		}
	}
}

func (l *lowerer) isFuncValue(e ast.Expr) bool {
	_, ok := l.goTypeOf(e).(*types.Signature)
	return ok
}

var components = map[string]uint8{"X": 0, "Y": 1, "Z": 2, "W": 3}

// selector lowers x.f: a struct field, a vector component or a qualified name.
func (l *lowerer) selector(e *ast.SelectorExpr) ir.Expr {
	sel := l.info.Selections[e]
	if sel == nil {
		// A qualified identifier (constants were folded already).
		if obj, ok := l.info.Uses[e.Sel].(*types.Var); ok && obj.Pkg() != nil {
			if !l.c.badVars[obj] {
				l.c.badVars[obj] = true
				l.errorf(e.Pos(), "package variable %s.%s lives in host memory: pass it as a kernel parameter, or use a constant", obj.Pkg().Name(), obj.Name())
			}
		} else {
			l.errorf(e.Pos(), "%s is not a value in kernels", e.Sel.Name)
		}
		return l.poison(e)
	}
	if sel.Kind() != types.FieldVal {
		l.errorf(e.Pos(), "method values are not supported in kernels: call the method directly")
		return l.poison(e)
	}
	before := l.nerrs
	x := l.expr(e.X)
	if l.nerrs > before {
		return l.poison(e) // reported already
	}
	return l.fieldPath(x, sel, e)
}

// fieldPath follows a field selection (through embedded fields) from x.
func (l *lowerer) fieldPath(x ir.Expr, sel *types.Selection, e *ast.SelectorExpr) ir.Expr {
	t := sel.Recv()
	for _, idx := range sel.Index() {
		if p, ok := types.Unalias(t).Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := types.Unalias(t).Underlying().(*types.Struct)
		if !ok {
			l.errorf(e.Pos(), "field of a non-struct")
			return l.poison(e)
		}
		f := st.Field(idx)
		if x.Type().Kind() == ir.KindVector {
			c, ok := components[f.Name()]
			if !ok || int(c) >= x.Type().Len() {
				l.errorf(e.Pos(), "vector component %s", f.Name())
				return l.poison(e)
			}
			// A component place is an index, which an assignment can store to.
			x = &ir.Index{X: x, I: ir.LitInt(ir.TI32, int64(c)), T: x.Type().Elem()}
		} else if x.Type().Kind() == ir.KindStruct {
			x = &ir.Member{X: x, Field: fieldIndex(st, idx), T: x.Type().Fields()[fieldIndex(st, idx)].Type}
		} else {
			l.errorf(e.Pos(), "field %s of a %s", f.Name(), x.Type())
			return l.poison(e)
		}
		t = f.Type()
	}
	return x
}

// deref lowers *p for a pointer local, a pointer parameter or a shared
// variable.
func (l *lowerer) deref(e *ast.StarExpr) ir.Expr {
	if id, ok := ast.Unparen(e.X).(*ast.Ident); ok {
		obj := l.info.Uses[id]
		if l.bad[obj] {
			l.nerrs++
			return l.poison(e)
		}
		if v, ok := l.shared[obj]; ok {
			return &ir.Ref{Var: v}
		}
		if l.refs[obj] {
			return &ir.Ref{Var: l.vars[obj]}
		}
		if p, ok := l.aliasOf(obj); ok {
			return p
		}
		if l.queryValue(id, obj) {
			return l.poison(e)
		}
	}
	l.errorf(e.Pos(), "pointer dereference is not supported here: kernels dereference pointer locals bound to a place (p := &buf[i]), pointer parameters of helper functions and kernel.Shared variables")
	return l.poison(e)
}

// place lowers an expression that is assigned to.
func (l *lowerer) place(e ast.Expr) ir.Expr {
	before := l.nerrs
	x := l.expr(e)
	if l.nerrs == before && !ir.IsPlace(x) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			l.errorf(e.Pos(), "cannot assign to %s here", id.Name)
		} else {
			l.errorf(e.Pos(), "cannot assign to this expression in a kernel")
		}
	}
	return x
}

// composite lowers T{…} for vectors, matrices, arrays and structs.
func (l *lowerer) composite(e *ast.CompositeLit) ir.Expr {
	gt := l.goTypeOf(e)
	switch types.Unalias(gt).Underlying().(type) {
	case *types.Slice:
		l.errorf(e.Pos(), "slice literals allocate, which kernels cannot: use a fixed-size array ([N]T{…})")
		return l.poison(e)
	case *types.Map:
		l.errorf(e.Pos(), "map literals are not supported in kernels: use a buffer ([]T) indexed by a computed key")
		return l.poison(e)
	}
	before := l.nerrs
	t := l.typeOf(e)
	if l.nerrs > before {
		return l.poison(e) // the type was reported
	}
	if !l.fitsThread(t, e.Pos(), "the literal of type "+goType(gt)) {
		return l.poison(e)
	}
	switch t.Kind() {
	case ir.KindVector, ir.KindStruct:
		st := types.Unalias(gt).Underlying().(*types.Struct)
		parts := make([]ir.Expr, st.NumFields())
		for i, elt := range e.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				name := kv.Key.(*ast.Ident).Name
				for j := range st.NumFields() {
					if st.Field(j).Name() == name {
						parts[j] = l.expr(kv.Value)
					}
				}
				continue
			}
			parts[i] = l.expr(elt)
		}
		var args []ir.Expr
		for i, p := range parts {
			if sizes.Sizeof(st.Field(i).Type()) == 0 {
				continue
			}
			if p == nil {
				p = zero(l.typeAt(st.Field(i).Type(), e.Pos()))
			}
			args = append(args, p)
		}
		return &ir.Construct{T: t, Args: args}
	case ir.KindArray, ir.KindMatrix:
		if len(e.Elts) == 0 {
			return zero(t)
		}
		if l.elems += t.Len(); l.elems > maxLiteralElems {
			l.errorf(e.Pos(), "the array literals of this function build more than %d elements (each literal counts its whole length): fill the array in a loop", maxLiteralElems)
			return zero(t)
		}
		args := make([]ir.Expr, t.Len())
		next := 0
		for _, elt := range e.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				tv := l.info.Types[kv.Key]
				k, _ := constant.Int64Val(constant.ToInt(tv.Value))
				next = int(k)
				elt = kv.Value
			}
			if next >= 0 && next < len(args) {
				args[next] = l.expr(elt)
			}
			next++
		}
		var z ir.Expr // one zero for every element left out
		for i, a := range args {
			if a == nil {
				if z == nil {
					z = zero(t.Elem())
				}
				args[i] = z
			}
		}
		return &ir.Construct{T: t, Args: args}
	}
	l.errorf(e.Pos(), "composite literal of %s is not supported in kernels", t)
	return l.poison(e)
}
