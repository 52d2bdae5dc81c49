package archtest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBackendFromAnotherModule builds and tests testdata/extbackend, a backend
// in a module of its own (example.com/lucentinterp) that imports only lucent's
// public packages, registers as "interp", opens through a Context and runs a
// kernel it received as IR. The Go toolchain checks the contract: a backend
// built against another version of device.Interface does not compile.
func TestBackendFromAnotherModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds another module")
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "extbackend")
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %v in %s:\n%s", args, dir, out)
	}
}
