package gokernel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// compiler holds what one load shares: errors, type mappings and the
// callables lowered so far (each Go function is lowered once, however many
// kernels call it).
type compiler struct {
	fset      *token.FileSet
	errs      []error
	typeCache map[types.Type]*ir.Type
	callables map[instanceKey]*callable
	decls     map[*types.Func]*ast.FuncDecl // functions of the packages being compiled
	infos     map[*types.Func]*types.Info
	byKey     map[string]*types.Func // funcKey -> declared function, across packages
	loaded    map[string]bool        // packages loaded from source for their helpers
	cfg       *Config                // where Load runs the go command
	pkgVars   map[*types.Var]packageVar
	written   map[types.Object]bool // objects some function assigns to
	badTypes  map[string]bool       // named Go types already reported as having no device type
	badVars   map[*types.Var]bool   // package variables already reported as living in host memory
}

func newCompiler(fset *token.FileSet) *compiler {
	return &compiler{
		fset:      fset,
		typeCache: map[types.Type]*ir.Type{},
		callables: map[instanceKey]*callable{},
		decls:     map[*types.Func]*ast.FuncDecl{},
		infos:     map[*types.Func]*types.Info{},
		byKey:     map[string]*types.Func{},
		loaded:    map[string]bool{},
		pkgVars:   map[*types.Var]packageVar{},
		written:   map[types.Object]bool{},
		badTypes:  map[string]bool{},
		badVars:   map[*types.Var]bool{},
	}
}

// errorf records an error at pos.
func (c *compiler) errorf(pos token.Pos, format string, args ...any) {
	c.errs = append(c.errs, &Error{Pos: c.fset.Position(pos), Msg: fmt.Sprintf(format, args...)})
}

// addPackage records the function declarations of a checked package.
func (c *compiler) addPackage(files []*ast.File, info *types.Info) {
	c.addPackageVars(files, info)
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if obj, ok := info.Defs[fd.Name].(*types.Func); ok {
					c.decls[obj] = fd
					c.infos[obj] = info
					c.byKey[funcKey(obj)] = obj
					c.loaded[obj.Pkg().Path()] = true
				}
			}
		}
	}
}
