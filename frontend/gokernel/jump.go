package gokernel

import (
	"go/ast"
	"go/constant"
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

	// The labels of a goto forward: the statements from the first goto
	// to them, lowered to a loop that runs once, which a goto breaks.
	gotos []*types.Label

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
		lbl, _ := l.info.Uses[s.Label].(*types.Label)
		for _, sc := range slices.Backward(l.scopes) {
			if slices.Contains(sc.gotos, lbl) {
				l.jumpTo(false, sc, false, s.Pos())
				return
			}
		}
		l.errorf(s.Pos(), "goto back to an earlier label is not supported in kernels (only goto forward, to a label later in an enclosing block): use a for loop, with continue or break (labelled where they leave nested loops)")
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
			if sc.gotos == nil && (!cont || sc.goLoop) {
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

// labelledJump reports whether stmts hold a labelled break or continue, or
// a goto (which may leave a ray query's loop for a label after it).
func labelledJump(stmts []ast.Stmt) bool {
	found := false
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.BranchStmt:
				found = found || n.Label != nil
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

// fallsThrough reports whether a case clause's body ends in fallthrough
// (the type checker allows it nowhere else).
func fallsThrough(body []ast.Stmt) bool {
	if len(body) == 0 {
		return false
	}
	b, ok := body[len(body)-1].(*ast.BranchStmt)
	return ok && b.Tok == token.FALLTHROUGH
}

// falls reports whether a clause of switch s falls through.
func falls(s *ast.SwitchStmt) bool {
	return slices.ContainsFunc(s.Body.List, func(st ast.Stmt) bool {
		return fallsThrough(st.(*ast.CaseClause).Body)
	})
}

// fallSwitch lowers a switch one of whose clauses falls through, tag (nil
// for a switch without one) already evaluated and native saying its cases
// fit a device switch. A structured switch runs one clause, so the
// selection and the bodies are apart: the switch (or the if/else chain)
// only stores the index of the clause it selects, in the clauses' source
// order, and the bodies follow it, each run where the index is its own; a
// fallthrough stores the next clause's index, whose body, tested next, runs
// without its case values tested, as Go has it. A break that ends a clause
// is dropped (no later body's index is stored); any other break leaves
// the bodies through a loop that runs once around them.
func (l *lowerer) fallSwitch(s *ast.SwitchStmt, tag ir.Expr, native bool) {
	sel := l.newTemp(ir.TI32)
	l.emit(&ir.Assign{Dst: &ir.Ref{Var: sel}, Src: ir.LitInt(ir.TI32, -1)})
	pick := func(i int) *ir.Block {
		return &ir.Block{Stmts: []ir.Stmt{&ir.Assign{Dst: &ir.Ref{Var: sel}, Src: ir.LitInt(ir.TI32, int64(i))}}}
	}
	def := -1
	var chain []int
	for i, st := range s.Body.List {
		if st.(*ast.CaseClause).List == nil {
			def = i
		} else {
			chain = append(chain, i)
		}
	}
	if native {
		sw := &ir.Switch{Tag: tag}
		if def >= 0 {
			sw.Default = pick(def)
		}
		for _, i := range chain {
			c := ir.Case{Body: pick(i)}
			for _, e := range s.Body.List[i].(*ast.CaseClause).List {
				v, _ := constant.Int64Val(constant.ToInt(l.info.Types[e].Value))
				if tag.Type() == ir.TU32 {
					v = int64(uint32(v))
				}
				c.Values = append(c.Values, v)
			}
			sw.Cases = append(sw.Cases, c)
		}
		l.emit(sw)
	} else {
		if tag != nil {
			if _, ok := tag.(*ir.Ref); !ok {
				tmp := l.newTemp(tag.Type())
				l.emit(&ir.Assign{Dst: &ir.Ref{Var: tmp}, Src: tag})
				tag = &ir.Ref{Var: tmp}
			}
		}
		// The cases tested in order, each value only where the ones
		// before did not match, as switchStmt's chain does.
		var build func(n int) *ir.Block
		build = func(n int) *ir.Block {
			if n == len(chain) {
				if def < 0 {
					return nil
				}
				return pick(def)
			}
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
			for _, e := range s.Body.List[chain[n]].(*ast.CaseClause).List {
				if cond == nil {
					cond = value(e)
				} else {
					cond = l.lazy(token.LOR, cond, func() ir.Expr { return value(e) }, ir.TBool, e.Pos())
				}
			}
			b.Stmts = append(b.Stmts, &ir.If{Cond: cond, Then: pick(chain[n]), Else: build(n + 1)})
			return b
		}
		if b := build(0); b != nil {
			l.emit(b)
		}
	}
	bodies := make([][]ast.Stmt, len(s.Body.List))
	fall := make([]bool, len(s.Body.List))
	for i, st := range s.Body.List {
		body := st.(*ast.CaseClause).Body
		if fallsThrough(body) {
			fall[i] = true
			body = body[:len(body)-1]
		} else if len(body) > 0 && l.breaksHere(body[len(body)-1], s) {
			body = body[:len(body)-1]
		}
		bodies[i] = body
	}
	once := breaksSwitch(bodies, l.labels[s], l.info)
	sc := l.enter(s, &jumpScope{ir: once, loop: once})
	seq := &ir.Block{}
	for i, body := range bodies {
		then := l.sub(body)
		if fall[i] {
			then.Stmts = append(then.Stmts, &ir.Assign{Dst: &ir.Ref{Var: sel}, Src: ir.LitInt(ir.TI32, int64(i+1))})
		}
		cond := &ir.Binary{Op: ir.Eq, X: &ir.Ref{Var: sel}, Y: ir.LitInt(ir.TI32, int64(i)), T: ir.TBool}
		seq.Stmts = append(seq.Stmts, &ir.If{Cond: cond, Then: then})
	}
	if once {
		seq.Stmts = append(seq.Stmts, &ir.Break{})
		l.leave(sc, &ir.Loop{Body: seq})
		return
	}
	l.leave(sc, seq)
}

// stmts lowers a statement list. A goto forward, to a label later in the
// list, is lowered here with no IR of its own: the statements from the one
// holding the first goto to the label are the body of a loop that runs
// once, and the goto is a break of that loop (a labelled break where it
// leaves constructs inside it). Where two such spans overlap, the later
// one starts with the earlier, so that the loops nest.
func (l *lowerer) stmts(list []ast.Stmt) {
	type span struct {
		lo, hi int // list[lo:hi] is the loop's body; list[hi] holds the labels
		labels []*types.Label
	}
	var spans []*span
	var targets [][]*types.Label // per statement, the labels its gotos name; computed once, if a label is here
	for hi, st := range list {
		var labels []*types.Label
		for ls, ok := st.(*ast.LabeledStmt); ok; ls, ok = ls.Stmt.(*ast.LabeledStmt) {
			if lbl, ok := l.info.Defs[ls.Label].(*types.Label); ok {
				labels = append(labels, lbl)
			}
		}
		if len(labels) == 0 {
			continue
		}
		if targets == nil {
			targets = make([][]*types.Label, len(list))
			for i, st := range list {
				targets[i] = gotoTargets(st, l.info)
			}
		}
		lo := -1
		for i := hi - 1; i >= 0; i-- {
			if slices.ContainsFunc(targets[i], func(lbl *types.Label) bool { return slices.Contains(labels, lbl) }) {
				lo = i
			}
		}
		if lo >= 0 {
			spans = append(spans, &span{lo, hi, labels})
		}
	}
	for changed := true; changed; {
		changed = false
		for _, a := range spans {
			for _, b := range spans {
				if a.lo < b.lo && b.lo < a.hi && a.hi < b.hi {
					b.lo, changed = a.lo, true
				}
			}
		}
	}
	used := map[*span]bool{}
	var lower func(lo, hi int)
	lower = func(lo, hi int) {
		for p := lo; p < hi; {
			var outer *span
			for _, sp := range spans {
				if !used[sp] && sp.lo == p && sp.hi <= hi && (outer == nil || sp.hi > outer.hi) {
					outer = sp
				}
			}
			if outer == nil {
				l.stmt(list[p])
				p++
				continue
			}
			used[outer] = true
			sc := &jumpScope{ir: true, loop: true, gotos: outer.labels}
			l.scopes = append(l.scopes, sc)
			block := l.block
			body := &ir.Block{}
			l.block = body
			lower(p, outer.hi)
			l.block = block
			body.Stmts = append(body.Stmts, &ir.Break{})
			l.leave(sc, &ir.Loop{Body: body})
			p = outer.hi
		}
	}
	lower(0, len(list))
}

// gotoTargets returns the labels of the gotos st holds (outside function
// literals).
func gotoTargets(st ast.Stmt, info *types.Info) []*types.Label {
	var labels []*types.Label
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BranchStmt:
			if n.Tok == token.GOTO && n.Label != nil {
				if lbl, ok := info.Uses[n.Label].(*types.Label); ok {
					labels = append(labels, lbl)
				}
			}
		}
		return true
	})
	return labels
}
