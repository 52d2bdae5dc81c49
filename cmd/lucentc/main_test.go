package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

const (
	corpusDir = "../../testdata/gokernel"
	badDir    = "../../testdata/gokernel/bad"
)

// lucentc runs the command in process and returns its output and status.
func lucentc(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return o.String(), e.String(), code
}

func needSPIRVTools(t *testing.T) {
	t.Helper()
	_, err := spvtools.Path()
	testenv.Need(t, "SPIRV-Tools", err)
}

// corpusKernels lists the kernels of the corpus by reading its directives,
// independently of the compiler under test.
func corpusKernels(t *testing.T) []string { return corpusKernelsB(t) }

func corpusKernelsB(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.go"))
	require.NoError(t, err)
	fn := regexp.MustCompile(`(?m)^//lucent:kernel[^\n]*\n(?://[^\n]*\n)*func (\w+)`)
	var names []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range fn.FindAllSubmatch(src, -1) {
			names = append(names, "kernels."+string(m[1])+".spv")
		}
	}
	sort.Strings(names)
	require.NotEmpty(t, names)
	return names
}

func readSPV(t *testing.T, name string) []uint32 {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	require.Zero(t, len(b)%4, "%s: not a whole number of words", name)
	words := make([]uint32, len(b)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return words
}

// knownInvalid lists the corpus kernels whose module, compiled without
// -atomicfloat (float atomics as compare-and-swap loops, lucentc's portable
// default), spirv-val rejects today, with the validator's complaint. Each is
// a codegen bug in frontend; the tests fail once it is fixed, so that its
// entry is removed.
var knownInvalid = map[string]string{}

// TestCorpus compiles every kernel of the gokernel corpus, per target,
// optimisation level and float-atomic mode, and checks each .spv with the
// SPIR-V validator itself (lucentc's own validation is off here so that
// every module is written; TestValidation covers it).
func TestCorpus(t *testing.T) {
	needSPIRVTools(t)
	want := corpusKernels(t)
	cases := []struct {
		name     string
		env      spirv.TargetEnv
		portable bool // float atomics as CAS loops
		args     []string
	}{
		{"vulkan1.2", spirv.EnvVulkan1_2, true, []string{"-target", "vulkan1.2"}},
		{"vulkan1.3", spirv.EnvVulkan1_3, true, []string{"-target", "vulkan1.3"}},
		{"vulkan1.2-atomicfloat-O", spirv.EnvVulkan1_2, false, []string{"-atomicfloat", "-O"}},
		{"vulkan1.3-atomicfloat-Os", spirv.EnvVulkan1_3, false, []string{"-target", "vulkan1.3", "-Os", "-atomicfloat"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			_, stderr, code := lucentc(t, append(c.args, "-validate=false", "-o", dir, corpusDir)...)
			require.Equal(t, 0, code, stderr)
			got, err := filepath.Glob(filepath.Join(dir, "*.spv"))
			require.NoError(t, err)
			for i := range got {
				got[i] = filepath.Base(got[i])
			}
			sort.Strings(got)
			require.Equal(t, want, got)
			for _, name := range got {
				words := readSPV(t, filepath.Join(dir, name))
				require.Equal(t, uint32(0x07230203), words[0], name)
				require.Equal(t, uint32(c.env.SPIRVVersion()), words[1], "%s: SPIR-V version", name)
				err := spvtools.ValidateWith(words, c.env, spvtools.ValidateOptions{ScalarBlockLayout: true})
				if msg, known := knownInvalid[name]; known && c.portable {
					require.ErrorContains(t, err, msg, "%s validates now: remove it from knownInvalid", name)
					continue
				}
				require.NoError(t, err, name)
			}
			// Progress: the corpus is many kernels, each counted once.
			for i := range want {
				require.Contains(t, stderr, "["+strconv.Itoa(i+1)+"/"+strconv.Itoa(len(want))+"] kernels.")
			}
		})
	}
}

// TestValidation: lucentc's own validation (on by default) rejects exactly
// the known-invalid modules, each at its kernel, and writes nothing then;
// with -atomicfloat the whole corpus passes it.
func TestValidation(t *testing.T) {
	needSPIRVTools(t)
	dir := t.TempDir()
	_, stderr, code := lucentc(t, "-o", dir, corpusDir)
	lines := regexp.MustCompile(`(?m)^\S+\.go:\d+:\d+: kernel (\w+): validator \(vulkan1\.2\): .*$`).FindAllStringSubmatch(stderr, -1)
	var rejected []string
	for _, m := range lines {
		rejected = append(rejected, "kernels."+m[1]+".spv")
	}
	var want []string
	for name := range knownInvalid {
		want = append(want, name)
	}
	sort.Strings(want)
	sort.Strings(rejected)
	require.Equal(t, want, rejected, stderr)
	if len(want) > 0 {
		require.Equal(t, 1, code)
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		require.Empty(t, files)
	} else {
		require.Equal(t, 0, code, stderr)
	}
	_, stderr, code = lucentc(t, "-atomicfloat", "-o", dir, corpusDir)
	require.Equal(t, 0, code, stderr)
}

// TestDisassembly checks that -S prints, for every kernel, a header naming
// it followed by exactly what the disassembler makes of the written module.
func TestDisassembly(t *testing.T) {
	needSPIRVTools(t)
	dir := t.TempDir()
	stdout, stderr, code := lucentc(t, "-S", "-validate=false", "-o", dir, corpusDir)
	require.Equal(t, 0, code, stderr)
	for _, name := range corpusKernels(t) {
		kernel := strings.TrimSuffix(name, ".spv")
		text, err := spvtools.Disassemble(readSPV(t, filepath.Join(dir, name)), spirv.EnvVulkan1_2)
		require.NoError(t, err)
		i := strings.Index(stdout, "; "+kernel+" (")
		require.GreaterOrEqual(t, i, 0, "no header for %s", kernel)
		rest := stdout[i:]
		rest = rest[strings.Index(rest, "\n")+1:]
		require.True(t, strings.HasPrefix(rest, text), "%s: -S text differs from the disassembly of its .spv", kernel)
		require.Contains(t, text, "OpEntryPoint GLCompute")
	}
}

// TestOnlyDisassembly: -S alone writes no files.
func TestOnlyDisassembly(t *testing.T) {
	needSPIRVTools(t)
	wd, err := os.Getwd()
	require.NoError(t, err)
	before, _ := filepath.Glob(filepath.Join(wd, "*.spv"))
	stdout, stderr, code := lucentc(t, "-S", "-atomicfloat", corpusDir)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "OpEntryPoint GLCompute")
	after, _ := filepath.Glob(filepath.Join(wd, "*.spv"))
	require.Equal(t, before, after)
}

