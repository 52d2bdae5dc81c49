package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// otherKern is a second package named kern with a kernel named Saxpy.
const otherKern = `package kern

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Saxpy(a float32, x, y []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(y)) {
		y[i] = a*x[i] - y[i]
	}
}
`

// TestModulePatterns runs lucentc over ./... of a module as a CI step
// would: a program using the launchers (which the lucentc build tag leaves
// out, so it does not type-check under it) and two packages named kern,
// each with a kernel Saxpy. Only outputs that two kernels really share
// clash: the .spv files of one -o directory and the launchers of one
// -goout package, once per kernel.
func TestModulePatterns(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"kern/kern.go": kernSource, "main.go": programSource, "other/kern/kern.go": otherKern})

	_, stderr, code := lucentc(t, "-C", dir, "-go", "./...")
	require.Equal(t, 0, code, stderr)
	for _, p := range []string{"kern", "other/kern"} {
		require.FileExists(t, filepath.Join(dir, p, goFileName))
	}
	_, stderr, code = lucentc(t, "-C", dir, "-check", "./...")
	require.Equal(t, 0, code, stderr)
	stdout, stderr, code := lucentc(t, "-C", dir, "-S", "./...")
	require.Equal(t, 0, code, stderr)
	heads := strings.Join(regexp.MustCompile(`(?m)^; kern\.Saxpy \(\S*`).FindAllString(stdout, -1), "\n")
	require.Regexp(t, `^; kern\.Saxpy \(`+regexp.QuoteMeta(dir)+`/kern/kern\.go:\d+:6,\n; kern\.Saxpy \(\S*/other/kern/kern\.go:6:6,$`, heads)

	_, stderr, code = lucentc(t, "-C", dir, "-o", "out", "./...")
	require.Equal(t, 1, code, stderr)
	require.Regexp(t, `other/kern/kern\.go:6:6: kernel Saxpy: output kern\.Saxpy\.spv is also written by the kernel at \S*kern/kern\.go:\d+:6`, stderr)

	_, stderr, code = lucentc(t, "-C", dir, "-go", "-goout", "shared", "./kern", "./other/kern")
	require.Equal(t, 1, code, stderr)
	require.Equal(t, 1, strings.Count(stderr, "is also generated for"), stderr)
	require.Regexp(t, `other/kern/kern\.go:6:6: kernel Saxpy: generated name SaxpyKernel is also generated for the kernel at \S*kern/kern\.go:\d+:6: write their launchers into different -goout packages`, stderr)
	_, err := os.Stat(filepath.Join(dir, "shared"))
	require.True(t, os.IsNotExist(err), "nothing written")
}

// TestGooutFromAnyDirectory: a -goout file is the same whichever directory
// lucentc ran in and however -goout was spelt (its header and the rerun
// hints give -goout from the kernel package's directory, where go:generate
// runs), so a -check from the module root passes on the file go generate
// wrote in the package.
func TestGooutFromAnyDirectory(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"kern/kern.go": kernSource})
	gen := filepath.Join(dir, "gen", "launch", goFileName)
	_, stderr, code := lucentc(t, "-C", filepath.Join(dir, "kern"), "-go", "-goout", "../gen/launch", ".")
	require.Equal(t, 0, code, stderr)
	first, err := os.ReadFile(gen)
	require.NoError(t, err)
	require.Contains(t, string(first), "\n// lucentc -go -goout ../gen/launch -target vulkan1.2\n")
	require.Contains(t, string(first), `(or \"go tool lucentc -go -goout ../gen/launch -target vulkan1.2 example.com/e2e/kern\")`)
	for _, args := range [][]string{
		{"-C", dir, "-go", "-goout", "gen/launch", "./kern"},
		{"-C", dir, "-go", "-goout", filepath.Join(dir, "gen", "launch"), "./kern"},
		{"-C", filepath.Join(dir, "gen"), "-go", "-goout", "./launch/", "../kern"},
	} {
		_, stderr, code = lucentc(t, append([]string{"-check"}, args...)...)
		require.Equal(t, 0, code, "%q: %s", args, stderr)
		_, stderr, code = lucentc(t, args...)
		require.Equal(t, 0, code, "%q: %s", args, stderr)
		again, err := os.ReadFile(gen)
		require.NoError(t, err)
		require.Equal(t, string(first), string(again), "%q", args)
	}
}

