package gokernel

import (
	"go/build"
	"go/version"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"golang.org/x/mod/modfile"
)

// Listing without the go command.
//
// `go list` is the floor of a cold load: tens of milliseconds of a go
// command, for a package whose files import only the known packages, which
// lucent does not need listed. directList answers for one package
// directory in that case, where what it reads is all go list would read:
// the directory's files as go/build selects them (build constraints for
// GOOS, GOARCH and CGO_ENABLED), the import path and Go version from the
// go.mod above it. Anything that could make go list answer otherwise (go
// flags or a go env file, a workspace, GOPATH mode, a vendor directory, a
// go.mod that does not require lucent, a Go version newer than this
// compiler's) sends the load to go list.

// directList lists the package of patterns without the go command, or
// returns nil when go list must. The answer, either way, is kept for the
// process with stamps of everything it was read from (as go list's is).
func directList(cfg *Config, patterns []string) []*listedPackage {
	key := "direct\x00" + listKey(cfg, patterns)
	listCache.Lock()
	r := listCache.byKey[key]
	listCache.Unlock()
	if r != nil && r.valid() {
		return r.Pkgs
	}
	directLists.Add(1)
	r = &listResult{Key: key}
	seen := map[string]bool{}
	r.Pkgs = listDirect(cfg, patterns, func(path string, goFile bool) {
		if !seen[path] {
			seen[path] = true
			r.Stamps = append(r.Stamps, newListStamp(path, goFile))
		}
	})
	listCache.Lock()
	listCache.byKey[key] = r
	listCache.Unlock()
	return r.Pkgs
}

// directLists counts the listings directList made (for tests).
var directLists atomic.Int64

// listDirect is directList without the cache; it stamps each input it
// reads, a Go file by its header.
func listDirect(cfg *Config, patterns []string, stamp func(path string, goFile bool)) []*listedPackage {
	if len(patterns) != 1 {
		return nil
	}
	p := patterns[0]
	if strings.Contains(p, "...") || !(p == "." || p == ".." || strings.HasPrefix(p, "./") ||
		strings.HasPrefix(p, "../") || filepath.IsAbs(p)) {
		return nil
	}
	get, ok := goEnv(cfg, stamp)
	if !ok || get("GOEXPERIMENT") != "" || !harmlessFlags(get("GOFLAGS")) {
		return nil
	}
	if v := get("GO111MODULE"); v != "" && v != "on" {
		return nil
	}
	work := get("GOWORK")
	if work != "" && work != "off" {
		return nil
	}
	// The main module is the one of cfg.Dir; the package's directory
	// must lie in it, not in a module of its own below.
	base, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil
	}
	dir := p
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(base, p)
	}
	dir = filepath.Clean(dir)
	root := base
	for {
		stamp(filepath.Join(root, "go.mod"), false)
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(root)
		if up == root {
			return nil
		}
		root = up
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	for d := dir; d != root; d = filepath.Dir(d) {
		stamp(filepath.Join(d, "go.mod"), false)
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return nil
		}
	}
	if work == "" {
		for d := root; ; d = filepath.Dir(d) {
			stamp(filepath.Join(d, "go.work"), false)
			if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
				return nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	stamp(filepath.Join(root, "vendor"), false)
	if _, err := os.Stat(filepath.Join(root, "vendor")); err == nil {
		return nil
	}
	gomod := filepath.Join(root, "go.mod")
	src, err := os.ReadFile(gomod)
	if err != nil {
		return nil
	}
	mf, err := modfile.ParseLax(gomod, src, nil)
	if err != nil || mf.Module == nil || mf.Go == nil {
		return nil
	}
	goVersion := "go" + mf.Go.Version
	if !version.IsValid(goVersion) || version.Compare(version.Lang(goVersion), newestRelease()) > 0 {
		return nil
	}
	ctx := build.Default
	if v := get("GOOS"); v != "" {
		ctx.GOOS = v
	}
	if v := get("GOARCH"); v != "" {
		ctx.GOARCH = v
	}
	switch get("CGO_ENABLED") {
	case "":
		// The default go/build chose for this machine, as go list does.
	case "0":
		ctx.CgoEnabled = false
	case "1":
		ctx.CgoEnabled = true
	default:
		return nil
	}
	stamp(dir, false)
	bp, err := ctx.ImportDir(dir, 0)
	if bp != nil {
		for _, files := range [][]string{bp.GoFiles, bp.CgoFiles, bp.IgnoredGoFiles} {
			for _, f := range files {
				stamp(filepath.Join(dir, f), true)
			}
		}
	}
	if err != nil || len(bp.GoFiles) == 0 {
		return nil
	}
	importsKernel := false
	for _, path := range bp.Imports {
		if !isKnown(path) {
			return nil
		}
		importsKernel = importsKernel || path == kernelPath
	}
	if importsKernel && !requiresLucent(mf) {
		return nil
	}
	importPath := mf.Module.Mod.Path
	if rel != "." {
		importPath += "/" + filepath.ToSlash(rel)
	}
	lp := &listedPackage{
		ImportPath: importPath, Name: bp.Name, Dir: dir,
		GoFiles: bp.GoFiles, CgoFiles: bp.CgoFiles, IgnoredGoFiles: bp.IgnoredGoFiles,
		Imports: bp.Imports,
	}
	lp.Module = &struct {
		Path      string
		Main      bool
		GoMod     string
		GoVersion string
	}{mf.Module.Mod.Path, true, gomod, mf.Go.Version}
	return []*listedPackage{lp}
}

// goEnv returns how the go command would read a variable of its
// environment: from cfg's environment when set there, else from its
// configuration file (go env -w). ok is false when that file is there but
// cannot be read.
func goEnv(cfg *Config, stamp func(string, bool)) (get func(key string) string, ok bool) {
	file := envValue(cfg.Env, "GOENV")
	if file == "" {
		d, err := os.UserConfigDir()
		if err != nil {
			return nil, false
		}
		file = filepath.Join(d, "go", "env")
	}
	vars := map[string]string{}
	if file != "off" {
		stamp(file, false)
		src, err := os.ReadFile(file)
		if err != nil && !os.IsNotExist(err) {
			return nil, false
		}
		for _, line := range strings.Split(string(src), "\n") {
			if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
				vars[k] = v
			}
		}
	}
	return func(key string) string {
		if v := envValue(cfg.Env, key); v != "" {
			return v
		}
		return vars[key]
	}, true
}

// harmlessFlags reports whether GOFLAGS holds only flags that do not change
// what go list answers for one package.
func harmlessFlags(flags string) bool {
	for _, f := range strings.Fields(flags) {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch name {
		case "buildvcs", "trimpath", "p", "v", "x", "modcacherw":
		default:
			return false
		}
	}
	return true
}

// lucentModule is the module path of lucent.
const lucentModule = "github.com/lucent-gpu/lucent"

// requiresLucent reports whether the module of mf is lucent or requires it:
// without either, go list cannot resolve the kernel package.
func requiresLucent(mf *modfile.File) bool {
	if mf.Module.Mod.Path == lucentModule {
		return true
	}
	for _, r := range mf.Require {
		if r.Mod.Path == lucentModule {
			return true
		}
	}
	return false
}

// newestRelease is the newest Go language version go/build knows (the
// release of this compiler).
func newestRelease() string {
	tags := build.Default.ReleaseTags
	return tags[len(tags)-1]
}
