package gokernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Loading from source.
//
// The go/packages path asks `go list -export` for the export data of every
// dependency, which makes the go command build (or check its cache for) the
// whole import graph: tens of milliseconds before the first kernel is
// looked at. Kernel packages import little: the kernel package, math and
// each other. For those, the source loader runs `go list` once without
// export data (files and import paths only), type-checks math and the kernel
// package from source once per process (declarations only: their bodies are
// never lowered), and type-checks the user's packages from their parsed
// files in dependency order. Loaded packages are cached for the process,
// keyed by their files' paths, sizes and modification times.
//
// The source loader only ever answers when it found no error at all: a go
// list error, a package outside that set (fmt, device, cgo …), a syntax or a
// type error, all make Load fall back to the go/packages path, so that what
// is reported, and where, is exactly what that path reports.

// sourceImports are the packages, besides the kernel package and the user's
// own, that a package the source loader checks may import.
var sourceImports = map[string]bool{"math": true, "math/bits": true, "unsafe": true}

// kernelStubs declares, for the packages the kernel package imports for its
// CPU runner, the few names its declarations (not its bodies, which are not
// checked) use. They are opaque: nothing a kernel package can do with them
// type-checks that would not with the real ones, and a kernel package that
// imports any of these packages itself is loaded through go/packages.
var kernelStubs = map[string]string{
	"context":     "package context\nimport \"time\"\ntype Context interface {\n\tDeadline() (deadline time.Time, ok bool)\n\tDone() <-chan struct{}\n\tErr() error\n\tValue(key any) any\n}\n",
	"errors":      "package errors\nfunc New(text string) error\n",
	"fmt":         "package fmt\n",
	"iter":        "package iter\n",
	"log/slog":    "package slog\n",
	"strings":     "package strings\ntype Builder struct{ _ [0]func() }\n",
	"reflect":     "package reflect\ntype Type interface{ Size() uintptr }\n",
	"runtime":     "package runtime\n",
	"sync":        "package sync\ntype Mutex struct{ _ [0]func() }\ntype Cond struct{ _ [0]func() }\ntype WaitGroup struct{ _ [0]func() }\ntype Once struct{ _ [0]func() }\ntype Map struct{ _ [0]func() }\n",
	"sync/atomic": "package atomic\ntype Int32 struct{ _ [0]func() }\ntype Uint32 struct{ _ [0]func() }\ntype Int64 struct{ _ [0]func() }\ntype Uint64 struct{ _ [0]func() }\ntype Bool struct{ _ [0]func() }\n",
	"time":        "package time\ntype Time struct{ _ [0]func() }\n",
}

// listedPackage is the part of `go list -json` the source loader reads.
type listedPackage struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	// IgnoredGoFiles are the files build constraints leave out: an edit
	// may bring one in, so the listing cache watches them too.
	IgnoredGoFiles []string
	Imports        []string
	ImportMap      map[string]string
	Standard       bool
	DepOnly        bool
	Incomplete     bool
	Error          *struct{ Err string }
	DepsErrors     []*struct{ Err string }
	Module         *struct {
		Path      string
		Main      bool
		GoMod     string
		GoVersion string
	}
}

// listFields are the fields asked of go list.
const listFields = "ImportPath,Name,Dir,GoFiles,CgoFiles,IgnoredGoFiles,Imports,ImportMap,Standard,DepOnly,Incomplete,Error,DepsErrors,Module"

