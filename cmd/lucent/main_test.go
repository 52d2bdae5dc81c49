package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/stretchr/testify/require"
)

// envRunAsLucent makes the test binary run main() instead of the tests, so a
// test can run the command in a process of its own, with an environment of
// its own (the Vulkan loader reads VK_DRIVER_FILES once per process).
const envRunAsLucent = "LUCENT_TEST_RUN_AS_LUCENT"

func TestMain(m *testing.M) {
	if os.Getenv(envRunAsLucent) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runLucent runs `lucent args...` in a child process with env added to the
// test's environment, and returns its combined output and error.
func runLucent(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	return runLucentIn(t, "", env, args...)
}

// runLucentIn is runLucent in the working directory dir ("": the test's).
func runLucentIn(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), envRunAsLucent+"=1"), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// needVulkanDevice skips (or fails, under LUCENT_REQUIRE_VULKAN=1) a test
// that needs the vulkan backend to see a device.
func needVulkanDevice(t *testing.T) {
	t.Helper()
	list, err := device.Enumerate(context.Background(), "vulkan")
	if err == nil && len(list) == 0 {
		err = errors.New("no adapter")
	}
	testenv.Need(t, "Vulkan device", err)
}
