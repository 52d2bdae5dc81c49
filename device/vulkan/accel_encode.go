package vulkan

// Encoding ray-tracing commands. A build orders itself like any command:
// its inputs (vertex, index, box and instance buffers, the structures an
// accel's instances place) are read uses, the structure (with its scratch
// buffer, which no other structure shares) a write use, so a build reading
// what an earlier command of the list wrote gets a barrier and two builds of
// different structures may overlap.
//
// Worked example (one list): upload vertices; build mesh m; build accel a
// over m:
//
//	upload        transfer write of the vertex buffer
//	build m       reads the vertex buffer: barrier; writes m
//	build a       copies a's instances to its instance buffer (staging,
//	              transfer write), reads m and the instance buffer: barrier;
//	              writes a
//
// What an encode changes of a structure (its store, grown; its instances;
// its built state) is saved first and restored when the list fails; stores
// it replaces are released once the list's work is done.

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

const stageASBuild = vk.PIPELINE_STAGE_2_ACCELERATION_STRUCTURE_BUILD_BIT_KHR

// accelTouch records a structure an encode changed: its state before, and
// what the list made or replaced.
type accelTouch struct {
	s       *structure
	before  saved
	made    []func() // release what the list made (the list failed)
	retired []func() // release what the list replaced (the list succeeded)
}

// structure looks a structure up for a command, saving its state the first
// time the list touches it, and locks it until the command is encoded.
func (e *encoder) structure(h device.Handle, kind device.ResourceKind) (*structure, *accelTouch, error) {
	s, err := structureOf(e.d, h, kind)
	if err != nil {
		return nil, nil, err
	}
	if s.soft != nil {
		return nil, nil, invalidf("%s is built in software, not by the encoder", s.label(h))
	}
	e.used = append(e.used, &s.tracked)
	s.mu.Lock()
	for _, t := range e.touched {
		if t.s == s {
			return s, t, nil
		}
	}
	t := &accelTouch{s: s, before: s.save()}
	e.touched = append(e.touched, t)
	return s, t, nil
}

// settleAccels releases what the list replaced, once its work is done (the
// structures' waits include the list now), or, when the list failed, what it
// made, restoring the structures.
func (e *encoder) settleAccels(ok bool) {
	for _, t := range e.touched {
		if ok {
			if len(t.retired) > 0 {
				retired := t.retired
				e.d.graveyard.bury(t.s.waits(), func() {
					for _, r := range retired {
						r()
					}
				})
			}
			continue
		}
		t.s.mu.Lock()
		t.s.restore(t.before)
		t.s.mu.Unlock()
		for _, r := range t.made {
			r()
		}
	}
	clear(e.touched)
	e.touched = e.touched[:0]
}

// buildFlags maps a structure's options.
func buildFlags(o device.AccelOptions) vk.BuildAccelerationStructureFlagsKHR {
	f := vk.BuildAccelerationStructureFlagsKHR(vk.BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR)
	if o.Hint == device.FastBuild {
		f = vk.BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_BUILD_BIT_KHR
	}
	if o.AllowUpdate {
		f |= vk.BUILD_ACCELERATION_STRUCTURE_ALLOW_UPDATE_BIT_KHR
	}
	if o.AllowCompaction {
		f |= vk.BUILD_ACCELERATION_STRUCTURE_ALLOW_COMPACTION_BIT_KHR
	}
	return f
}

// checkUpdate refuses a refit the structure cannot take.
func checkUpdate(s *structure, h device.Handle, n uint32, what string) error {
	switch {
	case !s.opt.AllowUpdate:
		return invalidf("update of %s, made without AllowUpdate", s.label(h))
	case !s.built:
		return invalidf("update of %s, which has not been built", s.label(h))
	case n != s.count:
		return invalidf("update of %s with %d %s, its build had %d", s.label(h), n, what, s.count)
	}
	return nil
}

