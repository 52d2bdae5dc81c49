package vulkan

import (
	"fmt"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/internal/vkc"
)

// physical is everything queried from a VkPhysicalDevice: properties,
// features (with the pNext chains of Vulkan 1.1–1.3 and the extensions the
// backend uses) and memory types.
type physical struct {
	handle uintptr
	props  vkc.PhysicalDeviceProperties
	p11    vkc.PhysicalDeviceVulkan11Properties
	p12    vkc.PhysicalDeviceVulkan12Properties
	p13    vkc.PhysicalDeviceVulkan13Properties
	pushDs vkc.PhysicalDevicePushDescriptorPropertiesKHR

	f   vkc.PhysicalDeviceFeatures
	f11 vkc.PhysicalDeviceVulkan11Features
	f12 vkc.PhysicalDeviceVulkan12Features
	f13 vkc.PhysicalDeviceVulkan13Features
	af  vkc.PhysicalDeviceShaderAtomicFloatFeaturesEXT
	as  vkc.PhysicalDeviceAccelerationStructureFeaturesKHR
	rq  vkc.PhysicalDeviceRayQueryFeaturesKHR

	mem    vkc.PhysicalDeviceMemoryProperties
	queues []vkc.QueueFamilyProperties
	exts   map[string]bool
}

func queryPhysical(in *instance, pd uintptr) (*physical, error) {
	p := &physical{handle: pd, exts: map[string]bool{}}
	var n uint32
	if err := vkc.CallResult(in.fn.EnumerateDeviceExtensionProperties, pd, 0, vkc.Ptr(&n), 0).Err(); err != nil {
		return nil, wrapResult(err)
	}
	props := make([]vkc.ExtensionProperties, n+1)
	if err := vkc.CallResult(in.fn.EnumerateDeviceExtensionProperties, pd, 0, vkc.Ptr(&n), uintptr(unsafe.Pointer(&props[0]))).Err(); err != nil {
		return nil, wrapResult(err)
	}
	for _, e := range props[:n] {
		p.exts[vkc.BytesString(e.ExtensionName[:])] = true
	}

	// Properties: a pNext chain of the structures this device knows.
	p.p11.SType = vkc.StructureTypePhysicalDeviceVulkan11Properties
	p.p12.SType = vkc.StructureTypePhysicalDeviceVulkan12Properties
	p.p13.SType = vkc.StructureTypePhysicalDeviceVulkan13Properties
	p.pushDs.SType = vkc.StructureTypePhysicalDevicePushDescriptorPropertiesKHR
	p.p11.PNext = unsafe.Pointer(&p.p12)
	var pp2 vkc.PhysicalDeviceProperties2
	pp2.SType = vkc.StructureTypePhysicalDeviceProperties2
	pp2.PNext = unsafe.Pointer(&p.p11)
	// Probe the API version first: 1.3 structures may only be chained on 1.3 devices.
	vkc.Call(in.fn.GetPhysicalDeviceProperties2, pd, vkc.Ptr(&pp2))
	p.props = pp2.Properties
	if p.props.ApiVersion < 1<<22|2<<12 {
		return nil, fmt.Errorf("%w: %s supports Vulkan %s, lucent needs 1.2", device.ErrUnsupported,
			vkc.BytesString(p.props.DeviceName[:]), versionString(p.props.ApiVersion))
	}
	tail := &p.p12.PNext
	if p.props.ApiVersion >= vkc.APIVersion13 {
		*tail = unsafe.Pointer(&p.p13)
		tail = &p.p13.PNext
	}
	if p.exts["VK_KHR_push_descriptor"] {
		*tail = unsafe.Pointer(&p.pushDs)
	}
	vkc.Call(in.fn.GetPhysicalDeviceProperties2, pd, vkc.Ptr(&pp2))

	// Features.
	p.f11.SType = vkc.StructureTypePhysicalDeviceVulkan11Features
	p.f12.SType = vkc.StructureTypePhysicalDeviceVulkan12Features
	p.f13.SType = vkc.StructureTypePhysicalDeviceVulkan13Features
	p.af.SType = vkc.StructureTypePhysicalDeviceShaderAtomicFloatFeaturesEXT
	p.as.SType = vkc.StructureTypePhysicalDeviceAccelerationStructureFeaturesKHR
	p.rq.SType = vkc.StructureTypePhysicalDeviceRayQueryFeaturesKHR
	var pf2 vkc.PhysicalDeviceFeatures2
	pf2.SType = vkc.StructureTypePhysicalDeviceFeatures2
	p.chainFeatures(&pf2)
	vkc.Call(in.fn.GetPhysicalDeviceFeatures2, pd, vkc.Ptr(&pf2))
	p.f = pf2.Features

	var mp2 vkc.PhysicalDeviceMemoryProperties2
	mp2.SType = vkc.StructureTypePhysicalDeviceMemoryProperties2
	vkc.Call(in.fn.GetPhysicalDeviceMemoryProperties2, pd, vkc.Ptr(&mp2))
	p.mem = mp2.MemoryProperties

	var qn uint32
	vkc.Call(in.fn.GetPhysicalDeviceQueueFamilyProperties, pd, vkc.Ptr(&qn), 0)
	p.queues = make([]vkc.QueueFamilyProperties, qn)
	if qn > 0 {
		vkc.Call(in.fn.GetPhysicalDeviceQueueFamilyProperties, pd, vkc.Ptr(&qn), uintptr(unsafe.Pointer(&p.queues[0])))
	}
	return p, nil
}

