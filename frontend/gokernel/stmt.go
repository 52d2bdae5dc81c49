package gokernel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// body lowers a function body.
func (l *lowerer) body(b *ast.BlockStmt) {
	l.stmts(b.List)
}

// sub lowers statements into a fresh block.
func (l *lowerer) sub(stmts []ast.Stmt) *ir.Block {
	outer := l.block
	b := &ir.Block{}
	l.block = b
	l.stmts(stmts)
	l.block = outer
	return b
}

func (l *lowerer) stmt(s ast.Stmt) {
	defer func(outer token.Pos) { l.pos = outer }(l.pos)
	l.pos = s.Pos()
	switch s := s.(type) {
	case *ast.EmptyStmt:
	case *ast.BlockStmt:
		l.emit(l.sub(s.List))
	case *ast.ExprStmt:
		call, ok := ast.Unparen(s.X).(*ast.CallExpr)
		if !ok {
			l.errorf(s.Pos(), "expression statement is not a call")
			return
		}
		if e := l.call(call, true); e != nil {
			l.emit(&ir.ExprStmt{X: e})
		}
	case *ast.AssignStmt:
		l.assign(s)
	case *ast.IncDecStmt:
		op := token.ADD
		if s.Tok == token.DEC {
			op = token.SUB
		}
		t := l.typeOf(s.X)
		if l.bindlessStore(s.X, op, func() ir.Expr { return one(t) }) {
			return
		}
		dst := l.updated(l.place(s.X))
		l.emit(&ir.Assign{Dst: dst, Src: l.binary(op, copyPlace(dst), one(t), t, s.Pos())})
	case *ast.DeclStmt:
		l.decl(s)
	case *ast.IfStmt:
		if s.Init != nil {
			l.stmt(s.Init)
		}
		cond := l.expr(s.Cond)
		then := l.sub(s.Body.List)
		var els *ir.Block
		if s.Else != nil {
			els = l.sub([]ast.Stmt{s.Else})
		}
		l.emit(&ir.If{Cond: cond, Then: then, Else: els})
	case *ast.ForStmt:
		l.forStmt(s)
	case *ast.RangeStmt:
		l.rangeStmt(s)
	case *ast.SwitchStmt:
		l.switchStmt(s)
	case *ast.BranchStmt:
		l.branch(s)
	case *ast.ReturnStmt:
		l.returnStmt(s)
	case *ast.GoStmt:
		l.errorf(s.Pos(), "go statements are not supported in kernels: every thread of the dispatch already runs in parallel; split the work over threads with kernel.DispatchID")
	case *ast.DeferStmt:
		l.errorf(s.Pos(), "defer is not supported in kernels: call the function at each return instead")
	case *ast.SelectStmt:
		l.errorf(s.Pos(), "select is not supported in kernels: there are no channels; threads communicate through kernel.Shared memory and kernel.Barrier")
	case *ast.SendStmt:
		l.errorf(s.Pos(), "channel sends are not supported in kernels: write the value to a buffer or kernel.Shared memory instead")
	case *ast.LabeledStmt:
		// A loop's or switch's label names it for break and continue;
		// a goto forward to a label is lowered by stmts (jump.go).
		if lbl, ok := l.info.Defs[s.Label].(*types.Label); ok {
			l.labels[s.Stmt] = lbl
		}
		l.stmt(s.Stmt)
	case *ast.TypeSwitchStmt:
		l.errorf(s.Pos(), "type switches are not supported in kernels: there are no interfaces; switch on an integer tag instead")
	default:
		l.errorf(s.Pos(), "this statement is not supported in kernels")
	}
}

// one is the literal 1 of a numeric type.
func one(t *ir.Type) ir.Expr {
	if t.Kind() == ir.KindFloat {
		return ir.LitFloat(t, 1)
	}
	if t.IsInteger() {
		return ir.LitInt(t, 1)
	}
	return ir.LitInt(ir.TI32, 1)
}

