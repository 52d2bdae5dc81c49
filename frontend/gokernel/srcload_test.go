package gokernel

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The on-disk caches of this test binary live in a directory of their own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gokernel-cache")
	if err != nil {
		panic(err)
	}
	cacheDir = func() string { return dir }
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// summary is what a load returned, in a comparable form.
func summary(ks []*Kernel, errs []error) []string {
	var out []string
	for _, k := range ks {
		out = append(out, fmt.Sprintf("kernel %s %s %s dim=%d block=%v %x", k.Package, k.Name, k.Pos, k.Dim, k.Block, k.Func.Hash()))
	}
	for _, e := range errs {
		out = append(out, "error "+e.Error())
	}
	return out
}

// newProcess forgets the go list answers this process kept in memory.
func newProcess() {
	listCache.Lock()
	clear(listCache.byKey)
	listCache.Unlock()
}

// The source loader answers for the corpus and the probe module, and what
// it returns (kernels, their positions and IR, and errors) is what
// go/packages returns. A package directory importing only known packages
// is loaded without the go command.
func TestSourceLoadMatchesGoPackages(t *testing.T) {
	for _, tc := range []struct {
		dir, pattern string
		direct       bool
	}{
		{"../..", "./testdata/gokernel", false}, // imports testdata/gokernel/vecmath
		{"../..", "./testdata/gokernel/dispatch", true},
		{"../..", "./bench/frontcold/testdata/saxpy", true},
		{"../../testdata/gokernel/probe", "./kern", false},
		{"../../testdata/gokernel/probe", "./kernbad", false},
		{"../../testdata/gokernel/probe", "./...", false},
		{"../../testdata/gokernel/dispatch", "dispatch.go", false},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			cfg := &Config{Dir: tc.dir}
			newProcess()
			runs := goListRuns.Load()
			ks, errs, err := cfg.sourceLoad([]string{tc.pattern})
			require.NoError(t, err)
			require.Equal(t, tc.direct, goListRuns.Load() == runs, "loaded without go list")
			want := summary(cfg.packagesLoad([]string{tc.pattern}))
			require.NotEmpty(t, want)
			require.Equal(t, want, summary(ks, errs))
			ks, errs = cfg.Load(tc.pattern)
			require.Equal(t, want, summary(ks, errs), "Load")
		})
	}
}

// writeModule writes a module m with the given files into a new directory.
func writeModule(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	files["go.mod"] = "module m\n\ngo 1.26\n"
	for name, src := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	}
	return dir
}

// Packages the source loader does not serve, and packages with errors, are
// loaded through go/packages, which reports the errors.
func TestSourceLoadFallsBack(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"host/host.go": "package host\n\nimport \"fmt\"\n\nfunc Hello() { fmt.Println() }\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = 1 }\n",
		"bad/bad.go":   "package bad\n\nimport \"math\"\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = math.Sqrt(2) }\n",
		"syn/syn.go":   "package syn\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = }\n",
		"cgo/cgo.go":   "package cgo\n\nimport \"C\"\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = 1 }\n",
		"gone/gone.go": "package gone\n\nimport \"m/nothere\"\n\nvar _ = nothere.X\n",
	})
	cfg := &Config{Dir: dir}
	for _, pattern := range []string{"./host", "./bad", "./syn", "./cgo", "./gone", "./none", "math", "github.com/lucent-gpu/lucent/kernel"} {
		_, _, err := cfg.sourceLoad([]string{pattern})
		require.ErrorIs(t, err, errFallBack, pattern)
	}
	// A go/packages driver answers instead of go list.
	_, _, err := (&Config{Dir: "../..", Env: append(os.Environ(), "GOPACKAGESDRIVER=/bin/false")}).sourceLoad([]string{"./testdata/gokernel/dispatch"})
	require.ErrorIs(t, err, errFallBack)

	ks, errs := cfg.Load("./host")
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	// go/packages reports the type error (and, for the go command's build,
	// the same error again without a position).
	_, errs = cfg.Load("./bad")
	require.Equal(t, summary(cfg.packagesLoad([]string{"./bad"})), summary(nil, errs))
	var ge *Error
	require.True(t, errors.As(errs[len(errs)-1], &ge))
	require.Equal(t, 6, ge.Pos.Line)
	require.Equal(t, 34, ge.Pos.Column)
	require.Contains(t, ge.Msg, "cannot use math.Sqrt(2)")
	_, errs = cfg.Load("./syn")
	require.Equal(t, summary(cfg.packagesLoad([]string{"./syn"})), summary(nil, errs))
	require.True(t, errors.As(errs[len(errs)-1], &ge))
	require.Equal(t, 4, ge.Pos.Line)
}