// chainFeatures links the feature structures the device knows into f2's pNext.
func (p *physical) chainFeatures(f2 *vkc.PhysicalDeviceFeatures2) {
	p.f11.PNext, p.f12.PNext, p.f13.PNext, p.af.PNext, p.as.PNext, p.rq.PNext = nil, nil, nil, nil, nil, nil
	f2.PNext = unsafe.Pointer(&p.f11)
	p.f11.PNext = unsafe.Pointer(&p.f12)
	tail := &p.f12.PNext
	if p.props.ApiVersion >= vkc.APIVersion13 {
		*tail = unsafe.Pointer(&p.f13)
		tail = &p.f13.PNext
	}
	if p.exts["VK_EXT_shader_atomic_float"] {
		*tail = unsafe.Pointer(&p.af)
		tail = &p.af.PNext
	}
	if p.exts["VK_KHR_acceleration_structure"] {
		*tail = unsafe.Pointer(&p.as)
		tail = &p.as.PNext
	}
	if p.exts["VK_KHR_ray_query"] {
		*tail = unsafe.Pointer(&p.rq)
	}
}

func versionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", v>>22&0x7f, v>>12&0x3ff, v&0xfff)
}

func (p *physical) name() string { return vkc.BytesString(p.props.DeviceName[:]) }

func (p *physical) adapter(index int) device.Adapter {
	t := device.AdapterOther
	switch p.props.DeviceType {
	case vkc.PhysicalDeviceTypeDiscreteGpu:
		t = device.AdapterDiscrete
	case vkc.PhysicalDeviceTypeIntegratedGpu:
		t = device.AdapterIntegrated
	case vkc.PhysicalDeviceTypeVirtualGpu:
		t = device.AdapterVirtual
	case vkc.PhysicalDeviceTypeCpu:
		t = device.AdapterCPU
	}
	driver := vkc.BytesString(p.p12.DriverName[:])
	if info := vkc.BytesString(p.p12.DriverInfo[:]); info != "" {
		driver += " (" + info + ")"
	}
	return device.Adapter{
		Index:      index,
		Name:       p.name(),
		Type:       t,
		VendorID:   p.props.VendorID,
		DeviceID:   p.props.DeviceID,
		Driver:     driver,
		APIVersion: versionString(p.props.ApiVersion),
	}
}

