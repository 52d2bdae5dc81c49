package gokernel

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Breaks and continues, labelled or not.
//
// The IR's ir.Break leaves the innermost loop or switch and ir.Continue
// starts the innermost loop's next iteration, as SPIR-V's structured
// control flow allows. A Go jump that leaves more than that — break L or
// continue L out of nested loops, a continue out of a switch lowered to a
// one-pass loop — is lowered here, with no IR of its own: the jump sets a
// flag of its target and breaks out of the innermost construct; after each
// construct it leaves, a test of the flag re-issues it, until the target
// is the innermost construct, where the flag is cleared and a plain Break
// or Continue ends it. Only the constructs a jump crosses test its flag.
//
// A switch lowered to an if/else chain (a tag that is not int32 or uint32,
// or a case that is not constant) is no construct a Break leaves: where a
// break leaves it, the chain is the body of a loop that runs once. A break
// that ends a clause, which leaves nothing undone, is dropped instead.
//
// A ray query's candidate loop (ir.RayQuery) is the traversal's callback on
// every path and cannot be left: where a jump or a return leaves its body,
// the body is that of a loop that runs once. continue of the candidate
// loop leaves it (the next candidate comes); break, a return and a jump to
// an enclosing statement call OpRayTerminate first, and the last two are
// made again after the ir.RayQuery.

// jumpScope is an enclosing statement a break or continue may name: a for
// or range loop, a switch, or a ray query's loop.
type jumpScope struct {
	label  *types.Label // nil: none
	ir     bool         // lowered to an IR loop or switch, which ir.Break leaves
	loop   bool         // lowered to an IR loop: ir.Continue's target
	goLoop bool         // a Go for or range loop: a continue's target
	query  bool         // a ray query's candidate loop: a jump that leaves its body ends the traversal

	brk, cont *ir.Var // set while a break or continue to this statement leaves the constructs inside it
	escapes   []jump  // the jumps out of this construct to enclosing ones, re-issued after it

	// A ray query's loop left by return: set once the traversal is ended,
	// the value held, and the return to make after the loop.
	ret, retVal *ir.Var
	retStmt     *ir.Return
}

// jump is a break (or continue) to a statement.
type jump struct {
	cont bool
	to   *jumpScope
}

// enter pushes the scope of s, a loop or switch whose IR construct the
// caller emits with leave.
func (l *lowerer) enter(s ast.Stmt, sc *jumpScope) *jumpScope {
	sc.label = l.labels[s]
	l.scopes = append(l.scopes, sc)
	return sc
}

// leave pops sc and emits its construct: the flags of the jumps to sc
// cleared before it, and after it the tests that re-issue the jumps that
// left it for enclosing statements.
func (l *lowerer) leave(sc *jumpScope, construct ir.Stmt) {
	l.scopes = l.scopes[:len(l.scopes)-1]
	for _, f := range []*ir.Var{sc.brk, sc.cont, sc.ret} {
		if f != nil {
			l.emit(&ir.Assign{Dst: &ir.Ref{Var: f}, Src: ir.LitBool(false)})
		}
	}
	if construct != nil {
		l.emit(construct)
	}
	if sc.ret != nil {
		l.emit(&ir.If{Cond: &ir.Ref{Var: sc.ret}, Then: &ir.Block{Stmts: []ir.Stmt{sc.retStmt}}})
	}
	for _, j := range sc.escapes {
		outer := l.block
		then := &ir.Block{}
		l.block = then
		l.jumpTo(j.cont, j.to, true, token.NoPos)
		l.block = outer
		l.emit(&ir.If{Cond: &ir.Ref{Var: j.to.flag(l, j.cont)}, Then: then})
	}
}

// flag is the variable set while a jump to sc is under way.
func (sc *jumpScope) flag(l *lowerer, cont bool) *ir.Var {
	p := &sc.brk
	if cont {
		p = &sc.cont
	}
	if *p == nil {
		*p = l.newTemp(ir.TBool)
	}
	return *p
}

// branch lowers break, continue, goto and fallthrough.
func (l *lowerer) branch(s *ast.BranchStmt) {
	switch s.Tok {
	case token.GOTO:
		l.errorf(s.Pos(), "goto is not supported in kernels: use structured loops and if/else, or break and continue (labelled where they leave nested loops)")
		return
	case token.FALLTHROUGH:
		return // reported by switchStmt
	}
	cont := s.Tok == token.CONTINUE
	var to *jumpScope
	if s.Label != nil {
		lbl, _ := l.info.Uses[s.Label].(*types.Label)
		for _, sc := range slices.Backward(l.scopes) {
			if sc.label != nil && sc.label == lbl {
				to = sc
				break
			}
		}
	} else {
		for _, sc := range slices.Backward(l.scopes) {
			if !cont || sc.goLoop {
				to = sc
				break
			}
		}
	}
	if to == nil {
		// The type checker accepts no break or continue without a target:
		// this one names a statement kernels do not have (a select).
		l.errorf(s.Pos(), "%s has no loop or switch to leave in this function", s.Tok)
		return
	}
	l.jumpTo(cont, to, false, s.Pos())
}

