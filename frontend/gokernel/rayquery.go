package gokernel

import (
	"go/ast"
	"go/types"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Ray-query loops (kernel.RayQuery; docs/accel.md, "Candidate loops").
//
//	q := acc.Query(r)           a query: its ray, evaluated once, and its result local
//	for q.Next() { … }          ir.RayQuery{Args, Body, Result}
//	q.Candidate()               OpRayCandidate → kernel.Candidate (ir.RayCandidate)
//	q.CommitProcedural(t)       OpRayCommitProcedural
//	q.CommitTriangle()          OpRayCommitTriangle
//	q.Terminate()               OpRayTerminate
//	q.Result(), q.Committed()   the result local (ir.RayCommitted), or its Hit
//
// The candidate methods belong in q's loop, Result and Committed after it;
// a query has one loop, which holds no other query's and does not break,
// continue or return out of its body to anything outside the loop. A
// continue of the loop itself moves on to the next candidate, a break
// ends the traversal (q.Terminate, then the end of the body) and a return
// ends it and returns after the loop, as in Go.

// rayQueryDecl is a declared query.
type rayQueryDecl struct {
	args   []ir.Expr // OpRayClosest's operands
	result *ir.Var   // ir.RayCommitted
	looped bool      // its loop has been lowered
	bad    bool      // used as a value, reported: its methods report nothing more
}

// isQueryCall reports whether e calls kernel.Accel's Query.
func (l *lowerer) isQueryCall(e ast.Expr) (*ast.CallExpr, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || !l.isIntrinsic(call, "Query") || len(call.Args) != 1 {
		return nil, false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	n, ok := types.Unalias(l.info.TypeOf(sel.X)).(*types.Named)
	return call, ok && n.Obj().Name() == "Accel"
}

// queryDecl lowers q := acc.Query(r).
func (l *lowerer) queryDecl(lhs ast.Expr, call *ast.CallExpr, define bool) {
	id, ok := lhs.(*ast.Ident)
	obj := l.info.Defs[id]
	if !ok || !define || obj == nil {
		l.errorf(call.Pos(), "a ray query must be named by a new variable and looped over: q := acc.Query(r); for q.Next() { … }")
		return
	}
	sel := call.Fun.(*ast.SelectorExpr)
	before := l.nerrs
	acc := l.expr(sel.X)
	if l.nerrs > before {
		return
	}
	if r, ok := acc.(*ir.Ref); !ok || r.Var.Kind != ir.VarArg && r.Var.Kind != ir.VarParam {
		l.errorf(sel.X.Pos(), "an accel must be a kernel or helper parameter (kernel.Accel) to be queried")
		return
	}
	ray := l.expr(call.Args[0])
	if l.nerrs > before {
		return
	}
	rt := ray.Type()
	if rt.Kind() != ir.KindStruct || len(rt.Fields()) != 5 {
		l.errorf(call.Args[0].Pos(), "Accel.Query takes a kernel.Ray, not %s", rt)
		return
	}
	tmp := l.newTemp(rt)
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: ray})
	q := &rayQueryDecl{args: []ir.Expr{acc}, result: l.fn.AddLocal(obj.Name(), ir.RayCommitted)}
	q.result.Pos = l.c.fset.Position(id.Pos()).String()
	for i, fd := range rt.Fields() {
		q.args = append(q.args, &ir.Member{X: &ir.Ref{Var: tmp}, Field: i, T: fd.Type})
	}
	if _, err := ir.CallType(ir.OpRayClosest, q.args); err != nil {
		l.errorf(call.Pos(), "Accel.Query is not supported on the device: %v", err)
		return
	}
	l.zeroInit(&ir.Ref{Var: q.result}, ir.RayCommitted)
	l.queries[obj] = q
}

// queryValue reports (as an error) a declared query used as a value: copied,
// passed, stored or compared.
func (l *lowerer) queryValue(id *ast.Ident, obj types.Object) bool {
	q, ok := l.queries[obj]
	if !ok {
		return false
	}
	q.bad = true
	l.errorf(id.Pos(), "ray query %s is used only through its methods (for %s.Next() { … }, %s.Candidate(), the commits, %s.Result() after the loop): it cannot be copied, passed or stored", id.Name, id.Name, id.Name, id.Name)
	return true
}

