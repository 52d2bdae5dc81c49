package vulkan

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// memory places resources in device memory through the sub-allocator. On a
// unified device (lavapipe, integrated GPUs) every resource lives in
// host-visible memory; on a discrete GPU resources are device-local and
// transfers go through host-visible staging buffers.
type memory struct {
	d     *Device
	alloc *allocator

	mu       sync.Mutex
	heapUsed []uint64 // bytes allocated from each heap through this device

	stagingMu    sync.Mutex
	stagingFree  []*rawBuffer // released staging buffers kept for reuse
	stagingBytes uint64
}

// stagingKeep bounds the bytes of staging memory kept for reuse: fresh host
// memory costs page faults on first touch (a 64 MiB upload into new memory
// runs at a fraction of the speed of one into reused memory on lavapipe).
//
// The keep is counted in bytes and favours the larger buffers: a released
// buffer that does not fit evicts smaller kept ones, smallest first, and is
// dropped only when what is left is as large as itself (or it exceeds the
// keep). A request takes the smallest kept buffer that holds it, whatever
// its size: a small transfer touches only its own pages of a big buffer.
// So a 256 MiB transfer after a 16 MiB one reuses one buffer for both. The
// keep used to drop the big buffer because the small one counted against
// it, and every 256 MiB download after a smaller one faulted in fresh memory
// (3.9–4.2× slower on Mesa 22.3).
const stagingKeep = 256 << 20

// newStaging returns a host-visible buffer of at least n bytes, reusing the
// smallest kept one that holds it.
func (m *memory) newStaging(n uint64) (*rawBuffer, error) {
	m.stagingMu.Lock()
	best := -1
	for i, b := range m.stagingFree {
		if b.size >= n && (best < 0 || b.size < m.stagingFree[best].size) {
			best = i
		}
	}
	if best >= 0 {
		b := m.stagingFree[best]
		m.stagingFree = append(m.stagingFree[:best], m.stagingFree[best+1:]...)
		m.stagingBytes -= b.size
		m.stagingMu.Unlock()
		return b, nil
	}
	m.stagingMu.Unlock()
	size := uint64(64 << 10)
	for size < n {
		size *= 2
	}
	return m.newRawBuffer(size, placeStaging)
}

// releaseStaging keeps b for reuse, evicting smaller kept buffers to make
// room, or destroys it.
func (m *memory) releaseStaging(b *rawBuffer) {
	var evicted []*rawBuffer
	m.stagingMu.Lock()
	smaller := uint64(0) // what b may evict
	for _, k := range m.stagingFree {
		if k.size < b.size {
			smaller += k.size
		}
	}
	fits := b.size <= stagingKeep && m.stagingBytes-smaller+b.size <= stagingKeep
	for fits && m.stagingBytes+b.size > stagingKeep {
		small := -1
		for i, k := range m.stagingFree {
			if k.size < b.size && (small < 0 || k.size < m.stagingFree[small].size) {
				small = i
			}
		}
		evicted = append(evicted, m.stagingFree[small])
		m.stagingBytes -= m.stagingFree[small].size
		m.stagingFree = append(m.stagingFree[:small], m.stagingFree[small+1:]...)
	}
	if fits {
		m.stagingFree = append(m.stagingFree, b)
		m.stagingBytes += b.size
	}
	m.stagingMu.Unlock()
	if !fits {
		evicted = append(evicted, b)
	}
	for _, e := range evicted {
		m.destroyRawBuffer(e)
	}
}

func newMemory(d *Device) *memory {
	m := &memory{d: d, heapUsed: make([]uint64, d.phys.mem.MemoryHeapCount)}
	m.alloc = newAllocator(m, uint64(d.phys.props.Limits.BufferImageGranularity))
	return m
}

// placement says what a resource needs of its memory.
type placement uint8

const (
	placeDevice  placement = iota // fastest for the GPU
	placeStaging                  // host-visible, coherent: uploads, downloads
)

