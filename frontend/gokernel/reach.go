package gokernel

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/packages"
)

// kernelErrors returns the errors of p that can concern its kernels: it
// leaves out the type errors in package-level declarations that no kernel
// of p reaches (through the functions, types, variables and constants it
// uses, and theirs), which cannot change a kernel. The case it is for: a
// kernel package using its own launchers (NewSaxpy in main), which
// lucentc's build tag leaves out, so that the package never type-checks
// under it, not even before the first go generate. The go command's own
// report of the build ("# path", then the compiler's errors) repeats the
// type errors and goes where one is left out; any other error (a parse
// error, a go list error) keeps them all.
func kernelErrors(fset *token.FileSet, p *packages.Package) []packages.Error {
	if p.TypesInfo == nil || len(p.Syntax) == 0 {
		return p.Errors
	}
	for _, pe := range p.Errors {
		if pe.Kind != packages.TypeError && (pe.Kind != packages.ListError || !strings.HasPrefix(pe.Msg, "# "+p.PkgPath+"\n")) {
			return p.Errors
		}
	}
	unreached := unreachedDecls(p.Syntax, p.TypesInfo)
	var kept []packages.Error
	dropped := false
	for _, pe := range p.Errors {
		if pe.Kind == packages.TypeError && unreachedError(fset, pe, unreached) {
			dropped = true
		} else if pe.Kind == packages.TypeError {
			kept = append(kept, pe)
		}
	}
	if !dropped {
		return p.Errors
	}
	return kept
}

// unreachedError reports whether type error pe lies in one of decls.
func unreachedError(fset *token.FileSet, pe packages.Error, decls []ast.Node) bool {
	e, ok := packageError(pe).(*Error)
	if !ok || e.Pos.Line == 0 {
		return false
	}
	for _, n := range decls {
		if within(e.Pos, fset.Position(n.Pos()), fset.Position(n.End())) {
			return true
		}
	}
	return false
}

// unreachedDecls returns the package-level declarations (functions and
// methods, type, variable and constant specs) that no kernel of the files
// reaches.
func unreachedDecls(files []*ast.File, info *types.Info) []ast.Node {
	decl := map[types.Object]ast.Node{}
	var all, work []ast.Node
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				all = append(all, d)
				if obj := info.Defs[d.Name]; obj != nil {
					decl[obj] = d
				}
				if findDirective(d) != nil {
					work = append(work, d)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						all = append(all, s)
						if obj := info.Defs[s.Name]; obj != nil {
							decl[obj] = s
						}
					case *ast.ValueSpec:
						all = append(all, s)
						for _, n := range s.Names {
							if obj := info.Defs[n]; obj != nil {
								decl[obj] = s
							}
						}
					}
				}
			}
		}
	}
	reached := map[ast.Node]bool{}
	for _, n := range work {
		reached[n] = true
	}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		ast.Inspect(n, func(x ast.Node) bool {
			id, ok := x.(*ast.Ident)
			if !ok {
				return true
			}
			obj := info.Uses[id]
			if fn, ok := obj.(*types.Func); ok {
				obj = fn.Origin()
			}
			if d, ok := decl[obj]; ok && !reached[d] {
				reached[d] = true
				work = append(work, d)
			}
			return true
		})
	}
	var out []ast.Node
	for _, n := range all {
		if !reached[n] {
			out = append(out, n)
		}
	}
	return out
}

// within reports whether pos lies in [from, to).
func within(pos, from, to token.Position) bool {
	before := func(a, b token.Position) bool {
		return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
	}
	return pos.Filename == from.Filename && !before(pos, from) && before(pos, to)
}