// goList runs `go list` without export data for patterns and their
// dependencies, listed dependencies first.
func goList(cfg *Config, patterns []string) ([]*listedPackage, error) {
	args := append([]string{"list", "-e", "-json=" + listFields, "-deps", "-compiled=false", "-test=false",
		"-export=false", "-find=false", "-buildvcs=false", "-pgo=off", "--"}, patterns...)
	goListRuns.Add(1)
	cmd := exec.Command("go", args...)
	cmd.Env = cfg.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	if cfg.Dir != "" {
		cmd.Dir = cfg.Dir
		if abs, err := filepath.Abs(cfg.Dir); err == nil {
			cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], "PWD="+abs)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []*listedPackage
	for dec := json.NewDecoder(&stdout); ; {
		p := new(listedPackage)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// fileStamp is what says a file has not changed since it was read.
type fileStamp struct {
	path  string
	size  int64
	mtime time.Time
}

func stamp(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{path, fi.Size(), fi.ModTime()}, nil
}

// unchanged reports whether every stamped file still has its size and time.
func unchanged(stamps []fileStamp) bool {
	for _, s := range stamps {
		if t, err := stamp(s.path); err != nil || t != s {
			return false
		}
	}
	return true
}

// checkedPackage is one package type-checked from source.
type checkedPackage struct {
	pkg    *types.Package
	files  []*ast.File
	info   *types.Info
	stamps []fileStamp       // its directory and files
	deps   []*checkedPackage // what it was checked against
	key    string            // its go version and sizes
	list   *listedPackage    // as go list described it
}

// fresh reports whether p can serve a load that describes it as lp and
// checks it against deps.
func (p *checkedPackage) fresh(lp *listedPackage, key string, deps []*checkedPackage) bool {
	if p == nil || p.key != key || len(p.deps) != len(deps) || !sameFiles(p.list, lp) {
		return false
	}
	for i := range deps {
		if p.deps[i] != deps[i] {
			return false
		}
	}
	return unchanged(p.stamps)
}

func sameFiles(a, b *listedPackage) bool {
	if a.Dir != b.Dir || len(a.GoFiles) != len(b.GoFiles) {
		return false
	}
	for i := range a.GoFiles {
		if a.GoFiles[i] != b.GoFiles[i] {
			return false
		}
	}
	return true
}

// srcCache holds what the source loader has loaded in this process.
var srcCache = struct {
	sync.Mutex
	fset *token.FileSet             // every file the source loader parsed
	pkgs map[string]*checkedPackage // by import path
}{fset: token.NewFileSet(), pkgs: map[string]*checkedPackage{}}

// maxParsed bounds the bytes of source srcCache.fset spans.
var maxParsed = 256 << 20

// errFallBack says the source loader cannot answer: Load uses go/packages.
var errFallBack = errors.New("not loadable from source")

// sourceLoad is Load through the source loader. It returns errFallBack
// wrapped when the packages need the go/packages path.
func (cfg *Config) sourceLoad(patterns []string) ([]*Kernel, []error, error) {
	for _, p := range patterns {
		if strings.Contains(p, "=") || strings.HasPrefix(p, "-") {
			return nil, nil, fmt.Errorf("%w: pattern %q", errFallBack, p)
		}
	}
	// A go/packages driver (Bazel, say) answers instead of go list.
	if d := envValue(cfg.Env, "GOPACKAGESDRIVER"); d != "" && d != "off" {
		return nil, nil, fmt.Errorf("%w: GOPACKAGESDRIVER is set", errFallBack)
	}
	srcCache.Lock()
	defer srcCache.Unlock()
	if srcCache.fset.Base() > maxParsed {
		// The file set keeps every file parsed (a long-running tool
		// reloading edited kernels): start again.
		srcCache.fset, srcCache.pkgs = token.NewFileSet(), map[string]*checkedPackage{}
	}
	prefetched := prefetchOnce()
	listed, err := cachedList(cfg, patterns)
	<-prefetched
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errFallBack, err)
	}
	byPath := map[string]*listedPackage{}
	var roots []*listedPackage
	for _, p := range listed {
		if p.Error != nil || len(p.DepsErrors) > 0 || p.Incomplete {
			return nil, nil, fmt.Errorf("%w: %s has errors", errFallBack, p.ImportPath)
		}
		byPath[p.ImportPath] = p
		if !p.DepOnly {
			if p.Standard || p.ImportPath == kernelPath {
				return nil, nil, fmt.Errorf("%w: %s is not a package of the user's", errFallBack, p.ImportPath)
			}
			roots = append(roots, p)
		}
	}
	if len(roots) == 0 {
		return nil, nil, fmt.Errorf("%w: no packages", errFallBack)
	}
	imp := &sourceImporter{std: byPath}
	sizes := types.SizesFor("gc", goarch(cfg.Env))
	// go list -deps lists every package after its dependencies.
	var user []*checkedPackage
	for _, lp := range listed {
		if lp.Standard || lp.ImportPath == kernelPath {
			continue
		}
		if len(lp.CgoFiles) > 0 || len(lp.ImportMap) > 0 || len(lp.GoFiles) == 0 {
			return nil, nil, fmt.Errorf("%w: %s", errFallBack, lp.ImportPath)
		}
		var deps []*checkedPackage
		for _, path := range lp.Imports {
			if path == kernelPath || sourceImports[path] {
				dep, err := imp.load(path)
				if err != nil {
					return nil, nil, fmt.Errorf("%w: %v", errFallBack, err)
				}
				deps = append(deps, dep)
				continue
			}
			dep := imp.user[path]
			if dep == nil {
				return nil, nil, fmt.Errorf("%w: %s imports %s", errFallBack, lp.ImportPath, path)
			}
			deps = append(deps, dep)
		}
		goVersion := ""
		if lp.Module != nil && lp.Module.GoVersion != "" {
			goVersion = "go" + lp.Module.GoVersion
		}
		key := goVersion + "\x00" + fmt.Sprint(sizes)
		cp := srcCache.pkgs[lp.ImportPath]
		if !cp.fresh(lp, key, deps) {
			cp, err = checkUser(srcCache.fset, lp, imp, goVersion, sizes)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: %v", errFallBack, err)
			}
			cp.deps, cp.key = deps, key
			srcCache.pkgs[lp.ImportPath] = cp
		}
		if imp.user == nil {
			imp.user = map[string]*checkedPackage{}
		}
		imp.user[lp.ImportPath] = cp
		user = append(user, cp)
	}
	c := newCompiler(srcCache.fset)
	c.cfg = cfg
	for _, cp := range user {
		c.addPackage(cp.files, cp.info)
	}
	var kernels []*Kernel
	for _, lp := range roots {
		if cp := imp.user[lp.ImportPath]; cp != nil {
			kernels = append(kernels, c.compile(lp.ImportPath, cp.files, cp.info)...)
		}
	}
	return kernels, sortErrors(c.errs), nil
}