func (l *lowerer) decl(s *ast.DeclStmt) {
	gd, ok := s.Decl.(*ast.GenDecl)
	if !ok {
		return
	}
	if gd.Tok != token.VAR {
		return // constants are folded by the type checker; local types are mapped where used
	}
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		if len(vs.Values) == 0 {
			for _, n := range vs.Names {
				if obj, ok := l.isPointerLocal(n); ok {
					l.errorf(n.Pos(), "pointer local %s is declared without a value: a pointer local is bound where it is declared, to one place (%s := &buf[i])", n.Name, n.Name)
					l.bad[obj] = true
					continue
				}
				if obj := l.info.Defs[n]; obj != nil && n.Name != "_" {
					v := l.local(obj, n.Pos())
					l.zeroInit(&ir.Ref{Var: v}, v.Type)
				}
			}
			continue
		}
		lhs := make([]ast.Expr, len(vs.Names))
		for i, n := range vs.Names {
			lhs[i] = n
		}
		l.assignList(lhs, vs.Values, true, vs.Pos())
	}
}

func (l *lowerer) assign(s *ast.AssignStmt) {
	switch s.Tok {
	case token.DEFINE, token.ASSIGN:
		l.assignList(s.Lhs, s.Rhs, s.Tok == token.DEFINE, s.Pos())
		return
	}
	// x op= y
	op, ok := opAssign[s.Tok]
	if !ok {
		l.errorf(s.Pos(), "assignment operator %s is not supported", s.Tok)
		return
	}
	if l.bindlessStore(s.Lhs[0], op, func() ir.Expr { return l.expr(s.Rhs[0]) }) {
		return
	}
	dst := l.updated(l.place(s.Lhs[0]))
	t := l.typeOf(s.Lhs[0])
	y := l.expr(s.Rhs[0])
	l.emit(&ir.Assign{Dst: dst, Src: l.binary(op, copyPlace(dst), y, t, s.Pos())})
}

// updated prepares the place of x op= y and x++, which Go evaluates once:
// an index that calls a function or an op with effects (a[next(&k)] += 1)
// is evaluated into a temporary first.
func (l *lowerer) updated(p ir.Expr) ir.Expr {
	for x := p; ; {
		switch y := x.(type) {
		case *ir.Index:
			if hasEffect(y.I) {
				return l.freeze(p)
			}
			x = y.X
			continue
		case *ir.Member:
			x = y.X
			continue
		}
		return p
	}
}

var opAssign = map[token.Token]token.Token{
	token.ADD_ASSIGN: token.ADD, token.SUB_ASSIGN: token.SUB, token.MUL_ASSIGN: token.MUL,
	token.QUO_ASSIGN: token.QUO, token.REM_ASSIGN: token.REM, token.AND_ASSIGN: token.AND,
	token.OR_ASSIGN: token.OR, token.XOR_ASSIGN: token.XOR, token.SHL_ASSIGN: token.SHL,
	token.SHR_ASSIGN: token.SHR, token.AND_NOT_ASSIGN: token.AND_NOT,
}

// target lowers the left side of an assignment or definition; nil for _.
func (l *lowerer) target(e ast.Expr, define bool) ir.Expr {
	if id, ok := e.(*ast.Ident); ok {
		if id.Name == "_" {
			return nil
		}
		if define {
			if obj := l.info.Defs[id]; obj != nil {
				return &ir.Ref{Var: l.local(obj, id.Pos())}
			}
		}
	}
	return l.place(e)
}

