// Package testenv decides what a test does when the machine lacks something it
// needs (a Vulkan driver, SPIRV-Tools, a display, a C compiler).
//
// The one rule: on a bare machine such a test skips, but when the environment
// variable LUCENT_REQUIRE_VULKAN=1 is set (CI sets it) it fails instead, so a
// CI run can never go green by skipping.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Required reports whether missing prerequisites must fail tests rather than skip them.
func Required() bool { return os.Getenv("LUCENT_REQUIRE_VULKAN") == "1" }

// Need is called by a test whose prerequisite `what` is unavailable because of err.
// It skips the test, or fails it under LUCENT_REQUIRE_VULKAN=1.
func Need(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if Required() {
		t.Fatalf("%s is required (LUCENT_REQUIRE_VULKAN=1) but unavailable: %v", what, err)
	}
	t.Skipf("%s unavailable: %v", what, err)
}

// NeedGoCommand skips a test that runs the go command (gokernel.Load lists
// packages that import more than kernel, math and math/bits with go list)
// where there is none. Unlike Need it skips even under LUCENT_REQUIRE_VULKAN:
// a go test run always has the go command, so only prebuilt test binaries
// (bench/gpu-prepare.sh, for a GPU machine without Go) come here.
func NeedGoCommand(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("the go command is unavailable (a prebuilt test binary): %v", err)
	}
}
