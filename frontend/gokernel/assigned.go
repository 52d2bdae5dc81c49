package gokernel

import (
	"go/ast"
	"go/token"
	"go/types"
)

// assigned reports the objects a function body assigns to or takes the
// address of: parameters among them need a local copy (frontend parameters
// are read-only).
func assigned(info *types.Info, body *ast.BlockStmt) map[types.Object]bool {
	out := map[types.Object]bool{}
	root := func(e ast.Expr) {
		for {
			switch x := e.(type) {
			case *ast.Ident:
				if o := info.Uses[x]; o != nil {
					out[o] = true
				}
				return
			case *ast.IndexExpr:
				var under types.Type
				if t := info.TypeOf(x.X); t != nil { // nil: a type error there
					under = t.Underlying()
				}
				switch under.(type) {
				case *types.Slice:
					return // a buffer element: the buffer itself is not assigned
				case *types.Pointer:
					return // an element of a pointed-to array: assigns through the pointer
				}
				e = x.X
			case *ast.SelectorExpr:
				if _, ok := info.TypeOf(x.X).(*types.Pointer); ok {
					return // assigns through a pointer, not to it
				}
				e = x.X
			case *ast.ParenExpr:
				e = x.X
			case *ast.StarExpr:
				return
			default:
				return
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				root(lhs)
			}
		case *ast.IncDecStmt:
			root(n.X)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				root(n.X)
			}
		case *ast.RangeStmt:
			if n.Key != nil {
				root(n.Key)
			}
			if n.Value != nil {
				root(n.Value)
			}
		case *ast.CallExpr:
			// A pointer-receiver method call on an addressable value takes its address.
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if s := info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
					if sig, ok := s.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
						if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
							if _, isPtr := info.TypeOf(sel.X).(*types.Pointer); !isPtr {
								root(sel.X)
							}
						}
					}
				}
			}
		}
		return true
	})
	return out
}
