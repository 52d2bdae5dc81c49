package device

import (
	"context"
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// rtRecorder adds a recording RayTracing extension to the recorder, to test
// the validation wrapper's ray-tracing bookkeeping (nothing is built).
type rtRecorder struct{ *recorder }

func (r rtRecorder) Extension(t reflect.Type) any {
	if t == reflect.TypeFor[RayTracing]() {
		return r
	}
	return nil
}

func (r rtRecorder) CreateMesh(AccelOptions) (Handle, error)       { return r.create(KindMesh) }
func (r rtRecorder) CreateProcedural(AccelOptions) (Handle, error) { return r.create(KindProcedural) }
func (r rtRecorder) CreateAccel(AccelOptions) (Handle, error)      { return r.create(KindAccel) }
func (r rtRecorder) DestroyMesh(h Handle) error                    { return r.destroy(h) }
func (r rtRecorder) DestroyProcedural(h Handle) error              { return r.destroy(h) }
func (r rtRecorder) DestroyAccel(h Handle) error                   { return r.destroy(h) }
func (r rtRecorder) AccelSize(Handle) (AccelSize, error)           { return AccelSize{}, nil }

func newAccelValidator(t *testing.T) (*Validator, RayTracing, *recorder) {
	rec := newRecorder()
	v := NewValidator(rtRecorder{rec}, quietLogger)
	rt, ok := v.Extension(reflect.TypeFor[RayTracing]()).(RayTracing)
	require.True(t, ok)
	_, wrapped := rt.(*validRayTracing)
	require.True(t, wrapped, "the validator hands out its own RayTracing")
	return v, rt, rec
}

// geometry over a 4-vertex buffer and a 2-triangle index buffer.
func geometry(vb, ib Handle) MeshGeometry {
	return MeshGeometry{Vertices: vb, VertexStride: 12, VertexCount: 4, Indices: ib, Triangles: 2}
}

func TestValidatorAccelGeometry(t *testing.T) {
	v, rt, rec := newAccelValidator(t)
	h := must[Handle](t)
	s := h(v.CreateStream(StreamCompute))
	vb := h(v.CreateBuffer(BufferDesc{Size: 48}))
	ib := h(v.CreateBuffer(BufferDesc{Size: 24}))
	m := h(rt.CreateMesh(AccelOptions{}))
	submit := func(c Command) error { return v.Dispatch(s, &CommandList{Commands: []Command{c}}) }

	require.NoError(t, submit(&MeshBuild{Mesh: m, Geometry: geometry(vb, ib)}))
	for name, tc := range map[string]struct {
		g    func(g *MeshGeometry)
		want string
	}{
		"vertices past the end": {func(g *MeshGeometry) { g.VertexCount = 5 }, "Vertices (5 vertices, stride 12)"},
		"stride past the end":   {func(g *MeshGeometry) { g.VertexStride = 16 }, "Vertices (4 vertices, stride 16)"},
		"indices past the end":  {func(g *MeshGeometry) { g.Triangles = 3 }, "Indices (3 triangles)"},
		"zero triangles":        {func(g *MeshGeometry) { g.Triangles = 0 }, "Triangles 0"},
		"short stride":          {func(g *MeshGeometry) { g.VertexStride = 8 }, "VertexStride 8"},
		"odd offset":            {func(g *MeshGeometry) { g.IndexOffset = 2 }, "IndexOffset 2"},
		"odd 16-bit offset": {func(g *MeshGeometry) { g.IndexFormat, g.IndexOffset = IndexUint16, 3 },
			"IndexOffset 3 is not a multiple of 2 (uint16 indices)"},
		"16-bit indices past the end": {func(g *MeshGeometry) { g.IndexFormat, g.IndexOffset, g.Triangles = IndexUint16, 2, 4 }, "Indices (4 triangles)"},
		"index format":                {func(g *MeshGeometry) { g.IndexFormat = 2 }, "IndexFormat 2 (want IndexUint32 or IndexUint16)"},
		"index buffer is mesh":        {func(g *MeshGeometry) { g.Indices = m }, "is a mesh, not a buffer"},
	} {
		g := geometry(vb, ib)
		tc.g(&g)
		err := submit(&MeshBuild{Mesh: m, Geometry: g})
		require.ErrorIs(t, err, ErrInvalidArgument, name)
		require.Contains(t, err.Error(), tc.want, name)
	}
	err := submit(&MeshBuild{Mesh: m, Mode: BuildUpdate, Geometry: geometry(vb, ib)})
	require.ErrorContains(t, err, "made without AllowUpdate")
	err = submit(&ProceduralBuild{Procedural: m, AABBs: vb, Count: 2})
	require.ErrorContains(t, err, "is a mesh, not a procedural")
	require.Equal(t, 1, dispatched(rec), "only the good build reaches the backend")

	u := h(rt.CreateMesh(AccelOptions{AllowUpdate: true}))
	err = submit(&MeshBuild{Mesh: u, Mode: BuildUpdate, Geometry: geometry(vb, ib)})
	require.ErrorContains(t, err, "which has not been built")
	require.NoError(t, v.Dispatch(s, &CommandList{Commands: []Command{
		&MeshBuild{Mesh: u, Geometry: geometry(vb, ib)},
		&MeshBuild{Mesh: u, Mode: BuildUpdate, Geometry: geometry(vb, ib)},
	}}), "an update after a build in the same list")
	g := geometry(vb, ib)
	g.Triangles = 1
	err = submit(&MeshBuild{Mesh: u, Mode: BuildUpdate, Geometry: g})
	require.ErrorContains(t, err, "with 1 triangles, its build had 2")
}

func TestValidatorAccelInstances(t *testing.T) {
	v, rt, rec := newAccelValidator(t)
	h := must[Handle](t)
	s := h(v.CreateStream(StreamCompute))
	vb := h(v.CreateBuffer(BufferDesc{Size: 48}))
	ib := h(v.CreateBuffer(BufferDesc{Size: 24}))
	m := h(rt.CreateMesh(AccelOptions{}))
	unbuilt := h(rt.CreateMesh(AccelOptions{}))
	a := h(rt.CreateAccel(AccelOptions{AllowUpdate: true}))
	submit := func(cs ...Command) error { return v.Dispatch(s, &CommandList{Commands: cs}) }
	inst := func(i uint32, p Handle) InstanceUpdate {
		return InstanceUpdate{Index: i, Change: ChangeAll, Instance: Instance{Primitive: p, Kind: KindMesh, Transform: IdentityTransform, Mask: 0xff}}
	}

	err := submit(&AccelBuild{Accel: a, Count: 1, Updates: []InstanceUpdate{inst(0, m)}})
	require.ErrorContains(t, err, "instance 0: mesh "+itoa(m)+" has not been built")
	err = submit(&AccelBuild{Accel: a, Count: 2, Updates: []InstanceUpdate{inst(0, m)}})
	require.ErrorContains(t, err, "instance 1 of 2")
	require.ErrorContains(t, err, "was never set")
	err = submit(&AccelBuild{Accel: a, Count: 1, Updates: []InstanceUpdate{{Index: 0, Change: ChangeTransform, Instance: Instance{Transform: IdentityTransform}}}})
	require.ErrorContains(t, err, "never set before, only in part")
	err = submit(&AccelBuild{Accel: a, Count: 1, Updates: []InstanceUpdate{inst(0, unbuilt)}})
	require.ErrorContains(t, err, "has not been built")

	// Built in the same list, the mesh is built by the time the accel is.
	require.NoError(t, submit(&MeshBuild{Mesh: m, Geometry: geometry(vb, ib)},
		&AccelBuild{Accel: a, Count: 2, Updates: []InstanceUpdate{inst(0, m), inst(1, m)}}))
	moved := Instance{Transform: [12]float32{1, 0, 0, 5, 0, 1, 0, 0, 0, 0, 1, 0}}
	require.NoError(t, submit(&AccelBuild{Accel: a, Mode: BuildUpdate, Count: 2,
		Updates: []InstanceUpdate{{Index: 1, Change: ChangeTransform, Instance: moved}}}), "only the changed instance is sent")
	err = submit(&AccelBuild{Accel: a, Mode: BuildUpdate, Count: 3, Updates: []InstanceUpdate{inst(2, m)}})
	require.ErrorContains(t, err, "with 3 instances, its build had 2")
	bad := moved
	bad.Transform[3] = float32(nan())
	err = submit(&AccelBuild{Accel: a, Count: 2, Updates: []InstanceUpdate{{Index: 1, Change: ChangeTransform, Instance: bad}}})
	require.ErrorContains(t, err, "instance 1: Transform[3] is NaN")

	// A mesh closed under an instance the list does not touch.
	require.NoError(t, rt.DestroyMesh(m))
	err = submit(&AccelBuild{Accel: a, Count: 2})
	require.ErrorIs(t, err, ErrClosed)
	require.ErrorContains(t, err, "instance 0: validation: mesh "+itoa(m)+" used after Destroy")
	require.Equal(t, 2, dispatched(rec))
}

func TestValidatorAccelCompactAndHazards(t *testing.T) {
	v, rt, _ := newAccelValidator(t)
	h := must[Handle](t)
	s1 := h(v.CreateStream(StreamCompute))
	s2 := h(v.CreateStream(StreamCompute))
	vb := h(v.CreateBuffer(BufferDesc{Size: 48}))
	ib := h(v.CreateBuffer(BufferDesc{Size: 24}))
	m := h(rt.CreateMesh(AccelOptions{AllowCompaction: true}))
	plain := h(rt.CreateMesh(AccelOptions{}))
	on := func(s Handle, cs ...Command) error { return v.Dispatch(s, &CommandList{Commands: cs}) }

	// The vertices are written on s1 and built from on s2 with no event between.
	require.NoError(t, on(s1, &BufferUpload{Buffer: vb, Data: make([]byte, 48)}))
	err := on(s2, &MeshBuild{Mesh: m, Geometry: geometry(vb, ib)})
	require.ErrorIs(t, err, ErrHazard)
	require.ErrorContains(t, err, "buffer "+itoa(vb)+" is read on stream "+itoa(s2)+" but written on stream "+itoa(s1))
	require.NoError(t, v.SynchronizeStream(context.Background(), s1))

	err = on(s2, &MeshBuild{Mesh: m, Geometry: geometry(vb, ib)}, &AccelCompact{Handle: m, Kind: KindMesh})
	require.ErrorContains(t, err, "is built in the same list")
	require.NoError(t, on(s2, &MeshBuild{Mesh: m, Geometry: geometry(vb, ib)}, &MeshBuild{Mesh: plain, Geometry: geometry(vb, ib)}))
	err = on(s2, &AccelCompact{Handle: m, Kind: KindMesh})
	require.ErrorContains(t, err, "has not been waited for")
	err = on(s2, &AccelCompact{Handle: plain, Kind: KindMesh})
	require.ErrorContains(t, err, "without AllowCompaction")
	require.NoError(t, v.SynchronizeStream(context.Background(), s2))
	require.NoError(t, on(s2, &AccelCompact{Handle: m, Kind: KindMesh}))
	require.NoError(t, v.SynchronizeStream(context.Background(), s2))

	// An accel built on s1 from a mesh rebuilt on s2, unordered: a hazard,
	// also when a later list leaves the instance alone.
	a := h(rt.CreateAccel(AccelOptions{}))
	up := InstanceUpdate{Index: 0, Change: ChangeAll, Instance: Instance{Primitive: m, Kind: KindMesh, Transform: IdentityTransform}}
	require.NoError(t, on(s1, &AccelBuild{Accel: a, Count: 1, Updates: []InstanceUpdate{up}}))
	require.NoError(t, v.SynchronizeStream(context.Background(), s1))
	require.NoError(t, on(s2, &MeshBuild{Mesh: m, Geometry: geometry(vb, ib)}))
	err = on(s1, &AccelBuild{Accel: a, Count: 1})
	require.ErrorIs(t, err, ErrHazard)
	require.ErrorContains(t, err, "mesh "+itoa(m))
}

func itoa(h Handle) string { return "#" + strconv.FormatUint(h.Number(), 10) }

func nan() float64 { return math.NaN() }