// queryOf is the declared query x names.
func (l *lowerer) queryOf(x ast.Expr) (*rayQueryDecl, bool) {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return nil, false
	}
	q, ok := l.queries[l.info.Uses[id]]
	return q, ok
}

// queryLoop lowers for q.Next() { … }, reporting whether s is one.
func (l *lowerer) queryLoop(s *ast.ForStmt) bool {
	call, ok := ast.Unparen(s.Cond).(*ast.CallExpr)
	if s.Init != nil || s.Post != nil || !ok || !l.isIntrinsic(call, "Next") {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	q, ok := l.queryOf(sel.X)
	if !ok {
		l.errorf(sel.X.Pos(), "%s.Next() must loop over a query declared in this function: q := acc.Query(r); for q.Next() { … }", types.ExprString(sel.X))
		return true
	}
	switch {
	case q.looped:
		l.errorf(s.Pos(), "a ray query is looped over once: declare another with acc.Query for a second traversal")
		return true
	case l.query != nil:
		l.errorf(s.Pos(), "a ray query's loop inside another's: trace the inner ray after the outer loop")
		return true
	}
	q.looped = true
	l.query = q
	// A continue, break or return ends the candidate's body (a break or
	// return terminating the traversal first), and so does a labelled jump
	// to an enclosing statement, re-issued after the loop: the body is then
	// that of a loop that runs once, which they leave (jump.go).
	once := jumpsOut([][]ast.Stmt{s.Body.List}, l.labels[s], l.info, true) || returns(s.Body.List) || labelledJump(s.Body.List)
	sc := l.enter(s, &jumpScope{goLoop: true, query: true, ir: once, loop: once})
	body := l.sub(s.Body.List)
	l.query = nil
	if once {
		body = &ir.Block{Stmts: []ir.Stmt{&ir.Loop{Body: &ir.Block{Stmts: append(body.Stmts, &ir.Break{})}}}}
	}
	l.leave(sc, &ir.RayQuery{Args: q.args, Body: body, Result: &ir.Ref{Var: q.result}})
	return true
}

// queryMethod lowers a method of kernel.RayQuery.
func (l *lowerer) queryMethod(e *ast.CallExpr, f *types.Func) ir.Expr {
	sel := e.Fun.(*ast.SelectorExpr)
	q, ok := l.queryOf(sel.X)
	if !ok {
		l.errorf(sel.X.Pos(), "RayQuery.%s on a query not declared in this function: use q := acc.Query(r) and q directly", f.Name())
		return nil
	}
	if q.bad {
		l.nerrs++
		return nil
	}
	switch f.Name() {
	case "Result", "Committed":
		if !q.looped || l.query == q {
			l.errorf(e.Pos(), "q.%s reads what the query committed: call it after its for q.Next() loop", f.Name())
			return nil
		}
		res := ir.Expr(&ir.Ref{Var: q.result})
		if f.Name() == "Committed" {
			res = &ir.Member{X: res, Field: 0, T: ir.RayHit}
		}
		return res
	case "Next":
		l.errorf(e.Pos(), "q.Next() is the condition of the query's loop, for q.Next() { … }, and nothing else")
		return nil
	}
	if l.query != q {
		l.errorf(e.Pos(), "q.%s outside the query's for q.Next() loop: the candidate exists only in the loop's body", f.Name())
		return nil
	}
	var args []ir.Expr
	op := ir.OpRayCandidate
	switch f.Name() {
	case "Candidate":
	case "CommitProcedural":
		op = ir.OpRayCommitProcedural
		t := l.expr(e.Args[0])
		if t == nil {
			return nil
		}
		args = []ir.Expr{l.convert(t, ir.TF32)}
	case "CommitTriangle":
		op = ir.OpRayCommitTriangle
	case "Terminate":
		op = ir.OpRayTerminate
	default:
		l.errorf(e.Pos(), "RayQuery.%s is not a kernel intrinsic", f.Name())
		return nil
	}
	t, err := ir.CallType(op, args)
	if err != nil {
		l.errorf(e.Pos(), "RayQuery.%s: %v", f.Name(), err)
		return nil
	}
	return &ir.Call{Op: op, Args: args, T: t}
}