// TestLauncherOfNoKernel: a package whose kernels are all gone (the
// directive removed, the function kept, so the old launcher still builds)
// is named with its launcher file by -check and -go, under ./... as in the
// package itself, until the file is deleted.
func TestLauncherOfNoKernel(t *testing.T) {
	needSPIRVTools(t)
	gone := "package gone\n\nimport \"github.com/lucent-gpu/lucent/kernel\"\n\n//lucent:kernel block=64\nfunc A(x []float32) { x[kernel.DispatchID().X] = 1 }\n"
	dir := tempModule(t, map[string]string{"kern/kern.go": kernSource, "gone/gone.go": gone})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "-gotest", "./...")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gone", "gone.go"), []byte(strings.Replace(gone, "//lucent:kernel block=64\n", "", 1)), 0o644))

	want := "gone/lucent_kernels.go: launchers of A, which example.com/e2e/gone no longer declares as kernels: delete the file and lucent_kernels_test.go"
	for _, args := range [][]string{
		{"-C", dir, "-check", "./..."},
		{"-C", dir, "-go", "-gotest", "./..."},
		{"-C", filepath.Join(dir, "gone"), "-go", "-gotest", "."},
	} {
		_, stderr, code = lucentc(t, args...)
		require.Equal(t, 1, code, "%q: %s", args, stderr)
		require.Contains(t, stderr, want, "%q", args)
	}
	require.NoError(t, os.Remove(filepath.Join(dir, "gone", goFileName)))
	require.NoError(t, os.Remove(filepath.Join(dir, "gone", goTestFileName)))
	_, stderr, code = lucentc(t, "-C", dir, "-check", "./...")
	require.Equal(t, 0, code, stderr)
}

// mainKern is a program with its kernel: main uses the launcher lucentc
// writes beside it.
const mainKern = `package main

import (
	"context"
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/kernel"
)

//lucent:kernel block=64
func Fill(x []uint32, v uint32) {
	i := kernel.DispatchID().X
	if i < uint32(len(x)) {
		x[i] = v + i
	}
}

func main() {
	ctx := context.Background()
	dev, err := device.Open(ctx, "cpu")
	if err != nil {
		panic(err)
	}
	defer dev.Close()
	k, err := NewFill(dev)
	if err != nil {
		panic(err)
	}
	s, _ := dev.NewStream(device.StreamCompute)
	buf, _ := device.NewBuffer[uint32](dev, 100)
	out := make([]uint32, 100)
	if err := s.Submit(k.Dispatch(100, buf, 7), buf.Download(out)); err != nil {
		panic(err)
	}
	if err := s.Synchronize(ctx); err != nil {
		panic(err)
	}
	fmt.Println("filled", out[0], out[99])
}
`

// TestKernelPackageUsingItsLaunchers: a package that uses its own
// launchers (which the lucentc build tag leaves out, so it never
// type-checks under it) is generated, the first time and again, and
// checked.
func TestKernelPackageUsingItsLaunchers(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"app/main.go": mainKern})
	for range 2 {
		_, stderr, code := lucentc(t, "-C", dir, "-go", "./app")
		require.Equal(t, 0, code, stderr)
	}
	_, stderr, code := lucentc(t, "-C", dir, "-check", "./...")
	require.Equal(t, 0, code, stderr)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	out, err := goCommand(t, ctx, dir, "run", "./app")
	require.NoError(t, err, out)
	require.Contains(t, out, "filled 7 106")
}

// TestGooutOverOwnLaunchers: -goout into a kernel package's directory
// would overwrite the launchers that package keeps beside its kernels; it
// is refused, naming them.
func TestGooutOverOwnLaunchers(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"kern/kern.go": kernSource, "other/kern/kern.go": otherKern})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 0, code, stderr)
	own := filepath.Join(dir, "kern", goFileName)
	before, err := os.ReadFile(own)
	require.NoError(t, err)
	_, stderr, code = lucentc(t, "-C", dir, "-go", "-goout", "kern", "./other/kern")
	require.Equal(t, 1, code, stderr)
	require.Regexp(t, `lucentc: -goout \S*kern: \S*kern/lucent_kernels\.go holds the launchers of the kernels beside it \(Affine2D, Invert, Reverse, Saxpy\), which this would overwrite: write into another directory`, stderr)
	after, err := os.ReadFile(own)
	require.NoError(t, err)
	require.Equal(t, string(before), string(after))
	// A -goout file is rewritten as before.
	for range 2 {
		_, stderr, code = lucentc(t, "-C", dir, "-go", "-goout", "launch", "./other/kern")
		require.Equal(t, 0, code, stderr)
	}
}
