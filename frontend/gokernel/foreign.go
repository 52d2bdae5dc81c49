package gokernel

import (
	"go/build"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// Helper functions in other packages.
//
// A kernel's package sees the packages it imports through export data: types
// and signatures, no bodies. When a kernel calls a function of another
// non-standard package (a vector-math helper package, say), that package is
// loaded from source on first use, and the call is resolved by name to the
// source's declaration. Types agree across the two views because the device
// types are built structurally (a struct's name, fields and offsets), not
// from go/types identity.

// funcKey names a function or method independently of which type-checking
// produced its object.
func funcKey(f *types.Func) string {
	name := f.Name()
	if sig, ok := f.Type().(*types.Signature); ok && sig.Recv() != nil {
		rt := sig.Recv().Type()
		if p, ok := rt.(*types.Pointer); ok {
			rt = p.Elem()
		}
		if n, ok := types.Unalias(rt).(*types.Named); ok {
			name = n.Obj().Name() + "." + name
		}
	}
	if f.Pkg() == nil {
		return name
	}
	return f.Pkg().Path() + "." + name
}

// stdPaths caches isStd.
var stdPaths sync.Map // import path -> bool

// isStd reports whether an import path belongs to the standard library: its
// directory is in GOROOT/src. (A path whose first element has no dot is not
// enough: a module may be called "probe".)
func isStd(path string) bool {
	if std, ok := stdPaths.Load(path); ok {
		return std.(bool)
	}
	std := false
	if goroot := build.Default.GOROOT; goroot != "" && path != "" {
		fi, err := os.Stat(filepath.Join(goroot, "src", filepath.FromSlash(path)))
		std = err == nil && fi.IsDir()
	} else {
		first, _, _ := strings.Cut(path, "/")
		std = !strings.Contains(first, ".")
	}
	stdPaths.Store(path, std)
	return std
}

// resolve returns the function whose body the compiler lowers for a call of
// f: f itself when its package is being compiled, the declaration loaded
// from source when f is in another non-standard package, or nil.
func (c *compiler) resolve(f *types.Func) *types.Func {
	if c.decls[f] != nil {
		return f
	}
	if f.Pkg() == nil || isStd(f.Pkg().Path()) || f.Pkg().Path() == kernelPath {
		return nil
	}
	key := funcKey(f)
	if g, ok := c.byKey[key]; ok {
		return g
	}
	path := f.Pkg().Path()
	if !c.loaded[path] {
		c.loaded[path] = true
		cfg := &packages.Config{
			Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
				packages.NeedTypesInfo | packages.NeedImports,
			Fset: c.fset,
		}
		if c.cfg != nil {
			cfg.Dir, cfg.Env = c.cfg.Dir, c.cfg.Env
		}
		if pkgs, err := packages.Load(cfg, path); err == nil {
			for _, p := range pkgs {
				if len(p.Errors) == 0 && p.TypesInfo != nil {
					c.addPackage(p.Syntax, p.TypesInfo)
				}
			}
		}
	}
	return c.byKey[key]
}
