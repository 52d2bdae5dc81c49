package device_test

import (
	"os"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
)

// testBackend is the backend the kernel tests (openDevice) run on: vulkan,
// or the one LUCENT_TEST_BACKEND names ("cpu"), so that one suite checks
// every backend against the same CPU references.
func testBackend() string {
	if b := os.Getenv("LUCENT_TEST_BACKEND"); b != "" {
		return b
	}
	return "vulkan"
}

// skipOn skips a test on backend, saying why (what that backend lacks).
func skipOn(t *testing.T, d *device.Device, backend, why string) {
	t.Helper()
	if d.Backend() == backend {
		t.Skipf("the %s backend: %s", backend, why)
	}
}
