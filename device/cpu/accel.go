package cpu

// Ray tracing in software (device.RayTracing, Capabilities().RayTracing =
// emulated): a mesh or procedural primitive is an accel/bvh hierarchy built
// on the stream's goroutine from the buffer bytes when its command runs (so
// it sees what earlier commands wrote), an accel a bvh.Scene over them. The
// node arrays stay in Go memory for the traversal kernels will do. An
// update refits a mesh's or procedural's hierarchy in place and rebuilds
// an accel's top level (a few nodes per instance). Faults the Vulkan
// backend turns into defined results are errors here, where the geometry
// is read: an index past the vertices, a NaN or infinite vertex or box
// (bvh refuses them); the stream's next Synchronize returns them.

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
)

// Extension implements device.Extender: the cpu backend builds
// acceleration structures in software.
func (d *Device) Extension(t reflect.Type) any {
	if t == reflect.TypeFor[device.RayTracing]() {
		return d
	}
	return nil
}

var _ device.RayTracing = (*Device)(nil)

// structure is a mesh, procedural or accel.
type structure struct {
	h    device.Handle
	kind device.ResourceKind
	opt  device.AccelOptions

	mu        sync.Mutex // the stream running a build holds it
	destroyed bool
	built     bool
	count     uint32 // triangles, boxes or instances of the last full build
	vertices  uint32
	mesh      *bvh.Mesh  // meshes and procedurals
	scene     *bvh.Scene // accels
	insts     []device.Instance
	prims     []*structure // accels: instance i's primitive
	set       []bool
	compacted bool
}

func (s *structure) label() string { return fmt.Sprintf("%s %d", s.kind, s.h) }

// bytes is the memory of the built hierarchy (its slices' capacities).
func (s *structure) bytes() uint64 {
	var n uint64
	if m := s.mesh; m != nil {
		n += uint64(cap(m.Nodes))*32 + uint64(cap(m.Prims))*4 + uint64(cap(m.Tris))*36 + uint64(cap(m.Boxes))*24
	}
	if sc := s.scene; sc != nil {
		n += uint64(cap(sc.Nodes))*32 + uint64(cap(sc.Order))*4 + uint64(cap(sc.Instances))*64 +
			uint64(cap(sc.Inverse))*48 + uint64(cap(sc.World))*24
	}
	return n
}

// compactedBytes is bytes with every slice at its length.
func (s *structure) compactedBytes() uint64 {
	var n uint64
	if m := s.mesh; m != nil {
		n += uint64(len(m.Nodes))*32 + uint64(len(m.Prims))*4 + uint64(len(m.Tris))*36 + uint64(len(m.Boxes))*24
	}
	if sc := s.scene; sc != nil {
		n += uint64(len(sc.Nodes))*32 + uint64(len(sc.Order))*4 + uint64(len(sc.Instances))*64 +
			uint64(len(sc.Inverse))*48 + uint64(len(sc.World))*24
	}
	return n
}

func (d *Device) createStructure(kind device.ResourceKind, opt device.AccelOptions) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	if err := opt.Check(); err != nil {
		return 0, fmt.Errorf("cpu: Create %v: %w", kind, err)
	}
	s := &structure{kind: kind, opt: opt}
	s.h = d.add(s)
	return s.h, nil
}

func (d *Device) CreateMesh(opt device.AccelOptions) (device.Handle, error) {
	return d.createStructure(device.KindMesh, opt)
}

func (d *Device) CreateProcedural(opt device.AccelOptions) (device.Handle, error) {
	return d.createStructure(device.KindProcedural, opt)
}

func (d *Device) CreateAccel(opt device.AccelOptions) (device.Handle, error) {
	return d.createStructure(device.KindAccel, opt)
}

func (d *Device) destroyStructure(h device.Handle, kind device.ResourceKind) error {
	if _, err := d.structure(h, kind); err != nil {
		return fmt.Errorf("cpu: Destroy: %w", err)
	}
	s, err := remove[*structure](d, h, kind.String())
	if err != nil {
		return err
	}
	// Work in flight that holds it still runs; later builds of accels
	// over it fail.
	s.mu.Lock()
	s.destroyed = true
	s.mu.Unlock()
	return nil
}

func (d *Device) DestroyMesh(h device.Handle) error { return d.destroyStructure(h, device.KindMesh) }
func (d *Device) DestroyProcedural(h device.Handle) error {
	return d.destroyStructure(h, device.KindProcedural)
}
func (d *Device) DestroyAccel(h device.Handle) error { return d.destroyStructure(h, device.KindAccel) }

