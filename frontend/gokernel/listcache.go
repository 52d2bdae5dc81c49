package gokernel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// The go list cache.
//
// Even without export data, `go list` costs a go command (tens of
// milliseconds, most of a cold compile of one kernel file). Its answer
// depends on the environment, the go command, the module files and, per
// package, on which files its directory holds and on their headers (build
// constraints, package clause, imports), not on what the files declare. The
// source loader keeps the answer with stamps of all of those, in memory and
// in the user's cache directory, and asks go list again only when a stamp
// no longer matches: editing a kernel's body keeps the listing; adding a
// file, changing an import or a build constraint, or touching go.mod does
// not. Patterns with "..." are listed every time (a package may appear
// anywhere below them).

// goListRuns counts the go list commands run (for tests).
var goListRuns atomic.Int64

// listStamp is one input of a go list answer as it was.
type listStamp struct {
	Path    string
	Missing bool   `json:",omitempty"`
	Size    int64  `json:",omitempty"`
	MTime   int64  `json:",omitempty"` // Unix nanoseconds
	Header  string `json:",omitempty"` // a Go file's header hash, see goHeader
	GoFile  bool   `json:",omitempty"`
	IsDir   bool   `json:",omitempty"`
}

func newListStamp(path string, goFile bool) listStamp {
	s := listStamp{Path: path, GoFile: goFile}
	fi, err := os.Stat(path)
	if err != nil {
		s.Missing = true
		return s
	}
	s.Size, s.MTime, s.IsDir = fi.Size(), fi.ModTime().UnixNano(), fi.IsDir()
	if goFile {
		s.Header = goHeader(path)
	}
	return s
}

// valid reports whether the input is as stamped: the same size and time,
// or, for a Go file, the same header.
func (s listStamp) valid() bool {
	fi, err := os.Stat(s.Path)
	if err != nil || s.Missing {
		return err != nil && s.Missing
	}
	if fi.Size() == s.Size && fi.ModTime().UnixNano() == s.MTime && fi.IsDir() == s.IsDir {
		return true
	}
	return s.GoFile && !fi.IsDir() && s.Header != "" && goHeader(s.Path) == s.Header
}

// goHeader hashes what go list reads of a Go file: everything up to the
// end of its imports, comments (build constraints, cgo preambles) included.
func goHeader(path string) string {
	src, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		// Hash it all: any edit is then a change.
		sum := sha256.Sum256(src)
		return hex.EncodeToString(sum[:])
	}
	end := int(f.Name.End()) - 1
	for _, d := range f.Decls {
		end = max(end, int(d.End())-1)
	}
	sum := sha256.Sum256(src[:min(end, len(src))])
	return hex.EncodeToString(sum[:])
}

// listResult is a go list answer and the stamps of what it was read from.
type listResult struct {
	Key    string
	Pkgs   []*listedPackage
	Stamps []listStamp
}

func (r *listResult) valid() bool {
	for _, s := range r.Stamps {
		if !s.valid() {
			return false
		}
	}
	return true
}

var listCache = struct {
	sync.Mutex
	byKey map[string]*listResult
}{byKey: map[string]*listResult{}}

// CacheEnvVar is the environment variable that places the source loader's
// on-disk cache of go list answers: "off" keeps them in memory only, any
// other non-empty value is the directory to use; unset, they live in
// "lucent/gokernel" under [os.UserCacheDir].
const CacheEnvVar = "LUCENT_GOKERNEL_CACHE"

// cacheDir is the directory of the on-disk caches, "" for none.
var cacheDir = defaultCacheDir

func defaultCacheDir() string {
	switch v := os.Getenv(CacheEnvVar); v {
	case "off":
		return ""
	case "":
		d, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(d, "lucent", "gokernel")
	default:
		return v
	}
}