// unified reports whether the device has a memory type that is both
// device-local and host-visible and coherent over its largest device-local
// heap: then resources live in host-visible memory (lavapipe, integrated GPUs).
func (p *physical) unified() bool {
	return p.props.DeviceType == vkc.PhysicalDeviceTypeCpu || p.props.DeviceType == vkc.PhysicalDeviceTypeIntegratedGpu
}

const subgroupCompute = vkc.SubgroupFeatureBasicBit | vkc.SubgroupFeatureVoteBit | vkc.SubgroupFeatureArithmeticBit |
	vkc.SubgroupFeatureBallotBit | vkc.SubgroupFeatureShuffleBit

// capabilities fills device.Capabilities from what was queried.
func (p *physical) capabilities(index int) device.Capabilities {
	l := &p.props.Limits
	c := device.Capabilities{
		Backend:                 "vulkan",
		Adapter:                 p.adapter(index),
		WarpSize:                max(p.p11.SubgroupSize, 1),
		Subgroups:               p.p11.SubgroupSupportedOperations&subgroupCompute == subgroupCompute && p.p11.SubgroupSupportedStages&vkc.ShaderStageComputeBit != 0,
		ShaderClock:             p.exts["VK_KHR_shader_clock"],
		MaxWorkgroupSize:        l.MaxComputeWorkGroupSize,
		MaxWorkgroupInvocations: l.MaxComputeWorkGroupInvocations,
		MaxWorkgroupCount:       l.MaxComputeWorkGroupCount,
		MaxSharedMemory:         l.MaxComputeSharedMemorySize,
		MaxPushConstantSize:     l.MaxPushConstantsSize,
		MaxStorageBufferRange:   uint64(l.MaxStorageBufferRange),
		MaxBufferSize:           p.maxBufferSize(),
		MaxTextureSize2D:        l.MaxImageDimension2D,
		MaxTextureSize3D:        l.MaxImageDimension3D,
		MemoryGranularity:       max(l.MinStorageBufferOffsetAlignment, l.MinUniformBufferOffsetAlignment, 4),
		TimelineSemaphores:      p.f12.TimelineSemaphore != 0,
		PushDescriptors:         p.exts["VK_KHR_push_descriptor"],
		BufferDeviceAddress:     p.f12.BufferDeviceAddress != 0,
		ScalarBlockLayout:       p.f12.ScalarBlockLayout != 0,
		RobustBufferAccess:      p.f.RobustBufferAccess != 0,
		Float16:                 p.f12.ShaderFloat16 != 0,
		Float64:                 p.f.ShaderFloat64 != 0,
		Int8:                    p.f12.ShaderInt8 != 0,
		Int16:                   p.f.ShaderInt16 != 0,
		Int64:                   p.f.ShaderInt64 != 0,
		Storage8:                p.f12.StorageBuffer8BitAccess != 0,
		Storage16:               p.f11.StorageBuffer16BitAccess != 0,
		AtomicFloat32Add:        p.af.ShaderBufferFloat32AtomicAdd != 0,
		AtomicInt64:             p.f12.ShaderBufferInt64Atomics != 0,
		Bindless:                device.PathNone,
		Sampling:                device.PathNone,
		RayQuery:                device.PathNone,
	}
	if c.BufferDeviceAddress {
		// Slot tables of device addresses work everywhere; native descriptor
		// indexing is not wired yet (see docs/notes/runtime-rationale.md).
		c.Bindless = device.PathEmulated
	}
	if p.rq.RayQuery != 0 && p.as.AccelerationStructure != 0 {
		c.RayQuery = device.PathNative
	}
	return c
}

func (p *physical) maxBufferSize() uint64 {
	if p.p13.MaxBufferSize != 0 {
		return p.p13.MaxBufferSize
	}
	return p.p11.MaxMemoryAllocationSize
}
