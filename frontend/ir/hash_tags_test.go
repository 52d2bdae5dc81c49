package ir

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHashTagsDistinct reads hash.go and requires each case of the
// hasher's stmt and expr switches to open with its own tag: two node kinds
// sharing a tag can hash two different kernels alike, and the digest keys
// the shader cache. (Assert and RayQuery once shared 13.)
func TestHashTagsDistinct(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "hash.go", nil, 0)
	require.NoError(t, err)
	checked := 0
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || (fn.Name.Name != "stmt" && fn.Name.Name != "expr") {
			continue
		}
		seen := map[uint64]string{}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			sw, ok := n.(*ast.TypeSwitchStmt)
			if !ok {
				return true
			}
			for _, c := range sw.Body.List {
				cc := c.(*ast.CaseClause)
				if len(cc.List) == 0 || len(cc.Body) == 0 {
					continue // default
				}
				kind := types(cc.List)
				tag, ok := leadingTag(cc.Body[0])
				require.True(t, ok, "hasher.%s: case %s does not open with a constant tag h.u(N) (%s)",
					fn.Name.Name, kind, fset.Position(cc.Pos()))
				if prev, dup := seen[tag]; dup {
					t.Errorf("hasher.%s: %s and %s share tag %d (%s)", fn.Name.Name, prev, kind, tag, fset.Position(cc.Pos()))
				}
				seen[tag] = kind
				checked++
			}
			return false
		})
	}
	require.Greater(t, checked, 20, "found too few cases: hash.go's layout changed")
}

func types(list []ast.Expr) string {
	s := ""
	for i, e := range list {
		if i > 0 {
			s += ", "
		}
		if st, ok := e.(*ast.StarExpr); ok {
			e = st.X
		}
		if id, ok := e.(*ast.Ident); ok {
			s += id.Name
		}
	}
	return s
}

func leadingTag(s ast.Stmt) (uint64, bool) {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return 0, false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return 0, false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "u" {
		return 0, false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return 0, false
	}
	v, err := strconv.ParseUint(lit.Value, 0, 64)
	return v, err == nil
}
