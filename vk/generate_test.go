package vk

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/stretchr/testify/require"
)

const registryPath = "/usr/share/vulkan/registry/vk.xml"

// TestGeneratedFilesFresh regenerates the bindings from the registry into a
// temporary directory and requires byte-identical files: it fails when the
// committed files are stale or the generator is not deterministic.
func TestGeneratedFilesFresh(t *testing.T) {
	_, err := os.Stat(registryPath)
	testenv.Need(t, "the Vulkan registry (vk.xml)", err)
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		out, err := exec.Command(goBin, "run", "../internal/gen/vkgen", "-registry", registryPath, "-out", dir).CombinedOutput()
		require.NoError(t, err, "vkgen:\n%s", out)
	}
	files := []string{"constants_gen.go", "types_gen.go", "structs_gen.go", "commands_gen.go", "layout_gen_test.go", "testdata/layout_gen.c"}
	for _, name := range files {
		committed, err := os.ReadFile(name)
		require.NoError(t, err)
		for _, dir := range dirs {
			fresh, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			require.True(t, bytes.Equal(committed, fresh), "%s is stale: run go generate ./vk", name)
		}
	}
	all, err := filepath.Glob("*_gen*.go")
	require.NoError(t, err)
	require.Len(t, all, 5, "every generated Go file is checked")
}