// assignList lowers lhs... = rhs... (or :=, or var), evaluating every right
// side before assigning, as Go does.
func (l *lowerer) assignList(lhs, rhs []ast.Expr, define bool, pos token.Pos) {
	// x := kernel.Shared[T]() declares a workgroup variable.
	if len(lhs) == 1 && len(rhs) == 1 {
		if call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr); ok && l.isIntrinsic(call, "Shared") {
			l.sharedDecl(lhs[0], call, define)
			return
		}
		if call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr); ok && l.isIntrinsic(call, "BindlessBuffer") {
			l.bindlessDecl(lhs[0], call, define)
			return
		}
		if call, ok := l.isBindlessTexCall(rhs[0]); ok {
			l.bindlessTexDecl(lhs[0], call, define)
			return
		}
		if call, ok := l.isQueryCall(rhs[0]); ok {
			l.queryDecl(lhs[0], call, define)
			return
		}
		if l.bindlessStore(lhs[0], token.ILLEGAL, func() ir.Expr { return l.expr(rhs[0]) }) {
			return
		}
	}
	if len(lhs) > 1 && len(rhs) == 1 {
		call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
		if !ok {
			l.errorf(pos, "this multi-value assignment is not supported in kernels: only calls of functions with several results assign several values at once")
			return
		}
		outs := l.multiCall(call, len(lhs))
		if outs == nil {
			return
		}
		for i, e := range lhs {
			if dst := l.target(e, define); dst != nil {
				l.emit(&ir.Assign{Dst: dst, Src: &ir.Ref{Var: outs[i]}})
			}
		}
		return
	}
	if len(lhs) != len(rhs) {
		l.errorf(pos, "assignment count mismatch")
		return
	}
	if !define {
		// A pointer variable is never reassigned (reported at its
		// declaration): the assignment stays quiet.
		for i, e := range lhs {
			if id, ok := ast.Unparen(e).(*ast.Ident); ok {
				if i < len(rhs) && l.isViewExpr(rhs[i]) {
					// Views are never reassigned: reported at the
					// declaration (a view) or the parameter (a buffer).
					l.nerrs++
					return
				}
				if _, isPtr := types.Unalias(l.goTypeOf(id)).(*types.Pointer); isPtr {
					if !l.isBad(id) {
						l.errorf(id.Pos(), "pointer %s cannot be reassigned in a kernel: a pointer names the one place it is bound to", id.Name)
					}
					l.nerrs++
					return
				}
			}
		}
	}
	if define && len(lhs) == len(rhs) {
		// View locals name a range of a buffer (view.go), bound here.
		if id, ok := lhs[0].(*ast.Ident); ok && len(lhs) == 1 && l.info.Defs[id] != nil && l.isViewExpr(rhs[0]) {
			if l.bindView(id, l.info.Defs[id], rhs[0]) {
				return
			}
		}
	}
	if define {
		// Pointer locals are aliases of places (pointer.go), bound here.
		bound := false
		for i, e := range lhs {
			if obj, ok := l.isPointerLocal(e); ok {
				l.bindPointer(e.(*ast.Ident), obj, rhs[i])
				bound = true
			}
		}
		if bound {
			var rl, rr []ast.Expr
			for i, e := range lhs {
				if _, ok := l.isPointerLocal(e); !ok {
					rl, rr = append(rl, e), append(rr, rhs[i])
				}
			}
			if len(rl) > 0 {
				l.assignList(rl, rr, define, pos)
			}
			return
		}
	}
	if len(lhs) == 1 {
		before := l.nerrs
		src := l.expr(rhs[0])
		if define && l.nerrs > before {
			// The value was reported: the new variable stays quiet.
			if id, ok := lhs[0].(*ast.Ident); ok && l.info.Defs[id] != nil {
				l.bad[l.info.Defs[id]] = true
				return
			}
		}
		if dst := l.target(lhs[0], define); dst != nil && isZero(src) {
			l.zeroInit(dst, src.Type()) // a := [N]T{}
		} else if dst != nil {
			l.emit(&ir.Assign{Dst: dst, Src: src})
		} else if _, ok := src.(*ir.Call); ok {
			l.emit(&ir.ExprStmt{X: src})
		}
		return
	}
	tmps := make([]*ir.Var, len(rhs))
	for i, r := range rhs {
		src := l.expr(r)
		tmps[i] = l.newTemp(src.Type())
		l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmps[i]}, Src: src})
	}
	for i, e := range lhs {
		if dst := l.target(e, define); dst != nil {
			l.emit(&ir.Assign{Dst: dst, Src: &ir.Ref{Var: tmps[i]}})
		}
	}
}

