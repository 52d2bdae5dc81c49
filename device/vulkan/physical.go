package vulkan

import (
	"fmt"
	"regexp"
	"strconv"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// physical is everything queried from a VkPhysicalDevice: properties,
// features (with the pNext chains of Vulkan 1.1–1.3 and the extensions the
// backend uses) and memory types.
type physical struct {
	handle vk.PhysicalDevice
	props  vk.PhysicalDeviceProperties
	p11    vk.PhysicalDeviceVulkan11Properties
	p12    vk.PhysicalDeviceVulkan12Properties
	p13    vk.PhysicalDeviceVulkan13Properties
	pushDs vk.PhysicalDevicePushDescriptorPropertiesKHR
	asProp vk.PhysicalDeviceAccelerationStructurePropertiesKHR

	f   vk.PhysicalDeviceFeatures
	f11 vk.PhysicalDeviceVulkan11Features
	f12 vk.PhysicalDeviceVulkan12Features
	f13 vk.PhysicalDeviceVulkan13Features
	af  vk.PhysicalDeviceShaderAtomicFloatFeaturesEXT
	as  vk.PhysicalDeviceAccelerationStructureFeaturesKHR
	rq  vk.PhysicalDeviceRayQueryFeaturesKHR
	r2  vk.PhysicalDeviceRobustness2FeaturesEXT // nullDescriptor: empty buffer views bind as null descriptors

	featuresRead bool // the feature structures hold the device's answers

	mem    vk.PhysicalDeviceMemoryProperties
	queues []vk.QueueFamilyProperties
	exts   map[string]bool
}

func queryPhysical(in *instance, pd vk.PhysicalDevice) (*physical, error) {
	p := &physical{handle: pd, exts: map[string]bool{}}
	var n uint32
	if err := in.fn.EnumerateDeviceExtensionProperties(pd, nil, &n, nil).Err(); err != nil {
		return nil, wrapResult(err)
	}
	props := make([]vk.ExtensionProperties, n+1)
	if err := in.fn.EnumerateDeviceExtensionProperties(pd, nil, &n, &props[0]).Err(); err != nil {
		return nil, wrapResult(err)
	}
	for _, e := range props[:n] {
		p.exts[vk.ByteString(e.ExtensionName[:])] = true
	}

	// Properties: a pNext chain of the structures this device knows.
	p.p11.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES
	p.p12.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES
	p.p13.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES
	p.pushDs.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR
	p.p11.PNext = unsafe.Pointer(&p.p12)
	pp2 := vk.PhysicalDeviceProperties2{SType: vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, PNext: unsafe.Pointer(&p.p11)}
	// Probe the API version first: 1.3 structures may only be chained on 1.3 devices.
	in.fn.GetPhysicalDeviceProperties2(pd, &pp2)
	p.props = pp2.Properties
	if p.props.ApiVersion < vk.API_VERSION_1_2 {
		return nil, fmt.Errorf("%w: %s supports Vulkan %s, lucent needs 1.2", device.ErrUnsupported,
			vk.ByteString(p.props.DeviceName[:]), versionString(p.props.ApiVersion))
	}
	tail := &p.p12.PNext
	if p.props.ApiVersion >= vk.API_VERSION_1_3 {
		*tail = unsafe.Pointer(&p.p13)
		tail = &p.p13.PNext
	}
	if p.exts["VK_KHR_push_descriptor"] {
		*tail = unsafe.Pointer(&p.pushDs)
		tail = &p.pushDs.PNext
	}
	if p.exts["VK_KHR_acceleration_structure"] {
		p.asProp.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_PROPERTIES_KHR
		*tail = unsafe.Pointer(&p.asProp)
	}
	in.fn.GetPhysicalDeviceProperties2(pd, &pp2)

	// Features.
	p.f11.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES
	p.f12.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
	p.f13.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES
	p.af.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT
	p.as.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR
	p.rq.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR
	p.r2.SType = vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT
	pf2 := vk.PhysicalDeviceFeatures2{SType: vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2}
	p.chainFeatures(&pf2)
	in.fn.GetPhysicalDeviceFeatures2(pd, &pf2)
	p.f = pf2.Features
	p.featuresRead = true

	mp2 := vk.PhysicalDeviceMemoryProperties2{SType: vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2}
	in.fn.GetPhysicalDeviceMemoryProperties2(pd, &mp2)
	p.mem = mp2.MemoryProperties

	var qn uint32
	in.fn.GetPhysicalDeviceQueueFamilyProperties(pd, &qn, nil)
	p.queues = make([]vk.QueueFamilyProperties, qn)
	if qn > 0 {
		in.fn.GetPhysicalDeviceQueueFamilyProperties(pd, &qn, &p.queues[0])
	}
	return p, nil
}

// chainFeatures links the feature structures the device knows into f2's pNext.
func (p *physical) chainFeatures(f2 *vk.PhysicalDeviceFeatures2) {
	p.f11.PNext, p.f12.PNext, p.f13.PNext, p.af.PNext, p.as.PNext, p.rq.PNext, p.r2.PNext = nil, nil, nil, nil, nil, nil, nil
	f2.PNext = unsafe.Pointer(&p.f11)
	p.f11.PNext = unsafe.Pointer(&p.f12)
	tail := &p.f12.PNext
	if p.props.ApiVersion >= vk.API_VERSION_1_3 {
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
		tail = &p.rq.PNext
	}
	// Queried wherever the extension is; enabled only for null descriptors.
	if p.exts["VK_EXT_robustness2"] && (!p.featuresRead || p.r2.NullDescriptor != 0) {
		*tail = unsafe.Pointer(&p.r2)
	}
}

// driverVersion is the driver's version as major<<22 | minor<<12 | patch:
// the Mesa release a Mesa driver's info string starts with ("Mesa 22.3.6
// (LLVM 15.0.6)"; lavapipe's driverVersion is 1), else reported, the
// driverVersion reported.
func driverVersion(reported uint32, info string) uint32 {
	m := mesaRelease.FindStringSubmatch(info)
	if m == nil {
		return reported
	}
	var v [3]uint32
	for i, d := range m[1:] {
		x, _ := strconv.ParseUint(d, 10, 32) // "" (no patch) is 0
		v[i] = uint32(x)
	}
	return min(v[0], 0x3FF)<<22 | min(v[1], 0x3FF)<<12 | min(v[2], 0xFFF)
}

var mesaRelease = regexp.MustCompile(`^Mesa (\d{1,4})\.(\d{1,4})(?:\.(\d{1,4}))?`)

func versionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", vk.APIVersionMajor(v), vk.APIVersionMinor(v), vk.APIVersionPatch(v))
}

