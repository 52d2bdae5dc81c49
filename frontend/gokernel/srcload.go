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
	"strings"
	"sync"
	"time"
)

// Loading from source.
//
// The go/packages path asks `go list -export` for the export data of every
// dependency, which makes the go command build (or check its cache for) the
// whole import graph: tens of milliseconds before the first kernel is
// looked at. Kernel packages import little: the kernel package, math and
// each other. Those three lucent ships checked (known.go). A package
// directory whose files import nothing else is listed without the go
// command (directList: its files from go/build, its import path from its
// go.mod); packages that import other packages of the user's are listed by
// one `go list` (files and import paths only, no export data). The user's
// packages are then type-checked from their parsed files in dependency
// order. Loaded packages are cached for the process, keyed by their files'
// paths, sizes and modification times.
//
// The source loader only ever answers when it found no error at all: a go
// list error, a package outside that set (fmt, device, cgo …), a syntax or a
// type error, all make Load fall back to the go/packages path, so that what
// is reported, and where, is exactly what that path reports.

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
	listed := directList(cfg, patterns)
	if listed == nil {
		var err error
		if listed, err = cachedList(cfg, patterns); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", errFallBack, err)
		}
	}
	var roots []*listedPackage
	for _, p := range listed {
		if p.Error != nil || len(p.DepsErrors) > 0 || p.Incomplete {
			return nil, nil, fmt.Errorf("%w: %s has errors", errFallBack, p.ImportPath)
		}
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
	imp := &sourceImporter{}
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
			if isKnown(path) {
				// The same for the whole process: not a dependency
				// freshness needs to follow.
				if _, err := knownPackage(path); err != nil {
					return nil, nil, fmt.Errorf("%w: %v", errFallBack, err)
				}
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
			var err error
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
// far, and the known packages (math, math/bits, unsafe and the kernel
// package).
type sourceImporter struct {
	user map[string]*checkedPackage
}

func (m *sourceImporter) Import(path string) (*types.Package, error) {
	if cp := m.user[path]; cp != nil {
		return cp.pkg, nil
	}
	return knownPackage(path)
}