func (e *encoder) meshBuild(c *device.MeshBuild) error {
	g := c.Geometry
	if err := c.Check(); err != nil {
		return err
	}
	vb, err := e.buffer(g.Vertices)
	if err != nil {
		return fmt.Errorf("Vertices: %w", err)
	}
	ib, err := e.buffer(g.Indices)
	if err != nil {
		return fmt.Errorf("Indices: %w", err)
	}
	vbytes := uint64(g.VertexCount-1)*uint64(g.VertexStride) + 12
	if _, err := span(vb, g.Vertices, g.VertexOffset, vbytes); err != nil {
		return fmt.Errorf("Vertices (%d vertices, stride %d): %w", g.VertexCount, g.VertexStride, err)
	}
	if _, err := span(ib, g.Indices, g.IndexOffset, g.IndexBytes()); err != nil {
		return fmt.Errorf("Indices (%d triangles): %w", g.Triangles, err)
	}
	s, t, err := e.structure(c.Mesh, device.KindMesh)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	if c.Mode == device.BuildUpdate {
		if err := checkUpdate(s, c.Mesh, g.Triangles, "triangles"); err != nil {
			return err
		}
		if g.VertexCount != s.vertices {
			return invalidf("update of %s: %d vertices, its build had %d", s.label(c.Mesh), g.VertexCount, s.vertices)
		}
	}
	checked, err := e.checkedIndices(s, t, g)
	if err != nil {
		return fmt.Errorf("index check: %w", err)
	}
	geom := vk.AccelerationStructureGeometryKHR{
		SType: vk.STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR, GeometryType: vk.GEOMETRY_TYPE_TRIANGLES_KHR,
		Flags: vk.GEOMETRY_OPAQUE_BIT_KHR,
	}
	tri := geom.Geometry.Triangles()
	tri.SType = vk.STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_TRIANGLES_DATA_KHR
	tri.VertexFormat = vk.FORMAT_R32G32B32_SFLOAT
	*tri.VertexData.DeviceAddress() = vk.DeviceAddress(vb.raw.addr + g.VertexOffset)
	tri.VertexStride = vk.DeviceSize(g.VertexStride)
	tri.MaxVertex = g.VertexCount - 1
	tri.IndexType = vk.INDEX_TYPE_UINT32
	*tri.IndexData.DeviceAddress() = vk.DeviceAddress(checked.raw.addr)
	err = e.buildStructure(s, t, c.Mesh, c.Mode, &geom, g.Triangles,
		use{vb, g.VertexOffset, g.VertexOffset + vbytes, false}, use{checked, 0, 12 * uint64(g.Triangles), false})
	if err == nil && c.Mode == device.BuildFull {
		s.vertices = g.VertexCount
	}
	return err
}

func (e *encoder) proceduralBuild(c *device.ProceduralBuild) error {
	if err := c.Check(); err != nil {
		return err
	}
	b, err := e.buffer(c.AABBs)
	if err != nil {
		return fmt.Errorf("AABBs: %w", err)
	}
	n := 24 * uint64(c.Count)
	if _, err := span(b, c.AABBs, c.Offset, n); err != nil {
		return fmt.Errorf("AABBs (%d boxes): %w", c.Count, err)
	}
	s, t, err := e.structure(c.Procedural, device.KindProcedural)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	if c.Mode == device.BuildUpdate {
		if err := checkUpdate(s, c.Procedural, c.Count, "boxes"); err != nil {
			return err
		}
	}
	// The boxes are copied to a buffer of the procedural's, which the build
	// reads and ray queries read to find where a ray enters a box (kernel
	// ABI v1, "Accels"): the program may change its own buffer after the build.
	if s.boxes == nil || s.boxes.size < n {
		nb, err := e.d.mem.newRawBufferFor(n, placeDevice,
			vk.BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR|vk.BUFFER_USAGE_TRANSFER_DST_BIT|vk.BUFFER_USAGE_STORAGE_BUFFER_BIT)
		if err != nil {
			return fmt.Errorf("box copy of %d bytes: %w", n, err)
		}
		if old := s.boxes; old != nil {
			t.retired = append(t.retired, func() { e.d.mem.destroyRawBuffer(old) })
		}
		t.made = append(t.made, func() { e.d.mem.destroyRawBuffer(nb) })
		s.boxes = nb
	}
	// The copy is the box check's (accel_indices.go): a box that is not
	// one becomes a point no ray enters. The dispatch and the build see the
	// copy as one buffer, so the build waits for the dispatch's writes.
	boxes := &buffer{raw: s.boxes, desc: device.BufferDesc{Size: n, ElemSize: 4}, d: e.d}
	if err := e.checkedBoxes(s, c.AABBs, c.Offset, c.Count, boxes); err != nil {
		return fmt.Errorf("box check: %w", err)
	}
	geom := vk.AccelerationStructureGeometryKHR{SType: vk.STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR, GeometryType: vk.GEOMETRY_TYPE_AABBS_KHR}
	ab := geom.Geometry.Aabbs()
	ab.SType = vk.STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_AABBS_DATA_KHR
	*ab.Data.DeviceAddress() = vk.DeviceAddress(s.boxes.addr)
	ab.Stride = 24
	return e.buildStructure(s, t, c.Procedural, c.Mode, &geom, c.Count, use{boxes, 0, n, false})
}

