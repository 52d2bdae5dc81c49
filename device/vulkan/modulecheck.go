package vulkan

// What every module passes before the driver sees it (RATIONALE.md, "Trust
// model for SPIR-V"): spirv-val for modules not marked Trusted, then, for
// all, the reflection parser (which refuses id bounds past spirv-val's
// limit) and the device's compute limits.

import (
	"errors"
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
	"github.com/lucent-gpu/lucent/vk"
)

// validateSPIRV is spirv-val (a variable so tests can take SPIRV-Tools away).
var validateSPIRV = spvtools.ValidateWith

// spirvTarget is what spirv-val checks modules for on this device: its
// Vulkan version, and the layout rules of the features the device enabled
// (createDevice enables every one it has).
func (d *Device) spirvTarget() (spirv.TargetEnv, spvtools.ValidateOptions) {
	p := d.phys
	env := spirv.EnvVulkan1_2
	if p.props.ApiVersion >= vk.API_VERSION_1_3 {
		env = spirv.EnvVulkan1_3
	}
	return env, spvtools.ValidateOptions{
		ScalarBlockLayout:           p.f12.ScalarBlockLayout != 0,
		UniformBufferStandardLayout: p.f12.UniformBufferStandardLayout != 0,
		AllowLocalSizeID:            p.f13.Maintenance4 != 0,
	}
}

// checkModule validates a module not marked Trusted with spirv-val and
// parses it (any module).
func (d *Device) checkModule(desc device.ShaderDesc, entry, label string) (*spvModule, error) {
	if !desc.Trusted {
		env, opts := d.spirvTarget()
		if err := validateSPIRV(desc.SPIRV, env, opts); err != nil {
			if errors.Is(err, spvtools.ErrUnavailable) {
				return nil, fmt.Errorf("shader %q: %w: SPIR-V from outside lucent's compiler is validated with SPIRV-Tools before the driver sees it, "+
					"and it is unavailable (install it, or set ShaderDesc.Trusted for a module known to be valid): %w", label, device.ErrUnsupported, err)
			}
			return nil, fmt.Errorf("shader %q: %w: spirv-val (%v): %w", label, device.ErrInvalidArgument, env, err)
		}
	}
	m, err := parseSPIRV(desc.SPIRV, entry)
	if err != nil {
		return nil, fmt.Errorf("shader %q: %w", label, err)
	}
	return m, nil
}

// checkLimits checks the module's workgroup size and the block the
// signature dispatches with against the device's compute limits, and its
// Workgroup variables against the shared memory.
func (d *Device) checkLimits(m *spvModule, block [3]uint32, label string) error {
	ls := m.localSize
	if ls != ([3]uint32{}) && (ls[0] == 0 || ls[1] == 0 || ls[2] == 0) {
		return invalidf("shader %q: workgroup size %v has a zero dimension", label, ls)
	}
	maxSize, maxInv := d.caps.MaxWorkgroupSize, d.caps.MaxWorkgroupInvocations
	for _, s := range [][3]uint32{ls, block} {
		for i := range s {
			if s[i] > maxSize[i] {
				return unsupportedf("shader %q: workgroup size %v exceeds the device's maxComputeWorkGroupSize %v", label, s, maxSize)
			}
		}
		if n := uint64(s[0]) * uint64(s[1]) * uint64(s[2]); n > uint64(maxInv) {
			return unsupportedf("shader %q: workgroup size %v is %d invocations, past the device's maxComputeWorkGroupInvocations %d", label, s, n, maxInv)
		}
	}
	shared, err := m.sharedMemory()
	if err != nil {
		return fmt.Errorf("shader %q: %w", label, err)
	}
	if shared > uint64(d.caps.MaxSharedMemory) {
		return unsupportedf("shader %q: %d bytes of Workgroup variables exceed the device's maxComputeSharedMemorySize %d", label, shared, d.caps.MaxSharedMemory)
	}
	return nil
}

// maxBinding is the highest descriptor binding a shader may use. Drivers
// size a set layout by its highest binding (lavapipe took 9 s over one at
// 2^24); kernel ABI v1 numbers bindings from 0, and no real module comes near.
const maxBinding = 1023

// checkBindings refuses bindings past maxBinding.
func checkBindings(sig device.Signature, lay shaderLayout, label string) error {
	for i, a := range sig.Args {
		if l := lay.args[i]; l.desc != noDescriptor && l.binding > maxBinding {
			return unsupportedf("shader %q: %s at binding %d, past the highest lucent binds (%d)", label, a.Label(i), l.binding, maxBinding)
		}
	}
	return nil
}

// driverRefused classes an error of vkCreateShaderModule or
// vkCreateComputePipelines: a module the driver refuses after every check
// passed is ErrUnsupported (lavapipe answers VK_ERROR_UNKNOWN to some that
// spirv-val accepts), unless the driver ran out of memory or lost the device.
func driverRefused(label string, err error) error {
	if errors.Is(err, device.ErrOutOfMemory) || errors.Is(err, device.ErrDeviceLost) || errors.Is(err, device.ErrUnsupported) {
		return fmt.Errorf("shader %q: %w", label, err)
	}
	return fmt.Errorf("shader %q: %w: the driver refused the module: %w", label, device.ErrUnsupported, err)
}

// checkFeatures refuses a module that declares a SPIR-V capability whose
// Vulkan feature the device lacks (createDevice enables every one it has):
// spirv-val checks a module against the Vulkan version only, and a driver
// given such a module may misbehave rather than refuse it.
func (d *Device) checkFeatures(m *spvModule, label string) error {
	p := d.phys
	for _, c := range m.caps {
		var has vk.Bool32
		var feature string
		switch c {
		case spirv.CapabilityFloat16:
			has, feature = p.f12.ShaderFloat16, "shaderFloat16"
		case spirv.CapabilityFloat64:
			has, feature = p.f.ShaderFloat64, "shaderFloat64"
		case spirv.CapabilityInt8:
			has, feature = p.f12.ShaderInt8, "shaderInt8"
		case spirv.CapabilityInt16:
			has, feature = p.f.ShaderInt16, "shaderInt16"
		case spirv.CapabilityInt64:
			has, feature = p.f.ShaderInt64, "shaderInt64"
		case spirv.CapabilityStorageBuffer16BitAccess:
			has, feature = p.f11.StorageBuffer16BitAccess, "storageBuffer16BitAccess"
		case spirv.CapabilityUniformAndStorageBuffer16BitAccess:
			has, feature = p.f11.UniformAndStorageBuffer16BitAccess, "uniformAndStorageBuffer16BitAccess"
		case spirv.CapabilityStoragePushConstant16:
			has, feature = p.f11.StoragePushConstant16, "storagePushConstant16"
		case spirv.CapabilityStorageBuffer8BitAccess:
			has, feature = p.f12.StorageBuffer8BitAccess, "storageBuffer8BitAccess"
		case spirv.CapabilityUniformAndStorageBuffer8BitAccess:
			has, feature = p.f12.UniformAndStorageBuffer8BitAccess, "uniformAndStorageBuffer8BitAccess"
		case spirv.CapabilityStoragePushConstant8:
			has, feature = p.f12.StoragePushConstant8, "storagePushConstant8"
		default:
			continue
		}
		if has == 0 {
			return unsupportedf("shader %q declares SPIR-V capability %v, which needs the Vulkan feature %s that %s lacks", label, c, feature, p.name())
		}
	}
	return nil
}
