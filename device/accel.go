package device

import (
	"fmt"
	"math"
	"sync/atomic"
)

// RayTracing is the ray-tracing extension (see Extension): bottom-level
// structures over triangle meshes and procedural primitives (axis-aligned
// boxes), and instance accels over them, as handles like every other
// resource. They are built, updated (refit) and compacted by commands on a
// compute stream (MeshBuild, ProceduralBuild, AccelBuild, AccelCompact), so
// their reads of geometry buffers and writes of the structures are ordered
// and hazard-checked like every other command's. Destroying one used by
// submitted work is allowed: the release waits for that work. Package accel
// is its typed user; docs/accel.md says what is checked where.
//
// A handle is made empty; its first build gives it contents. An accel holds
// the structures of its instances by reference: rebuilding a mesh (not
// updating it) or compacting it may move it, and the accels using it must
// then be built again before they are traced.
type RayTracing interface {
	CreateMesh(opt AccelOptions) (Handle, error)
	DestroyMesh(h Handle) error
	CreateProcedural(opt AccelOptions) (Handle, error)
	DestroyProcedural(h Handle) error
	CreateAccel(opt AccelOptions) (Handle, error)
	DestroyAccel(h Handle) error
	// AccelSize reports the memory of a mesh, procedural or accel now, and
	// its compacted size once a build with AllowCompaction has finished.
	AccelSize(h Handle) (AccelSize, error)
}

// AccelHint says what a structure's builds favour.
type AccelHint uint8

const (
	FastTrace AccelHint = iota // better structures, slower builds (the default)
	FastBuild                  // faster builds, slower traversal
)

func (h AccelHint) String() string {
	switch h {
	case FastTrace:
		return "fast trace"
	case FastBuild:
		return "fast build"
	}
	return fmt.Sprintf("AccelHint(%d)", uint8(h))
}

// AccelOptions are fixed when a mesh, procedural or accel is created.
type AccelOptions struct {
	Hint AccelHint
	// AllowUpdate permits BuildUpdate (refit) after a full build.
	AllowUpdate bool
	// AllowCompaction permits AccelCompact after a build has finished.
	AllowCompaction bool
}

// Check reports a bad option.
func (o AccelOptions) Check() error {
	if o.Hint > FastBuild {
		return invalidf("accel options: hint %v", o.Hint)
	}
	return nil
}

// AccelSize is what RayTracing.AccelSize reports, in bytes.
type AccelSize struct {
	Bytes     uint64 // the structure's memory now (0 before its first build)
	Compacted uint64 // its size once compacted, Bytes after a compaction (0: not known yet, or no AllowCompaction)
}

// BuildMode says whether a build starts afresh or refits the last one.
type BuildMode uint8

const (
	// BuildFull builds the structure from its inputs.
	BuildFull BuildMode = iota
	// BuildUpdate refits the last full build to moved geometry (or
	// instances): same counts, options with AllowUpdate.
	BuildUpdate
)

func (m BuildMode) String() string {
	switch m {
	case BuildFull:
		return "build"
	case BuildUpdate:
		return "update"
	}
	return fmt.Sprintf("BuildMode(%d)", uint8(m))
}

// VertexFormat is the format of a mesh's vertex positions.
type VertexFormat uint8

const (
	VertexFloat32x3 VertexFormat = iota // three float32: x, y, z
)

// IndexFormat is the type of a mesh's vertex indices.
type IndexFormat uint8

const (
	IndexUint32 IndexFormat = iota // three uint32 a triangle
	IndexUint16                    // three uint16 a triangle
)

func (f IndexFormat) String() string {
	switch f {
	case IndexUint32:
		return "uint32"
	case IndexUint16:
		return "uint16"
	}
	return fmt.Sprintf("IndexFormat(%d)", uint8(f))
}

// size is the bytes of one index.
func (f IndexFormat) size() uint64 {
	if f == IndexUint16 {
		return 2
	}
	return 4
}