// sharedDecl lowers name := kernel.Shared[T]().
func (l *lowerer) sharedDecl(lhs ast.Expr, call *ast.CallExpr, define bool) {
	id, ok := lhs.(*ast.Ident)
	if !ok || !define {
		l.errorf(call.Pos(), "kernel.Shared must initialise a new variable: write name := kernel.Shared[T]()")
		return
	}
	obj := l.info.Defs[id]
	if !l.kernel {
		l.errorf(call.Pos(), "kernel.Shared may only be called in the kernel function itself: declare the shared variable there and pass values to helpers")
		if obj != nil {
			l.bad[obj] = true
		}
		return
	}
	ptr, ok := l.goTypeOf(call).(*types.Pointer)
	if obj == nil || !ok {
		l.errorf(call.Pos(), "kernel.Shared needs a type argument: kernel.Shared[[256]float32]()")
		return
	}
	before := l.nerrs
	t := l.typeAt(ptr.Elem(), call.Pos())
	if l.nerrs > before {
		l.bad[obj] = true
		return
	}
	if t.IsResource() {
		l.errorf(call.Pos(), "shared memory holds values, not %s", t)
		return
	}
	v := l.fn.AddShared(id.Name, t)
	v.Pos = l.c.fset.Position(id.Pos()).String()
	l.shared[obj] = v
}

func (l *lowerer) forStmt(s *ast.ForStmt) {
	if l.queryLoop(s) {
		return
	}
	if s.Init != nil {
		l.stmt(s.Init)
	}
	sc := l.enter(s, &jumpScope{ir: true, loop: true, goLoop: true})
	var cond ir.Expr
	var pre *ir.Block // the statements the condition needs, run before each test
	if s.Cond != nil {
		outer := l.block
		pre = &ir.Block{}
		l.block = pre
		cond = l.expr(s.Cond)
		l.block = outer
	}
	var update *ir.Block
	if s.Post != nil {
		update = l.sub([]ast.Stmt{s.Post})
	}
	body := l.sub(s.Body.List)
	if pre != nil && len(pre.Stmts) > 0 {
		// for { pre; if !cond { break }; body } with the update after
		// each iteration, continue included.
		exit := &ir.If{Cond: &ir.Unary{Op: ir.Not, X: cond, T: ir.TBool}, Then: &ir.Block{Stmts: []ir.Stmt{&ir.Break{}}}}
		body.Stmts = append(append(pre.Stmts, exit), body.Stmts...)
		cond = ir.LitBool(true)
	}
	if cond == nil && update == nil {
		l.leave(sc, &ir.Loop{Body: body})
		return
	}
	if cond == nil {
		cond = ir.LitBool(true)
	}
	if update == nil {
		update = &ir.Block{}
	}
	l.leave(sc, &ir.For{Cond: cond, Update: update, Body: body})
}