// memoryType picks a memory type allowed by typeBits for the placement.
func (m *memory) memoryType(typeBits uint32, p placement) (uint32, error) {
	mp := &m.d.phys.mem
	const (
		local    = vk.MEMORY_PROPERTY_DEVICE_LOCAL_BIT
		visible  = vk.MEMORY_PROPERTY_HOST_VISIBLE_BIT
		coherent = vk.MEMORY_PROPERTY_HOST_COHERENT_BIT
		cached   = vk.MEMORY_PROPERTY_HOST_CACHED_BIT
	)
	var prefs [][2]vk.MemoryPropertyFlags // required, preferred flags
	switch {
	case p == placeStaging:
		prefs = [][2]vk.MemoryPropertyFlags{{visible | coherent, cached}, {visible | coherent, 0}}
	case m.d.phys.unified():
		prefs = [][2]vk.MemoryPropertyFlags{{local | visible | coherent, 0}, {local, 0}, {0, 0}}
	default:
		prefs = [][2]vk.MemoryPropertyFlags{{local, 0}, {0, 0}}
	}
	for _, pr := range prefs {
		best := -1
		for i := uint32(0); i < mp.MemoryTypeCount; i++ {
			fl := mp.MemoryTypes[i].PropertyFlags
			if typeBits&(1<<i) == 0 || fl&pr[0] != pr[0] {
				continue
			}
			if best < 0 || (pr[1] != 0 && fl&pr[1] != 0 && mp.MemoryTypes[best].PropertyFlags&pr[1] == 0) {
				best = int(i)
			}
		}
		if best >= 0 {
			return uint32(best), nil
		}
	}
	return 0, unsupportedf("no memory type for type bits %#x", typeBits)
}

// allocate is the sub-allocator's backing: one vkAllocateMemory per block,
// mapped once for its lifetime when host-visible.
func (m *memory) allocate(typeIndex uint32, size uint64) (uint64, uintptr, error) {
	mt := m.d.phys.mem.MemoryTypes[typeIndex]
	heap := mt.HeapIndex
	m.mu.Lock()
	if limit := uint64(m.d.phys.mem.MemoryHeaps[heap].Size); m.heapUsed[heap]+size > limit {
		used := m.heapUsed[heap]
		m.mu.Unlock()
		return 0, 0, fmt.Errorf("vulkan: %w: %d bytes asked of memory heap %d (%d of %d bytes in use)",
			device.ErrOutOfMemory, size, heap, used, limit)
	}
	if max11 := uint64(m.d.phys.p11.MaxMemoryAllocationSize); max11 != 0 && size > max11 {
		m.mu.Unlock()
		return 0, 0, fmt.Errorf("vulkan: %w: %d bytes exceed maxMemoryAllocationSize %d", device.ErrOutOfMemory, size, max11)
	}
	m.heapUsed[heap] += size
	m.mu.Unlock()

	flags := vk.MemoryAllocateFlagsInfo{SType: vk.STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO}
	ai := vk.MemoryAllocateInfo{SType: vk.STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, AllocationSize: vk.DeviceSize(size), MemoryTypeIndex: typeIndex}
	if m.d.caps.BufferDeviceAddress {
		flags.Flags = vk.MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT
		ai.PNext = unsafe.Pointer(&flags)
	}
	var mem vk.DeviceMemory
	if err := check("vkAllocateMemory", m.d.fn.AllocateMemory(m.d.vk, &ai, nil, &mem)); err != nil {
		m.unaccount(heap, size)
		return 0, 0, err
	}
	var mapped unsafe.Pointer
	if mt.PropertyFlags&vk.MEMORY_PROPERTY_HOST_VISIBLE_BIT != 0 {
		if err := check("vkMapMemory", m.d.fn.MapMemory(m.d.vk, mem, 0, vk.WHOLE_SIZE, 0, &mapped)); err != nil {
			m.d.fn.FreeMemory(m.d.vk, mem, nil)
			m.unaccount(heap, size)
			return 0, 0, err
		}
	}
	return uint64(mem), uintptr(mapped), nil
}

func (m *memory) unaccount(heap uint32, size uint64) {
	m.mu.Lock()
	m.heapUsed[heap] -= size
	m.mu.Unlock()
}

func (m *memory) free(typeIndex uint32, mem, size uint64) {
	// vkFreeMemory unmaps implicitly.
	m.d.fn.FreeMemory(m.d.vk, vk.DeviceMemory(mem), nil)
	m.unaccount(m.d.phys.mem.MemoryTypes[typeIndex].HeapIndex, size)
}

func (m *memory) release() {
	m.stagingMu.Lock()
	for _, b := range m.stagingFree {
		m.d.fn.DestroyBuffer(m.d.vk, b.handle, nil)
	}
	m.stagingFree, m.stagingBytes = nil, 0
	m.stagingMu.Unlock()
	m.alloc.releaseAll()
}