// TestPrintIR: -ir prints every kernel's IR under a header naming it, and
// writes no files.
func TestPrintIR(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	before, _ := filepath.Glob(filepath.Join(wd, "*.spv"))
	stdout, stderr, code := lucentc(t, "-ir", "-validate=false", corpusDir)
	require.Equal(t, 0, code, stderr)
	kernels := corpusKernels(t)
	require.NotEmpty(t, kernels)
	for _, name := range kernels {
		kernel := strings.TrimSuffix(name, ".spv")
		i := strings.Index(stdout, "// "+kernel+" (")
		require.GreaterOrEqual(t, i, 0, "no header for %s in\n%s", kernel, stdout)
		require.Contains(t, stdout[i:], "\nkernel ", kernel)
	}
	after, _ := filepath.Glob(filepath.Join(wd, "*.spv"))
	require.Equal(t, before, after)
}

// TestBadPackage compiles the rejected corpus: every expected diagnostic is
// listed, with its position, in one run; the status is 1 and nothing is written.
func TestBadPackage(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := lucentc(t, "-o", dir, badDir)
	require.Equal(t, 1, code)
	goldens, err := filepath.Glob(filepath.Join(badDir, "*.golden"))
	require.NoError(t, err)
	require.NotEmpty(t, goldens)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	require.Regexp(t, `^lucentc: \d+ errors$`, lines[len(lines)-1])
	diag := regexp.MustCompile(`^(\S+\.go):(\d+):(\d+): \S`)
	got := map[string]bool{}
	var prev [3]string
	for _, l := range lines[:len(lines)-1] {
		m := diag.FindStringSubmatch(l)
		require.NotNil(t, m, "not file:line:col: message: %q", l)
		got[filepath.Base(m[1])+l[len(m[1]):]] = true
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		pl, _ := strconv.Atoi(prev[1])
		pc, _ := strconv.Atoi(prev[2])
		sorted := m[1] > prev[0] || m[1] == prev[0] && (line > pl || line == pl && col >= pc)
		require.True(t, sorted, "diagnostics out of order at %q", l)
		prev = [3]string{m[1], m[2], m[3]}
	}
	n := 0
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		require.NoError(t, err)
		for _, want := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			require.True(t, got[want], "missing diagnostic %q", want)
			n++
		}
	}
	require.Equal(t, n, len(lines)-1, "diagnostics beyond the goldens:\n%s", stderr)
	spv, _ := filepath.Glob(filepath.Join(dir, "*"))
	require.Empty(t, spv, "files written despite errors")
}