// jumpTo lowers a break (cont: continue) to the statement of scope to, from
// the innermost scope; reissued says it is the test after a construct the
// jump has left (its flag is set).
func (l *lowerer) jumpTo(cont bool, to *jumpScope, reissued bool, pos token.Pos) {
	at := slices.Index(l.scopes, to)
	inner := l.scopes[at+1:]
	if slices.ContainsFunc(inner, func(sc *jumpScope) bool { return sc.query && !sc.ir }) || to.query && !to.ir {
		tok := "break"
		if cont {
			tok = "continue"
		}
		l.errorf(pos, "%s out of a ray query's loop to an enclosing statement is not supported: in the loop, continue moves to the next candidate and break ends the traversal; set a flag, break, and test the flag after the loop", tok)
		return
	}
	if to.query {
		// The end of the candidate's body, which a break reaches having
		// ended the traversal: both leave the loop around the body.
		if !cont && !reissued {
			t, _ := ir.CallType(ir.OpRayTerminate, nil)
			l.emit(&ir.ExprStmt{X: &ir.Call{Op: ir.OpRayTerminate, T: t}})
		}
		cont = false
	}
	// The innermost construct between here and the target that the plain
	// jump would stop at: any construct for a break, a loop for a continue.
	var crossed *jumpScope
	for _, sc := range slices.Backward(inner) {
		if sc.ir {
			crossed = sc
			break
		}
	}
	direct := crossed == nil
	if cont {
		direct = !slices.ContainsFunc(inner, func(sc *jumpScope) bool { return sc.loop })
	}
	if direct {
		if reissued {
			l.emit(&ir.Assign{Dst: &ir.Ref{Var: to.flag(l, cont)}, Src: ir.LitBool(false)})
		}
		if cont {
			l.emit(&ir.Continue{})
		} else {
			l.emit(&ir.Break{})
		}
		return
	}
	if !reissued {
		l.emit(&ir.Assign{Dst: &ir.Ref{Var: to.flag(l, cont)}, Src: ir.LitBool(true)})
	}
	if crossed.query {
		// Leaving a candidate loop for an enclosing statement ends its
		// traversal; the test after the loop re-issues the jump.
		t, _ := ir.CallType(ir.OpRayTerminate, nil)
		l.emit(&ir.ExprStmt{X: &ir.Call{Op: ir.OpRayTerminate, T: t}})
	}
	l.emit(&ir.Break{})
	j := jump{cont, to}
	if !slices.Contains(crossed.escapes, j) {
		crossed.escapes = append(crossed.escapes, j)
	}
}

// breaksHere reports whether st is a break of switch s written directly
// in one of its clauses: unlabelled, or naming s's label.
func (l *lowerer) breaksHere(st ast.Stmt, s *ast.SwitchStmt) bool {
	b, ok := st.(*ast.BranchStmt)
	if !ok || b.Tok != token.BREAK {
		return false
	}
	return b.Label == nil || l.labels[s] != nil && l.info.Uses[b.Label] == l.labels[s]
}

// breaksSwitch reports whether a break in clauses (a switch's clause
// bodies) leaves the switch: an unlabelled break outside the loops and
// switches inside it, or a break naming its label.
func breaksSwitch(clauses [][]ast.Stmt, label *types.Label, info *types.Info) bool {
	return jumpsOut(clauses, label, info, false)
}

// jumpsOut reports whether a break or (loop set) a continue in bodies
// leaves the statement they are the body of: unlabelled, outside the loops
// (and for a break the switches) inside it, or naming its label.
func jumpsOut(bodies [][]ast.Stmt, label *types.Label, info *types.Info, loop bool) bool {
	found := false
	var walk func(n ast.Node, depth, loops int)
	walk = func(n ast.Node, depth, loops int) {
		ast.Inspect(n, func(n ast.Node) bool {
			if found {
				return false
			}
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt, *ast.RangeStmt:
				for _, c := range childStmts(n) {
					walk(c, depth+1, loops+1)
				}
				return false
			case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				for _, c := range childStmts(n) {
					walk(c, depth+1, loops)
				}
				return false
			case *ast.BranchStmt:
				switch {
				case n.Tok != token.BREAK && n.Tok != token.CONTINUE:
				case n.Label != nil:
					found = label != nil && info.Uses[n.Label] == label
				case n.Tok == token.BREAK:
					found = depth == 0
				default:
					found = loop && loops == 0
				}
				return false
			}
			return true
		})
	}
	for _, body := range bodies {
		for _, c := range body {
			walk(c, 0, 0)
		}
	}
	return found
}

// labelledJump reports whether stmts hold a labelled break or continue.
func labelledJump(stmts []ast.Stmt) bool {
	found := false
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.BranchStmt:
				found = found || n.Label != nil && n.Tok != token.GOTO
			}
			return !found
		})
	}
	return found
}

// returns reports whether stmts hold a return statement.
func returns(stmts []ast.Stmt) bool {
	found := false
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				found = true
			}
			return !found
		})
	}
	return found
}

// childStmts are the statements of a loop's or switch's body (the clauses
// of a switch or select).
func childStmts(n ast.Node) []ast.Stmt {
	switch n := n.(type) {
	case *ast.ForStmt:
		return n.Body.List
	case *ast.RangeStmt:
		return n.Body.List
	case *ast.SwitchStmt:
		return n.Body.List
	case *ast.TypeSwitchStmt:
		return n.Body.List
	case *ast.SelectStmt:
		return n.Body.List
	}
	return nil
}
