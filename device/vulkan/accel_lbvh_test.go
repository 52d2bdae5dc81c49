package vulkan

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/raytest"
)

// parseMeshBytes is meshBytes's inverse for triangle meshes.
func parseMeshBytes(t testing.TB, b []byte) *bvh.Mesh {
	t.Helper()
	require.GreaterOrEqual(t, len(b), 16)
	prims, n := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[8:])
	require.Zero(t, binary.LittleEndian.Uint32(b[4:]), "header word 1")
	require.Zero(t, binary.LittleEndian.Uint32(b[12:]), "header: triangles")
	require.Zero(t, (prims-16)%32, "primitives' offset %d", prims)
	require.Len(t, b, int(prims)+48*int(n), "nodes and rows")
	f := func(o int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[o:])) }
	v := func(o int) [3]float32 { return [3]float32{f(o), f(o + 4), f(o + 8)} }
	m := &bvh.Mesh{}
	for o := 16; o < int(prims); o += 32 {
		m.Nodes = append(m.Nodes, bvh.Node{Min: v(o), LeftFirst: binary.LittleEndian.Uint32(b[o+12:]), Max: v(o + 16), Count: binary.LittleEndian.Uint32(b[o+28:])})
	}
	for i := range int(n) {
		o := int(prims) + 48*i
		m.Tris = append(m.Tris, bvh.Triangle{A: v(o), B: v(o + 16), C: v(o + 32)})
		m.Prims = append(m.Prims, binary.LittleEndian.Uint32(b[o+12:]))
		require.Zero(t, binary.LittleEndian.Uint32(b[o+28:]), "row %d word 7", i)
		require.Zero(t, binary.LittleEndian.Uint32(b[o+44:]), "row %d word 11", i)
	}
	return m
}

// lbvhRig builds meshes on the software path of a device.
type lbvhRig struct {
	t  testing.TB
	d  *Device
	st device.Handle
}

func newLBVHRig(t testing.TB) *lbvhRig {
	t.Setenv("LUCENT_ACCEL", "software")
	d, _ := openDevice(t)
	require.Equal(t, device.PathEmulated, d.Capabilities().RayTracing)
	st, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	t.Cleanup(func() { d.DestroyStream(st) })
	return &lbvhRig{t, d, st}
}

// build builds a mesh of tris (indices idx, or 0, 1, 2, … when nil) with
// the builder given (LUCENT_SOFT_BUILD) and returns the device buffer's
// bytes and the structure, or the build's error.
func (r *lbvhRig) build(builder string, tris []bvh.Triangle, idx []uint32, opt device.AccelOptions) ([]byte, *structure, error) {
	t, d := r.t, r.d
	t.Setenv("LUCENT_SOFT_BUILD", builder)
	vb, ib := triBytes(tris), []byte(nil)
	if idx == nil {
		for i := range 3 * len(tris) {
			idx = append(idx, uint32(i))
		}
	}
	for _, i := range idx {
		ib = binary.LittleEndian.AppendUint32(ib, i)
	}
	buf := func(data []byte) device.Handle { return uploaded(t, d, r.st, data) }
	vh, ih := buf(vb), buf(ib)
	m, err := d.CreateMesh(opt)
	require.NoError(t, err)
	t.Cleanup(func() { d.DestroyMesh(m) })
	err = d.Dispatch(r.st, &device.CommandList{Commands: []device.Command{&device.MeshBuild{Mesh: m,
		Geometry: device.MeshGeometry{Vertices: vh, VertexStride: 12, VertexCount: uint32(3 * len(tris)), Indices: ih, Triangles: uint32(len(idx) / 3)}}}})
	if err != nil {
		return nil, nil, err
	}
	out, s := r.read(m)
	return out, s, nil
}

// read waits for the rig's stream and returns mesh m's structure and the
// bytes of its device buffer.
func (r *lbvhRig) read(m device.Handle) ([]byte, *structure) {
	t, d := r.t, r.d
	require.NoError(t, d.SynchronizeStream(context.Background(), r.st))
	d.live.RLock()
	s, err := structureOf(d, m, device.KindMesh)
	d.live.RUnlock()
	require.NoError(t, err)
	out := make([]byte, s.nodes.desc.Size)
	require.NoError(t, d.Dispatch(r.st, &device.CommandList{Commands: []device.Command{&device.BufferDownload{Buffer: s.nodesHandle, Data: out}}}))
	require.NoError(t, d.SynchronizeStream(context.Background(), r.st))
	return out, s
}

