package spirv_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestGeneratedTablesAreFresh regenerates the tables into a temporary
// directory and compares them byte for byte with the committed *_gen.go.
func TestGeneratedTablesAreFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	_, err := os.Stat("/usr/include/spirv/unified1/spirv.core.grammar.json")
	testenv.Need(t, "the SPIR-V grammar (spirv-headers)", err)
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "../internal/gen/spirvgen", "-out", dir)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	files, err := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	committed, err := filepath.Glob("*_gen.go")
	require.NoError(t, err)
	require.Len(t, committed, len(files), "generated file set differs")
	for _, f := range files {
		want, err := os.ReadFile(f)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Base(f))
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "%s is stale: run go generate ./spirv", filepath.Base(f))
	}
}