// rawBuffer is a VkBuffer bound to sub-allocated memory.
type rawBuffer struct {
	handle vk.Buffer
	al     *allocation
	size   uint64
	addr   uint64 // device address, 0 without bufferDeviceAddress
	// coherent: mapped, host-coherent memory the host may write directly
	// (direct uploads, direct.go).
	coherent bool
	// readable: coherent and host-cached too, memory the host reads at
	// memory speed (direct reads, directread.go).
	readable bool
}

const bufferUsage = vk.BUFFER_USAGE_TRANSFER_SRC_BIT | vk.BUFFER_USAGE_TRANSFER_DST_BIT | vk.BUFFER_USAGE_STORAGE_BUFFER_BIT |
	vk.BUFFER_USAGE_UNIFORM_BUFFER_BIT | vk.BUFFER_USAGE_INDIRECT_BUFFER_BIT

// newRawBuffer creates a buffer of size bytes placed as asked. Where the
// device builds acceleration structures every buffer may be a build's input.
func (m *memory) newRawBuffer(size uint64, p placement) (*rawBuffer, error) {
	usage := vk.BufferUsageFlags(bufferUsage)
	if m.d.caps.RayTracing == device.PathNative {
		usage |= vk.BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR
	}
	return m.newRawBufferFor(size, p, usage)
}

// newRawBufferFor creates a buffer of size bytes with the given usage (and a
// device address where the device has them).
func (m *memory) newRawBufferFor(size uint64, p placement, usage vk.BufferUsageFlags) (*rawBuffer, error) {
	d := m.d
	if d.caps.BufferDeviceAddress {
		usage |= vk.BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT
	}
	ci := vk.BufferCreateInfo{SType: vk.STRUCTURE_TYPE_BUFFER_CREATE_INFO, Size: vk.DeviceSize(size), Usage: usage}
	b := &rawBuffer{size: size}
	if err := check("vkCreateBuffer", d.fn.CreateBuffer(d.vk, &ci, nil, &b.handle)); err != nil {
		return nil, err
	}
	var req vk.MemoryRequirements
	d.fn.GetBufferMemoryRequirements(d.vk, b.handle, &req)
	ti, err := m.memoryType(req.MemoryTypeBits, p)
	if err == nil {
		b.al, err = m.alloc.alloc(ti, uint64(req.Size), uint64(req.Alignment), false)
	}
	if err == nil {
		err = check("vkBindBufferMemory", d.fn.BindBufferMemory(d.vk, b.handle, vk.DeviceMemory(b.al.memory()), vk.DeviceSize(b.al.offset)))
	}
	if err == nil {
		const hostCoherent = vk.MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.MEMORY_PROPERTY_HOST_COHERENT_BIT
		fl := d.phys.mem.MemoryTypes[ti].PropertyFlags
		b.coherent = fl&hostCoherent == hostCoherent && b.al.mapped() != 0
		b.readable = b.coherent && fl&vk.MEMORY_PROPERTY_HOST_CACHED_BIT != 0
	}
	if err != nil {
		d.fn.DestroyBuffer(d.vk, b.handle, nil)
		if b.al != nil {
			m.alloc.release(b.al)
		}
		return nil, err
	}
	if d.caps.BufferDeviceAddress {
		info := vk.BufferDeviceAddressInfo{SType: vk.STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, Buffer: b.handle}
		addr, err := d.fn.GetBufferDeviceAddress(d.vk, &info)
		if err != nil {
			m.destroyRawBuffer(b)
			return nil, fmt.Errorf("vulkan: vkGetBufferDeviceAddress: %w", err)
		}
		b.addr = uint64(addr)
	}
	return b, nil
}

// bytes returns the buffer's mapped memory, or nil when it is not host-visible.
func (b *rawBuffer) bytes() []byte {
	p := b.al.mapped()
	if p == 0 {
		return nil
	}
	// Mapped device memory is outside the Go heap; the double conversion says so to vet.
	return unsafe.Slice(*(**byte)(unsafe.Pointer(&p)), b.size)
}

func (m *memory) destroyRawBuffer(b *rawBuffer) {
	m.d.fn.DestroyBuffer(m.d.vk, b.handle, nil)
	m.alloc.release(b.al)
}