// instanceRecord is VkAccelerationStructureInstanceKHR's size.
const instanceRecord = 64

func (e *encoder) accelBuild(c *device.AccelBuild) error {
	if err := c.Check(); err != nil {
		return err
	}
	s, t, err := e.structure(c.Accel, device.KindAccel)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	if c.Mode == device.BuildUpdate {
		if err := checkUpdate(s, c.Accel, c.Count, "instances"); err != nil {
			return err
		}
	}
	for len(s.insts) < int(c.Count) {
		s.insts = append(s.insts, device.Instance{})
		s.set = append(s.set, false)
	}
	for i, u := range c.Updates {
		in := &s.insts[u.Index]
		if !s.set[u.Index] && u.Change != device.ChangeAll {
			return invalidf("update %d sets instance %d, never set before, only in part (a new instance needs ChangeAll)", i, u.Index)
		}
		s.set[u.Index] = true
		if u.Change&device.ChangePrimitive != 0 {
			in.Primitive, in.Kind = u.Instance.Primitive, u.Instance.Kind
		}
		if u.Change&device.ChangeTransform != 0 {
			in.Transform = u.Instance.Transform
		}
		if u.Change&device.ChangeMask != 0 {
			in.Mask = u.Instance.Mask
		}
		if u.Change&device.ChangeOpaque != 0 {
			in.Opaque = u.Instance.Opaque
		}
		if u.Change&device.ChangeID != 0 {
			in.ID = u.Instance.ID
		}
	}

	// The instance records, in staging memory; every primitive alive and built.
	// After the records, the box table: per instance the address of its
	// procedural's boxes, 0 for a mesh (kernel ABI v1, "Accels").
	table := instanceRecord * uint64(c.Count)
	recs, off := e.stage((instanceRecord + 8) * uint64(c.Count))
	uses := make([]use, 0, c.Count+1)
	refs := make([]primRef, c.Count)
	for i := range c.Count {
		if !s.set[i] {
			return invalidf("instance %d of %d of %s was never set", i, c.Count, s.label(c.Accel))
		}
		in := s.insts[i]
		p, err := structureOf(e.d, in.Primitive, in.Kind)
		if err != nil {
			return fmt.Errorf("instance %d: %w", i, err)
		}
		if p == s {
			return invalidf("instance %d: %s places itself", i, s.label(c.Accel))
		}
		e.used = append(e.used, &p.tracked)
		p.mu.Lock()
		built, addr := p.built, p.as.addr
		var boxes uint64
		if p.boxes != nil {
			boxes = p.boxes.addr
		}
		p.mu.Unlock()
		binary.LittleEndian.PutUint64(recs[table+8*uint64(i):], boxes)
		refs[i] = primRef{p, addr}
		if !built {
			return invalidf("instance %d: %s has not been built", i, p.label(in.Primitive))
		}
		var r vk.AccelerationStructureInstanceKHR
		for row := range 3 {
			copy(r.Transform.Matrix[row][:], in.Transform[4*row:4*row+4])
		}
		r.SetInstanceCustomIndex(in.ID & (1<<24 - 1))
		r.SetMask(uint32(in.Mask))
		flags := vk.GeometryInstanceFlagsKHR(vk.GEOMETRY_INSTANCE_TRIANGLE_FACING_CULL_DISABLE_BIT_KHR)
		if in.Opaque {
			flags |= vk.GEOMETRY_INSTANCE_FORCE_OPAQUE_BIT_KHR
		} else {
			flags |= vk.GEOMETRY_INSTANCE_FORCE_NO_OPAQUE_BIT_KHR
		}
		r.SetFlags(flags)
		r.AccelerationStructureReference = addr
		copy(recs[instanceRecord*uint64(i):], unsafeBytes(&r))
		uses = append(uses, use{p, 0, math.MaxUint64, false})
	}
	need := (instanceRecord + 8) * uint64(c.Count)
	if s.instBuf == nil || s.instBuf.size < need {
		b, err := e.d.mem.newRawBufferFor(max(need, 2*instanceRecord), placeDevice,
			vk.BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR|vk.BUFFER_USAGE_TRANSFER_DST_BIT)
		if err != nil {
			return fmt.Errorf("instance buffer of %d bytes: %w", need, err)
		}
		if old := s.instBuf; old != nil {
			t.retired = append(t.retired, func() { e.d.mem.destroyRawBuffer(old) })
		}
		t.made = append(t.made, func() { e.d.mem.destroyRawBuffer(b) })
		s.instBuf = b
	}
	e.order(stageCopy, accessTransferWrite, use{s.instBuf, 0, need, true})
	e.copyBuffer(e.sub.staging.handle, off, s.instBuf.handle, 0, need)
	uses = append(uses, use{s.instBuf, 0, need, false})

	geom := vk.AccelerationStructureGeometryKHR{SType: vk.STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR, GeometryType: vk.GEOMETRY_TYPE_INSTANCES_KHR}
	gi := geom.Geometry.Instances()
	gi.SType = vk.STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_INSTANCES_DATA_KHR
	*gi.Data.DeviceAddress() = vk.DeviceAddress(s.instBuf.addr)
	s.refs = refs
	return e.buildStructure(s, t, c.Accel, c.Mode, &geom, c.Count, uses...)
}

