package vulkan

// The software path (Capabilities().RayTracing = emulated): on a device
// without VK_KHR_acceleration_structure (lavapipe 22.3), or with
// LUCENT_ACCEL=software, structures are internal/softaccel hierarchies
// built on the host, and their node arrays are uploaded to a device buffer
// of the structure's for the traversal kernels will do (layout in
// docs/accel.md). A build needs its geometry as earlier commands left it,
// so a list with ray-tracing commands is submitted in pieces: the commands
// before a build go as one list, the geometry is read back (a download and
// a wait for the stream: the documented cost), the hierarchy is built and
// uploaded, and the rest of the list follows. Submit returns once the
// list's last build is uploaded; its other work runs as usual. An accel's
// buffer holds its top level and, copied on the device, each mesh it
// places, so that kernels read one buffer (through one binding while it
// fits in maxStorageBufferRange).

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/internal/softaccel"
	"github.com/lucent-gpu/lucent/vk"
)

// softwareForced reports LUCENT_ACCEL=software: software structures on a
// device that has native ones, so both paths run in one test.
func softwareForced() bool { return os.Getenv("LUCENT_ACCEL") == "software" }

// accelDescriptorLimit is the largest software accel buffer kernels read
// through its storage-buffer binding: maxStorageBufferRange (128 MiB on
// lavapipe) where accelByBinding chose the binding, else 0. Larger ones
// they read through the buffer's device address.
func (d *Device) accelDescriptorLimit() uint64 {
	return min(d.softDescLimit.Load(), d.caps.MaxStorageBufferRange)
}

// EnvAccelRead overrides accelByBinding: "binding" or "address".
const EnvAccelRead = "LUCENT_ACCEL_READ"

// accelByBinding says whether kernels on p read software accels that fit
// in maxStorageBufferRange through their binding rather than through
// their address, by driver, as measured (docs/PERFORMANCE.md, "Software
// accels through a storage-buffer binding"): the binding on lavapipe
// before Mesa 23 (22.3: about 2x the rays/s, its global loads being a
// lane loop per component), the address elsewhere (Mesa 25's lavapipe:
// the binding was 0.6-0.8x; other drivers are unmeasured and keep the
// address, as before).
func accelByBinding(p *physical) bool {
	switch os.Getenv(EnvAccelRead) {
	case "binding":
		return true
	case "address":
		return false
	}
	v := driverVersion(p.props.DriverVersion, vk.ByteString(p.p12.DriverInfo[:]))
	return p.p12.DriverID == vk.DRIVER_ID_MESA_LLVMPIPE && v < 23<<22
}

func isAccelCommand(c device.Command) bool {
	switch c.(type) {
	case *device.MeshBuild, *device.ProceduralBuild, *device.AccelBuild, *device.AccelCompact:
		return true
	}
	return false
}

// dispatchSoftware submits a list with ray-tracing commands in pieces.
func (d *Device) dispatchSoftware(sh device.Handle, list *device.CommandList) error {
	// Every ray-tracing command is checked before anything is submitted.
	for i, c := range list.Commands {
		if isAccelCommand(c) {
			if err := d.checkSoftware(c); err != nil {
				return fmt.Errorf("command %d (%s): %w", i, c.CommandName(), err)
			}
		}
	}
	var pending []device.Command
	flush := func(callbacks []func()) error {
		if len(pending) == 0 && len(callbacks) == 0 {
			return nil
		}
		l := &device.CommandList{Commands: pending, Callbacks: callbacks}
		pending = nil
		return d.dispatch(sh, l)
	}
	for i, c := range list.Commands {
		if !isAccelCommand(c) {
			pending = append(pending, c)
			continue
		}
		if err := flush(nil); err != nil {
			return err
		}
		if err := d.buildSoftware(sh, c); err != nil {
			return fmt.Errorf("command %d (%s): %w", i, c.CommandName(), err)
		}
	}
	return flush(list.Callbacks)
}

// softStructure looks up a software structure of the kind.
func (d *Device) softStructure(h device.Handle, kind device.ResourceKind) (*structure, error) {
	d.live.RLock()
	defer d.live.RUnlock()
	if err := d.alive(); err != nil {
		return nil, err
	}
	return structureOf(d, h, kind)
}

