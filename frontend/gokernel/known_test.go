package gokernel

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"math/big"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/gcexportdata"
)

var updateKnown = flag.Bool("update-known", false, "rewrite known/*.x from the source of the known packages (go generate)")

// checkKnownFromSource type-checks the declarations of the known packages
// from their source (function bodies skipped, and variables no other
// package can name: their initialisers may use what the export data does
// not carry), the standard packages they import besides each other from
// the go command's export data. File names are import path/file name, so
// what is written does not depend on where the source lies.
func checkKnownFromSource(t *testing.T) (*token.FileSet, map[string]*types.Package) {
	fset := token.NewFileSet()
	pkgs := map[string]*types.Package{"unsafe": types.Unsafe}
	std := importer.ForCompiler(fset, "gc", nil)
	imp := importerFunc(func(p string) (*types.Package, error) {
		if pkg := pkgs[p]; pkg != nil {
			return pkg, nil
		}
		return std.Import(p)
	})
	for _, k := range knownOrder {
		dir := filepath.Join(build.Default.GOROOT, "src", filepath.FromSlash(k.path))
		if k.path == kernelPath {
			dir = filepath.Join("..", "..", "kernel")
		}
		bp, err := build.Default.ImportDir(dir, 0)
		require.NoError(t, err)
		var files []*ast.File
		for _, name := range bp.GoFiles {
			src, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			f, err := parser.ParseFile(fset, path.Join(k.path, name), src, parser.SkipObjectResolution)
			require.NoError(t, err)
			decls := f.Decls[:0]
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR && !exportsVar(g) {
					continue
				}
				decls = append(decls, d)
			}
			f.Decls = decls
			files = append(files, f)
		}
		conf := types.Config{Importer: imp, IgnoreFuncBodies: true}
		pkg, err := conf.Check(k.path, fset, files, nil)
		require.NoError(t, err, k.path)
		pkgs[k.path] = pkg
	}
	return fset, pkgs
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// exportsVar reports whether a var declaration declares an exported name.
func exportsVar(g *ast.GenDecl) bool {
	for _, sp := range g.Specs {
		for _, n := range sp.(*ast.ValueSpec).Names {
			if n.IsExported() {
				return true
			}
		}
	}
	return false
}

// apiOf describes what pkg declares for other packages: every exported
// object with its type (a constant with its value), and for a type its
// underlying type and the methods of it and of its pointer.
func apiOf(pkg *types.Package) string {
	var b strings.Builder
	q := types.RelativeTo(nil)
	scope := pkg.Scope()
	names := scope.Names()
	sort.Strings(names)
	for _, name := range names {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		b.WriteString(types.ObjectString(obj, q))
		switch obj := obj.(type) {
		case *types.Const:
			fmt.Fprintf(&b, " = %s", constText(obj.Val()))
		case *types.TypeName:
			fmt.Fprintf(&b, " = %s", types.TypeString(obj.Type().Underlying(), q))
			for _, t := range []types.Type{obj.Type(), types.NewPointer(obj.Type())} {
				ms := types.NewMethodSet(t)
				for i := range ms.Len() {
					fmt.Fprintf(&b, "\n\t%s", types.ObjectString(ms.At(i).Obj(), q))
				}
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// constText writes a constant's value, a float one to 60 digits: export
// data keeps 512 bits of an untyped float, not the source's fraction.
func constText(v constant.Value) string {
	if v.Kind() != constant.Float {
		return v.ExactString()
	}
	f := new(big.Float).SetPrec(256)
	switch x := constant.Val(v).(type) {
	case *big.Rat:
		f.SetRat(x)
	case *big.Float:
		f.Set(x)
	case int64:
		f.SetInt64(x)
	}
	return f.Text('g', 60)
}

// The export data lucent ships for the known packages declares what their
// source declares; with -update-known (go generate) it is written again.
func TestKnownPackagesCurrent(t *testing.T) {
	fset, fresh := checkKnownFromSource(t)
	if *updateKnown {
		for _, k := range knownOrder {
			var b bytes.Buffer
			require.NoError(t, gcexportdata.Write(&b, fset, fresh[k.path]))
			require.NoError(t, os.WriteFile(k.file, b.Bytes(), 0o644))
		}
		return
	}
	known, err := knownPackages()
	require.NoError(t, err)
	for _, k := range knownOrder {
		require.Equal(t, apiOf(fresh[k.path]), apiOf(known[k.path]),
			"%s is stale: run go generate ./frontend/gokernel", k.file)
	}
	// The kernel package's API names only what the export data carries.
	run := known[kernelPath].Scope().Lookup("Run").Type().(*types.Signature)
	require.Equal(t, "context.Context", run.Params().At(0).Type().String())
}