// uploaded is a buffer of d holding data, uploaded on stream st and
// destroyed when the test ends.
func uploaded(tb testing.TB, d *Device, st device.Handle, data []byte) device.Handle {
	h, err := d.CreateBuffer(device.BufferDesc{Size: uint64(len(data))})
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, d.DestroyBuffer(h)) })
	require.NoError(tb, d.Dispatch(st, &device.CommandList{Commands: []device.Command{&device.BufferUpload{Buffer: h, Data: data}}}))
	return h
}

// triBytes is tris as a vertex buffer: three float32 vertices each.
func triBytes(tris []bvh.Triangle) []byte {
	var vb []byte
	for _, tr := range tris {
		vb = appendF32(vb, tr.A[0], tr.A[1], tr.A[2], tr.B[0], tr.B[1], tr.B[2], tr.C[0], tr.C[1], tr.C[2])
	}
	return vb
}

func randomTris(seed uint64, n int, spread, size float64) []bvh.Triangle {
	r := rand.New(rand.NewPCG(seed, 3))
	tris := make([]bvh.Triangle, n)
	for i := range tris {
		c := [3]float64{(r.Float64()*2 - 1) * spread, (r.Float64()*2 - 1) * spread, (r.Float64()*2 - 1) * spread}
		v := func() [3]float32 {
			return [3]float32{float32(c[0] + (r.Float64()*2-1)*size), float32(c[1] + (r.Float64()*2-1)*size), float32(c[2] + (r.Float64()*2-1)*size)}
		}
		tris[i] = bvh.Triangle{A: v(), B: v(), C: v()}
	}
	return tris
}

// checkRays traces random rays through m with the host traversal and
// compares them with raytest's brute-force reference over tris.
func checkRays(t *testing.T, m *bvh.Mesh, tris []bvh.Triangle, seed uint64) {
	ref := &raytest.Scene{Meshes: [][]bvh.Triangle{tris}, Insts: []raytest.Instance{{Transform: device.IdentityTransform, Mask: 0xff, Opaque: true, ID: 7}}}
	sc, err := bvh.BuildScene([]bvh.Instance{{Mesh: m, Transform: device.IdentityTransform, Mask: 0xff, Opaque: true, ID: 7}}, bvh.Options{})
	require.NoError(t, err)
	hits := 0
	for i, r := range raytest.Rays(seed, 3000) {
		r.Mask = 0xff
		a := ref.Reference(r)
		br := bvh.Ray{Origin: [3]float32{r.Origin.X, r.Origin.Y, r.Origin.Z}, TMin: r.TMin, Dir: [3]float32{r.Dir.X, r.Dir.Y, r.Dir.Z}, TMax: r.TMax, Mask: 0xff}
		if !a.Ambiguous {
			h := sc.Closest(br)
			require.Equal(t, a.Hit.Kind, uint32(h.Kind), "ray %d: kind", i)
			if h.Kind != bvh.KindMiss {
				hits++
				require.Equal(t, a.Hit.Prim, h.Prim, "ray %d: primitive", i)
				require.InDelta(t, a.Hit.T, h.T, raytest.Eps*max(1, math.Abs(float64(a.Hit.T))), "ray %d: t", i)
			}
		}
		if !a.AnyAmbig {
			require.Equal(t, a.Any, sc.Any(br), "ray %d: any hit", i)
		}
	}
	require.NotZero(t, hits, "no ray hit")
}

// TestLBVHMatchesHostLinear builds random meshes on the device and checks
// the tree: every invariant of docs/bvh.md §2 (Validate), the leaf order
// and node array of accel/bvh's linear build of the same triangles (the
// same codes, sorted the same, cut the same, placed the same), the layout
// of meshBytes, and rays traced through it against the brute-force
// reference.
func TestLBVHMatchesHostLinear(t *testing.T) { testLBVHMatches(t, []int{1, 3, 4, 5, 17, 1000, 5000}) }

// TestLBVHByAddress is TestLBVHMatchesHostLinear with the kernels that
// take their buffers by address (meshes past maxStorageBufferRange).
func TestLBVHByAddress(t *testing.T) {
	lbvhByAddress = true
	defer func() { lbvhByAddress = false }()
	testLBVHMatches(t, []int{1, 6, 3000})
}

