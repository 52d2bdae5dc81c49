package codegen

import "fmt"

// Driver workarounds: codegen options that avoid a driver's known
// miscompilation, chosen by the driver's id and version. Each entry names
// the option it sets; the Vulkan backend applies the entries matching its
// device (Capabilities.Workarounds lists them, and so does `lucent info`),
// and since the options are part of the SPIR-V cache key, a module made
// with a workaround is never handed to a driver without it or the reverse.

// DriverMesaLLVMpipe is lavapipe's VkDriverId.
const DriverMesaLLVMpipe = 13 // lavapipe

// Workaround is one entry of the driver-workaround table.
type Workaround struct {
	Name string // e.g. "loop-exit-flags"
	// Driver is the VkDriverId the entry applies to, DriverName its name.
	Driver     uint32
	DriverName string
	// MinVersion and MaxVersion bound the driver versions it applies to,
	// [MinVersion, MaxVersion), in the driver's encoding of
	// VkPhysicalDeviceProperties.driverVersion (Mesa: VK_MAKE_VERSION of
	// its release).
	MinVersion, MaxVersion uint32
	// Why says what goes wrong without it.
	Why string

	apply func(*Options)
}

// Apply sets the entry's option in o.
func (w Workaround) Apply(o *Options) { w.apply(o) }

func (w Workaround) String() string {
	return fmt.Sprintf("%s (%s %s to %s: %s)", w.Name, w.DriverName, mesaVersionString(w.MinVersion), mesaVersionString(w.MaxVersion), w.Why)
}

// MesaVersion is Mesa's encoding of its release major.minor.patch in
// driverVersion (VK_MAKE_VERSION).
func MesaVersion(major, minor, patch uint32) uint32 { return major<<22 | minor<<12 | patch }

func mesaVersionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", v>>22, v>>12&0x3FF, v&0xFFF)
}

// workarounds is the table. Add an entry with the reduced test that fails
// without it on the driver it names.
var workarounds = []Workaround{{
	// Mesa 22.3.6's lavapipe keeps the wrong value of a variable assigned
	// just before a break out of a loop that the threads of a subgroup
	// leave at different iterations (224 of 256 threads in
	// device.TestLoopBreakValue; glslang's module of the same loop fails the
	// same way); Mesa 25 is right. Ending the loop on a flag is right on
	// both. Versions between were not tried, so the entry covers them.
	Name:       "loop-exit-flags",
	Driver:     DriverMesaLLVMpipe,
	DriverName: "Mesa llvmpipe",
	MinVersion: 0,
	MaxVersion: MesaVersion(25, 0, 0),
	Why:        "a value assigned before a break out of a divergent loop is lost; loops end on flags",
	apply:      func(o *Options) { o.LoopExitFlags = true },
}, {
	// Mesa 22.3.6's lavapipe ends every loop of a thread once the thread's
	// loops, all together, have run 65535 iterations, without an error
	// (device.TestLoopLimitFault: a loop to 200000 stops at 65535; two
	// loops of 40000 run 40000 and 25534 times); Mesa 25 has no such
	// bound. No code avoids it, so the checked mode reports it.
	Name:       "loop-limit",
	Driver:     DriverMesaLLVMpipe,
	DriverName: "Mesa llvmpipe",
	MinVersion: 0,
	MaxVersion: MesaVersion(25, 0, 0),
	Why:        "a thread's loops end silently after 65535 iterations in all; the checked mode reports it (FaultLoopLimit)",
	apply:      func(o *Options) { o.LoopLimit = 65535 },
}}

// Workarounds returns the entries of the table that apply to the driver
// with VkDriverId driver reporting driverVersion version.
func Workarounds(driver, version uint32) []Workaround {
	var out []Workaround
	for _, w := range workarounds {
		if w.Driver == driver && version >= w.MinVersion && version < w.MaxVersion {
			out = append(out, w)
		}
	}
	return out
}

// AllWorkarounds returns every entry of the table: the options for a module
// compiled without a device to ask, which must run right on any driver.
func AllWorkarounds() []Workaround { return append([]Workaround(nil), workarounds...) }