// goarch is the GOARCH go list ran for.
func goarch(env []string) string {
	if v := envValue(env, "GOARCH"); v != "" {
		return v
	}
	if env == nil {
		return build.Default.GOARCH
	}
	return runtime.GOARCH
}

// envValue is the value of key in env (the process's environment if env is
// nil), the last one if it is there twice.
func envValue(env []string, key string) string {
	if env == nil {
		return os.Getenv(key)
	}
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// checkUser parses and type-checks one of the user's packages. Any syntax
// or type error is returned.
func checkUser(fset *token.FileSet, lp *listedPackage, imp *sourceImporter, goVersion string, sizes types.Sizes) (*checkedPackage, error) {
	cp := &checkedPackage{list: lp}
	s, err := stamp(lp.Dir)
	if err != nil {
		return nil, err
	}
	cp.stamps = append(cp.stamps, s)
	for _, name := range lp.GoFiles {
		path := filepath.Join(lp.Dir, name)
		src, s, err := readStamped(path)
		if err != nil {
			return nil, err
		}
		cp.stamps = append(cp.stamps, s)
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		cp.files = append(cp.files, f)
	}
	// The type checker recurses over the syntax: bound it first.
	for _, f := range cp.files {
		if bc := newCompiler(fset); !bc.checkNesting(f) {
			return nil, errors.New("too deeply nested")
		}
	}
	cp.info = newInfo()
	var typeErr error
	conf := types.Config{Importer: imp, GoVersion: goVersion, Sizes: sizes, Error: func(err error) {
		if typeErr == nil {
			typeErr = err
		}
	}}
	cp.pkg, _ = conf.Check(lp.ImportPath, fset, cp.files, cp.info)
	if typeErr != nil {
		return nil, typeErr
	}
	return cp, nil
}

func newInfo() *types.Info {
	return &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances: map[*ast.Ident]types.Instance{}, Implicits: map[ast.Node]types.Object{},
		Scopes: map[ast.Node]*types.Scope{}, FileVersions: map[*ast.File]string{},
	}
}