func TestCommandLine(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{"help", []string{"-h"}, 0, "usage: lucentc", ""},
		{"bad target", []string{"-target", "vulkan9", corpusDir}, 2, "", `-target "vulkan9"`},
		{"O and Os", []string{"-O", "-Os", corpusDir}, 2, "", "exclude each other"},
		{"goout without go", []string{"-goout", "x", corpusDir}, 2, "", "need -go"},
		{"gotest without go", []string{"-gotest", corpusDir}, 2, "", "-gotest need -go"},
		{"bad gopkg", []string{"-go", "-gopkg", "a-b", corpusDir}, 2, "", "not a Go identifier"},
		{"gopkg without goout", []string{"-go", "-gopkg", "x", corpusDir}, 2, "", "-gopkg names the package of -goout, which is not given"},
		{"no such -C", []string{"-C", "/nonexistent/dir", corpusDir}, 2, "", "-C /nonexistent/dir: not a directory"},
		{"unknown flag", []string{"-nope"}, 2, "", "flag provided but not defined"},
		{"missing package", []string{"./nonexistent"}, 1, "", "nonexistent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := lucentc(t, c.args...)
			require.Equal(t, c.code, code, stderr)
			require.Contains(t, stdout, c.out)
			require.Contains(t, stderr, c.err)
			// The usage once, on stdout for -h; an error once, with the
			// hint, not the usage.
			require.LessOrEqual(t, strings.Count(stdout+stderr, "usage: lucentc"), 1, "%s%s", stdout, stderr)
			if c.err != "" {
				require.Equal(t, 1, strings.Count(stderr, c.err), stderr)
			}
		})
	}
}

// TestNoKernels: a package without kernels is an error, not a silent success.
func TestNoKernels(t *testing.T) {
	_, stderr, code := lucentc(t, "-S", "../../internal/testenv")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no //lucent:kernel functions")
}

// TestMixedPackages: one bad package among good ones fails the whole run,
// lists its errors, and leaves no output of the good ones behind.
func TestMixedPackages(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := lucentc(t, "-o", dir, corpusDir, badDir)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "control.go:9:3: panic is not supported")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	require.Empty(t, files)
}

// TestVerbose: -v names every kernel and reports the time of each stage.
func TestVerbose(t *testing.T) {
	needSPIRVTools(t)
	dir := t.TempDir()
	_, stderr, code := lucentc(t, "-v", "-atomicfloat", "-o", dir, corpusDir)
	require.Equal(t, 0, code, stderr)
	want := corpusKernels(t)
	require.Regexp(t, `lucentc: \d+ kernel\(s\): load \S+, packages \S+, codegen \S+, optimize \S+, validate \S+`, stderr)
	for _, name := range want {
		require.Contains(t, stderr, "wrote "+filepath.Join(dir, name))
	}
}