// listKey names a go list question: the go command, the environment, the
// directory and the patterns.
func listKey(cfg *Config, patterns []string) string {
	var b strings.Builder
	b.WriteString("gokernel list v1\x00")
	if gobin, err := exec.LookPath("go"); err == nil {
		if fi, err := os.Stat(gobin); err == nil {
			b.WriteString(gobin + "\x00" + fi.ModTime().String() + "\x00")
		}
	}
	dir := cfg.Dir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	b.WriteString(dir + "\x00")
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	// What the go command reads of its environment: its own variables,
	// where it finds itself and its configuration file.
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GO") || strings.HasPrefix(k, "CGO_") || k == "PATH" || k == "HOME" || k == "XDG_CONFIG_HOME" {
			b.WriteString(kv + "\x00")
		}
	}
	b.WriteString("\x00")
	b.WriteString(strings.Join(patterns, "\x00"))
	return b.String()
}

// cachedList returns go list's answer for patterns, from the cache when
// every stamp of what it was read from still holds.
func cachedList(cfg *Config, patterns []string) ([]*listedPackage, error) {
	for _, p := range patterns {
		if strings.Contains(p, "...") {
			return goList(cfg, patterns)
		}
	}
	key := listKey(cfg, patterns)
	sum := sha256.Sum256([]byte(key))
	name := "list-" + hex.EncodeToString(sum[:12]) + ".json"
	listCache.Lock()
	r := listCache.byKey[key]
	listCache.Unlock()
	dir := cacheDir()
	if r == nil && dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			var d listResult
			if json.Unmarshal(b, &d) == nil && d.Key == key {
				r = &d
			}
		}
	}
	if r != nil && r.valid() {
		listCache.Lock()
		listCache.byKey[key] = r
		listCache.Unlock()
		return r.Pkgs, nil
	}
	pkgs, err := goList(cfg, patterns)
	if err != nil {
		return nil, err
	}
	r = &listResult{Key: key, Pkgs: pkgs, Stamps: listStamps(pkgs)}
	if d, err := os.UserConfigDir(); err == nil {
		// go env -w writes GOFLAGS and the like there.
		r.Stamps = append(r.Stamps, newListStamp(filepath.Join(d, "go", "env"), false))
	}
	listCache.Lock()
	listCache.byKey[key] = r
	listCache.Unlock()
	if b, err := json.Marshal(r); err == nil && dir != "" {
		writeCacheFile(dir, name, b)
	}
	return pkgs, nil
}

// listStamps stamps what a go list answer was read from.
func listStamps(pkgs []*listedPackage) []listStamp {
	var stamps []listStamp
	seen := map[string]bool{}
	add := func(path string, goFile bool) {
		if !seen[path] {
			seen[path] = true
			stamps = append(stamps, newListStamp(path, goFile))
		}
	}
	for _, p := range pkgs {
		if p.Standard {
			continue
		}
		add(p.Dir, false)
		for _, files := range [][]string{p.GoFiles, p.CgoFiles, p.IgnoredGoFiles} {
			for _, f := range files {
				add(filepath.Join(p.Dir, f), true)
			}
		}
		if p.Module == nil || p.Module.GoMod == "" {
			continue
		}
		root := filepath.Dir(p.Module.GoMod)
		add(p.Module.GoMod, false)
		add(filepath.Join(root, "go.sum"), false)
		if !p.Module.Main {
			continue
		}
		// A go.mod made between the package and its module's root moves
		// the package to another module; a go.work above the root puts the
		// module in a workspace.
		for d := p.Dir; d != root && strings.HasPrefix(d, root); d = filepath.Dir(d) {
			add(filepath.Join(d, "go.mod"), false)
		}
		for d := root; ; d = filepath.Dir(d) {
			add(filepath.Join(d, "go.work"), false)
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return stamps
}

// writeCacheFile writes one file of the on-disk caches, replacing any
// older copy whole; a failure only costs the next process the work.
func writeCacheFile(dir, name string, b []byte) {
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(dir, name+".*")
	if err != nil {
		return
	}
	_, werr := bytes.NewReader(b).WriteTo(f)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if os.Rename(f.Name(), filepath.Join(dir, name)) != nil {
		os.Remove(f.Name())
	}
}
