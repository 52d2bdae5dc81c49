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
// its //go:generate line, go generate, go build, go tool lucentc -check. It
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
}

// offlineMiss reports whether go's output says a module was not in the
// cache (GOPROXY=off refused to fetch it).
func offlineMiss(out string) bool {
	return strings.Contains(out, "GOPROXY=off") || strings.Contains(out, "module lookup disabled")
}