// TestLoadSkipsErrorsWithoutKernels: a package without a //lucent:kernel
// line has no kernel to compile, so its errors are not Load's (under
// ./..., a program using launchers that the lucentc build tag leaves out);
// a package with one reports its errors as before.
func TestLoadSkipsErrorsWithoutKernels(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"k/k.go":     "package k\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = 1 }\n",
		"app/app.go": "package app\n\nimport \"m/k\"\n\nvar _ = k.NewK\n",
		"bad/bad.go": "package bad\n\nvar x int = \"s\"\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = float32(x) }\n",
	})
	cfg := &Config{Dir: dir}
	ks, errs := cfg.Load("./k", "./app")
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	require.Equal(t, "K", ks[0].Name)
	ks, errs = cfg.Load("./...")
	require.Len(t, ks, 1)
	require.NotEmpty(t, errs)
	for _, err := range errs {
		require.Contains(t, err.Error(), "bad.go:3:13", "only the kernel package's errors")
	}
}

// TestLoadKernelPackageUsingItsLaunchers: type errors in declarations no
// kernel reaches (a package using the launchers lucentc has yet to write)
// do not stop its kernels; one in a helper a kernel calls still does, and
// is the only one reported.
func TestLoadKernelPackageUsingItsLaunchers(t *testing.T) {
	const kern = "package k\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = twice(scale) }\n\n" +
		"func twice(v float32) float32 { return v * 2 }\n\nconst scale = 3\n\n"
	const uses = "package k\n\ntype Holder struct{ k *KKernel }\n\nvar h = Holder{}\n\n" +
		"func Run() { NewK(nil); _ = h; NewK()[0] = 1; undefinedV[1]++; x := undefinedF(); x[0][1] = 2 }\n"
	dir := writeModule(t, map[string]string{"k/k.go": kern, "k/run.go": uses})
	cfg := &Config{Dir: dir}
	ks, errs := cfg.Load("./k")
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	require.Equal(t, "K", ks[0].Name)

	dir = writeModule(t, map[string]string{"k/k.go": strings.Replace(kern, "v * 2", "v * two", 1), "k/run.go": uses})
	ks, errs = (&Config{Dir: dir}).Load("./k")
	require.Empty(t, ks)
	require.Len(t, errs, 1, "%v", errs)
	require.Regexp(t, `k\.go:6:44: undefined: two$`, errs[0].Error())

	// A write in such a declaration still counts: the table is the
	// program's, not a constant.
	const table = "package k\n\nvar table = [2]float32{1, 2}\n\n//lucent:kernel block=64\nfunc T(out []float32) { out[0] = table[1] }\n"
	dir = writeModule(t, map[string]string{"k/k.go": table, "k/run.go": "package k\n\nfunc Run() { table[undefinedI] = 3 }\n"})
	ks, errs = (&Config{Dir: dir}).Load("./k")
	require.Empty(t, ks)
	require.Len(t, errs, 1, "%v", errs)
	require.Contains(t, errs[0].Error(), "package variable table lives in host memory (its package assigns to it)")
}