// rangeStmt lowers range over an integer, an array or a buffer to a counted loop.
// Over an array, a buffer, a view or shared memory the count is a uint32
// (every length is one), converted to the key's int where the body reads
// it: a 64-bit counter would be emulated on most GPUs and keep the kernel
// off the cpu backend's lane engine, which indexes buffers by 32 bits.
func (l *lowerer) rangeStmt(s *ast.RangeStmt) {
	xt := l.goTypeOf(s.X)
	if l.isBad(s.X) {
		// Its declaration was reported: check the body, quietly about the
		// iteration variables.
		l.nerrs++
		for _, v := range []ast.Expr{s.Key, s.Value} {
			if id, ok := v.(*ast.Ident); ok && l.info.Defs[id] != nil {
				l.bad[l.info.Defs[id]] = true
			}
		}
		l.sub(s.Body.List)
		return
	}
	var (
		n     ir.Expr
		it    *ir.Type
		elems ir.Expr // the array or buffer, when ranging over one
	)
	var vw *view // ranging over a view: elems is its buffer, indexed from vw.lo
	if !l.isBad(s.X) && l.isViewExpr(s.X) {
		before := l.nerrs
		vw, _ = l.viewOf(s.X)
		if l.nerrs > before || vw.buf == nil {
			l.sub(s.Body.List)
			return
		}
		xt = types.Typ[types.Invalid]
		it = ir.TU32
		elems = vw.buf
		n = vw.n
	}
	view, isView := l.bindlessView(s.X)
	if isView {
		xt = types.Typ[types.Invalid] // handled below, not by the switch
		if _, ok := view.slot.(*ir.Ref); !ok {
			tmp := l.newTemp(ir.TU32)
			l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: view.slot})
			view.slot = &ir.Ref{Var: tmp}
		}
		it = ir.TU32
		n = bindlessLen(view)
	}
	switch u := types.Unalias(xt).Underlying().(type) {
	case *types.Basic:
		if isView || vw != nil {
			break
		}
		if u.Info()&types.IsInteger == 0 {
			l.errorf(s.X.Pos(), "range over %s is not supported in kernels: range over an integer, an array or a buffer", xt)
			return
		}
		n = l.expr(s.X)
		it = n.Type()
	case *types.Array:
		it = ir.TU32
		n = ir.LitInt(it, u.Len())
		elems = l.expr(s.X)
		// Go ranges over a copy of an array value: the body's writes to
		// the variable do not change the elements it visits.
		if r, ok := elems.(*ir.Ref); ok && s.Value != nil && (r.Var.Kind == ir.VarLocal || r.Var.Kind == ir.VarRefParam) {
			tmp := l.newTemp(elems.Type())
			l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: elems})
			elems = &ir.Ref{Var: tmp}
		}
	case *types.Slice:
		it = ir.TU32
		elems = l.expr(s.X)
		n = &ir.Call{Op: ir.OpBufferSize, Args: []ir.Expr{elems}, T: ir.TU32}
	case *types.Pointer: // a kernel.Shared array
		a, ok := u.Elem().Underlying().(*types.Array)
		if !ok {
			l.errorf(s.X.Pos(), "range over %s is not supported in kernels: range over an integer, an array or a buffer", xt)
			return
		}
		it = ir.TU32
		n = ir.LitInt(it, a.Len())
		elems = l.expr(s.X)
	default:
		l.errorf(s.X.Pos(), "range over %s is not supported in kernels: range over an integer, an array or a buffer", xt)
		return
	}
	if elems != nil {
		if _, ok := elems.(*ir.Ref); !ok && elems.Type().Kind() != ir.KindBuffer {
			tmp := l.newTemp(elems.Type())
			l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: elems})
			elems = &ir.Ref{Var: tmp}
		}
	}
	limit := l.newTemp(it)
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: limit}, Src: n})
	idx := l.newTemp(it)
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: idx}, Src: ir.LitInt(it, 0)})
	sc := l.enter(s, &jumpScope{ir: true, loop: true, goLoop: true})
	outer := l.block
	body := &ir.Block{}
	l.block = body
	define := s.Tok == token.DEFINE
	if s.Key != nil {
		if dst := l.target(s.Key, define); dst != nil {
			l.emit(&ir.Assign{Dst: dst, Src: l.convert(&ir.Ref{Var: idx}, dst.Type())})
		}
	}
	if s.Value != nil {
		if dst := l.target(s.Value, define); dst != nil && vw != nil {
			l.emit(&ir.Assign{Dst: dst, Src: vw.within(&ir.Ref{Var: idx})})
		} else if dst != nil && elems != nil {
			l.emit(&ir.Assign{Dst: dst, Src: &ir.Index{X: elems, I: &ir.Ref{Var: idx}, T: dst.Type()}})
		} else if dst != nil && isView {
			i32 := &ir.Ref{Var: idx}
			l.emit(&ir.Assign{Dst: dst, Src: &ir.Call{Op: ir.OpBindlessRead, Args: []ir.Expr{view.arr, view.slot, i32}, T: view.elem}})
		}
	}
	l.stmts(s.Body.List)
	l.block = outer
	cond := &ir.Binary{Op: ir.Lt, X: &ir.Ref{Var: idx}, Y: &ir.Ref{Var: limit}, T: ir.TBool}
	update := &ir.Block{Stmts: []ir.Stmt{&ir.Assign{Dst: &ir.Ref{Var: idx},
		Src: &ir.Binary{Op: ir.Add, X: &ir.Ref{Var: idx}, Y: ir.LitInt(it, 1), T: it}}}}
	l.leave(sc, &ir.For{Cond: cond, Update: update, Body: body})
}

