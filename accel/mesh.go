package accel

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
)

// Mesh is a bottom-level structure over triangles: vertex positions and
// index triples in device buffers, read when a build or update runs.
type Mesh struct {
	r *resource
	g device.MeshGeometry
}

// Index is the type of a triangle's vertex indices: three uint32, or three
// uint16 (half the memory, up to 65,536 vertices).
type Index interface{ [3]uint32 | [3]uint16 }

// NewMesh makes a mesh over the triangles of triangles (three indices into
// vertices each, [3]uint32 or [3]uint16). Nothing is read until a Build
// command runs; the buffers must stay open while builds and updates use
// them. For vertices that hold more than a position (interleaved
// attributes) see NewMeshOf.
func NewMesh[T Index](d *device.Device, vertices device.BufferView[[3]float32], triangles device.BufferView[T], opt Options) (*Mesh, error) {
	return newMesh(d, "NewMesh", vertices, 0, triangles, opt)
}

// NewMeshOf makes a mesh over vertices of any plain type V, interleaved
// attributes and all, whose position is three float32 (x, y, z) at byte
// offset pos of V: unsafe.Offsetof(v.Pos) for
//
//	type Vertex struct{ Normal, Pos [3]float32; UV [2]float32 }
//
// The builds read the positions in place, unsafe.Sizeof(V) bytes apart (the
// geometry's VertexStride), so nothing is copied out; updates read them the
// same way. pos must be a multiple of 4 and the 12 bytes from it must be
// float32 values of V ([3]float32, three float32 fields, a kernel.Float3…):
// an error names the fault otherwise. NewMesh is NewMeshOf[[3]float32] at
// offset 0.
func NewMeshOf[V any, T Index](d *device.Device, vertices device.BufferView[V], pos uintptr, triangles device.BufferView[T], opt Options) (*Mesh, error) {
	return newMesh(d, "NewMeshOf", vertices, pos, triangles, opt)
}

func newMesh[V any, T Index](d *device.Device, op string, vertices device.BufferView[V], pos uintptr, triangles device.BufferView[T], opt Options) (*Mesh, error) {
	stride, err := positionOf[V](pos)
	if err != nil {
		return nil, fmt.Errorf("accel: %s: %w", op, err)
	}
	vh, voff, vsize, err := device.BufferRange(vertices)
	if err != nil {
		return nil, fmt.Errorf("accel: %s: vertices: %w", op, err)
	}
	ih, ioff, isize, err := device.BufferRange(triangles)
	if err != nil {
		return nil, fmt.Errorf("accel: %s: triangles: %w", op, err)
	}
	g := device.MeshGeometry{
		Vertices: vh, VertexOffset: voff + uint64(pos), VertexStride: stride,
		VertexCount: uint32(min(vsize/uint64(stride), 1<<32-1)),
		Indices:     ih, IndexOffset: ioff, IndexFormat: indexFormat[T](),
	}
	g.Triangles = uint32(min(isize/uint64(unsafe.Sizeof(*new(T))), 1<<32-1))
	if err := g.Check(); err != nil {
		return nil, fmt.Errorf("accel: %s: %w", op, err)
	}
	r, err := newResource(d, device.KindMesh, op, opt, device.RayTracing.CreateMesh)
	if err != nil {
		return nil, err
	}
	if err := r.foreign(op, "vertices", vh); err != nil {
		return nil, err
	}
	if err := r.foreign(op, "triangles", ih); err != nil {
		return nil, err
	}
	return &Mesh{r: r, g: g}, nil
}

func indexFormat[T Index]() device.IndexFormat {
	if unsafe.Sizeof(*new(T)) == 6 {
		return device.IndexUint16
	}
	return device.IndexUint32
}

// positionOf checks that the 12 bytes at offset pos of V are three float32
// and returns V's size, the vertex stride.
func positionOf[V any](pos uintptr) (uint32, error) {
	t := reflect.TypeFor[V]()
	size := t.Size()
	switch {
	case pos%4 != 0:
		return 0, fmt.Errorf("%w: position offset %d in %v is not a multiple of 4", device.ErrInvalidArgument, pos, t)
	case size < 12 || pos > size-12:
		return 0, fmt.Errorf("%w: position offset %d in %v (%d bytes) leaves no room for three float32", device.ErrInvalidArgument, pos, t, size)
	case size > math.MaxUint32:
		return 0, fmt.Errorf("%w: vertex type %v of %d bytes (the stride is a uint32)", device.ErrInvalidArgument, t, size)
	}
	for k := range uintptr(3) {
		if !float32At(t, pos+4*k) {
			return 0, fmt.Errorf("%w: position offset %d in %v: bytes %d to %d are not a float32 of it", device.ErrInvalidArgument, pos, t, pos+4*k, pos+4*k+4)
		}
	}
	return uint32(size), nil
}