// MeshGeometry is the input of a mesh build: Triangles triangles, three
// vertex indices each in IndexFormat (tightly packed) at IndexOffset of
// buffer Indices, over VertexCount vertices at VertexOffset of buffer
// Vertices, VertexStride bytes apart, whose first bytes are a position in
// VertexFormat.
type MeshGeometry struct {
	Vertices     Handle
	VertexOffset uint64
	VertexStride uint32
	VertexCount  uint32
	VertexFormat VertexFormat

	Indices     Handle
	IndexOffset uint64
	IndexFormat IndexFormat
	Triangles   uint32
}

// Bytes of the two ranges the build reads.
func (g MeshGeometry) vertexBytes() uint64 {
	if g.VertexCount == 0 {
		return 0
	}
	return uint64(g.VertexCount-1)*uint64(g.VertexStride) + 12
}

func (g MeshGeometry) indexBytes() uint64 { return 3 * g.IndexFormat.size() * uint64(g.Triangles) }

// IndexBytes is the size of the index range a build reads: three indices a
// triangle.
func (g MeshGeometry) IndexBytes() uint64 { return g.indexBytes() }

// Index returns index j (0, 1, 2) of triangle i from the bytes of the
// index range (little-endian, as device memory holds them).
func (g MeshGeometry) Index(idx []byte, i, j int) uint32 {
	if g.IndexFormat == IndexUint16 {
		k := 6*i + 2*j
		return uint32(idx[k]) | uint32(idx[k+1])<<8
	}
	k := 12*i + 4*j
	return uint32(idx[k]) | uint32(idx[k+1])<<8 | uint32(idx[k+2])<<16 | uint32(idx[k+3])<<24
}

// Check reports the faults of the geometry's own fields.
func (g MeshGeometry) Check() error {
	switch {
	case g.Vertices == 0:
		return invalidf("mesh geometry: Vertices: buffer handle 0")
	case g.Indices == 0:
		return invalidf("mesh geometry: Indices: buffer handle 0")
	case g.VertexFormat != VertexFloat32x3:
		return invalidf("mesh geometry: VertexFormat %d (want VertexFloat32x3)", g.VertexFormat)
	case g.VertexStride < 12 || g.VertexStride%4 != 0:
		return invalidf("mesh geometry: VertexStride %d (want a multiple of 4, at least 12)", g.VertexStride)
	case g.VertexOffset%4 != 0:
		return invalidf("mesh geometry: VertexOffset %d is not a multiple of 4", g.VertexOffset)
	case g.IndexFormat > IndexUint16:
		return invalidf("mesh geometry: IndexFormat %d (want IndexUint32 or IndexUint16)", g.IndexFormat)
	case g.IndexOffset%g.IndexFormat.size() != 0:
		return invalidf("mesh geometry: IndexOffset %d is not a multiple of %d (%v indices)", g.IndexOffset, g.IndexFormat.size(), g.IndexFormat)
	case g.VertexCount == 0:
		return invalidf("mesh geometry: VertexCount 0")
	case g.Triangles == 0:
		return invalidf("mesh geometry: Triangles 0 (a mesh has at least one triangle)")
	case g.Triangles > MaxAccelPrimitives:
		return invalidf("mesh geometry: %d triangles (at most %d)", g.Triangles, MaxAccelPrimitives)
	}
	return nil
}

// MaxAccelPrimitives bounds the triangles or boxes of one structure and the
// instances of one accel (2²⁴-1, the instance id's width and the lowest
// limit of the devices lucent runs on).
const MaxAccelPrimitives = 1<<24 - 1

// MeshBuild builds (or refits) a mesh from its geometry.
type MeshBuild struct {
	Mesh     Handle
	Mode     BuildMode
	Geometry MeshGeometry
}

// ProceduralBuild builds (or refits) a procedural primitive from Count
// axis-aligned boxes, six float32 each (min x, y, z, max x, y, z), tightly
// packed at Offset of buffer AABBs.
type ProceduralBuild struct {
	Procedural Handle
	Mode       BuildMode
	AABBs      Handle
	Offset     uint64
	Count      uint32
}

