package gokernel

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Config says where and how to load kernel packages.
type Config struct {
	// Dir is the directory patterns are resolved in; "" is the current one.
	Dir string
	// Env, when set, replaces the environment of the go command Load runs.
	Env []string
	// GoPackages makes Load type-check through go/packages, with the
	// compiler's export data for every dependency, even where the source
	// loader could answer. Load takes that path by itself for packages
	// that import more than math, math/bits, unsafe, the kernel package
	// and each other, and for any package with an error, so that errors
	// read the same either way; this is for comparison and as an escape
	// hatch.
	GoPackages bool
}

// Load loads the packages matching patterns (as `go list` reads them) and
// compiles every //lucent:kernel function in them. It returns the kernels
// that compiled and, sorted by position, every error: Go syntax and type
// errors of the packages with a //lucent:kernel line (those of a package
// without one are not reported: it has no kernel to compile; nor are type
// errors in declarations no kernel reaches), and each
// construct outside the kernel subset (as *Error wrapping
// ErrRejected).
func Load(patterns ...string) ([]*Kernel, []error) { return (&Config{}).Load(patterns...) }

// Load is the package-level Load with this configuration.
//
// Packages that import only math, math/bits, unsafe, the kernel package and
// each other are type-checked from source against the checked form of math,
// math/bits and the kernel package that lucent ships. One package directory
// that imports nothing else is listed without the go command (its files
// from go/build, its import path from its go.mod); other packages by one
// `go list` (files and imports, no export data), whose answer is also kept
// on disk for later processes, in the directory CacheEnvVar names. What was
// loaded is kept for the next Load of unchanged files. Anything else, and any package with a go list, syntax or type
// error, is loaded through go/packages, so errors read the same either way.
func (cfg *Config) Load(patterns ...string) ([]*Kernel, []error) {
	if !cfg.GoPackages {
		if ks, errs, err := cfg.sourceLoad(patterns); err == nil {
			return ks, errs
		}
	}
	return cfg.packagesLoad(patterns)
}

// packagesLoad is Load through go/packages.
func (cfg *Config) packagesLoad(patterns []string) ([]*Kernel, []error) {
	fset := token.NewFileSet()
	pc := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports,
		Dir:  cfg.Dir,
		Env:  cfg.Env,
		Fset: fset,
	}
	pkgs, err := packages.Load(pc, patterns...)
	if err != nil {
		return nil, []error{fmt.Errorf("gokernel: loading %s: %w", strings.Join(patterns, " "), err)}
	}
	c := newCompiler(fset)
	c.cfg = cfg
	var good []*packages.Package
	for _, p := range pkgs {
		if len(p.Errors) > 0 && len(p.GoFiles) > 0 && !hasDirective(p.GoFiles) {
			// No kernels to compile: its errors are not the kernels'
			// (a program using launchers that the lucentc build tag
			// leaves out, under ./...).
			continue
		}
		if errs := kernelErrors(fset, p); len(errs) > 0 {
			for _, pe := range errs {
				c.errs = append(c.errs, packageError(pe))
			}
			continue
		}
		c.addPackage(p.Syntax, p.TypesInfo)
		good = append(good, p)
	}
	var kernels []*Kernel
	for _, p := range good {
		kernels = append(kernels, c.compile(p.PkgPath, p.Syntax, p.TypesInfo)...)
	}
	return kernels, sortErrors(c.errs)
}

// hasDirective reports whether any of files holds a //lucent:kernel line
// (or one it cannot read).
func hasDirective(files []string) bool {
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil || bytes.Contains(src, []byte(directivePrefix)) {
			return true
		}
	}
	return false
}

// packageError turns a go list or type error into an *Error with a position.
func packageError(pe packages.Error) error {
	e := &Error{Msg: pe.Msg}
	// pe.Pos is "file:line:col" or "file:line" or "".
	if pe.Pos != "" && pe.Pos != "-" {
		parts := strings.Split(pe.Pos, ":")
		var nums []int
		for len(parts) > 1 {
			n, err := strconv.Atoi(parts[len(parts)-1])
			if err != nil {
				break
			}
			nums = append([]int{n}, nums...)
			parts = parts[:len(parts)-1]
		}
		e.Pos.Filename = strings.Join(parts, ":")
		if len(nums) > 0 {
			e.Pos.Line = nums[0]
		}
		if len(nums) > 1 {
			e.Pos.Column = nums[1]
		}
	}
	return e
}

// compile lowers the kernels of one checked package.
func (c *compiler) compile(pkgPath string, files []*ast.File, info *types.Info) []*Kernel {
	var kernels []*Kernel
	var dropped []*ast.FuncDecl // kernels that failed with no error of their own
	defer func() {
		// A construct rejected without a message is a compiler bug: say so
		// rather than lose the kernel without a word.
		if len(c.errs) == 0 {
			for _, fd := range dropped {
				c.errorf(fd.Name.Pos(), "internal error compiling kernel %s (a compiler bug, please report it): it failed with no error reported", fd.Name.Name)
			}
		}
	}()
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			com := findDirective(fd)
			if com == nil {
				if m := misspeltDirective(fd); m != nil {
					c.errorf(m.Pos(), "%s is not the kernel directive, so %s is not compiled as a kernel: write //lucent:kernel, with no space after // (as //go:generate)", m.Text, fd.Name.Name)
				}
				continue
			}
			dir, err := parseDirective(com)
			if err != nil {
				c.errorf(com.Pos(), "%v", err)
				continue
			}
			if fd.Body == nil {
				c.errorf(fd.Pos(), "kernel %s has no body", fd.Name.Name)
				continue
			}
			before := len(c.errs)
			if !c.checkNesting(fd.Body) {
				continue
			}
			fn := c.lowerKernelSafely(fd, info, dir)
			if fn == nil && len(c.errs) == before {
				dropped = append(dropped, fd)
			}
			if fn == nil || len(c.errs) > before {
				continue
			}
			if err := ir.Specialize(fn); err != nil {
				c.errorf(fd.Name.Pos(), "kernel %s: %v", fd.Name.Name, err)
				continue
			}
			if err := fn.Validate(); errors.Is(err, ir.ErrLimit) {
				c.errorf(fd.Name.Pos(), "kernel %s: %v", fd.Name.Name, err)
				continue
			} else if err != nil {
				c.errorf(fd.Name.Pos(), "kernel %s: the lowered kernel is invalid (a compiler bug, please report it): %v", fd.Name.Name, err)
				continue
			}
			kernels = append(kernels, &Kernel{
				Name: fd.Name.Name, Package: pkgPath, Pos: c.fset.Position(fd.Name.Pos()),
				Dim: dir.dim, Block: dir.block, Func: fn,
			})
		}
	}
	return kernels
}

