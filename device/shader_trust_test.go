package device_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/shadercache"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// Compile's and LoadKernel's modules are lucent's own codegen output and
// marked Trusted, so they build where SPIRV-Tools is missing, while the very
// same words from outside (NewShader without Trusted) are refused there. The
// test runs itself again with LUCENT_SPIRV_TOOLS naming no library.
func TestOwnModulesAreTrusted(t *testing.T) {
	const child = "LUCENT_TEST_NO_SPIRV_TOOLS"
	if os.Getenv(child) == "" {
		exe, err := os.Executable()
		require.NoError(t, err)
		cmd := exec.Command(exe, "-test.run=^TestOwnModulesAreTrusted$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), child+"=1", spvtools.EnvLibrary+"=/nonexistent/libSPIRV-Tools-shared.so")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		if strings.Contains(string(out), "--- SKIP") {
			t.Skipf("%s", out)
		}
		require.Contains(t, string(out), "--- PASS: TestOwnModulesAreTrusted")
		return
	}
	_, err := spvtools.Path()
	require.ErrorIs(t, err, spvtools.ErrUnavailable)
	d := openVulkan(t)
	f, err := programs.Saxpy()
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	words := k.SPIRV()
	require.NoError(t, k.Close())

	store, err := shadercache.NewDir(t.TempDir())
	require.NoError(t, err)
	sig, err := device.SaveKernel(store, "saxpy", f)
	require.NoError(t, err)
	lk, err := device.LoadKernel(d, store, "saxpy", sig)
	require.NoError(t, err)
	require.NoError(t, lk.Close())

	_, err = d.NewShader(device.ShaderDesc{SPIRV: words, Name: "foreign"})
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.Contains(t, err.Error(), spvtools.EnvLibrary+"=/nonexistent/libSPIRV-Tools-shared.so")
	sh, err := d.NewShader(device.ShaderDesc{SPIRV: words, Name: "foreign", Trusted: true})
	require.NoError(t, err)
	require.NoError(t, sh.Close())
}