// Instance is one entry of an accel: a built mesh or procedural primitive
// placed by a row-major 3×4 transform (object to world), seen by rays whose
// mask shares a bit with Mask, Opaque (no candidate is handed to the
// kernel's loop), with a user ID (24 bits) the hit reports.
type Instance struct {
	Primitive Handle
	Kind      ResourceKind // KindMesh or KindProcedural
	Transform [12]float32
	Mask      uint8
	Opaque    bool
	ID        uint32
}

// IdentityTransform is the 3×4 transform that leaves an instance in place.
var IdentityTransform = [12]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}

// InstanceChange says which fields of an instance an update sets.
type InstanceChange uint8

const (
	ChangePrimitive InstanceChange = 1 << iota
	ChangeTransform
	ChangeMask
	ChangeOpaque
	ChangeID
	ChangeAll = ChangePrimitive | ChangeTransform | ChangeMask | ChangeOpaque | ChangeID
)

// InstanceUpdate sets the fields Change names of instance Index.
type InstanceUpdate struct {
	Index    uint32
	Change   InstanceChange
	Instance Instance
}

// AccelBuild builds (or refits) an accel of Count instances. The accel keeps
// its instances from build to build; Updates change some of them (only
// those are sent), and every instance at or beyond the last build's count
// must be set in full (ChangeAll) before its first build. Every instance's
// primitive must be alive and built when the command runs.
//
// A backend keeps the Updates of every list Dispatch took, whatever the
// build's own outcome; Stream.Submit marks the commands of a list it handed
// over (Accepted), so that package accel sends a refused or dropped
// command's changes again with the next build.
type AccelBuild struct {
	Accel   Handle
	Mode    BuildMode
	Count   uint32
	Updates []InstanceUpdate

	accepted atomic.Bool
}

// Accepted reports whether Stream.Submit handed a list holding c to its
// backend without an error.
func (c *AccelBuild) Accepted() bool { return c.accepted.Load() }

// AccelCompact copies a structure into the least memory it needs. Its
// options must have AllowCompaction, and its last build must have finished
// before the compaction is submitted (the host synchronized with it): the
// compacted size is read back from the device. Accels using a compacted mesh
// or procedural must be built again.
type AccelCompact struct {
	Handle Handle
	Kind   ResourceKind // KindMesh, KindProcedural or KindAccel
}

func (*MeshBuild) command()       {}
func (*ProceduralBuild) command() {}
func (*AccelBuild) command()      {}
func (*AccelCompact) command()    {}

func (c *MeshBuild) CommandName() string       { return "mesh " + c.Mode.String() }
func (c *ProceduralBuild) CommandName() string { return "procedural " + c.Mode.String() }
func (c *AccelBuild) CommandName() string      { return "accel " + c.Mode.String() }
func (*AccelCompact) CommandName() string      { return "compaction" }

func (*MeshBuild) Queue() StreamKind       { return StreamCompute }
func (*ProceduralBuild) Queue() StreamKind { return StreamCompute }
func (*AccelBuild) Queue() StreamKind      { return StreamCompute }
func (*AccelCompact) Queue() StreamKind    { return StreamCompute }

func checkMode(m BuildMode) error {
	if m > BuildUpdate {
		return invalidf("build mode %d", m)
	}
	return nil
}

func (c *MeshBuild) Check() error {
	if c.Mesh == 0 {
		return invalidf("mesh build: mesh handle 0")
	}
	if err := checkMode(c.Mode); err != nil {
		return err
	}
	return c.Geometry.Check()
}

func (c *ProceduralBuild) Check() error {
	switch {
	case c.Procedural == 0:
		return invalidf("procedural build: procedural handle 0")
	case c.AABBs == 0:
		return invalidf("procedural build: AABBs: buffer handle 0")
	case c.Offset%8 != 0:
		return invalidf("procedural build: Offset %d is not a multiple of 8", c.Offset)
	case c.Count == 0:
		return invalidf("procedural build: Count 0 (a procedural primitive has at least one box)")
	case c.Count > MaxAccelPrimitives:
		return invalidf("procedural build: %d boxes (at most %d)", c.Count, MaxAccelPrimitives)
	}
	return checkMode(c.Mode)
}

