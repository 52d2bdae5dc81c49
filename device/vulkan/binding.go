package vulkan

import (
	"fmt"
	"os"

	"github.com/lucent-gpu/lucent/vk"
)

// The binding choice. Resource arguments reach a kernel through push
// descriptors (VK_KHR_push_descriptor: the writes go into the command buffer)
// or through descriptor sets cached per tuple of bound resources (descset.go:
// written once, bound by handle). Which is cheaper depends on the driver, not
// on the API: on Mesa 25 lavapipe a push costs microseconds where binding a
// cached set costs tens of nanoseconds, on Mesa 22.3 they cost the same. So
// the choice is a per-driver table, kept true by BenchmarkBindingChoice (run
// on each driver the table names; bench/gpu.sh runs it on NVIDIA), rather
// than a calibration at Open, which would need a pipeline and a timed run on
// every start and would be at the mercy of a busy CPU. Capabilities.Binding
// says what was chosen; LUCENT_VULKAN_BINDING=push or =sets overrides the
// table (push only where the extension exists).
//
// Device addresses are not a choice of the table: a buffer goes by address
// where it must (beyond maxStorageBufferRange, or a module's own
// PhysicalStorageBuffer pointers); bound by descriptor, saxpy ran 1.7–5×
// faster than by address on Mesa 22.3 lavapipe (BenchmarkBinding).

// The values of Capabilities.Binding.
const (
	BindPush = "push descriptors"
	BindSets = "descriptor sets"
)

// EnvBinding overrides the binding table: "push" or "sets".
const EnvBinding = "LUCENT_VULKAN_BINDING"

// bindingRule is one row of the table: drivers with this id from this
// version on (the driver's own VkPhysicalDeviceProperties.driverVersion
// encoding; 0: every version) bind this way, for this reason.
type bindingRule struct {
	driver     vk.DriverId
	minVersion uint32
	binding    string
	why        string
}

// bindingTable is searched from the top; the first matching row wins.
// Devices no row names use push descriptors where they have them: that is
// what the extension is for, and what the peers default to.
var bindingTable = []bindingRule{
	{vk.DRIVER_ID_MESA_LLVMPIPE, 0, BindSets,
		"lavapipe: a push re-encodes every descriptor (~6 µs a dispatch on Mesa 25), a cached set is bound by handle; on Mesa 22.3 both cost the same"},
}

// chooseBinding picks how p binds resources, and says why.
func chooseBinding(p *physical, hasPush bool) (binding, why string) {
	switch env := os.Getenv(EnvBinding); {
	case noPushDescriptorsForced() || env == "sets":
		return BindSets, "forced by the environment"
	case env == "push" && hasPush:
		return BindPush, "forced by the environment"
	}
	if !hasPush {
		return BindSets, "no VK_KHR_push_descriptor"
	}
	for _, r := range bindingTable {
		if r.driver == p.p12.DriverID && p.props.DriverVersion >= r.minVersion {
			return r.binding, r.why
		}
	}
	return BindPush, fmt.Sprintf("the default for %v", p.p12.DriverID)
}