// readStamped reads a file and stamps what it read.
func readStamped(path string) ([]byte, fileStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileStamp{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, err
	}
	src, err := io.ReadAll(f)
	if err != nil {
		return nil, fileStamp{}, err
	}
	return src, fileStamp{path, fi.Size(), fi.ModTime()}, nil
}

// sourceImporter serves a source check: the user's packages checked so
// far, and math, math/bits, unsafe and the kernel package from their
// declarations.
type sourceImporter struct {
	std  map[string]*listedPackage // go list's packages, nil for Check (go/build finds them)
	user map[string]*checkedPackage
}

func (m *sourceImporter) Import(path string) (*types.Package, error) {
	if cp := m.user[path]; cp != nil {
		return cp.pkg, nil
	}
	if path != kernelPath && !sourceImports[path] {
		return nil, fmt.Errorf("%s is not loaded from source", path)
	}
	cp, err := m.load(path)
	if err != nil {
		return nil, err
	}
	return cp.pkg, nil
}

// load returns a declaration-only package, checked once per process and
// directory.
func (m *sourceImporter) load(path string) (*checkedPackage, error) {
	if path == "unsafe" {
		return unsafePackage, nil
	}
	var lp *listedPackage
	if m.std != nil {
		lp = m.std[path]
		if lp == nil {
			return nil, fmt.Errorf("%s is not in the go list answer", path)
		}
	} else {
		var err error
		if lp, err = findPackage(path); err != nil {
			return nil, err
		}
	}
	return declsCache.load(lp, m)
}

// unsafePackage is unsafe for every load (a package checked against it
// stays fresh).
var unsafePackage = &checkedPackage{pkg: types.Unsafe}

// declsCache holds the declaration-only packages by directory.
var declsCache = &declsPackages{pkgs: map[string]*checkedPackage{}}

type declsPackages struct {
	sync.Mutex
	pkgs map[string]*checkedPackage
}

func (d *declsPackages) load(lp *listedPackage, m *sourceImporter) (*checkedPackage, error) {
	d.Lock()
	cp := d.pkgs[lp.Dir]
	d.Unlock()
	// The standard library does not change under a process; the kernel
	// package may (a hot-reloading tool, a test editing it).
	if cp != nil && sameFiles(cp.list, lp) && (lp.Standard || unchanged(cp.stamps)) {
		return cp, nil
	}
	var stamps []fileStamp
	for _, name := range lp.GoFiles {
		s, err := stamp(filepath.Join(lp.Dir, name))
		if err != nil {
			return nil, err
		}
		stamps = append(stamps, s)
	}
	if pkg := readDecls(declsKey(lp, stamps), lp.ImportPath); pkg != nil {
		cp = &checkedPackage{pkg: pkg, stamps: stamps, list: lp}
	} else {
		fset := token.NewFileSet()
		var err error
		if cp, err = checkDecls(fset, lp, m); err != nil {
			return nil, err
		}
		writeDecls(declsKey(lp, cp.stamps), fset, cp.pkg)
	}
	d.Lock()
	d.pkgs[lp.Dir] = cp
	d.Unlock()
	return cp, nil
}