// convert casts e to t unless it already has that type.
func (l *lowerer) convert(e ir.Expr, t *ir.Type) ir.Expr {
	if e.Type() == t {
		return e
	}
	return &ir.Cast{X: e, T: t}
}

// switchStmt lowers a switch: to a frontend Switch when the tag is a 32-bit
// integer and every case a constant, else to an if/else chain.
func (l *lowerer) switchStmt(s *ast.SwitchStmt) {
	if s.Init != nil {
		l.stmt(s.Init)
	}
	native := s.Tag != nil
	var tag ir.Expr
	if s.Tag != nil {
		tag = l.expr(s.Tag)
		if tag.Type() != ir.TI32 && tag.Type() != ir.TU32 {
			native = false
		}
	}
	for _, cc := range s.Body.List {
		for _, e := range cc.(*ast.CaseClause).List {
			if tv := l.info.Types[e]; tv.Value == nil || tv.Value.Kind() != constant.Int {
				native = false
			}
		}
	}
	if falls(s) {
		l.fallSwitch(s, tag, native)
		return
	}
	// A break that leaves a chain needs a construct to leave: a loop
	// that runs once (jump.go). A break that ends a clause does nothing.
	bodies := map[*ast.CaseClause][]ast.Stmt{}
	var lists [][]ast.Stmt
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		body := cc.Body
		if !native && len(body) > 0 && l.breaksHere(body[len(body)-1], s) {
			body = body[:len(body)-1]
		}
		bodies[cc] = body
		lists = append(lists, body)
	}
	once := !native && breaksSwitch(lists, l.labels[s], l.info)
	sc := l.enter(s, &jumpScope{ir: native || once, loop: once})
	if native {
		sw := &ir.Switch{Tag: tag}
		for _, st := range s.Body.List {
			cc := st.(*ast.CaseClause)
			body := l.sub(cc.Body)
			if cc.List == nil {
				sw.Default = body
				continue
			}
			c := ir.Case{Body: body}
			for _, e := range cc.List {
				v, _ := constant.Int64Val(constant.ToInt(l.info.Types[e].Value))
				if tag.Type() == ir.TU32 {
					v = int64(uint32(v))
				}
				c.Values = append(c.Values, v)
			}
			sw.Cases = append(sw.Cases, c)
		}
		l.leave(sc, sw)
		return
	}
	if tag != nil {
		if _, ok := tag.(*ir.Ref); !ok {
			tmp := l.newTemp(tag.Type())
			l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: tag})
			tag = &ir.Ref{Var: tmp}
		}
	}
	var def *ast.CaseClause
	var chain []*ast.CaseClause
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		if cc.List == nil {
			def = cc
		} else {
			chain = append(chain, cc)
		}
	}
	var build func(i int) *ir.Block
	build = func(i int) *ir.Block {
		if i == len(chain) {
			if def == nil {
				return nil
			}
			return l.sub(bodies[def])
		}
		// Go tests the cases in order, each value only where the ones
		// before did not match: case i's values are lowered in the else of
		// case i-1, each after the first as the right operand of an ||.
		cc := chain[i]
		outer := l.block
		b := &ir.Block{}
		l.block = b
		defer func() { l.block = outer }()
		value := func(e ast.Expr) ir.Expr {
			if tag != nil {
				return l.compare(token.EQL, tag, l.expr(e), e.Pos())
			}
			return l.expr(e)
		}
		var cond ir.Expr
		for _, e := range cc.List {
			if cond == nil {
				cond = value(e)
			} else {
				cond = l.lazy(token.LOR, cond, func() ir.Expr { return value(e) }, ir.TBool, e.Pos())
			}
		}
		then := l.sub(bodies[cc])
		b.Stmts = append(b.Stmts, &ir.If{Cond: cond, Then: then, Else: build(i + 1)})
		return b
	}
	b := build(0)
	switch {
	case once:
		if b == nil {
			b = &ir.Block{}
		}
		b.Stmts = append(b.Stmts, &ir.Break{})
		l.leave(sc, &ir.Loop{Body: b})
	case b != nil:
		l.leave(sc, b)
	default:
		l.leave(sc, nil)
	}
}