func (c *AccelBuild) Check() error {
	if c.Accel == 0 {
		return invalidf("accel build: accel handle 0")
	}
	if err := checkMode(c.Mode); err != nil {
		return err
	}
	if c.Count == 0 {
		return invalidf("accel build: Count 0 (an accel has at least one instance)")
	}
	if c.Count > MaxAccelPrimitives {
		return invalidf("accel build: %d instances (at most %d)", c.Count, MaxAccelPrimitives)
	}
	for i, u := range c.Updates {
		if err := u.check(c.Count); err != nil {
			return fmt.Errorf("accel build: update %d: %w", i, err)
		}
	}
	return nil
}

// Check reports the faults of the update's fields (its index is checked
// against an accel's count by AccelBuild.Check).
func (u InstanceUpdate) Check() error { return u.check(max(u.Index+1, u.Index)) }

func (u InstanceUpdate) check(count uint32) error {
	in := u.Instance
	switch {
	case u.Index >= count:
		return invalidf("instance %d of %d", u.Index, count)
	case u.Change == 0 || u.Change&^ChangeAll != 0:
		return invalidf("instance %d: Change %#x", u.Index, u.Change)
	case u.Change&ChangePrimitive != 0 && in.Primitive == 0:
		return invalidf("instance %d: Primitive: handle 0", u.Index)
	case u.Change&ChangePrimitive != 0 && in.Kind != KindMesh && in.Kind != KindProcedural:
		return invalidf("instance %d: Kind %v (want mesh or procedural)", u.Index, in.Kind)
	case u.Change&ChangeID != 0 && in.ID >= 1<<24:
		return invalidf("instance %d: ID %d does not fit in 24 bits", u.Index, in.ID)
	}
	if u.Change&ChangeTransform != 0 {
		for j, x := range in.Transform {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return invalidf("instance %d: Transform[%d] is %v", u.Index, j, x)
			}
		}
	}
	return nil
}

func (c *AccelCompact) Check() error {
	if c.Handle == 0 {
		return invalidf("compaction: handle 0")
	}
	switch c.Kind {
	case KindMesh, KindProcedural, KindAccel:
		return nil
	}
	return invalidf("compaction of a %v (want a mesh, procedural or accel)", c.Kind)
}

// Usages: the geometry's ranges are read, the mesh written.
func (c *MeshBuild) Usages() []Usage {
	g := c.Geometry
	return []Usage{
		bufUse(g.Vertices, Read, g.VertexOffset, g.vertexBytes()),
		bufUse(g.Indices, Read, g.IndexOffset, g.indexBytes()),
		{Handle: c.Mesh, Kind: KindMesh, Access: Write},
	}
}

func (c *ProceduralBuild) Usages() []Usage {
	return []Usage{
		bufUse(c.AABBs, Read, c.Offset, 24*uint64(c.Count)),
		{Handle: c.Procedural, Kind: KindProcedural, Access: Write},
	}
}

// Usages: the accel is written and the primitives the updates set are read.
// The primitives of instances the list leaves alone are read too; the
// backend and the validation wrapper know them from their own record of the
// accel's instances.
func (c *AccelBuild) Usages() []Usage {
	u := []Usage{{Handle: c.Accel, Kind: KindAccel, Access: Write}}
	for _, up := range c.Updates {
		if up.Change&ChangePrimitive != 0 {
			u = append(u, Usage{Handle: up.Instance.Primitive, Kind: up.Instance.Kind, Access: Read})
		}
	}
	return u
}

func (c *AccelCompact) Usages() []Usage {
	return []Usage{{Handle: c.Handle, Kind: c.Kind, Access: ReadWrite}}
}

// FailedCommand returns a command that carries err: Submit reports it (see
// CommandError) and hands nothing to the backend. Packages layered on the
// typed API (accel) return it where a command cannot be built.
func FailedCommand(what string, err error) Command { return bad(what, err) }

// BufferRange returns the handle and byte range of a *Buffer[T] or
// BufferView[T], or the error of a bad view or closed buffer.
func BufferRange(r BufferRef) (h Handle, off, size uint64, err error) {
	if r == nil {
		return 0, 0, 0, invalidf("nil buffer")
	}
	return r.bufferRange()
}
