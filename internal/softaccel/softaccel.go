// Package softaccel builds acceleration structures in software, for the
// backends without native ones: a mesh or procedural primitive is an
// accel/bvh hierarchy built on the host from the bytes of its geometry, an
// accel a bvh.Scene over them. The cpu backend builds from its Go memory on
// the stream's goroutine; the Vulkan backend from geometry read back from
// the device. The one rule a reader must know: every method takes the
// structure's lock, so builds of one structure on two streams never race on
// its memory (their order is the program's, as on a device).
package softaccel

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
)

// Structure is a mesh, procedural or accel.
type Structure struct {
	h    device.Handle
	kind device.ResourceKind
	opt  device.AccelOptions

	mu        sync.Mutex // the stream running a build holds it
	destroyed bool
	// destroyedAt is the submission the destroy came after: accel builds
	// submitted until then still see the structure (Destroy).
	destroyedAt uint64
	built       bool
	count       uint32 // triangles, boxes or instances of the last full build
	vertices    uint32
	mesh        *bvh.Mesh  // meshes and procedurals
	scene       *bvh.Scene // accels
	insts       []device.Instance
	prims       []*Structure // accels: instance i's primitive
	set         []bool
	// devBytes: the size of a mesh built on the device (BuildDevice),
	// whose host copy holds its root node only; 0 otherwise
	devBytes uint64
}

func (s *Structure) label() string { return fmt.Sprintf("%s %d", s.kind, s.h) }

// bytes is the memory of the built hierarchy (its slices' capacities); s.mu
// held.
func (s *Structure) bytes() uint64 {
	if s.devBytes != 0 {
		return s.devBytes
	}
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

// compactedBytes is bytes with every slice at its length; s.mu held.
func (s *Structure) compactedBytes() uint64 {
	if s.devBytes != 0 {
		return s.devBytes
	}
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

// updateError refuses a refit the structure cannot take; s.mu held.
func (s *Structure) updateError(n uint32, what string) error {
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

// BuildMesh builds or refits a mesh from the bytes of its vertex and index
// ranges.
func (s *Structure) BuildMesh(mode device.BuildMode, g device.MeshGeometry, verts, idx []byte) error {
	return s.BuildMeshWith(mode, g, verts, idx, s.opt.Hint == device.FastBuild)
}

// IndexError is the error of a mesh build whose triangle tri has index v
// past the mesh's vertices.
func (s *Structure) IndexError(tri int, v uint32, g device.MeshGeometry) error {
	return fmt.Errorf("%w: %s: triangle %d: index %d past its %d vertices", device.ErrInvalidArgument, s.label(), tri, v, g.VertexCount)
}

// ValueError is the error of a mesh build whose triangle i (t) has a
// non-finite coordinate.
func (s *Structure) ValueError(i int, t bvh.Triangle) error {
	return fmt.Errorf("%s: %w: %w", s.label(), device.ErrInvalidArgument, bvh.CheckTriangle(i, t))
}

// UpdateCheck refuses a refit of a mesh that it cannot take, as BuildMesh
// does.
func (s *Structure) UpdateCheck(g device.MeshGeometry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.updateError(g.Triangles, "triangles"); err != nil {
		return err
	}
	if g.VertexCount != s.vertices {
		return fmt.Errorf("%w: update of %s: %d vertices, its build had %d", device.ErrInvalidArgument, s.label(), g.VertexCount, s.vertices)
	}
	return nil
}

// RefitDevice records a refit made on the device of a mesh built there:
// its new root node.
func (s *Structure) RefitDevice(root bvh.Node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mesh = &bvh.Mesh{Nodes: []bvh.Node{root}}
}

// BuildDevice records a full build of a mesh made on the device: the
// host keeps its root node (what an accel's build needs of it) and the
// device copy's size in bytes.
func (s *Structure) BuildDevice(g device.MeshGeometry, root bvh.Node, bytes uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mesh = &bvh.Mesh{Nodes: []bvh.Node{root}}
	s.built, s.count, s.vertices, s.devBytes = true, g.Triangles, g.VertexCount, bytes
}

// OnDevice reports whether the mesh's last build was made on the device.
func (s *Structure) OnDevice() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.devBytes != 0
}

// BuildMeshWith is BuildMesh, with the linear (fast) build or the SAH one.
func (s *Structure) BuildMeshWith(mode device.BuildMode, g device.MeshGeometry, verts, idx []byte, fast bool) error {
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
			v := g.Index(idx, i, j)
			if v >= g.VertexCount {
				return s.IndexError(i, v, g)
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
	m, err := bvh.BuildTriangles(tris, bvh.Options{FastBuild: fast})
	if err != nil {
		return fmt.Errorf("%s: %w: %w", s.label(), device.ErrInvalidArgument, err)
	}
	s.mesh, s.built, s.count, s.vertices, s.devBytes = m, true, g.Triangles, g.VertexCount, 0
	return nil
}

// BuildProcedural builds or refits a procedural primitive from the bytes
// of its boxes.
func (s *Structure) BuildProcedural(mode device.BuildMode, n uint32, raw []byte) error {
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
	s.mesh, s.built, s.count, s.devBytes = m, true, n, 0
	return nil
}

// BuildAccel applies updates (prims[i]: update i's primitive, where it sets
// one) and builds the accel's top level over its instances, as submission
// seq: an instance's primitive destroyed before it fails the build (see
// Destroy).
func (s *Structure) BuildAccel(mode device.BuildMode, count uint32, updates []device.InstanceUpdate, prims []*Structure, seq uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The updates are kept whatever the build's outcome (the contract's
	// AccelBuild): a refused refit leaves them for the next build.
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
	if mode == device.BuildUpdate {
		if err := s.updateError(count, "instances"); err != nil {
			return err
		}
	}
	out := make([]bvh.Instance, count)
	for i := range out {
		if !s.set[i] {
			return fmt.Errorf("%w: instance %d of %d of %s was never set", device.ErrInvalidArgument, i, count, s.label())
		}
		p, in := s.prims[i], s.insts[i]
		p.mu.Lock()
		destroyed, built, m := p.destroyed && p.destroyedAt < seq, p.built, p.mesh
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
	s.scene, s.built = sc, true
	if mode == device.BuildFull {
		s.count = count
	}
	return nil
}

// Compact trims the hierarchy's slices to their lengths.
func (s *Structure) Compact() error {
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

// New returns an empty structure of the kind (mesh, procedural or accel)
// for handle h.
func New(h device.Handle, kind device.ResourceKind, opt device.AccelOptions) *Structure {
	return &Structure{h: h, kind: kind, opt: opt}
}

// Kind returns the structure's kind.
func (s *Structure) Kind() device.ResourceKind { return s.kind }

// Destroy marks the structure destroyed after submission seq: accel builds
// over it submitted later (BuildAccel's seq above it) fail with ErrClosed;
// those submitted before, work in flight, still build over it.
func (s *Structure) Destroy(seq uint64) {
	s.mu.Lock()
	s.destroyed, s.destroyedAt = true, seq
	s.mu.Unlock()
}

// Size is what RayTracing.AccelSize reports of the structure.
func (s *Structure) Size() device.AccelSize {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := device.AccelSize{Bytes: s.bytes()}
	if s.built && s.opt.AllowCompaction { // after a compaction, its size now
		out.Compacted = s.compactedBytes()
	}
	return out
}

// Mesh returns a mesh's or procedural's last hierarchy (nil before a build).
func (s *Structure) Mesh() *bvh.Mesh {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mesh
}

// Scene returns an accel's last top level (nil before a build).
func (s *Structure) Scene() *bvh.Scene {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scene
}
