package vulkan

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/softaccel"
	"github.com/lucent-gpu/lucent/vk"
)

// Ray tracing on VK_KHR_acceleration_structure (device.RayTracing). A mesh,
// procedural or accel is a structure: a VkAccelerationStructureKHR in a
// buffer of its own, a scratch buffer, and with AllowCompaction a query pool
// of one compacted-size query written after each build. All of it comes from
// the sub-allocator. Nothing exists before the first build, which sizes the
// structure; a later full build reuses it when it fits. The encoder
// (accel_encode.go) builds, refits and compacts; an accel's instances are
// kept here and written to its instance buffer by the encoder through
// staging memory.

// asStore is one VkAccelerationStructureKHR and its buffer.
type asStore struct {
	buf    *rawBuffer
	handle vk.AccelerationStructureKHR
	addr   uint64
	size   uint64
}

// structure is a mesh, procedural or accel.
type structure struct {
	tracked
	d    *Device
	kind device.ResourceKind
	opt  device.AccelOptions
	name string

	// mu guards the rest: encoders of several streams may reach one
	// structure (the validation wrapper reports that as a hazard; without
	// it the result is undefined, never a race on this memory).
	mu      sync.Mutex
	as      asStore
	scratch *rawBuffer
	query   vk.QueryPool
	queried bool // the last build wrote the compacted-size query
	// compacted: the store is the last build's, compacted (its size is the
	// compacted size AccelSize reports)
	compacted bool
	// the submission of the last build: its stream and timeline value
	buildStream *stream
	buildValue  uint64
	built       bool
	count       uint32 // triangles, boxes or instances of the last full build
	vertices    uint32 // meshes: vertices of the last full build

	// meshes only: the index-check kernel and the checked copy of the
	// indices (accel_indices.go); procedurals: the box-check kernel
	indexShader device.Handle
	indices     *buffer
	// meshes: the 16-bit index check, and the word-aligned copy of 16-bit
	// indices it reads
	index16Shader device.Handle
	indices16     *buffer

	// the software path (accel_soft.go): the host hierarchy, the device
	// buffer holding its arrays, and for accels the instances' primitives
	soft        *softaccel.Structure
	nodes       *buffer
	nodesHandle device.Handle
	softPrims   []*structure
	lbvh        *lbvhKeep // meshes built on the device with AllowUpdate (accel_lbvh.go)

	// procedurals only: the copy of the boxes of the last build, which the
	// build reads and kernels read to commit a box where a ray enters it
	boxes *rawBuffer

	// destroyed: the program destroyed the structure (its memory goes
	// once the work using it is done); accels placing it cannot be traced
	destroyed bool

	// accels only: refs are the primitives the last build placed, with the
	// address each had then (kernels check them before tracing)
	refs    []primRef
	insts   []device.Instance
	set     []bool
	instBuf *rawBuffer
}

// saved is what an encode may change of a structure, restored when the
// list fails.
type saved struct {
	as               asStore
	scratch, instBuf *rawBuffer
	boxes            *rawBuffer
	indices          *buffer
	indices16        *buffer
	queried, built   bool
	compacted        bool
	buildStream      *stream
	buildValue       uint64
	count, vertices  uint32
	insts            []device.Instance
	set              []bool
	refs             []primRef
}

// primRef is a primitive an accel's build placed, and the address of its
// structure (native) or buffer (software) at that build.
type primRef struct {
	s    *structure
	addr uint64
}

// addr is where the structure is now: its VkAccelerationStructureKHR's
// address, or its software buffer's. The caller holds s.mu.
func (s *structure) addr() uint64 {
	if s.soft != nil {
		if s.nodes == nil {
			return 0
		}
		return s.nodes.raw.addr
	}
	return s.as.addr
}

func (s *structure) save() saved {
	return saved{s.as, s.scratch, s.instBuf, s.boxes, s.indices, s.indices16, s.queried, s.built, s.compacted, s.buildStream, s.buildValue, s.count, s.vertices,
		append([]device.Instance(nil), s.insts...), append([]bool(nil), s.set...), s.refs}
}

func (s *structure) restore(v saved) {
	s.as, s.scratch, s.instBuf, s.boxes, s.indices, s.indices16, s.queried, s.built, s.compacted, s.buildStream, s.buildValue, s.count, s.vertices, s.insts, s.set, s.refs =
		v.as, v.scratch, v.instBuf, v.boxes, v.indices, v.indices16, v.queried, v.built, v.compacted, v.buildStream, v.buildValue, v.count, v.vertices, v.insts, v.set, v.refs
}