// lowerKernelSafely lowers one kernel, turning a panic inside the compiler
// (a bug) into an error at the kernel so that a build tool reports it and
// the other kernels still compile.
func (c *compiler) lowerKernelSafely(fd *ast.FuncDecl, info *types.Info, d directive) (fn *ir.Function) {
	defer func() {
		if r := recover(); r != nil {
			c.errorf(fd.Name.Pos(), "internal error compiling kernel %s (a compiler bug, please report it): %v", fd.Name.Name, r)
			fn = nil
		}
	}()
	return c.lowerKernel(fd, info, d)
}

// Check compiles the kernels of one Go source file. A file that imports only
// math, math/bits, unsafe and the kernel package is checked without the go
// command, against the checked form of those packages lucent ships (read
// once per process); other imports are loaded through go/packages. It is the fast path
// for tools, tests and fuzzing; Load handles whole packages.
func Check(filename string, src []byte) ([]*Kernel, []error) {
	if len(src) > ir.MaxSourceSize {
		return nil, []error{&Error{Pos: token.Position{Filename: filename, Line: 1, Column: 1},
			Msg: fmt.Sprintf("the file is %s, more than the %s of source the kernel compiler reads (ir.MaxSourceSize): split it", ir.SizeText(uint64(len(src))), ir.SizeText(ir.MaxSourceSize))}}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) {
			var errs []error
			for _, e := range list {
				errs = append(errs, &Error{Pos: e.Pos, Msg: e.Msg})
			}
			return nil, errs
		}
		return nil, []error{&Error{Msg: err.Error()}}
	}
	// The type checker recurses over the syntax: bound it first.
	if bc := newCompiler(fset); !bc.checkNesting(f) {
		return nil, sortErrors(bc.errs)
	}
	imp, err := checkFileImporter(f)
	if err != nil {
		return nil, []error{fmt.Errorf("gokernel: loading the kernel and math packages: %w", err)}
	}
	info := newInfo()
	var errs []error
	conf := types.Config{Importer: imp, Error: func(err error) {
		if te, ok := err.(types.Error); ok && !te.Soft {
			errs = append(errs, &Error{Pos: te.Fset.Position(te.Pos), Msg: te.Msg})
		} else if ok {
			errs = append(errs, &Error{Pos: te.Fset.Position(te.Pos), Msg: te.Msg})
		}
	}}
	pkg, _ := conf.Check(f.Name.Name, fset, []*ast.File{f}, info)
	if len(errs) > 0 {
		return nil, sortErrors(errs)
	}
	c := newCompiler(fset)
	c.addPackage([]*ast.File{f}, info)
	kernels := c.compile(pkg.Path(), []*ast.File{f}, info)
	return kernels, sortErrors(c.errs)
}

var (
	checkOnce sync.Once
	checkImp  = &checkImports{pkgs: map[string]*types.Package{}}
	checkErr  error
)

// checkImports serves the packages Check files import: math and kernel
// loaded up front, anything else loaded (once) on first use, so that a
// kernel calling into another package gets the compiler's message rather
// than an import error.
type checkImports struct {
	mu   sync.Mutex
	pkgs map[string]*types.Package
}

func (m *checkImports) Import(path string) (*types.Package, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.pkgs[path]; ok {
		return p, nil
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes}, path)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 || pkgs[0].Types == nil {
		return nil, fmt.Errorf("cannot load package %s", path)
	}
	m.pkgs[path] = pkgs[0].Types
	return pkgs[0].Types, nil
}

// checkFileImporter returns the importer Check uses for f: the source
// importer when it serves every import of f, else checkImporter.
func checkFileImporter(f *ast.File) (types.Importer, error) {
	src := &sourceImporter{}
	for _, is := range f.Imports {
		path, err := strconv.Unquote(is.Path.Value)
		if err != nil || !isKnown(path) {
			return checkImporter()
		}
		if _, err := knownPackage(path); err != nil {
			return checkImporter()
		}
	}
	return src, nil
}

func checkImporter() (types.Importer, error) {
	checkOnce.Do(func() {
		pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes}, "math", kernelPath)
		if err != nil {
			checkErr = err
			return
		}
		var msgs []string
		for _, p := range pkgs {
			for _, e := range p.Errors {
				msgs = append(msgs, e.Error())
			}
			checkImp.pkgs[p.PkgPath] = p.Types
		}
		if len(msgs) > 0 {
			sort.Strings(msgs)
			checkErr = errors.New(strings.Join(msgs, "; "))
		}
	})
	return checkImp, checkErr
}