// TestKernelError: errors after the front end name the kernel at its
// position, stay on one line, and keep both ErrCompile and the cause.
func TestKernelError(t *testing.T) {
	k := &gokernel.Kernel{Name: "Saxpy", Pos: token.Position{Filename: "k.go", Line: 12, Column: 6}}
	err := newKernelError(k, fmt.Errorf("validator (vulkan1.2): %w", fmt.Errorf("%w: line one\n  line two", spvtools.ErrInvalid)))
	require.Equal(t, "k.go:12:6: kernel Saxpy: validator (vulkan1.2): spvtools: invalid SPIR-V: line one line two", err.Error())
	require.ErrorIs(t, err, ErrCompile)
	require.ErrorIs(t, err, spvtools.ErrInvalid)
}

// TestLoadEnv: the lucentc tag joins the user's GOFLAGS, tags included.
func TestLoadEnv(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "-tags=lucentc"},
		{"-mod=mod", "-mod=mod -tags=lucentc"},
		{"-tags=a,b -mod=mod", "-tags=a,b,lucentc -mod=mod"},
		{"-tags=", "-tags=lucentc"},
	} {
		t.Setenv("GOFLAGS", c.in)
		env := loadEnv()
		require.Equal(t, "GOFLAGS="+c.want, env[len(env)-1], "GOFLAGS=%q", c.in)
	}
}

// TestCheckSPV: -check passes on fresh .spv files and names a missing one.
func TestCheckSPV(t *testing.T) {
	needSPIRVTools(t)
	dir := t.TempDir()
	_, stderr, code := lucentc(t, "-atomicfloat", "-o", dir, corpusDir)
	require.Equal(t, 0, code, stderr)
	_, stderr, code = lucentc(t, "-atomicfloat", "-check", "-o", dir, corpusDir)
	require.Equal(t, 0, code, stderr)
	name := corpusKernels(t)[0]
	require.NoError(t, os.Remove(filepath.Join(dir, name)))
	_, stderr, code = lucentc(t, "-atomicfloat", "-check", "-o", dir, corpusDir)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "out of date: "+filepath.Join(dir, name))
	_, err := os.Stat(filepath.Join(dir, name))
	require.True(t, os.IsNotExist(err), "-check wrote a file")
}

// TestCheckSPVOrphan: -check names a .spv of the compiled package whose
// kernel is gone (renamed or removed), and leaves other packages' alone.
func TestCheckSPVOrphan(t *testing.T) {
	needSPIRVTools(t)
	dir := t.TempDir()
	_, stderr, code := lucentc(t, "-atomicfloat", "-o", dir, corpusDir)
	require.Equal(t, 0, code, stderr)
	gone := filepath.Join(dir, "kernels.Gone.spv")
	old, err := os.ReadFile(filepath.Join(dir, corpusKernels(t)[0]))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(gone, old, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.Kernel.spv"), old, 0o644))
	_, stderr, code = lucentc(t, "-atomicfloat", "-check", "-o", dir, corpusDir)
	require.Equal(t, 1, code, stderr)
	require.True(t, strings.HasSuffix(stderr, "\n"+gone+": github.com/lucent-gpu/lucent/testdata/gokernel declares no kernel Gone: delete the file\n"), stderr)
	require.NotContains(t, stderr, "other.Kernel.spv")
	require.NoError(t, os.Remove(gone))
	_, stderr, code = lucentc(t, "-atomicfloat", "-check", "-o", dir, corpusDir)
	require.Equal(t, 0, code, stderr)
}

// TestWriteFileNamesTheOutput: a file lucentc cannot write is named in the
// error, not the temporary file it writes first (".x.spv.123456").
func TestWriteFileNamesTheOutput(t *testing.T) {
	name := filepath.Join(t.TempDir(), "missing", "x.spv")
	err := writeFile(name, []byte{1})
	require.Error(t, err)
	require.Equal(t, "lucentc: writing "+name+": no such file or directory", err.Error())
}