// checkDecls type-checks the declarations of math, math/bits, internal/cpu
// or the kernel package: function bodies are skipped, and so are variables
// no other package can name.
func checkDecls(fset *token.FileSet, lp *listedPackage, m *sourceImporter) (*checkedPackage, error) {
	declChecks.Add(1)
	cp := &checkedPackage{list: lp}
	var files []*ast.File
	for _, name := range lp.GoFiles {
		path := filepath.Join(lp.Dir, name)
		src, s, err := readStamped(path)
		if err != nil {
			return nil, err
		}
		cp.stamps = append(cp.stamps, s)
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
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
	var imp types.ImporterFrom = declsImporter{m, lp}
	var typeErr error
	conf := types.Config{Importer: imp, IgnoreFuncBodies: true, Error: func(err error) {
		if typeErr == nil {
			typeErr = err
		}
	}}
	pkg, _ := conf.Check(lp.ImportPath, fset, files, nil)
	if typeErr != nil {
		return nil, fmt.Errorf("checking %s from source: %w", lp.ImportPath, typeErr)
	}
	if lp.ImportPath == kernelPath {
		if err := stubByValue(pkg); err != nil {
			return nil, err
		}
	}
	cp.pkg = pkg
	return cp, nil
}

// stubByValue reports an exported type or variable of pkg whose layout
// holds a stub type: its size would be the stub's, so the kernel package
// is not served from source.
func stubByValue(pkg *types.Package) error {
	seen := map[types.Type]bool{}
	var walk func(t types.Type) bool
	walk = func(t types.Type) bool {
		t = types.Unalias(t)
		if seen[t] {
			return false
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Named:
			if p := t.Obj().Pkg(); p != nil && isStub(p) {
				return true
			}
			return walk(t.Underlying())
		case *types.Struct:
			for i := range t.NumFields() {
				if walk(t.Field(i).Type()) {
					return true
				}
			}
		case *types.Array:
			return walk(t.Elem())
		}
		return false
	}
	for _, name := range pkg.Scope().Names() {
		obj := pkg.Scope().Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj.(type) {
		case *types.TypeName, *types.Var:
			if walk(obj.Type()) {
				return fmt.Errorf("%s.%s holds a type the source loader only stubs", pkg.Path(), name)
			}
		}
	}
	return nil
}

// isStub reports whether p is one of kernelStubs.
func isStub(p *types.Package) bool {
	stubs.Lock()
	defer stubs.Unlock()
	return stubs.pkgs[p.Path()] == p
}

// declChecks counts checkDecls calls (for tests).
var declChecks atomic.Int64

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

// declsImporter serves the imports of a declaration-only package: the
// standard packages math needs from source, the kernel package's other
// imports from kernelStubs.
type declsImporter struct {
	m  *sourceImporter
	lp *listedPackage
}

func (d declsImporter) Import(path string) (*types.Package, error) {
	return d.ImportFrom(path, "", 0)
}

func (d declsImporter) ImportFrom(path, _ string, _ types.ImportMode) (*types.Package, error) {
	if d.lp.ImportPath == kernelPath {
		if src, ok := kernelStubs[path]; ok {
			return stubPackage(path, src)
		}
	}
	if path == "unsafe" || path == "math" || path == "math/bits" || (path == "internal/cpu" && d.lp.Standard) {
		if d.m.std != nil && d.m.std[path] == nil {
			return nil, fmt.Errorf("%s is not in the go list answer", path)
		}
		cp, err := d.m.load(path)
		if err != nil {
			return nil, err
		}
		return cp.pkg, nil
	}
	return nil, fmt.Errorf("%s imports %s, which the source loader does not serve", d.lp.ImportPath, path)
}

// stubImporter serves the stubs to each other (context imports time).
type stubImporter struct{}

func (stubImporter) Import(path string) (*types.Package, error) {
	src, ok := kernelStubs[path]
	if !ok {
		return nil, fmt.Errorf("no stub for %s", path)
	}
	return stubPackageLocked(path, src)
}

var stubs = struct {
	sync.Mutex
	pkgs map[string]*types.Package
}{pkgs: map[string]*types.Package{}}

// stubPackage type-checks one of kernelStubs (once).
func stubPackage(path, src string) (*types.Package, error) {
	stubs.Lock()
	defer stubs.Unlock()
	return stubPackageLocked(path, src)
}

func stubPackageLocked(path, src string) (*types.Package, error) {
	if p := stubs.pkgs[path]; p != nil {
		return p, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path+".go", src, 0)
	if err != nil {
		return nil, err
	}
	p, err := (&types.Config{Importer: stubImporter{}}).Check(path, fset, []*ast.File{f}, nil)
	if err != nil {
		return nil, err
	}
	stubs.pkgs[path] = p
	return p, nil
}

// findPackage locates math, math/bits, internal/cpu or the kernel package
// without the go command: the standard ones in GOROOT, the kernel package
// next to this package's own source (a checkout of lucent) or in the module
// cache at the version this binary was built with. What it found is kept
// for the process, the kernel package's while its directory is unchanged.
func findPackage(path string) (*listedPackage, error) {
	if f, ok := found.Load(path); ok {
		f := f.(foundPackage)
		if f.lp.Standard || unchanged([]fileStamp{f.dir}) {
			return f.lp, nil
		}
	}
	lp := &listedPackage{ImportPath: path}
	var dir string
	if path == kernelPath {
		dir = kernelDir()
		if dir == "" {
			return nil, errors.New("the kernel package's source was not found")
		}
	} else {
		if build.Default.GOROOT == "" {
			return nil, errors.New("GOROOT is not known")
		}
		lp.Standard = true
		dir = filepath.Join(build.Default.GOROOT, "src", filepath.FromSlash(path))
	}
	s, err := stamp(dir)
	if err != nil {
		return nil, err
	}
	bp, err := build.Default.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	lp.Dir, lp.GoFiles, lp.Imports = bp.Dir, bp.GoFiles, bp.Imports
	found.Store(path, foundPackage{lp, s})
	return lp, nil
}

// found caches findPackage.
var found sync.Map // import path -> foundPackage

type foundPackage struct {
	lp  *listedPackage
	dir fileStamp
}

// prefetchOnce starts, on the first source load of the process, checking
// math and the kernel package where findPackage finds them, while go list
// runs; a load waits for it after go list, and finds them in declsCache
// when go list agrees on their files.
var prefetchOnce = sync.OnceValue(func() chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		src := &sourceImporter{}
		src.load("math")
		src.load(kernelPath)
	}()
	return done
})