// structure looks up a structure of the kind (KindInvalid: any).
func (d *Device) structure(h device.Handle, kind device.ResourceKind) (*structure, error) {
	want := kind.String()
	if kind == device.KindInvalid {
		want = "mesh, procedural or accel"
	}
	s, err := lookup[*structure](d, h, want)
	if err != nil {
		return nil, err
	}
	if kind != device.KindInvalid && s.kind != kind {
		return nil, fmt.Errorf("%w: handle %d is a %s, not a %s", device.ErrInvalidArgument, h, s.kind, kind)
	}
	return s, nil
}

func (d *Device) AccelSize(h device.Handle) (device.AccelSize, error) {
	if err := d.enter(); err != nil {
		return device.AccelSize{}, err
	}
	defer d.exit()
	s, err := d.structure(h, device.KindInvalid)
	if err != nil {
		return device.AccelSize{}, fmt.Errorf("cpu: AccelSize: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := device.AccelSize{Bytes: s.bytes()}
	if s.built && s.opt.AllowCompaction && !s.compacted {
		out.Compacted = s.compactedBytes()
	}
	return out, nil
}

// updateError refuses a refit the structure cannot take; s.mu held.
func (s *structure) updateError(n uint32, what string) error {
	switch {
	case !s.opt.AllowUpdate:
		return fmt.Errorf("%w: update of %s, made without AllowUpdate", device.ErrInvalidArgument, s.label())
	case !s.built:
		return fmt.Errorf("%w: update of %s, which has not been built", device.ErrInvalidArgument, s.label())
	case n != s.count:
		return fmt.Errorf("%w: update of %s with %d %s, its build had %d", device.ErrInvalidArgument, s.label(), n, what, s.count)
	}
	return nil
}

func leF32(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

func vec3(b []byte) [3]float32 { return [3]float32{leF32(b), leF32(b[4:]), leF32(b[8:])} }

// prepareAccel turns a ray-tracing command into the operation its stream runs.
func (d *Device) prepareAccel(c device.Command) (func() error, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	switch c := c.(type) {
	case *device.MeshBuild:
		g := c.Geometry
		verts, err := d.span(g.Vertices, g.VertexOffset, uint64(g.VertexCount-1)*uint64(g.VertexStride)+12, "Vertices")
		if err != nil {
			return nil, err
		}
		idx, err := d.span(g.Indices, g.IndexOffset, 12*uint64(g.Triangles), "Indices")
		if err != nil {
			return nil, err
		}
		s, err := d.structure(c.Mesh, device.KindMesh)
		if err != nil {
			return nil, err
		}
		return func() error { return s.buildMesh(c.Mode, g, verts, idx) }, nil
	case *device.ProceduralBuild:
		boxes, err := d.span(c.AABBs, c.Offset, 24*uint64(c.Count), "AABBs")
		if err != nil {
			return nil, err
		}
		s, err := d.structure(c.Procedural, device.KindProcedural)
		if err != nil {
			return nil, err
		}
		return func() error { return s.buildProcedural(c.Mode, c.Count, boxes) }, nil
	case *device.AccelBuild:
		s, err := d.structure(c.Accel, device.KindAccel)
		if err != nil {
			return nil, err
		}
		prims := make([]*structure, len(c.Updates))
		for i, u := range c.Updates {
			if u.Change&device.ChangePrimitive == 0 {
				continue
			}
			if prims[i], err = d.structure(u.Instance.Primitive, u.Instance.Kind); err != nil {
				return nil, fmt.Errorf("update %d (instance %d): %w", i, u.Index, err)
			}
		}
		updates := slices.Clone(c.Updates)
		return func() error { return s.buildAccel(c.Mode, c.Count, updates, prims) }, nil
	case *device.AccelCompact:
		s, err := d.structure(c.Handle, c.Kind)
		if err != nil {
			return nil, err
		}
		return s.compact, nil
	}
	return nil, fmt.Errorf("%w: command %T", device.ErrUnsupported, c)
}

func (s *structure) buildMesh(mode device.BuildMode, g device.MeshGeometry, verts, idx []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mode == device.BuildUpdate {
		if err := s.updateError(g.Triangles, "triangles"); err != nil {
			return err
		}
		if g.VertexCount != s.vertices {
			return fmt.Errorf("%w: update of %s: %d vertices, its build had %d", device.ErrInvalidArgument, s.label(), g.VertexCount, s.vertices)
		}
	}
	tris := make([]bvh.Triangle, g.Triangles)
	for i := range tris {
		var abc [3][3]float32
		for j := range 3 {
			v := binary.LittleEndian.Uint32(idx[12*i+4*j:])
			if v >= g.VertexCount {
				return fmt.Errorf("%w: %s: triangle %d: index %d past its %d vertices", device.ErrInvalidArgument, s.label(), i, v, g.VertexCount)
			}
			abc[j] = vec3(verts[uint64(v)*uint64(g.VertexStride):])
		}
		tris[i] = bvh.Triangle{A: abc[0], B: abc[1], C: abc[2]}
	}
	if mode == device.BuildUpdate {
		if err := s.mesh.Refit(tris); err != nil {
			return fmt.Errorf("%s: %w: %w", s.label(), device.ErrInvalidArgument, err)
		}
		return nil
	}
	m, err := bvh.BuildTriangles(tris, bvh.Options{FastBuild: s.opt.Hint == device.FastBuild})
	if err != nil {
		return fmt.Errorf("%s: %w: %w", s.label(), device.ErrInvalidArgument, err)
	}
	s.mesh, s.built, s.count, s.vertices, s.compacted = m, true, g.Triangles, g.VertexCount, false
	return nil
}

func (s *structure) buildProcedural(mode device.BuildMode, n uint32, raw []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mode == device.BuildUpdate {
		if err := s.updateError(n, "boxes"); err != nil {
			return err
		}
	}
	boxes := make([]bvh.AABB, n)
	for i := range boxes {
		boxes[i] = bvh.AABB{Min: vec3(raw[24*i:]), Max: vec3(raw[24*i+12:])}
	}
	if mode == device.BuildUpdate {
		if err := s.mesh.RefitAABBs(boxes); err != nil {
			return fmt.Errorf("%s: %w: %w", s.label(), device.ErrInvalidArgument, err)
		}
		return nil
	}
	m, err := bvh.BuildAABBs(boxes, bvh.Options{FastBuild: s.opt.Hint == device.FastBuild})
	if err != nil {
		return fmt.Errorf("%s: %w: %w", s.label(), device.ErrInvalidArgument, err)
	}
	s.mesh, s.built, s.count, s.compacted = m, true, n, false
	return nil
}

func (s *structure) buildAccel(mode device.BuildMode, count uint32, updates []device.InstanceUpdate, prims []*structure) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mode == device.BuildUpdate {
		if err := s.updateError(count, "instances"); err != nil {
			return err
		}
	}
	for len(s.insts) < int(count) {
		s.insts = append(s.insts, device.Instance{})
		s.prims = append(s.prims, nil)
		s.set = append(s.set, false)
	}
	for i, u := range updates {
		in := &s.insts[u.Index]
		if !s.set[u.Index] && u.Change != device.ChangeAll {
			return fmt.Errorf("%w: update %d sets instance %d, never set before, only in part (a new instance needs ChangeAll)",
				device.ErrInvalidArgument, i, u.Index)
		}
		s.set[u.Index] = true
		if u.Change&device.ChangePrimitive != 0 {
			in.Primitive, in.Kind, s.prims[u.Index] = u.Instance.Primitive, u.Instance.Kind, prims[i]
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
	out := make([]bvh.Instance, count)
	for i := range out {
		if !s.set[i] {
			return fmt.Errorf("%w: instance %d of %d of %s was never set", device.ErrInvalidArgument, i, count, s.label())
		}
		p, in := s.prims[i], s.insts[i]
		p.mu.Lock()
		destroyed, built, m := p.destroyed, p.built, p.mesh
		p.mu.Unlock()
		switch {
		case destroyed:
			return fmt.Errorf("instance %d: %s: %w", i, p.label(), device.ErrClosed)
		case !built:
			return fmt.Errorf("%w: instance %d: %s has not been built", device.ErrInvalidArgument, i, p.label())
		}
		out[i] = bvh.Instance{Mesh: m, Transform: in.Transform, Mask: in.Mask, Opaque: in.Opaque, ID: in.ID}
	}
	sc, err := bvh.BuildScene(out, bvh.Options{FastBuild: s.opt.Hint == device.FastBuild})
	if err != nil {
		return fmt.Errorf("%s: %w: %w", s.label(), device.ErrInvalidArgument, err)
	}
	s.scene, s.built, s.compacted = sc, true, false
	if mode == device.BuildFull {
		s.count = count
	}
	return nil
}

// compact trims the hierarchy's slices to their lengths.
func (s *structure) compact() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !s.opt.AllowCompaction:
		return fmt.Errorf("%w: %s was made without AllowCompaction", device.ErrInvalidArgument, s.label())
	case !s.built:
		return fmt.Errorf("%w: %s has not been built", device.ErrInvalidArgument, s.label())
	}
	if m := s.mesh; m != nil {
		c := *m
		c.Nodes, c.Prims, c.Tris, c.Boxes = exact(m.Nodes), exact(m.Prims), exact(m.Tris), exact(m.Boxes)
		s.mesh = &c
	}
	if sc := s.scene; sc != nil {
		c := *sc
		c.Nodes, c.Order, c.Instances, c.Inverse, c.World = exact(sc.Nodes), exact(sc.Order), exact(sc.Instances), exact(sc.Inverse), exact(sc.World)
		s.scene = &c
	}
	s.compacted = true
	return nil
}

// exact copies s into a slice whose capacity is its length.
func exact[T any](s []T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	copy(out, s)
	return out
}
