package device

import "fmt"

// AdapterType is the kind of physical device.
type AdapterType uint8

const (
	AdapterOther AdapterType = iota
	AdapterDiscrete
	AdapterIntegrated
	AdapterVirtual
	AdapterCPU // a software implementation such as lavapipe
)

func (t AdapterType) String() string {
	switch t {
	case AdapterDiscrete:
		return "discrete GPU"
	case AdapterIntegrated:
		return "integrated GPU"
	case AdapterVirtual:
		return "virtual GPU"
	case AdapterCPU:
		return "CPU"
	}
	return "other"
}

// rank orders adapters for the default choice: discrete first, CPU last.
func (t AdapterType) rank() int {
	switch t {
	case AdapterDiscrete:
		return 0
	case AdapterIntegrated:
		return 1
	case AdapterVirtual:
		return 2
	case AdapterOther:
		return 3
	}
	return 4
}

// Adapter describes one device a backend can open.
type Adapter struct {
	Index      int // the index to pass to WithDeviceIndex
	Name       string
	Type       AdapterType
	VendorID   uint32
	DeviceID   uint32
	Driver     string // driver name and version, e.g. "llvmpipe (Mesa 22.3.6)"
	APIVersion string // e.g. "1.3.230"
	// DriverID is the driver's id where the backend has one (Vulkan:
	// VkDriverId), 0 elsewhere. DriverVersion is its version as
	// major<<22 | minor<<12 | patch: for Mesa drivers the Mesa release their
	// driver info names (lavapipe reports a driverVersion of 1), else the
	// driverVersion reported. Driver workarounds are keyed by the two.
	DriverID, DriverVersion uint32
}

func (a Adapter) String() string {
	return fmt.Sprintf("#%d %s (%s, API %s)", a.Index, a.Name, a.Type, a.APIVersion)
}

// Path says how a feature is implemented on a device: natively, or lowered to
// something every device has (DESIGN.md, "portability by lowering").
type Path uint8

const (
	PathNone     Path = iota // not available at all
	PathNative               // the device's own feature
	PathEmulated             // lowered (device addresses, emulated sampling, software traversal)
)

func (p Path) String() string {
	return [...]string{"none", "native", "emulated"}[min(int(p), 2)]
}

// Capabilities is what a device can do, as queried from it. Limits are the
// device's own; features the runtime lowers say which Path is in use.
type Capabilities struct {
	Backend     string
	Adapter     Adapter
	WarpSize    uint32 // subgroup size (1 where subgroups are absent)
	Subgroups   bool   // basic/vote/arithmetic/ballot/shuffle subgroup ops in compute
	ShaderClock bool

	MaxWorkgroupSize        [3]uint32
	MaxWorkgroupInvocations uint32
	MaxWorkgroupCount       [3]uint32
	MaxSharedMemory         uint32 // bytes of workgroup-shared memory
	MaxPushConstantSize     uint32
	MaxStorageBufferRange   uint64 // larger buffers are bound by address
	MaxBufferSize           uint64
	MaxTextureSize2D        uint32
	MaxTextureSize3D        uint32
	MemoryGranularity       uint64 // alignment of buffer offsets a backend honours

	TimelineSemaphores bool
	// PushDescriptors: resource arguments are bound with push descriptors
	// (the device has them and Binding chose them).
	PushDescriptors     bool
	BufferDeviceAddress bool
	ScalarBlockLayout   bool
	RobustBufferAccess  bool

	Float16, Float64    bool
	Int8, Int16, Int64  bool
	Storage8, Storage16 bool // 8/16-bit types in storage buffers
	AtomicFloat32Add    bool
	AtomicInt64         bool

	Bindless Path // descriptor indexing (native) or address tables (emulated)
	Sampling Path // sampled textures in bindless arrays: native or emulated
	// MaxBindlessTextures is how many slots of one bindless array can hold
	// textures on the native Sampling path (0 on the emulated path: any slot).
	MaxBindlessTextures uint32
	RayQuery            Path // native ray query, or software BVH traversal
	// AccelRead is how a software traversal on a device reads its accels,
	// chosen per driver by the backend: "binding" (a storage-buffer binding,
	// by address past MaxStorageBufferRange) or "address" on Vulkan, empty
	// where the question does not arise (native ray queries, cpu).
	AccelRead string
	// Timings says compute streams can time their command lists
	// (CommandList.Timings): the Vulkan backend where the compute queue
	// family has timestamps (timestampValidBits > 0), the cpu backend always.
	// A copy stream on a transfer queue without timestamps refuses timed
	// lists with ErrUnsupported.
	Timings bool
	// RayTracing is how meshes, procedurals and accels are built (the
	// RayTracing extension): by the device (native), on the host with
	// accel/bvh (emulated: the software path; LUCENT_ACCEL=software forces
	// it on a Vulkan device with native ones), or not at all (none).
	RayTracing        Path
	SeparateCopyQueue bool // StreamCopy maps to a dedicated transfer queue
	// Binding is how resource arguments reach kernels, chosen per driver by
	// the backend: "push descriptors" or "descriptor sets" on Vulkan (see
	// device/vulkan's binding table), empty where the question does not
	// arise (cpu). BindingReason says why.
	Binding, BindingReason string
	// Workarounds names the driver workarounds the backend's code
	// generator applies on this device (known miscompilations it avoids),
	// e.g. "loop-exit-flags" on Mesa 22's lavapipe.
	Workarounds []string
}