func (s *structure) setName(n string) { s.name = n }

func (s *structure) label(h device.Handle) string {
	if s.name != "" {
		return fmt.Sprintf("%s %d (%q)", s.kind, h, s.name)
	}
	return fmt.Sprintf("%s %d", s.kind, h)
}

func (s *structure) vkType() vk.AccelerationStructureTypeKHR {
	if s.kind == device.KindAccel {
		return vk.ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR
	}
	return vk.ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR
}

// release destroys everything the structure holds (its work is done).
func (s *structure) release() {
	if s.nodesHandle != 0 {
		s.d.dropHidden(s.nodesHandle)
	}
	if s.lbvh != nil {
		s.lbvh.drop(s.d)
	}
	s.d.releaseStore(s.as)
	for _, b := range []*rawBuffer{s.scratch, s.instBuf, s.boxes} {
		if b != nil {
			s.d.mem.destroyRawBuffer(b)
		}
	}
	if s.indices != nil {
		s.indices.release()
	}
	if s.indices16 != nil {
		s.indices16.release()
	}
	if s.query != 0 {
		s.d.fn.DestroyQueryPool(s.d.vk, s.query, nil)
	}
}

// newStore makes a structure of size bytes.
func (d *Device) newStore(typ vk.AccelerationStructureTypeKHR, size uint64) (asStore, error) {
	buf, err := d.mem.newRawBufferFor(size, placeDevice, vk.BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR)
	if err != nil {
		return asStore{}, fmt.Errorf("acceleration structure of %d bytes: %w", size, err)
	}
	st := asStore{buf: buf, size: size}
	ci := vk.AccelerationStructureCreateInfoKHR{
		SType: vk.STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR, Buffer: buf.handle, Size: vk.DeviceSize(size), Type: typ,
	}
	if err := check("vkCreateAccelerationStructureKHR", d.fn.CreateAccelerationStructureKHR(d.vk, &ci, nil, &st.handle)); err != nil {
		d.mem.destroyRawBuffer(buf)
		return asStore{}, err
	}
	info := vk.AccelerationStructureDeviceAddressInfoKHR{SType: vk.STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR, AccelerationStructure: st.handle}
	addr, err := d.fn.GetAccelerationStructureDeviceAddressKHR(d.vk, &info)
	if err != nil {
		d.releaseStore(st)
		return asStore{}, fmt.Errorf("vulkan: vkGetAccelerationStructureDeviceAddressKHR: %w", err)
	}
	st.addr = uint64(addr)
	return st, nil
}

func (d *Device) releaseStore(st asStore) {
	if st.handle != 0 {
		d.fn.DestroyAccelerationStructureKHR(d.vk, st.handle, nil)
	}
	if st.buf != nil {
		d.mem.destroyRawBuffer(st.buf)
	}
}

func (d *Device) createStructure(kind device.ResourceKind, opt device.AccelOptions) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	if err := opt.Check(); err != nil {
		return 0, fmt.Errorf("vulkan: %w", err)
	}
	s := &structure{d: d, kind: kind, opt: opt}
	if d.softAccel {
		h, err := d.add(s)
		if err == nil {
			s.soft = softaccel.New(h, kind, opt)
		}
		return h, err
	}
	switch kind {
	case device.KindMesh:
		sh, err := d.indexShader(device.IndexUint32)
		if err != nil {
			return 0, err
		}
		sh16, err := d.indexShader(device.IndexUint16)
		if err != nil {
			return 0, err
		}
		s.indexShader, s.index16Shader = sh, sh16
	case device.KindProcedural:
		sh, err := d.boxShader()
		if err != nil {
			return 0, err
		}
		s.indexShader = sh
	}
	if opt.AllowCompaction {
		ci := vk.QueryPoolCreateInfo{SType: vk.STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
			QueryType: vk.QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR, QueryCount: 1}
		if err := check("vkCreateQueryPool", d.fn.CreateQueryPool(d.vk, &ci, nil, &s.query)); err != nil {
			return 0, err
		}
	}
	h, err := d.add(s)
	if err != nil {
		s.release()
		return 0, err
	}
	return h, nil
}

