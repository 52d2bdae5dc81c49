package device_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestMain keeps the examples honest on a machine without Vulkan. An example
// prints what a real device computed and cannot skip, so where no Vulkan
// device exists (and LUCENT_REQUIRE_VULKAN is not 1) a run without -run
// leaves the examples out, as the tests needing Vulkan skip. Under
// LUCENT_REQUIRE_VULKAN=1 they always run, and fail without a device.
func TestMain(m *testing.M) {
	flag.Parse()
	if run := flag.Lookup("test.run"); !testenv.Required() && run != nil && run.Value.String() == "" {
		list, err := device.Enumerate(context.Background(), "vulkan")
		if err == nil && len(list) == 0 {
			err = fmt.Errorf("no adapter")
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "device: examples left out, Vulkan unavailable: %v\n", err)
			_ = run.Value.Set("^Test")
		}
	}
	os.Exit(m.Run())
}
