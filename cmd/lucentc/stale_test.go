package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// staleProgram creates two launchers' kernels on the cpu backend and prints
// what each constructor returns.
const staleProgram = `package main

import (
	"context"
	"fmt"

	"example.com/e2e/kern"
	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
)

func main() {
	dev, err := device.Open(context.Background(), "cpu")
	if err != nil {
		panic(err)
	}
	defer dev.Close()
	if k, err := kern.NewSaxpy(dev); err != nil {
		fmt.Println("saxpy:", err)
	} else {
		fmt.Println("saxpy: ok")
		k.Close()
	}
	if k, err := kern.NewReverse(dev); err != nil {
		fmt.Println("reverse:", err)
	} else {
		fmt.Println("reverse: ok")
		k.Close()
	}
}
`

// TestLauncherStaleAtRunTime: a launcher's constructor refuses a kernel
// whose source changed since the launcher was generated (naming the kernel
// and the command to rerun), where the program can read the source it was
// built from; a comment or layout change, an edit to another kernel, and
// an edit made after the build do not count.
func TestLauncherStaleAtRunTime(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"kern/kern.go": kernSource, "main.go": staleProgram})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 0, code, stderr)
	gen, err := os.ReadFile(filepath.Join(dir, "kern", goFileName))
	require.NoError(t, err)
	require.Regexp(t, `if err := lucentcStale\("kern.Saxpy", "Saxpy", Saxpy, "[0-9a-f]{32}", `, string(gen))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	prog := filepath.Join(t.TempDir(), "prog")
	runProg := func() string {
		t.Helper()
		out, err := goCommand(t, ctx, dir, "build", "-o", prog, ".")
		require.NoError(t, err, out)
		return runBuilt(t, ctx, dir, prog)
	}
	kernFile := filepath.Join(dir, "kern", "kern.go")
	edit := func(src string) {
		t.Helper()
		require.NoError(t, os.WriteFile(kernFile, []byte(src), 0o644))
	}

	require.Equal(t, "saxpy: ok\nreverse: ok\n", runProg())

	// Comments and layout do not change the kernel.
	edit(strings.Replace(kernSource, "y[i] = a*x[i] + y[i]", "y[i] = a * x[i] + y[i] // unchanged", 1))
	require.Equal(t, "saxpy: ok\nreverse: ok\n", runProg())

	// Saxpy's body changes: its constructor refuses, Reverse's does not.
	edit(strings.Replace(kernSource, "y[i] = a*x[i] + y[i]", "y[i] = a*x[i] - y[i]", 1))
	out := runProg()
	require.Regexp(t, `^saxpy: kernel kern.Saxpy \(\S*kern/kern\.go\) changed since its launcher was generated: the launcher would run the old kernel; rerun "go generate" in example\.com/e2e/kern \(or "go tool lucentc -go -target vulkan1\.2 example\.com/e2e/kern"\)\nreverse: ok\n$`, out)

	// So does a changed directive (the block size).
	edit(strings.Replace(kernSource, "//lucent:kernel block=128", "//lucent:kernel block=64", 1))
	require.Regexp(t, `^saxpy: ok\nreverse: kernel kern.Reverse .* changed since its launcher was generated`, runProg())

	// An edit made after the program was built is not what it runs.
	edit(kernSource)
	out, err = goCommand(t, ctx, dir, "build", "-o", prog, ".")
	require.NoError(t, err, out)
	time.Sleep(10 * time.Millisecond)
	edit(strings.Replace(kernSource, "y[i] = a*x[i] + y[i]", "y[i] = a*x[i] - y[i]", 1))
	future := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(kernFile, future, future))
	require.Equal(t, "saxpy: ok\nreverse: ok\n", runBuilt(t, ctx, dir, prog))
}

func runBuilt(t *testing.T, ctx context.Context, dir, prog string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, prog)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, string(b))
	return string(b)
}