func (l *lowerer) returnStmt(s *ast.ReturnStmt) {
	switch {
	case l.kernel || l.fn.Result == ir.TVoid && !l.outs:
		l.ret(&ir.Return{}, s.Pos())
	case l.outs:
		if len(s.Results) == 1 {
			call, ok := ast.Unparen(s.Results[0]).(*ast.CallExpr)
			if !ok {
				l.errorf(s.Pos(), "return count mismatch")
				return
			}
			outs := l.multiCall(call, len(l.results))
			for i, o := range outs {
				l.emit(&ir.Assign{Dst: &ir.Ref{Var: l.results[i]}, Src: &ir.Ref{Var: o}})
			}
		} else if len(s.Results) > 0 {
			vals := make([]ir.Expr, len(s.Results))
			for i, r := range s.Results {
				v := l.expr(r)
				tmp := l.newTemp(v.Type())
				l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: v})
				vals[i] = &ir.Ref{Var: tmp}
			}
			for i, v := range vals {
				l.emit(&ir.Assign{Dst: &ir.Ref{Var: l.results[i]}, Src: v})
			}
		}
		l.ret(&ir.Return{}, s.Pos())
	default:
		if len(s.Results) == 0 {
			l.ret(&ir.Return{Value: &ir.Ref{Var: l.results[0]}}, s.Pos())
			return
		}
		l.ret(&ir.Return{Value: l.expr(s.Results[0])}, s.Pos())
	}
}

// ret emits r, the return statement a Go return lowers to. Inside a ray
// query's candidate loop it ends the traversal instead, the value held,
// and the query's loop returns after it (queryLoop).
func (l *lowerer) ret(r *ir.Return, pos token.Pos) {
	var q *jumpScope
	for _, sc := range slices.Backward(l.scopes) {
		if sc.query {
			q = sc
			break
		}
	}
	if q == nil {
		l.emit(r)
		return
	}
	if !q.ir {
		l.errorf(pos, "return inside a ray query's loop is not supported here: set a flag, break (which ends the traversal) and return after the loop")
		return
	}
	if r.Value != nil {
		if q.retVal == nil {
			q.retVal = l.newTemp(r.Value.Type())
		}
		l.emit(&ir.Assign{Dst: &ir.Ref{Var: q.retVal}, Src: r.Value})
		r = &ir.Return{Value: &ir.Ref{Var: q.retVal}}
	}
	if q.ret == nil {
		q.ret = l.newTemp(ir.TBool)
	}
	q.retStmt = r
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: q.ret}, Src: ir.LitBool(true)})
	l.jumpTo(false, q, false, pos)
}
