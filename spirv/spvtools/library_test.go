package spvtools

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMissingLibrarySaysHowToInstall(t *testing.T) {
	_, err := open([]string{"/nonexistent/libSPIRV-Tools-shared.so"})
	require.Error(t, err)
	require.True(t, errors.Is(err, ErrUnavailable))
	require.Contains(t, err.Error(), "make setup")
	require.Contains(t, err.Error(), EnvLibrary)
	require.Contains(t, err.Error(), "/nonexistent/libSPIRV-Tools-shared.so")
}

func TestEnvironmentLibraryIsLoaded(t *testing.T) {
	const p = "/usr/local/lib/libSPIRV-Tools-shared.so"
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no %s: %v", p, err)
	}
	t.Setenv(EnvLibrary, p)
	l, err := openLibrary()
	require.NoError(t, err)
	require.Equal(t, p, l.path)
}

// A library named by LUCENT_SPIRV_TOOLS that does not load is an error
// naming the path, not a silent fall-back to another copy.
func TestJunkEnvironmentLibraryIsAnError(t *testing.T) {
	t.Setenv(EnvLibrary, "/nonexistent/junk-SPIRV-Tools.so")
	_, err := openLibrary()
	require.Error(t, err)
	require.ErrorIs(t, err, ErrUnavailable)
	require.Contains(t, err.Error(), "/nonexistent/junk-SPIRV-Tools.so")
	require.Contains(t, err.Error(), EnvLibrary)

	// A file that loads but is not SPIRV-Tools is refused too.
	self, err := os.Executable()
	require.NoError(t, err)
	t.Setenv(EnvLibrary, self)
	_, err = openLibrary()
	require.ErrorIs(t, err, ErrUnavailable)
	require.Contains(t, err.Error(), self)
}