// buildStructure records one build of s over geom (count primitives),
// sizing its store and scratch first, and the compacted-size query after.
func (e *encoder) buildStructure(s *structure, t *accelTouch, h device.Handle, mode device.BuildMode,
	geom *vk.AccelerationStructureGeometryKHR, count uint32, reads ...use) error {
	d := e.d
	info := vk.AccelerationStructureBuildGeometryInfoKHR{
		SType: vk.STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR, Type: s.vkType(),
		Flags: buildFlags(s.opt), Mode: vk.BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR,
		GeometryCount: 1, PGeometries: geom,
	}
	var sizes vk.AccelerationStructureBuildSizesInfoKHR
	sizes.SType = vk.STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR
	d.fn.GetAccelerationStructureBuildSizesKHR(d.vk, vk.ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, &info, &count, &sizes)
	runtime.KeepAlive(geom)
	scratchNeed := uint64(sizes.BuildScratchSize)
	if mode == device.BuildUpdate {
		info.Mode = vk.BUILD_ACCELERATION_STRUCTURE_MODE_UPDATE_KHR
		scratchNeed = uint64(sizes.UpdateScratchSize)
	} else if s.as.handle == 0 || s.as.size < uint64(sizes.AccelerationStructureSize) {
		st, err := d.newStore(s.vkType(), uint64(sizes.AccelerationStructureSize))
		if err != nil {
			return err
		}
		if old := s.as; old.handle != 0 {
			t.retired = append(t.retired, func() { d.releaseStore(old) })
		}
		t.made = append(t.made, func() { d.releaseStore(st) })
		s.as = st
	}
	align := uint64(max(d.phys.asProp.MinAccelerationStructureScratchOffsetAlignment, 1))
	if s.scratch == nil || s.scratch.size < scratchNeed+align {
		b, err := d.mem.newRawBufferFor(max(scratchNeed+align, 256), placeDevice, vk.BUFFER_USAGE_STORAGE_BUFFER_BIT)
		if err != nil {
			return fmt.Errorf("scratch of %d bytes: %w", scratchNeed, err)
		}
		if old := s.scratch; old != nil {
			t.retired = append(t.retired, func() { d.mem.destroyRawBuffer(old) })
		}
		t.made = append(t.made, func() { d.mem.destroyRawBuffer(b) })
		s.scratch = b
	}
	info.DstAccelerationStructure = s.as.handle
	if mode == device.BuildUpdate {
		info.SrcAccelerationStructure = s.as.handle
	}
	*info.ScratchData.DeviceAddress() = vk.DeviceAddress(alignUp(s.scratch.addr, align))
	rng := vk.AccelerationStructureBuildRangeInfoKHR{PrimitiveCount: count}
	pr := &rng

	e.order(stageASBuild, accessMemoryWrite, append(reads, use{s, 0, math.MaxUint64, true})...)
	if err := e.flush(); err != nil { // the build is recorded directly, after what is queued
		return err
	}
	if err := d.fn.CmdBuildAccelerationStructuresKHR(e.cmd, 1, &info, &pr); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	runtime.KeepAlive(geom)
	runtime.KeepAlive(pr)
	s.built, s.queried, s.compacted = true, false, false
	s.buildStream, s.buildValue = e.s, e.s.next+1 // the value enqueue gives this list
	if mode == device.BuildFull {
		s.count = count
	}
	if s.query != 0 {
		// The query reads the finished structure: a barrier after the build.
		e.order(stageASBuild, 0, use{s, 0, math.MaxUint64, false})
		if err := e.flush(); err != nil {
			return err
		}
		if err := d.fn.CmdResetQueryPool(e.cmd, s.query, 0, 1); err != nil {
			return fmt.Errorf("vulkan: %w", err)
		}
		handle := s.as.handle
		if err := d.fn.CmdWriteAccelerationStructuresPropertiesKHR(e.cmd, 1, &handle,
			vk.QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR, s.query, 0); err != nil {
			return fmt.Errorf("vulkan: %w", err)
		}
		s.queried = true
	}
	return nil
}