// float32At reports whether the 4 bytes at off of t are a float32 of it.
func float32At(t reflect.Type, off uintptr) bool {
	switch t.Kind() {
	case reflect.Float32:
		return off == 0
	case reflect.Array:
		es := t.Elem().Size()
		if es == 0 || off/es >= uintptr(t.Len()) {
			return false
		}
		return float32At(t.Elem(), off%es)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if off >= f.Offset && off < f.Offset+f.Type.Size() {
				return float32At(f.Type, off-f.Offset)
			}
		}
	}
	return false
}

func (m *Mesh) base() *resource {
	if m == nil {
		return nil
	}
	return m.r
}

func (m *Mesh) build(mode device.BuildMode) device.Command {
	if err := m.base().usable("Mesh"); err != nil {
		return device.FailedCommand("mesh "+mode.String(), err)
	}
	return &device.MeshBuild{Mesh: m.r.h, Mode: mode, Geometry: m.g}
}

// Build returns the command that builds the mesh from its buffers.
func (m *Mesh) Build() device.Command { return m.build(device.BuildFull) }

// Update returns the command that refits the last build to the vertices as
// they are now (the options must have AllowUpdate).
func (m *Mesh) Update() device.Command { return m.build(device.BuildUpdate) }

// Compact returns the command that compacts the mesh (AllowCompaction; its
// build finished and waited for). Accels over it must be built again.
func (m *Mesh) Compact() device.Command { return m.base().compact("Mesh") }

// Triangles returns the triangle count (0 for a nil Mesh).
func (m *Mesh) Triangles() int {
	if m == nil {
		return 0
	}
	return int(m.g.Triangles)
}

// Size reports the mesh's memory (see Size).
func (m *Mesh) Size() (Size, error) { return m.base().Size() }

// Handle returns the backend handle (0 for a nil Mesh).
func (m *Mesh) Handle() device.Handle { return m.base().Handle() }

// Close destroys the mesh once the work using it has finished.
func (m *Mesh) Close() error { return m.base().Close() }

func (m *Mesh) primitive() (device.Handle, device.ResourceKind, error) {
	if err := m.base().usable("Mesh"); err != nil {
		return 0, 0, err
	}
	return m.r.h, device.KindMesh, nil
}

// AABB is an axis-aligned box, the layout of a procedural primitive's
// elements in device memory.
type AABB struct{ Min, Max [3]float32 }

// Procedural is a bottom-level structure over axis-aligned boxes; a ray's
// candidates in a box are the kernel's to intersect.
type Procedural struct {
	r     *resource
	boxes device.Handle
	off   uint64
	n     uint32
}

// NewProcedural makes a procedural primitive over the boxes of boxes.
func NewProcedural(d *device.Device, boxes device.BufferView[AABB], opt Options) (*Procedural, error) {
	h, off, size, err := device.BufferRange(boxes)
	if err != nil {
		return nil, fmt.Errorf("accel: NewProcedural: boxes: %w", err)
	}
	c := device.ProceduralBuild{Procedural: 1, AABBs: h, Offset: off, Count: uint32(min(size/24, 1<<32-1))}
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("accel: NewProcedural: %w", err)
	}
	r, err := newResource(d, device.KindProcedural, "NewProcedural", opt, device.RayTracing.CreateProcedural)
	if err != nil {
		return nil, err
	}
	if err := r.foreign("NewProcedural", "boxes", h); err != nil {
		return nil, err
	}
	return &Procedural{r: r, boxes: h, off: off, n: c.Count}, nil
}

func (p *Procedural) base() *resource {
	if p == nil {
		return nil
	}
	return p.r
}

func (p *Procedural) build(mode device.BuildMode) device.Command {
	if err := p.base().usable("Procedural"); err != nil {
		return device.FailedCommand("procedural "+mode.String(), err)
	}
	return &device.ProceduralBuild{Procedural: p.r.h, Mode: mode, AABBs: p.boxes, Offset: p.off, Count: p.n}
}

// Build returns the command that builds the primitive from its boxes.
func (p *Procedural) Build() device.Command { return p.build(device.BuildFull) }

// Update returns the command that refits the last build to the boxes as
// they are now (AllowUpdate).
func (p *Procedural) Update() device.Command { return p.build(device.BuildUpdate) }

// Compact returns the command that compacts the primitive (see Mesh.Compact).
func (p *Procedural) Compact() device.Command { return p.base().compact("Procedural") }

// Boxes returns the box count (0 for a nil Procedural).
func (p *Procedural) Boxes() int {
	if p == nil {
		return 0
	}
	return int(p.n)
}

// Size reports the primitive's memory (see Size).
func (p *Procedural) Size() (Size, error) { return p.base().Size() }

// Handle returns the backend handle (0 for a nil Procedural).
func (p *Procedural) Handle() device.Handle { return p.base().Handle() }

// Close destroys the primitive once the work using it has finished.
func (p *Procedural) Close() error { return p.base().Close() }

func (p *Procedural) primitive() (device.Handle, device.ResourceKind, error) {
	if err := p.base().usable("Procedural"); err != nil {
		return 0, 0, err
	}
	return p.r.h, device.KindProcedural, nil
}