// A second Load of unchanged files reuses the checked package (one that
// imports unsafe too); an edited file, or a file added to the package, is
// read again.
func TestSourceLoadCache(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"k/k.go": "package k\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = 1 }\n",
		"k/u.go": "package k\n\nimport \"unsafe\"\n\nconst size = unsafe.Sizeof(int32(0))\n",
	})
	cfg := &Config{Dir: dir}
	load := func() []string {
		ks, errs, err := cfg.sourceLoad([]string{"./k"})
		require.NoError(t, err)
		require.Empty(t, errs)
		var names []string
		for _, k := range ks {
			names = append(names, fmt.Sprintf("%s %x", k.Name, k.Func.Hash()))
		}
		return names
	}
	first := load()
	require.Len(t, first, 1)
	cached := srcCache.pkgs["m/k"]
	require.NotNil(t, cached)
	require.Equal(t, first, load())
	require.Same(t, cached, srcCache.pkgs["m/k"])

	// The same size, a later time: read again.
	path := filepath.Join(dir, "k", "k.go")
	require.NoError(t, os.WriteFile(path, []byte("package k\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = 2 }\n"), 0o644))
	later := time.Now().Add(2 * time.Second)
	require.NoError(t, os.Chtimes(path, later, later))
	second := load()
	require.Len(t, second, 1)
	require.NotEqual(t, first, second)
	require.NotSame(t, cached, srcCache.pkgs["m/k"])

	require.NoError(t, os.WriteFile(filepath.Join(dir, "k", "j.go"), []byte("package k\n\n//lucent:kernel block=64\nfunc J(out []float32) { out[0] = 3 }\n"), 0o644))
	require.NoError(t, os.Chtimes(filepath.Join(dir, "k"), later, later))
	third := load()
	require.Len(t, third, 2)
	require.Equal(t, second[0], third[1])
}

// Check serves a file that imports only math and the kernel package from
// source, without the go command; other imports go through go/packages.
func TestCheckImporterChoice(t *testing.T) {
	parse := func(src string) *ast.File {
		f, err := parser.ParseFile(token.NewFileSet(), "k.go", src, parser.ImportsOnly)
		require.NoError(t, err)
		return f
	}
	imp, err := checkFileImporter(parse("package k\nimport (\n\t\"math\"\n\t\"github.com/lucent-gpu/lucent/kernel\"\n)\n"))
	require.NoError(t, err)
	require.IsType(t, &sourceImporter{}, imp)
	imp, err = checkFileImporter(parse("package k\nimport \"strings\"\n"))
	require.NoError(t, err)
	require.IsType(t, &checkImports{}, imp)

	// The source importer's kernel package has what kernels use.
	kp, err := (&sourceImporter{}).Import(kernelPath)
	require.NoError(t, err)
	for _, name := range []string{"DispatchID", "Float4", "AtomicAdd", "Texture2D", "Run", "ErrGrid"} {
		require.NotNil(t, kp.Scope().Lookup(name), name)
	}
	run := kp.Scope().Lookup("Run").Type().(*types.Signature)
	require.Equal(t, "context.Context", run.Params().At(0).Type().String())
}

// The go list answer is kept across processes (on disk) and loads: it is
// asked again when a file is added, an import or a build constraint
// changes, and not when only a body does.
func TestListCache(t *testing.T) {
	// k imports another package of the module's: it is listed by go list.
	dir := writeModule(t, map[string]string{
		"util/util.go": "package util\n\nconst One = 1\n",
		"k/dep.go":     "package k\n\nimport \"m/util\"\n\nconst one = util.One\n",
		"k/k.go":       "package k\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = 1 }\n",
		"k/x.go":       "//go:build ignore\n\npackage k\n\n//lucent:kernel block=64\nfunc X(out []float32) { out[0] = 1 }\n",
	})
	cfg := &Config{Dir: dir}
	later := time.Now()
	load := func(wantListRuns int64) []string {
		t.Helper()
		// Every write below gets a later time than the last.
		later = later.Add(2 * time.Second)
		runs := goListRuns.Load()
		ks, errs, err := cfg.sourceLoad([]string{"./k"})
		require.NoError(t, err)
		require.Empty(t, errs)
		require.Equal(t, wantListRuns, goListRuns.Load()-runs, "go list runs")
		var names []string
		for _, k := range ks {
			names = append(names, fmt.Sprintf("%s %x", k.Name, k.Func.Hash()))
		}
		return names
	}
	write := func(name, src string) {
		path := filepath.Join(dir, "k", name)
		require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
		require.NoError(t, os.Chtimes(path, later, later))
	}
	newProcess()
	first := load(1)
	require.Len(t, first, 1)
	newProcess()
	require.Equal(t, first, load(0))

	// A new body: the same listing, a new kernel.
	write("k.go", "package k\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = 2.5 }\n")
	newProcess()
	second := load(0)
	require.NotEqual(t, first, second)

	// A new import: listed again.
	write("k.go", "package k\n\nimport \"math\"\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = math.Pi }\n")
	load(1)
	require.Equal(t, load(0), load(0))

	// A build constraint lifted from a file the listing left out.
	write("x.go", "package k\n\n//lucent:kernel block=64\nfunc X(out []float32) { out[0] = 1 }\n")
	require.Len(t, load(1), 2)

	// A file added.
	write("y.go", "package k\n\n//lucent:kernel block=64\nfunc Y(out []float32) { out[0] = 1 }\n")
	require.NoError(t, os.Chtimes(filepath.Join(dir, "k"), later, later))
	require.Len(t, load(1), 3)

	// go.mod touched.
	require.NoError(t, os.Chtimes(filepath.Join(dir, "go.mod"), later, later))
	load(1)
	newProcess()
	require.Len(t, load(0), 3)
}

