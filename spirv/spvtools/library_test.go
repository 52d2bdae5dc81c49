package spvtools

import (
	"errors"
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

func TestCandidatesPreferTheEnvironment(t *testing.T) {
	t.Setenv(EnvLibrary, "/opt/x/libSPIRV-Tools.so")
	require.Equal(t, "/opt/x/libSPIRV-Tools.so", candidates()[0])
}
