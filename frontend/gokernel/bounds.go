package gokernel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// The compiler holds kernel source to frontend's input bounds (limits.go
// there) at the construct that passes one, so that no source makes it
// allocate in proportion to an array's length or recurse without bound:
//
//   - Check reads at most ir.MaxSourceSize bytes, and walks the parsed
//     file for statement nesting (ir.MaxNesting) and expression depth
//     (ir.MaxExprDepth) before the type checker, itself recursive,
//     sees it; Load walks each kernel and helper before lowering it.
//   - Types are at most ir.MaxTypeSize bytes (mapType), and a value a
//     thread holds (a local, a parameter, a result, a literal, a lookup
//     table) at most ir.MaxValueSize bytes and MaxValueParts elements.
//   - A zero array is one element repeated (ir.Construct), and the
//     array literals of one function spell out at most maxLiteralElems
//     elements, so lowering is linear in the source.
//
// The statement and local counts of the lowered function (MaxStatements,
// MaxLocals) are Validate's, reported at the kernel.

// maxLiteralElems bounds the elements the array literals of one function
// build (explicit and implied zeros: [4096]float32{7: 1} builds 4096).
const maxLiteralElems = 1 << 16

// checkNesting reports, at the construct, each statement nested deeper than
// ir.MaxNesting and each expression deeper than ir.MaxExprDepth
// under root. It does not descend past a bound, so its own recursion is
// bounded too.
func (c *compiler) checkNesting(root ast.Node) bool {
	before := len(c.errs)
	var stmts, exprs int
	deep := false    // the current outermost expression was reported
	var stack []byte // per node entered: 's', 'e' or 0, to undo on the way out
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			switch stack[len(stack)-1] {
			case 's':
				stmts--
			case 'e':
				exprs--
				deep = deep && exprs > 0
			}
			stack = stack[:len(stack)-1]
			return true
		}
		k := byte(0)
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if stmts++; stmts > ir.MaxNesting {
				c.errorf(n.Pos(), "%s nested %d deep, more than %d (ir.MaxNesting; each else if counts one): flatten the control flow, or move the inner part into a function", stmtWord(n), stmts, ir.MaxNesting)
				stmts--
				return false
			}
			k = 's'
		case *ast.FuncLit:
			// Rejected where it is lowered; its body is not walked.
			return false
		case ast.Expr:
			if exprs++; exprs > ir.MaxExprDepth {
				if !deep {
					c.errorf(n.Pos(), "expression nested more than %d deep (ir.MaxExprDepth): split it with local variables", ir.MaxExprDepth)
				}
				deep = true
				exprs--
				return false
			}
			k = 'e'
		}
		stack = append(stack, k)
		return true
	})
	return len(c.errs) == before
}

func stmtWord(n ast.Node) string {
	switch n.(type) {
	case *ast.IfStmt:
		return "an if"
	case *ast.ForStmt, *ast.RangeStmt:
		return "a for loop"
	case *ast.SelectStmt:
		return "a select"
	}
	return "a switch"
}

// fitsThread reports a value of device type t, described by what, that is
// larger than a thread may hold.
// One line reports a type once (x := [N]T{} is not also reported at x).
func (l *lowerer) fitsThread(t *ir.Type, pos token.Pos, what string) bool {
	why := valueBound(t)
	if why == "" {
		return true
	}
	key := fmt.Sprintf("%d:%s", l.c.fset.Position(pos).Line, t)
	if l.bounded == nil {
		l.bounded = map[string]bool{}
	}
	if l.bounded[key] {
		l.nerrs++
		return false
	}
	l.bounded[key] = true
	l.errorf(pos, "%s %s: declare it with kernel.Shared, or keep it in a buffer parameter", what, why)
	return false
}

// valueBound says how a value of type t passes MaxValueSize or
// MaxValueParts, or is "".
func valueBound(t *ir.Type) string {
	if t.Size() > ir.MaxValueSize {
		return fmt.Sprintf("is %s, more than the %s a thread may hold (ir.MaxValueSize)", ir.SizeText(uint64(t.Size())), ir.SizeText(ir.MaxValueSize))
	}
	if n := ir.Parts(t); n > ir.MaxValueParts {
		return fmt.Sprintf("has %d elements, more than the %d a thread's value may have (ir.MaxValueParts)", n, ir.MaxValueParts)
	}
	return ""
}

// goType writes t as the kernel's source would, packages by name.
func goType(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// isZero reports whether e is a zero value as zero builds it.
func isZero(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Literal:
		return e.Bits == 0
	case *ir.Construct:
		for _, a := range e.Args {
			if !isZero(a) {
				return false
			}
		}
		return true
	}
	return false
}