// Loads and checks may run at once (run with -race).
func TestSourceLoadConcurrent(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"k/k.go": "package k\n\nimport \"math\"\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = float32(math.Sqrt(2)) }\n",
	})
	src := []byte("package k\n\nimport \"github.com/lucent-gpu/lucent/kernel\"\n\n//lucent:kernel block=64\nfunc K(out []uint32) { out[kernel.DispatchID().X] = 1 }\n")
	done := make(chan []string)
	for i := range 4 {
		go func() {
			if i%2 == 0 {
				done <- summary((&Config{Dir: dir}).Load("./k"))
			} else {
				done <- summary(Check("k.go", src))
			}
		}()
	}
	for range 4 {
		s := <-done
		require.Len(t, s, 1)
		require.Contains(t, s[0], "kernel ")
	}
}

// Past maxParsed bytes of parsed source the loader starts a new file set
// and parses again.
func TestSourceLoadFileSetBound(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"k/k.go": "package k\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = 1 }\n",
	})
	cfg := &Config{Dir: dir}
	_, _, err := cfg.sourceLoad([]string{"./k"})
	require.NoError(t, err)
	first := srcCache.pkgs["m/k"]
	_, _, err = cfg.sourceLoad([]string{"./k"})
	require.NoError(t, err)
	require.Same(t, first, srcCache.pkgs["m/k"])
	fset := srcCache.fset
	old := maxParsed
	maxParsed = 1
	t.Cleanup(func() { maxParsed = old })
	ks, errs, err := cfg.sourceLoad([]string{"./k"})
	require.NoError(t, err)
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	require.NotSame(t, first, srcCache.pkgs["m/k"])
	require.NotSame(t, fset, srcCache.fset)
}

