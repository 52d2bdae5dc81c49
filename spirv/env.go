package spirv

import "fmt"

// Version is a SPIR-V version as it appears in a module header (0x00MMmm00).
type Version uint32

// MakeVersion returns the version major.minor.
func MakeVersion(major, minor int) Version { return Version(major<<16 | minor<<8) }

// Major returns the major version.
func (v Version) Major() int { return int(v>>16) & 0xff }

// Minor returns the minor version.
func (v Version) Minor() int { return int(v>>8) & 0xff }

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major(), v.Minor()) }

// TargetEnv is the environment a module is built and validated for.
type TargetEnv uint8

// Target environments.
const (
	EnvVulkan1_1 TargetEnv = iota + 1
	EnvVulkan1_2
	EnvVulkan1_3
	EnvUniversal1_0
	EnvUniversal1_1
	EnvUniversal1_2
	EnvUniversal1_3
	EnvUniversal1_4
	EnvUniversal1_5
	EnvUniversal1_6
)

var envNames = [...]string{
	EnvVulkan1_1:    "vulkan1.1",
	EnvVulkan1_2:    "vulkan1.2",
	EnvVulkan1_3:    "vulkan1.3",
	EnvUniversal1_0: "spv1.0",
	EnvUniversal1_1: "spv1.1",
	EnvUniversal1_2: "spv1.2",
	EnvUniversal1_3: "spv1.3",
	EnvUniversal1_4: "spv1.4",
	EnvUniversal1_5: "spv1.5",
	EnvUniversal1_6: "spv1.6",
}

// Valid reports whether e is a known environment.
func (e TargetEnv) Valid() bool { return e >= EnvVulkan1_1 && e <= EnvUniversal1_6 }

// String returns the spelling spirv-val's --target-env uses.
func (e TargetEnv) String() string {
	if e.Valid() {
		return envNames[e]
	}
	return fmt.Sprintf("TargetEnv(%d)", uint8(e))
}

// IsVulkan reports whether e is a Vulkan environment.
func (e TargetEnv) IsVulkan() bool { return e >= EnvVulkan1_1 && e <= EnvVulkan1_3 }

// SPIRVVersion returns the highest SPIR-V version e accepts: Vulkan 1.1 takes
// SPIR-V 1.3, 1.2 takes 1.5, 1.3 takes 1.6.
func (e TargetEnv) SPIRVVersion() Version {
	switch e {
	case EnvVulkan1_1:
		return MakeVersion(1, 3)
	case EnvVulkan1_2:
		return MakeVersion(1, 5)
	case EnvVulkan1_3:
		return MakeVersion(1, 6)
	}
	if e >= EnvUniversal1_0 && e <= EnvUniversal1_6 {
		return MakeVersion(1, int(e-EnvUniversal1_0))
	}
	return MakeVersion(1, 0)
}