func testLBVHMatches(t *testing.T, sizes []int) {
	r := newLBVHRig(t)
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r.t = t
			tris := randomTris(uint64(n), n, 3, 0.4)
			b, s, err := r.build("gpu", tris, nil, device.AccelOptions{})
			require.NoError(t, err)
			require.True(t, s.soft.OnDevice())
			m := parseMeshBytes(t, b)
			require.NoError(t, m.Validate())
			for i, id := range m.Prims {
				require.Equal(t, tris[id], m.Tris[i], "row %d is triangle %d", i, id)
			}
			host, err := bvh.BuildTriangles(tris, bvh.Options{FastBuild: true})
			require.NoError(t, err)
			require.Equal(t, host.Prims, m.Prims, "leaf order")
			require.Equal(t, leaves(host), leaves(m), "leaves")
			require.Equal(t, host.Nodes, m.Nodes, "nodes: the host's array")
			require.Equal(t, host.Bounds(), m.Bounds(), "root box")
			require.Equal(t, host.Bounds(), s.soft.Mesh().Bounds(), "the host's root")
			require.Equal(t, device.AccelSize{Bytes: uint64(len(b))}, s.soft.Size())
			checkRays(t, m, tris, uint64(n))
		})
	}
}

// leaves are a mesh's leaves as their ranges of the leaf order, in order.
func leaves(m *bvh.Mesh) [][2]uint32 {
	var out [][2]uint32
	for _, n := range m.Nodes {
		if n.Leaf() {
			out = append(out, [2]uint32{n.LeftFirst, n.Count})
		}
	}
	slices.SortFunc(out, func(a, b [2]uint32) int { return int(a[0]) - int(b[0]) })
	return out
}

// TestLBVHDegenerate: equal centroids (split by halving), a flat mesh, and
// the builds the host refuses, refused by the device build with the same
// error.
func TestLBVHDegenerate(t *testing.T) {
	r := newLBVHRig(t)
	t.Run("equal centroids", func(t *testing.T) {
		r.t = t
		tris := make([]bvh.Triangle, 1000)
		for i := range tris {
			s := float32(i%7) + 1
			tris[i] = bvh.Triangle{A: [3]float32{-s, 0, 0}, B: [3]float32{s, 0, 0}, C: [3]float32{0, 0, s}}
			tris[i].A[2] = -s
		}
		b, _, err := r.build("gpu", tris, nil, device.AccelOptions{})
		require.NoError(t, err)
		m := parseMeshBytes(t, b)
		require.NoError(t, m.Validate())
		host, err := bvh.BuildTriangles(tris, bvh.Options{FastBuild: true})
		require.NoError(t, err)
		require.Equal(t, host.Prims, m.Prims)
		require.Equal(t, host.Nodes, m.Nodes)
	})
	t.Run("flat", func(t *testing.T) {
		r.t = t
		tris := randomTris(9, 2000, 3, 0.3)
		for i := range tris {
			tris[i].A[1], tris[i].B[1], tris[i].C[1] = 0.5, 0.5, 0.5
		}
		b, _, err := r.build("gpu", tris, nil, device.AccelOptions{})
		require.NoError(t, err)
		m := parseMeshBytes(t, b)
		require.NoError(t, m.Validate())
		checkRays(t, m, tris, 4)
	})
	bad := randomTris(5, 300, 3, 0.4)
	for _, c := range []struct {
		name string
		set  func(tris []bvh.Triangle)
		idx  func(idx []uint32) []uint32
	}{
		{"NaN", func(tris []bvh.Triangle) { tris[70].B[1] = float32(math.NaN()); tris[200].A[0] = float32(math.NaN()) }, nil},
		{"Inf", func(tris []bvh.Triangle) { tris[299].C[2] = float32(math.Inf(-1)) }, nil},
		{"index", nil, func(idx []uint32) []uint32 { idx[3*150+1] = 900; idx[3*251] = 1 << 30; return idx }},
		{"index before NaN", func(tris []bvh.Triangle) { tris[10].B[1] = float32(math.Inf(1)) }, func(idx []uint32) []uint32 { idx[3*150+2] = 901; return idx }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r.t = t
			tris := append([]bvh.Triangle(nil), bad...)
			var idx []uint32
			if c.set != nil {
				c.set(tris)
			}
			if c.idx != nil {
				for i := range 3 * len(tris) {
					idx = append(idx, uint32(i))
				}
				idx = c.idx(idx)
			}
			_, _, herr := r.build("sah", tris, idx, device.AccelOptions{})
			require.ErrorIs(t, herr, device.ErrInvalidArgument)
			_, _, gerr := r.build("gpu", tris, idx, device.AccelOptions{})
			require.ErrorIs(t, gerr, device.ErrInvalidArgument)
			// The mesh handles differ; the rest is the same.
			require.Equal(t, stripHandle(herr.Error()), stripHandle(gerr.Error()))
		})
	}
}