// accelCompact copies a structure into a store of its compacted size, read
// from the query its last build wrote: that build must have finished.
func (e *encoder) accelCompact(c *device.AccelCompact) error {
	if err := c.Check(); err != nil {
		return err
	}
	d := e.d
	s, t, err := e.structure(c.Handle, c.Kind)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	switch {
	case !s.opt.AllowCompaction:
		return invalidf("%s was made without AllowCompaction", s.label(c.Handle))
	case !s.built:
		return invalidf("%s has not been built", s.label(c.Handle))
	}
	n, ok := s.compactedSize()
	if !ok {
		return invalidf("the last build of %s has not finished (or was compacted since): synchronize with it before compacting", s.label(c.Handle))
	}
	if n >= s.as.size {
		return nil // nothing to gain
	}
	st, err := d.newStore(s.vkType(), n)
	if err != nil {
		return err
	}
	old := s.as
	t.retired = append(t.retired, func() { d.releaseStore(old) })
	t.made = append(t.made, func() { d.releaseStore(st) })
	e.order(stageASBuild, accessMemoryWrite, use{s, 0, math.MaxUint64, true})
	if err := e.flush(); err != nil {
		return err
	}
	info := vk.CopyAccelerationStructureInfoKHR{SType: vk.STRUCTURE_TYPE_COPY_ACCELERATION_STRUCTURE_INFO_KHR,
		Src: old.handle, Dst: st.handle, Mode: vk.COPY_ACCELERATION_STRUCTURE_MODE_COMPACT_KHR}
	if err := d.fn.CmdCopyAccelerationStructureKHR(e.cmd, &info); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	s.as, s.queried, s.compacted = st, false, true
	return nil
}

// accelArg is what a kernel's accel argument holds (kernel ABI v1,
// "Accels"): natively the structure's device address and its box table's;
// in software the address of its buffer (docs/accel.md) and 0, and the
// buffer (its handle and itself) that the kernel's binding takes. A kernel
// compiled for the other path (an ahead-of-time one, say) is refused: it
// would read the one structure as the other.
func (e *encoder) accelArg(h device.Handle, native bool) (addr, aux uint64, nodes *buffer, nodesH device.Handle, err error) {
	s, err := structureOf(e.d, h, device.KindAccel)
	if err != nil {
		return 0, 0, nil, 0, err
	}
	e.used = append(e.used, &s.tracked)
	s.mu.Lock()
	defer s.mu.Unlock()
	if (s.soft == nil) != native {
		path := map[bool]string{false: "the software traversal", true: "native ray queries"}
		return 0, 0, nil, 0, unsupportedf("%s is built for %s, the kernel was compiled for %s (kernel ABI v1, \"Accels\")",
			s.label(h), path[s.soft == nil], path[native])
	}
	for i, r := range s.refs {
		if r.s == nil {
			continue
		}
		e.used = append(e.used, &r.s.tracked) // destroyed once this trace is done, not before
		r.s.mu.Lock()
		gone, moved := r.s.destroyed, r.s.addr() != r.addr
		r.s.mu.Unlock()
		switch {
		case gone:
			return 0, 0, nil, 0, invalidf("instance %d of %s places %s, which was destroyed", i, s.label(h), r.s.kind)
		case moved:
			return 0, 0, nil, 0, invalidf("instance %d of %s places a %s rebuilt into other memory or compacted since the accel's build: build the accel again", i, s.label(h), r.s.kind)
		}
	}
	if s.soft != nil {
		if s.nodes == nil {
			return 0, 0, nil, 0, invalidf("%s has not been built", s.label(h))
		}
		if s.nodes.raw.addr == 0 {
			return 0, 0, nil, 0, unsupportedf("%s: buffer device addresses are unavailable", s.label(h))
		}
		return s.nodes.raw.addr, 0, s.nodes, s.nodesHandle, nil
	}
	if !s.built || s.instBuf == nil {
		return 0, 0, nil, 0, invalidf("%s has not been built", s.label(h))
	}
	return s.as.addr, s.instBuf.addr + instanceRecord*uint64(s.count), nil, 0, nil
}