// directList answers what go list answers for a package directory that
// imports only known packages, and leaves to go list whatever could make
// it answer otherwise.
func TestDirectList(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"k/k.go":         "package k\n\nimport \"math\"\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = float32(math.Pi) }\n",
		"k/k_windows.go": "package k\n\nimport \"math/bits\"\n\nconst w = bits.UintSize\n",
		"k/x.go":         "//go:build ignore\n\npackage k\n",
		"k/k_test.go":    "package k\n\nimport \"testing\"\n\nfunc TestK(t *testing.T) {}\n",
		"h/h.go":         "package h\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n",
		"kern/kern.go":   "package kern\n\nimport \"github.com/lucent-gpu/lucent/kernel\"\n\nvar _ = kernel.DispatchID\n",
	})
	envFile := filepath.Join(t.TempDir(), "env")
	require.NoError(t, os.WriteFile(envFile, []byte("GOOS=windows\nGOFLAGS=-buildvcs=false\n"), 0o644))
	listed := func(cfg *Config, pattern string) *listedPackage {
		t.Helper()
		pkgs, err := goList(cfg, []string{pattern})
		require.NoError(t, err)
		for _, p := range pkgs {
			if !p.DepOnly {
				require.Nil(t, p.Error)
				return p
			}
		}
		t.Fatal("no package")
		return nil
	}
	for _, tc := range []struct {
		cfg     *Config
		pattern string
	}{
		{&Config{Dir: "../.."}, "./testdata/gokernel/dispatch"},
		{&Config{Dir: dir}, "./k"},
		{&Config{Dir: filepath.Join(dir, "k")}, "."},
		{&Config{Dir: dir, Env: append(os.Environ(), "GOENV="+envFile)}, filepath.Join(dir, "k")},
		{&Config{Dir: filepath.Join(dir, "h")}, "../k"},
		{&Config{Dir: dir, Env: append(os.Environ(), "CGO_ENABLED=0", "GOARCH=arm64")}, "./k"},
	} {
		got := directList(tc.cfg, []string{tc.pattern})
		require.Len(t, got, 1, tc.pattern)
		want := listed(tc.cfg, tc.pattern)
		g := got[0]
		require.Equal(t, []any{want.ImportPath, want.Name, want.Dir, want.GoFiles, want.CgoFiles, want.IgnoredGoFiles, want.Imports},
			[]any{g.ImportPath, g.Name, g.Dir, g.GoFiles, g.CgoFiles, g.IgnoredGoFiles, g.Imports}, tc.pattern)
		require.Equal(t, *want.Module, *g.Module, tc.pattern)
	}
	windows := directList(&Config{Dir: dir, Env: append(os.Environ(), "GOENV="+envFile)}, []string{filepath.Join(dir, "k")})
	require.Contains(t, windows[0].GoFiles, "k_windows.go")

	// Left to go list.
	cfg := &Config{Dir: dir}
	for _, tc := range []struct {
		cfg     *Config
		pattern string
	}{
		{cfg, "./..."},
		{cfg, "m/k"},
		{cfg, "./h"},    // imports fmt
		{cfg, "./kern"}, // imports the kernel package; go.mod does not require lucent
		{cfg, "./none"},
		{&Config{}, filepath.Join(dir, "k")}, // outside the main module
		{&Config{Dir: dir, Env: append(os.Environ(), "GOFLAGS=-tags=gpu")}, "./k"},
		{&Config{Dir: dir, Env: append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"))}, "./k"},
		{&Config{Dir: dir, Env: append(os.Environ(), "GO111MODULE=off")}, "./k"},
	} {
		require.Nil(t, directList(tc.cfg, []string{tc.pattern}), "%s %v", tc.pattern, tc.cfg.Env)
	}
	for name, src := range map[string]string{
		"go.work":            "go 1.26\n\nuse .\n",
		"vendor/modules.txt": "",
		"k/go.mod":           "module k\n\ngo 1.26\n",
		"go.mod":             "module m\n\ngo 1.99\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			old, _ := os.ReadFile(path)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
			require.Nil(t, directList(cfg, []string{"./k"}))
			if name == "go.mod" {
				require.NoError(t, os.WriteFile(path, old, 0o644))
			} else {
				require.NoError(t, os.RemoveAll(filepath.Join(dir, filepath.Dir(name)+"/"+filepath.Base(name))))
				require.NoError(t, os.RemoveAll(filepath.Join(dir, "vendor")))
			}
			require.NotNil(t, directList(cfg, []string{"./k"}))
		})
	}
}

// directList's answer is kept while what it read is unchanged: a body
// edit keeps it, a new import or a new file does not.
func TestDirectListCache(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"k/k.go": "package k\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = 1 }\n",
	})
	cfg := &Config{Dir: dir}
	later := time.Now()
	write := func(name, src string) {
		later = later.Add(2 * time.Second)
		path := filepath.Join(dir, "k", name)
		require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
		require.NoError(t, os.Chtimes(path, later, later))
	}
	list := func(wantListings int64) []*listedPackage {
		t.Helper()
		n := directLists.Load()
		pkgs := directList(cfg, []string{"./k"})
		require.Equal(t, wantListings, directLists.Load()-n, "listings")
		return pkgs
	}
	require.Len(t, list(1), 1)
	require.Len(t, list(0), 1)
	write("k.go", "package k\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = 2 }\n")
	require.Len(t, list(0), 1, "a body edit")
	write("k.go", "package k\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n")
	require.Nil(t, list(1), "an import of fmt")
	require.Nil(t, list(0))
	write("k.go", "package k\n\n//lucent:kernel block=64\nfunc K(out []float32) { out[0] = 2 }\n")
	require.Len(t, list(1), 1)
	write("j.go", "package k\n")
	require.NoError(t, os.Chtimes(filepath.Join(dir, "k"), later, later))
	require.Equal(t, []string{"j.go", "k.go"}, list(1)[0].GoFiles)
}