func (p *physical) name() string { return vk.ByteString(p.props.DeviceName[:]) }

func (p *physical) adapter(index int) device.Adapter {
	t := device.AdapterOther
	switch p.props.DeviceType {
	case vk.PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
		t = device.AdapterDiscrete
	case vk.PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
		t = device.AdapterIntegrated
	case vk.PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
		t = device.AdapterVirtual
	case vk.PHYSICAL_DEVICE_TYPE_CPU:
		t = device.AdapterCPU
	}
	driver := vk.ByteString(p.p12.DriverName[:])
	if info := vk.ByteString(p.p12.DriverInfo[:]); info != "" {
		driver += " (" + info + ")"
	}
	return device.Adapter{
		Index:         index,
		Name:          p.name(),
		Type:          t,
		VendorID:      p.props.VendorID,
		DeviceID:      p.props.DeviceID,
		Driver:        driver,
		APIVersion:    versionString(p.props.ApiVersion),
		DriverID:      uint32(p.p12.DriverID),
		DriverVersion: driverVersion(p.props.DriverVersion, vk.ByteString(p.p12.DriverInfo[:])),
	}
}

// unified reports whether resources should live in host-visible memory:
// CPU implementations (lavapipe) and integrated GPUs share the host's memory.
func (p *physical) unified() bool {
	return p.props.DeviceType == vk.PHYSICAL_DEVICE_TYPE_CPU || p.props.DeviceType == vk.PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU
}

const subgroupCompute = vk.SUBGROUP_FEATURE_BASIC_BIT | vk.SUBGROUP_FEATURE_VOTE_BIT | vk.SUBGROUP_FEATURE_ARITHMETIC_BIT |
	vk.SUBGROUP_FEATURE_BALLOT_BIT | vk.SUBGROUP_FEATURE_SHUFFLE_BIT

// capabilities fills device.Capabilities from what was queried.
func (p *physical) capabilities(index int) device.Capabilities {
	l := &p.props.Limits
	c := device.Capabilities{
		Backend:                 "vulkan",
		Adapter:                 p.adapter(index),
		WarpSize:                max(p.p11.SubgroupSize, 1),
		Subgroups:               p.p11.SubgroupSupportedOperations&subgroupCompute == subgroupCompute && p.p11.SubgroupSupportedStages&vk.SHADER_STAGE_COMPUTE_BIT != 0,
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
		MemoryGranularity:       uint64(max(l.MinStorageBufferOffsetAlignment, l.MinUniformBufferOffsetAlignment, 4)),
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
		// Slot tables of device addresses: buffer slots on every device,
		// texture slots as linear mirrors sampled in code where the device
		// cannot index descriptor arrays, as descriptor arrays where it can
		// (RATIONALE.md, bindless).
		c.Bindless = device.PathEmulated
		c.Sampling = device.PathEmulated
		if p.nativeTextures() {
			c.Sampling = device.PathNative
			c.MaxBindlessTextures = p.maxBindlessTextures()
		}
	}
	if p.rq.RayQuery != 0 && p.as.AccelerationStructure != 0 {
		c.RayQuery = device.PathNative
	}
	if p.nativeAccel() {
		c.RayTracing = device.PathNative
	}
	return c
}

func (p *physical) maxBufferSize() uint64 {
	if p.p13.MaxBufferSize != 0 {
		return uint64(p.p13.MaxBufferSize)
	}
	return uint64(p.p11.MaxMemoryAllocationSize)
}

// nativeAccel reports whether the device builds acceleration structures
// (VK_KHR_acceleration_structure with what it needs: deferred host
// operations, enabled with it, and buffer device addresses).
func (p *physical) nativeAccel() bool {
	return p.as.AccelerationStructure != 0 && p.exts["VK_KHR_deferred_host_operations"] && p.f12.BufferDeviceAddress != 0
}