var kernelDirOnce = sync.OnceValue(func() string {
	// A checkout: this file is frontend/gokernel/srcload.go in it.
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) { // not under -trimpath
		dir := filepath.Join(filepath.Dir(file), "..", "..", "kernel")
		if isKernelDir(dir) {
			return dir
		}
	}
	// The module cache, at the version the binary was built with.
	if bi, ok := debug.ReadBuildInfo(); ok {
		mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
		for _, m := range mods {
			if m.Path != "github.com/lucent-gpu/lucent" {
				continue
			}
			if m.Replace != nil {
				m = m.Replace
			}
			var dir string
			if filepath.IsAbs(m.Path) {
				dir = filepath.Join(m.Path, "kernel")
			} else if m.Version != "" && m.Version != "(devel)" {
				cache := os.Getenv("GOMODCACHE")
				if cache == "" {
					cache = filepath.Join(build.Default.GOPATH, "pkg", "mod")
				}
				dir = filepath.Join(cache, "github.com", "lucent-gpu", "lucent@"+m.Version, "kernel")
			}
			if dir != "" && isKernelDir(dir) {
				return dir
			}
		}
	}
	return ""
})

func kernelDir() string { return kernelDirOnce() }

// isKernelDir reports whether dir holds the kernel package's source.
func isKernelDir(dir string) bool {
	bp, err := build.Default.ImportDir(dir, build.ImportComment)
	return err == nil && bp.Name == "kernel" && len(bp.GoFiles) > 0
}