func (d *Device) destroyStructure(h device.Handle, kind device.ResourceKind) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	s, err := removeStructure(d, h, kind)
	if err != nil {
		return err
	}
	if s.soft != nil {
		s.soft.Destroy(0) // later accel builds over it fail (they run at their Submit)
	}
	s.mu.Lock()
	s.destroyed = true
	s.mu.Unlock()
	recycle := d.dropResource(h)
	d.graveyard.bury(s.waits(), func() { s.release(); recycle() })
	return nil
}

// removeStructure takes a structure of the kind out of the table.
func removeStructure(d *Device, h device.Handle, kind device.ResourceKind) (*structure, error) {
	d.live.Lock()
	defer d.live.Unlock()
	if err := d.alive(); err != nil {
		return nil, err
	}
	s, err := structureOf(d, h, kind)
	if err != nil {
		return nil, err
	}
	delete(d.objects, h)
	return s, nil
}

// structureOf looks up a structure of the kind (KindInvalid: any); callers
// hold d.live.
func structureOf(d *Device, h device.Handle, kind device.ResourceKind) (*structure, error) {
	want := kind.String()
	if kind == device.KindInvalid {
		want = "mesh, procedural or accel"
	}
	s, err := lookup[*structure](d, h, want)
	if err != nil {
		return nil, err
	}
	if kind != device.KindInvalid && s.kind != kind {
		return nil, invalidf("handle %d is a %s, not a %s", h, s.kind, kind)
	}
	return s, nil
}

// CreateMesh makes an empty mesh (device.RayTracing).
func (d *Device) CreateMesh(opt device.AccelOptions) (device.Handle, error) {
	return d.createStructure(device.KindMesh, opt)
}

// CreateProcedural makes an empty procedural primitive.
func (d *Device) CreateProcedural(opt device.AccelOptions) (device.Handle, error) {
	return d.createStructure(device.KindProcedural, opt)
}

// CreateAccel makes an empty accel.
func (d *Device) CreateAccel(opt device.AccelOptions) (device.Handle, error) {
	return d.createStructure(device.KindAccel, opt)
}

// DestroyMesh releases a mesh once the work using it has finished.
func (d *Device) DestroyMesh(h device.Handle) error { return d.destroyStructure(h, device.KindMesh) }

// DestroyProcedural releases a procedural primitive once the work using it has finished.
func (d *Device) DestroyProcedural(h device.Handle) error {
	return d.destroyStructure(h, device.KindProcedural)
}

// DestroyAccel releases an accel once the work using it has finished.
func (d *Device) DestroyAccel(h device.Handle) error { return d.destroyStructure(h, device.KindAccel) }

// AccelSize reports a structure's memory and, once a build with
// AllowCompaction has finished, its compacted size.
func (d *Device) AccelSize(h device.Handle) (device.AccelSize, error) {
	if err := d.enter(); err != nil {
		return device.AccelSize{}, err
	}
	defer d.exit()
	d.live.RLock()
	defer d.live.RUnlock()
	if err := d.alive(); err != nil {
		return device.AccelSize{}, err
	}
	s, err := structureOf(d, h, device.KindInvalid)
	if err != nil {
		return device.AccelSize{}, err
	}
	if s.soft != nil {
		return s.soft.Size(), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := device.AccelSize{Bytes: s.as.size}
	if n, ok := s.compactedSize(); ok {
		out.Compacted = n
	} else if s.compacted {
		out.Compacted = s.as.size
	}
	return out, nil
}

// compactedSize reads the compacted-size query of the last build, when its
// submission has completed (before, the pool may still hold an earlier
// build's answer); s.mu held.
func (s *structure) compactedSize() (uint64, bool) {
	if !s.queried || s.buildStream == nil || s.buildStream.completed.Load() < s.buildValue {
		return 0, false
	}
	var n uint64
	r := s.d.fn.GetQueryPoolResults(s.d.vk, s.query, 0, 1, 8, unsafe.Pointer(&n), 8, vk.QUERY_RESULT_64_BIT)
	return n, r == vk.SUCCESS && n > 0
}

// unsafeBytes returns the bytes of a plain struct.
func unsafeBytes[T any](p *T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), unsafe.Sizeof(*p))
}

// dropHidden releases a buffer of the backend's own (a software
// structure's arrays) once its work is done; at Close the table's release
// covers it.
func (d *Device) dropHidden(h device.Handle) {
	d.live.Lock()
	if d.objects == nil {
		d.live.Unlock()
		return
	}
	b, _ := d.objects[h].(*buffer)
	delete(d.objects, h)
	d.live.Unlock()
	if b != nil {
		d.graveyard.bury(b.waits(), b.release)
	}
}