// checkSoftware checks a command's handles and ranges.
func (d *Device) checkSoftware(c device.Command) error {
	if err := c.Check(); err != nil {
		return err
	}
	d.live.RLock()
	defer d.live.RUnlock()
	rng := func(what string, h device.Handle, off, n uint64) error {
		b, err := lookup[*buffer](d, h, "buffer")
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if _, err := span(b, h, off, n); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	switch c := c.(type) {
	case *device.MeshBuild:
		g := c.Geometry
		if err := rng("Vertices", g.Vertices, g.VertexOffset, uint64(g.VertexCount-1)*uint64(g.VertexStride)+12); err != nil {
			return err
		}
		if err := rng("Indices", g.Indices, g.IndexOffset, g.IndexBytes()); err != nil {
			return err
		}
		_, err := structureOf(d, c.Mesh, device.KindMesh)
		return err
	case *device.ProceduralBuild:
		if err := rng("AABBs", c.AABBs, c.Offset, 24*uint64(c.Count)); err != nil {
			return err
		}
		_, err := structureOf(d, c.Procedural, device.KindProcedural)
		return err
	case *device.AccelBuild:
		for i, u := range c.Updates {
			if u.Change&device.ChangePrimitive != 0 {
				if _, err := structureOf(d, u.Instance.Primitive, u.Instance.Kind); err != nil {
					return fmt.Errorf("update %d (instance %d): %w", i, u.Index, err)
				}
			}
		}
		_, err := structureOf(d, c.Accel, device.KindAccel)
		return err
	case *device.AccelCompact:
		_, err := structureOf(d, c.Handle, c.Kind)
		return err
	}
	return nil
}

// readBack downloads byte ranges on the stream and waits for them, after
// the stream's earlier work.
func (d *Device) readBack(sh device.Handle, ranges ...[3]uint64) ([][]byte, error) {
	s, err := lookupStream(d, sh)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	parked := len(s.parked) > 0
	s.mu.Unlock()
	if parked {
		return nil, invalidf("stream %d waits for an event signal not yet submitted: a software build, which reads its geometry back, would wait for it", sh)
	}
	out := make([][]byte, len(ranges))
	l := &device.CommandList{}
	for i, r := range ranges {
		out[i] = make([]byte, r[2])
		l.Commands = append(l.Commands, &device.BufferDownload{Buffer: device.Handle(r[0]), Offset: r[1], Data: out[i]})
	}
	if err := d.dispatch(sh, l); err != nil {
		return nil, err
	}
	if err := d.SynchronizeStream(context.Background(), sh); err != nil {
		return nil, err
	}
	return out, nil
}

func (d *Device) buildSoftware(sh device.Handle, c device.Command) error {
	switch c := c.(type) {
	case *device.MeshBuild:
		g := c.Geometry
		s, err := d.softStructure(c.Mesh, device.KindMesh)
		if err != nil {
			return err
		}
		s.mu.Lock()
		keep := s.lbvh
		s.mu.Unlock()
		switch {
		case c.Mode == device.BuildUpdate && keep != nil && s.soft.OnDevice():
			return d.buildMeshOnDevice(sh, s, g, keep)
		case c.Mode == device.BuildFull && softMeshOnDevice() && g.IndexFormat == device.IndexUint32:
			return d.buildMeshOnDevice(sh, s, g, nil)
		}
		data, err := d.readBack(sh, [3]uint64{uint64(g.Vertices), g.VertexOffset, uint64(g.VertexCount-1)*uint64(g.VertexStride) + 12},
			[3]uint64{uint64(g.Indices), g.IndexOffset, g.IndexBytes()})
		if err != nil {
			return err
		}
		fast := s.opt.Hint == device.FastBuild
		switch softBuilder() {
		case "linear":
			fast = true
		case "sah":
			fast = false
		}
		if err := s.soft.BuildMeshWith(c.Mode, g, data[0], data[1], fast); err != nil {
			return err
		}
		if keep != nil && c.Mode == device.BuildFull {
			// The device build's buffers go with the tree they held.
			s.mu.Lock()
			s.lbvh = nil
			s.mu.Unlock()
			keep.drop(d)
		}
		return d.uploadSoftware(sh, s, meshBytes(s.soft.Mesh()))
	case *device.ProceduralBuild:
		data, err := d.readBack(sh, [3]uint64{uint64(c.AABBs), c.Offset, 24 * uint64(c.Count)})
		if err != nil {
			return err
		}
		s, err := d.softStructure(c.Procedural, device.KindProcedural)
		if err != nil {
			return err
		}
		if err := s.soft.BuildProcedural(c.Mode, c.Count, data[0]); err != nil {
			return err
		}
		return d.uploadSoftware(sh, s, meshBytes(s.soft.Mesh()))
	case *device.AccelBuild:
		s, err := d.softStructure(c.Accel, device.KindAccel)
		if err != nil {
			return err
		}
		prims := make([]*softaccel.Structure, len(c.Updates))
		for i, u := range c.Updates {
			if u.Change&device.ChangePrimitive != 0 {
				p, err := d.softStructure(u.Instance.Primitive, u.Instance.Kind)
				if err != nil {
					return fmt.Errorf("update %d (instance %d): %w", i, u.Index, err)
				}
				prims[i] = p.soft
				s.mu.Lock()
				for len(s.softPrims) <= int(u.Index) {
					s.softPrims = append(s.softPrims, nil)
				}
				s.softPrims[u.Index] = p
				s.mu.Unlock()
			}
		}
		if err := s.soft.BuildAccel(c.Mode, c.Count, slices.Clone(c.Updates), prims, math.MaxUint64); err != nil {
			return err
		}
		// The accel's buffer: the top level, then a copy of each distinct
		// mesh its instances place (16-aligned), each instance record
		// holding its mesh's offset. The copies are made on the device from
		// the meshes' buffers as they are now: a mesh built again later is
		// seen after the accel's next build (docs/accel.md).
		sc := s.soft.Scene()
		offs := make([]uint64, len(sc.Instances))
		refs := make([]primRef, len(offs))
		size := uint64(sceneSize(sc))
		at := map[*structure]uint64{}
		var copies []device.Command
		s.mu.Lock()
		for i := range offs {
			p := s.softPrims[i]
			if p == nil {
				continue
			}
			p.mu.Lock()
			addr, nodes, nodesH := p.addr(), p.nodes, p.nodesHandle
			p.mu.Unlock()
			refs[i] = primRef{p, addr}
			if nodes == nil {
				continue // unbuilt: the build refused it already
			}
			off, ok := at[p]
			if !ok {
				off = alignUp(size, 16)
				size = off + nodes.desc.Size
				at[p] = off
				copies = append(copies, &device.BufferCopy{Src: nodesH, Dst: 0, DstOffset: off, Size: nodes.desc.Size})
			}
			offs[i] = off
		}
		s.refs = refs
		s.mu.Unlock()
		return d.uploadSoftwareWith(sh, s, sceneBytes(sc, offs), size, copies...)
	case *device.AccelCompact:
		s, err := d.softStructure(c.Handle, c.Kind)
		if err != nil {
			return err
		}
		// The device copy is exact already; the host's slices shrink.
		return s.soft.Compact()
	}
	return nil
}

// uploadSoftware puts a structure's arrays in a fresh device buffer (the
// one before may still be read by work in flight: it goes once that work
// is done).
func (d *Device) uploadSoftware(sh device.Handle, s *structure, data []byte) error {
	return d.uploadSoftwareWith(sh, s, data, uint64(len(data)))
}

// uploadSoftwareWith is uploadSoftware into a buffer of size bytes: data
// at its start, then the buffer copies given, whose Dst is set to it.
func (d *Device) uploadSoftwareWith(sh device.Handle, s *structure, data []byte, size uint64, copies ...device.Command) error {
	size = max(size, 4)
	raw, err := d.mem.newRawBuffer(alignUp(size, 4), placeDevice)
	if err != nil {
		return fmt.Errorf("vulkan: the structure's %d bytes: %w", size, err)
	}
	b := &buffer{raw: raw, desc: device.BufferDesc{Size: size}, d: d}
	h, err := d.add(b)
	if err != nil {
		b.release()
		return err
	}
	l := &device.CommandList{Commands: []device.Command{&device.BufferUpload{Buffer: h, Data: data}}}
	for _, c := range copies {
		c.(*device.BufferCopy).Dst = h
		l.Commands = append(l.Commands, c)
	}
	if err := d.dispatch(sh, l); err != nil {
		_ = d.DestroyBuffer(h)
		return err
	}
	s.mu.Lock()
	old, oldH := s.nodes, s.nodesHandle
	s.nodes, s.nodesHandle = b, h
	s.mu.Unlock()
	if old != nil {
		return d.DestroyBuffer(oldH)
	}
	return nil
}

// meshBytes lays a hierarchy out for the device: a 16-byte header (u32:
// the primitives' offset, 0, the primitive count, 1 for boxes), the nodes
// (bvh.Node, 32 bytes) from byte 16, then its primitives in leaf order,
// each in 16-byte rows whose fourth word of the first row is the
// primitive's input id (uint32): triangles of 48 bytes {A, id, B, 0, C, 0},
// boxes of 32 {Min, id, Max, 0}. Kernels read it (codegen's software
// traversal), a row as one 16-byte load.
func meshBytes(m *bvh.Mesh) []byte {
	prims := 16 + 32*len(m.Nodes)
	out := make([]byte, 0, prims+codegen.SoftTriangleBytes*len(m.Tris)+codegen.SoftBoxBytes*len(m.Boxes))
	out = binary.LittleEndian.AppendUint32(out, uint32(prims))
	out = binary.LittleEndian.AppendUint32(out, 0)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(m.Prims)))
	out = binary.LittleEndian.AppendUint32(out, uint32(b2u(m.Procedural)))
	out = appendNodes(out, m.Nodes)
	for i, t := range m.Tris {
		out = appendF32(out, t.A[:]...)
		out = binary.LittleEndian.AppendUint32(out, m.Prims[i])
		out = appendF32(out, t.B[:]...)
		out = binary.LittleEndian.AppendUint32(out, 0)
		out = appendF32(out, t.C[:]...)
		out = binary.LittleEndian.AppendUint32(out, 0)
	}
	for i, b := range m.Boxes {
		out = appendF32(out, b.Min[:]...)
		out = binary.LittleEndian.AppendUint32(out, m.Prims[i])
		out = appendF32(out, b.Max[:]...)
		out = binary.LittleEndian.AppendUint32(out, 0)
	}
	return out
}