func stripHandle(s string) string {
	return meshHandle.ReplaceAllString(s, "mesh #N")
}

var meshHandle = regexp.MustCompile(`mesh #[0-9]+`)

// BenchmarkSoftMeshBuild builds BenchmarkRayQueries's heightfield
// (LUCENT_RAY_BENCH_N) and an accel over it on the software path, warm
// (the device build's kernels compiled by a first build outside the
// timing), with each builder: "sah" (the host's default), "linear" (the
// host's FastBuild), "gpu" (the device build), or only the one
// LUCENT_SOFT_BUILD names; then refits, host and device. Each build
// includes the read-back and upload of the host builds and the wait for
// the stream.
//
//	go test -run '^$' -bench SoftMeshBuild -benchtime 3x ./device/vulkan
func BenchmarkSoftMeshBuild(b *testing.B) {
	builders := []string{"sah", "linear", "gpu"}
	if v := os.Getenv("LUCENT_SOFT_BUILD"); v != "" {
		builders = []string{v}
	}
	b.Setenv("LUCENT_ACCEL", "software")
	d, _ := openBenchDevice(b)
	n := 708
	if v, err := strconv.Atoi(os.Getenv("LUCENT_RAY_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	st, err := d.CreateStream(device.StreamCompute)
	require.NoError(b, err)
	defer d.DestroyStream(st)
	verts, idx := heightfield(n)
	vb, ib := uploaded(b, d, st, verts), uploaded(b, d, st, idx)
	m, err := d.CreateMesh(device.AccelOptions{})
	require.NoError(b, err)
	defer d.DestroyMesh(m)
	a, err := d.CreateAccel(device.AccelOptions{})
	require.NoError(b, err)
	defer d.DestroyAccel(a)
	build := func(b *testing.B, m device.Handle, mode device.BuildMode) {
		require.NoError(b, d.Dispatch(st, &device.CommandList{Commands: []device.Command{
			&device.MeshBuild{Mesh: m, Mode: mode, Geometry: device.MeshGeometry{Vertices: vb, VertexStride: 12, VertexCount: uint32((n + 1) * (n + 1)),
				Indices: ib, Triangles: uint32(2 * n * n)}},
			&device.AccelBuild{Accel: a, Count: 1, Updates: []device.InstanceUpdate{{Change: device.ChangeAll,
				Instance: device.Instance{Primitive: m, Kind: device.KindMesh, Transform: device.IdentityTransform, Mask: 0xff, Opaque: true}}}},
		}}))
		require.NoError(b, d.SynchronizeStream(context.Background(), st))
	}
	for _, name := range builders {
		b.Run(name, func(b *testing.B) {
			b.Setenv("LUCENT_SOFT_BUILD", name)
			build(b, m, device.BuildFull)
			for b.Loop() {
				build(b, m, device.BuildFull)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/build")
		})
	}
	// Refits of a mesh made with AllowUpdate and the FastBuild hint (the
	// host refits the linear tree the device builds).
	for _, name := range builders {
		if name == "sah" {
			continue
		}
		b.Run("refit-"+name, func(b *testing.B) {
			b.Setenv("LUCENT_SOFT_BUILD", name)
			um, err := d.CreateMesh(device.AccelOptions{AllowUpdate: true, Hint: device.FastBuild})
			require.NoError(b, err)
			defer d.DestroyMesh(um)
			build(b, um, device.BuildFull)
			build(b, um, device.BuildUpdate)
			for b.Loop() {
				build(b, um, device.BuildUpdate)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/build")
		})
	}
}

// TestLBVHStrideAndOffsets: vertices 20 bytes apart from byte 36 and
// indices from byte 24, read as the host build reads them.
func TestLBVHStrideAndOffsets(t *testing.T) {
	r := newLBVHRig(t)
	d := r.d
	tris := randomTris(11, 700, 3, 0.4)
	const stride, voff, ioff = 20, 36, 24
	vb := make([]byte, voff)
	var idx []byte
	idx = append(idx, make([]byte, ioff)...)
	for i, tr := range tris {
		for _, v := range [3][3]float32{tr.A, tr.B, tr.C} {
			vb = appendF32(vb, v[0], v[1], v[2], 9, 9) // two words of padding a vertex
		}
		for j := range 3 {
			idx = binary.LittleEndian.AppendUint32(idx, uint32(3*i+j))
		}
	}
	buf := func(data []byte) device.Handle { return uploaded(t, d, r.st, data) }
	vh, ih := buf(vb), buf(idx)
	g := device.MeshGeometry{Vertices: vh, VertexOffset: voff, VertexStride: stride, VertexCount: uint32(3 * len(tris)),
		Indices: ih, IndexOffset: ioff, Triangles: uint32(len(tris))}
	read := func(builder string) *bvh.Mesh {
		t.Setenv("LUCENT_SOFT_BUILD", builder)
		m, err := d.CreateMesh(device.AccelOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { d.DestroyMesh(m) })
		require.NoError(t, d.Dispatch(r.st, &device.CommandList{Commands: []device.Command{&device.MeshBuild{Mesh: m, Geometry: g}}}))
		out, _ := r.read(m)
		return parseMeshBytes(t, out)
	}
	gm, hm := read("gpu"), read("linear")
	require.NoError(t, gm.Validate())
	require.Equal(t, hm.Prims, gm.Prims)
	require.Equal(t, hm.Tris, gm.Tris)
	require.Equal(t, hm.Nodes, gm.Nodes)
	checkRays(t, gm, tris, 11)
}

// TestLBVHRefit: a mesh built on the device with AllowUpdate refits there
// (the tree kept, the rows and boxes rewritten): byte for byte the host's
// linear build refitted with the same vertices, a valid tree, rays as the
// reference; a refit the host refuses is refused with its error.
func TestLBVHRefit(t *testing.T) {
	r := newLBVHRig(t)
	d := r.d
	tris := randomTris(21, 900, 3, 0.4)
	moved := make([]bvh.Triangle, len(tris))
	for i, tr := range tris {
		for j, v := range []*[3]float32{&tr.A, &tr.B, &tr.C} {
			v[0] += 0.3 * float32(math.Sin(float64(i+j)))
			v[1] -= 0.2
		}
		moved[i] = tr
	}
	var ib []byte
	for i := range 3 * len(tris) {
		ib = binary.LittleEndian.AppendUint32(ib, uint32(i))
	}
	buf := func(data []byte) device.Handle { return uploaded(t, d, r.st, data) }
	ih := buf(ib)
	geom := func(vh device.Handle, n int) device.MeshGeometry {
		return device.MeshGeometry{Vertices: vh, VertexStride: 12, VertexCount: uint32(3 * len(tris)), Indices: ih, Triangles: uint32(n)}
	}
	run := func(builder string, moved []bvh.Triangle, n int) ([]byte, error) {
		t.Setenv("LUCENT_SOFT_BUILD", builder)
		m, err := d.CreateMesh(device.AccelOptions{AllowUpdate: true, Hint: device.FastBuild})
		require.NoError(t, err)
		t.Cleanup(func() { d.DestroyMesh(m) })
		require.NoError(t, d.Dispatch(r.st, &device.CommandList{Commands: []device.Command{&device.MeshBuild{Mesh: m, Geometry: geom(buf(triBytes(tris)), len(tris))}}}))
		if err := d.Dispatch(r.st, &device.CommandList{Commands: []device.Command{
			&device.MeshBuild{Mesh: m, Mode: device.BuildUpdate, Geometry: geom(buf(triBytes(moved)), n)}}}); err != nil {
			return nil, err
		}
		out, s := r.read(m)
		if builder == "gpu" {
			require.True(t, s.soft.OnDevice())
			require.NotNil(t, s.lbvh, "the refit's buffers")
		}
		require.Equal(t, s.soft.Mesh().Bounds(), parseMeshBytes(t, out).Bounds(), "the host's root box")
		return out, nil
	}
	gb, err := run("gpu", moved, len(tris))
	require.NoError(t, err)
	hb, err := run("linear", moved, len(tris))
	require.NoError(t, err)
	require.Equal(t, hb, gb, "the host's refitted buffer")
	m := parseMeshBytes(t, gb)
	require.NoError(t, m.Validate())
	checkRays(t, m, moved, 21)

	_, herr := run("linear", moved, len(tris)-1)
	_, gerr := run("gpu", moved, len(tris)-1)
	require.ErrorIs(t, gerr, device.ErrInvalidArgument)
	require.Equal(t, stripHandle(herr.Error()), stripHandle(gerr.Error()))
	bad := append([]bvh.Triangle(nil), moved...)
	bad[444].C[2] = float32(math.NaN())
	_, herr = run("linear", bad, len(tris))
	_, gerr = run("gpu", bad, len(tris))
	require.ErrorIs(t, gerr, device.ErrInvalidArgument)
	require.Equal(t, stripHandle(herr.Error()), stripHandle(gerr.Error()))
}
