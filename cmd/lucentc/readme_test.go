package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestReadmeRecipe follows the README as a new user would, in a fresh
// module: go mod init, the README's go get -tool line, its kernel file with
// its //go:generate line, go generate, go build, go tool lucentc -check; then
// its kernel.Run, launcher and DSL snippets, as written but for the backend's
// name, in one program run on the cpu backend with no Vulkan driver found. It
// leaves out go mod tidy, which wants the tests' dependencies of lucent's
// dependencies (go-cmp for golang.org/x/tools), which a module cache need not
// hold; -mod=mod adds the requirements the build needs instead. It runs
// offline (a replace directive to this checkout, GOPROXY=off and GOSUMDB=off,
// so only the module cache is used) and skips when the cache lacks a dependency, unless
// LUCENT_REQUIRE_VULKAN=1.
func TestReadmeRecipe(t *testing.T) {
	needSPIRVTools(t)
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	getTool := regexp.MustCompile("(?m)^go get -tool (\\S+)$").FindSubmatch(readme)
	require.NotNil(t, getTool, "README has no go get -tool line")
	require.Equal(t, "github.com/lucent-gpu/lucent/cmd/lucentc", string(getTool[1]))
	// The kernel file is the README's first Go block, which holds the
	// //go:generate line.
	block := regexp.MustCompile("(?s)```go\n(package kern\n.*?)```").FindSubmatch(readme)
	require.NotNil(t, block, "README has no kernel package block")
	kern := string(block[1])
	require.Contains(t, kern, "//go:generate go tool lucentc -go .\n")

	dir := t.TempDir()
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	// The checksum database stands behind a fresh module's go.sum entries;
	// offline, the module cache's own hashes fill them instead.
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOWORK", "off")
	t.Setenv("CGO_ENABLED", "0")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	gocmd := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	step := func(args ...string) {
		t.Helper()
		out, err := gocmd(args...)
		if err != nil && offlineMiss(out) {
			testenv.Need(t, "the module cache holding lucent's dependencies", errors.New(strings.TrimSpace(out)))
		}
		require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
	}
	step("mod", "init", "example.com/fresh")
	// The replace directive stands for the published module; the version is
	// the one the replacement answers to.
	step("mod", "edit", "-require=github.com/lucent-gpu/lucent@v0.0.0", "-replace=github.com/lucent-gpu/lucent="+root)
	step("get", "-tool", string(getTool[1]))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "kern"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kern", "kern.go"), []byte(kern), 0o644))
	step("generate", "./...")
	gen, err := os.ReadFile(filepath.Join(dir, "kern", goFileName))
	require.NoError(t, err, "go generate wrote no launcher")
	require.Contains(t, string(gen), "func NewSaxpy(dev *device.Device) (*SaxpyKernel, error)")
	step("build", "./...")
	step("tool", "lucentc", "-check", "./kern")

	// The README's snippets, as written, in one program on the cpu backend
	// with no Vulkan driver to be found: kernel.Run, the launcher, the DSL
	// kernel, each adding a*x to y once more.
	snippets := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1)
	var run, launch, dslK string
	for _, m := range snippets {
		switch b := string(m[1]); {
		case strings.HasPrefix(b, "err := kernel.Run("):
			run = b
		case strings.HasPrefix(b, "dev, err := device.Open(ctx, \"vulkan\")"):
			launch = strings.Replace(b, `device.Open(ctx, "vulkan")`, `device.Open(ctx, "cpu")`, 1)
		case strings.HasPrefix(b, "saxpy, err := dsl.Kernel1D("):
			dslK = b
		}
	}
	require.NotEmpty(t, run, "README has no kernel.Run snippet")
	require.NotEmpty(t, launch, "README has no launcher snippet")
	require.NotEmpty(t, dslK, "README has no DSL snippet")
	prog := `package main

import (
	"context"
	"fmt"
	"log"

	"example.com/fresh/kern"
	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/kernel"
)

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func main() {
	ctx := context.Background()
	const n = 1000
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), 1
	}
	{
` + run + `		check(err)
	}
	{
` + launch + `		check(err)
		{
` + dslK + `			check(err)
			check(stream.Submit(yb.Download(y)))
			check(stream.Synchronize(ctx))
		}
		fmt.Println("backend", dev.Backend())
	}
	for i := range y {
		if want := 6*float32(i) + 1; y[i] != want {
			log.Fatalf("y[%d] = %v, want %v", i, y[i], want)
		}
	}
	fmt.Println("readme ok")
}
`
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "run"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run", "main.go"), []byte(prog), 0o644))
	cmd := exec.CommandContext(ctx, "go", "run", "./run")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "VK_DRIVER_FILES=/nonexistent", "VK_ICD_FILENAMES=/nonexistent")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the README's snippets on the cpu backend:\n%s\n%s", out, prog)
	require.Contains(t, string(out), "backend cpu")
	require.Contains(t, string(out), "readme ok")
}

// offlineMiss reports whether go's output says a module was not in the
// cache (GOPROXY=off refused to fetch it).
func offlineMiss(out string) bool {
	return strings.Contains(out, "GOPROXY=off") || strings.Contains(out, "module lookup disabled")
}