func appendNodes(out []byte, nodes []bvh.Node) []byte {
	for _, n := range nodes {
		out = appendF32(out, n.Min[:]...)
		out = binary.LittleEndian.AppendUint32(out, n.LeftFirst)
		out = appendF32(out, n.Max[:]...)
		out = binary.LittleEndian.AppendUint32(out, n.Count)
	}
	return out
}

// sceneBytes lays a top level out: a 16-byte header (u32: the leaf
// order's offset, the instances' offset, the instance count, the
// object→world table's offset), the nodes from byte 16, the leaf order
// (uint32), padded to 16 bytes, then per instance
// codegen.SoftInstanceBytes (64): its world→object transform (12 float32,
// the host's float64 inverse rounded), the offset of its mesh's copy in
// the accel's buffer (uint64, offs[i]; 0: none),
// id (uint32), mask, opaque, procedural and a byte of padding; then the
// object→world table: per instance the transform it was given (12 float32,
// codegen.SoftTransformBytes), which ray queries return unchanged: in all
// sceneSize(sc) bytes. The meshes' copies follow (uploadSoftware).
func sceneBytes(sc *bvh.Scene, offs []uint64) []byte {
	order := 16 + 32*len(sc.Nodes)
	insts := (order + 4*len(sc.Order) + 15) &^ 15
	o2w := insts + codegen.SoftInstanceBytes*len(sc.Instances)
	out := binary.LittleEndian.AppendUint32(nil, uint32(order))
	out = binary.LittleEndian.AppendUint32(out, uint32(insts))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(sc.Instances)))
	out = binary.LittleEndian.AppendUint32(out, uint32(o2w))
	out = appendNodes(out, sc.Nodes)
	for _, o := range sc.Order {
		out = binary.LittleEndian.AppendUint32(out, o)
	}
	for len(out) < insts {
		out = append(out, 0)
	}
	for i, in := range sc.Instances {
		var rec [codegen.SoftInstanceBytes]byte
		putF32(rec[:], sc.Inverse[i][:])
		binary.LittleEndian.PutUint64(rec[48:], offs[i])
		binary.LittleEndian.PutUint32(rec[56:], in.ID)
		proc := in.Mesh != nil && in.Mesh.Procedural
		rec[60], rec[61], rec[62] = in.Mask, b2u(in.Opaque), b2u(proc)
		out = append(out, rec[:]...)
	}
	for _, in := range sc.Instances {
		out = appendF32(out, in.Transform[:]...)
	}
	return out
}

// sceneSize is the length of sceneBytes(sc, …).
func sceneSize(sc *bvh.Scene) int {
	insts := (16 + 32*len(sc.Nodes) + 4*len(sc.Order) + 15) &^ 15
	return insts + (codegen.SoftInstanceBytes+codegen.SoftTransformBytes)*len(sc.Instances)
}

// putF32 writes fs little-endian at the start of b.
func putF32(b []byte, fs []float32) {
	for i, f := range fs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
}

func appendF32(b []byte, fs ...float32) []byte {
	for _, f := range fs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