// TestKernelSourceHash: the hash sees a kernel's tokens and directive, not
// its comments or layout, nor other declarations (a method of the same
// name); and the copy the launchers carry is the same code.
func TestKernelSourceHash(t *testing.T) {
	const src = `package p

// M is a method named as the kernel.
func (T) K(x []float32) { x[0] = 2 }

// K is a kernel.
//
//lucent:kernel block=64
func K(x []float32) {
	x[0] = 1 // one
}

func G[T any](v T) {}
`
	h, ok := kernelSourceHash([]byte(src), "K")
	require.True(t, ok)
	require.Regexp(t, `^[0-9a-f]{32}$`, h)
	same := []string{
		strings.Replace(src, "x[0] = 1 // one", "x[0]   =   1", 1),
		strings.Replace(src, "// K is a kernel.\n", "", 1),
		strings.Replace(src, "block=64", " block=64 ", 1),
		strings.Replace(src, "x[0] = 2", "x[0] = 3", 1),
	}
	for _, s := range same {
		got, ok := kernelSourceHash([]byte(s), "K")
		require.True(t, ok)
		require.Equal(t, h, got, s)
	}
	differ := []string{
		strings.Replace(src, "x[0] = 1", "x[0] = 2", 1),
		strings.Replace(src, "block=64", "block=32", 1),
		strings.Replace(src, "(x []float32) {\n", "(x []float64) {\n", 1),
	}
	for _, s := range differ {
		got, ok := kernelSourceHash([]byte(s), "K")
		require.True(t, ok)
		require.NotEqual(t, h, got, s)
	}
	_, ok = kernelSourceHash([]byte(src), "G")
	require.True(t, ok, "a generic function")
	_, ok = kernelSourceHash([]byte(src), "Missing")
	require.False(t, ok)

	// The generated copy is kernelSourceHash with the import names marked.
	self, err := os.ReadFile("srchash.go")
	require.NoError(t, err)
	body := func(s, name string) string {
		i := strings.Index(s, "func "+name+"(")
		require.GreaterOrEqual(t, i, 0, name)
		j := strings.Index(s[i:], "\n}\n")
		require.GreaterOrEqual(t, j, 0, name)
		return strings.TrimPrefix(s[i:i+j], "func "+name)
	}
	require.Equal(t, body(string(self), "kernelSourceHash"),
		strings.ReplaceAll(body(sourceHashTemplate, "lucentcSourceHash"), "@", ""))
}

// TestGenerateGoTest: -gotest writes a test beside the launchers that
// passes while they are fresh and, in go test, names each kernel changed
// since (a callee's change included), as -check does.
func TestGenerateGoTest(t *testing.T) {
	needSPIRVTools(t)
	const helper = "\nfunc twice(v float32) float32 { return 2 * v }\n"
	src := strings.Replace(kernSource, "y[i] = a*x[i] + y[i]", "y[i] = twice(a)*x[i] + y[i]", 1) + helper
	dir := tempModule(t, map[string]string{"kern/kern.go": src})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "-gotest", "./kern")
	require.Equal(t, 0, code, stderr)
	test, err := os.ReadFile(filepath.Join(dir, "kern", goTestFileName))
	require.NoError(t, err)
	require.Contains(t, string(test), "//go:build !lucentc\n\npackage kern\n")
	require.Regexp(t, `"example\.com/e2e/kern\.Saxpy": +irSaxpy,`, string(test))
	_, stderr, code = lucentc(t, "-C", dir, "-go", "-gotest", "-check", "./kern")
	require.Equal(t, 0, code, stderr)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := goCommand(t, ctx, dir, "test", "-count=1", "-run", "TestLucentKernelsFresh", "./kern")
	require.NoError(t, err, out)

	// The helper Saxpy calls changes: the IR, not Saxpy's own source.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kern", "kern.go"),
		[]byte(strings.Replace(src, "return 2 * v", "return 3 * v", 1)), 0o644))
	out, err = goCommand(t, ctx, dir, "test", "-count=1", "-run", "TestLucentKernelsFresh", "./kern")
	require.Error(t, err, out)
	require.Regexp(t, `kern\.go:\d+:6: kernel example\.com/e2e/kern\.Saxpy changed since its launcher in lucent_kernels\.go was generated: rerun "go generate" \(or "go tool lucentc -go -gotest -target vulkan1\.2 example\.com/e2e/kern"\)`, out)
	require.NotContains(t, out, "Reverse")
	require.NotContains(t, out, "Affine2D")
}
