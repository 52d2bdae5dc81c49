package accel_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/raytest"
	"github.com/lucent-gpu/lucent/kernel"
)

// vertex is an interleaved vertex whose position is not its first field.
type vertex struct {
	Normal [3]float32
	Pos    [3]float32
	UV     [2]float32
}

var posOffset = unsafe.Offsetof(vertex{}.Pos)

// interleavedRig is one random mesh twice over: its positions alone
// (NewMesh) and inside interleaved vertices (NewMeshOf, through a view that
// starts past the buffer's first vertices), each in an accel of the same
// two instances.
type interleavedRig struct {
	t          *testing.T
	d          *device.Device
	r          *rayRig
	rng        *rand.Rand
	pos        [][3]float32
	verts      []vertex
	tris       [][3]uint32
	pb         *device.Buffer[[3]float32]
	vb         *device.Buffer[vertex]
	plain, mix *accel.Mesh
	mix16      *accel.Mesh // mix over 16-bit indices
	ap, am     *accel.Accel
	am16       *accel.Accel
	insts      [][12]float32
}

const interleavedSkip = 5 // vertices before the view NewMeshOf is given

func newInterleavedRig(t *testing.T, d *device.Device, r *rayRig) *interleavedRig {
	g := &interleavedRig{t: t, d: d, r: r, rng: rand.New(rand.NewPCG(91, 92))}
	const nv, nt = 300, 399
	g.pos = make([][3]float32, nv)
	g.verts = make([]vertex, nv+interleavedSkip)
	for i := range g.verts {
		g.verts[i] = vertex{Normal: [3]float32{-7, 8, float32(i)}, Pos: [3]float32{1e6, 1e6, 1e6}, UV: [2]float32{0.25, float32(i)}}
	}
	for i := range g.pos {
		g.pos[i] = [3]float32{g.rng.Float32()*4 - 2, g.rng.Float32()*4 - 2, g.rng.Float32()*4 - 2}
		g.verts[interleavedSkip+i].Pos = g.pos[i]
	}
	g.tris = make([][3]uint32, nt)
	for i := range g.tris {
		g.tris[i] = [3]uint32{uint32(g.rng.IntN(nv)), uint32(g.rng.IntN(nv)), uint32(g.rng.IntN(nv))}
	}
	g.pb, g.vb = from(t, d, g.pos), from(t, d, g.verts)
	ib := from(t, d, g.tris)
	// 16-bit indices from their buffer's second triangle: at byte 6, an odd
	// number of triangles (a range that ends inside a word).
	tris16 := make([][3]uint16, 1+nt)
	tris16[0] = [3]uint16{7, 7, 7}
	for i, tr := range g.tris {
		tris16[1+i] = [3]uint16{uint16(tr[0]), uint16(tr[1]), uint16(tr[2])}
	}
	ib16 := from(t, d, tris16)
	opt := accel.Options{AllowUpdate: true}
	var err error
	g.plain, err = accel.NewMesh(d, g.pb.All(), ib.All(), opt)
	require.NoError(t, err)
	g.mix, err = accel.NewMeshOf(d, g.vb.View(interleavedSkip, nv), posOffset, ib.All(), opt)
	require.NoError(t, err)
	require.Equal(t, nt, g.mix.Triangles())
	g.mix16, err = accel.NewMeshOf(d, g.vb.View(interleavedSkip, nv), posOffset, ib16.View(1, nt), opt)
	require.NoError(t, err)
	require.Equal(t, nt, g.mix16.Triangles())
	g.insts = [][12]float32{accel.Identity, {0, -1, 0, 6, 1, 0, 0, 0.5, 0, 0, 1, -1}}
	g.ap, g.am, g.am16 = g.accelOf(g.plain), g.accelOf(g.mix), g.accelOf(g.mix16)
	closeAll(t, g.ap, g.am, g.am16, g.plain, g.mix, g.mix16)
	return g
}

func (g *interleavedRig) accelOf(m *accel.Mesh) *accel.Accel {
	a, err := accel.NewAccel(g.d, accel.Options{})
	require.NoError(g.t, err)
	for i, tr := range g.insts {
		_, err := a.Add(accel.Instance{Primitive: m, Transform: tr, Mask: 0xff, ID: uint32(10 + i)})
		require.NoError(g.t, err)
	}
	return a
}

// rays aims n rays from a sphere around both instances at points inside
// them.
func (g *interleavedRig) rays(n int) []kernel.Ray {
	out := make([]kernel.Ray, n)
	for i := range out {
		c := [3]float32{0, 0, 0}
		if i%2 == 1 {
			c = [3]float32{6, 0.5, -1}
		}
		o := [3]float32{g.rng.Float32()*2 - 1, g.rng.Float32()*2 - 1, g.rng.Float32()*2 - 1}
		o = [3]float32{c[0] + 10*o[0], c[1] + 10*o[1], c[2] + 10*o[2] + 10}
		p := [3]float32{c[0] + g.rng.Float32()*2 - 1, c[1] + g.rng.Float32()*2 - 1, c[2] + g.rng.Float32()*2 - 1}
		out[i] = kernel.Ray{Origin: kernel.Float3{X: o[0], Y: o[1], Z: o[2]}, Dir: kernel.Float3{X: p[0] - o[0], Y: p[1] - o[1], Z: p[2] - o[2]},
			TMax: 1e30, Mask: 0xff}
	}
	return out
}

// trace returns the DSL kernel's closest hits of a.
func (g *interleavedRig) trace(a *accel.Accel, rays []kernel.Ray, cmds ...device.Command) []kernel.Hit {
	t, d, n := g.t, g.d, len(rays)
	org, dir, masks := raytest.Pack(rays)
	hb, ab := buffer[kernel.Hit](t, d, n), buffer[uint32](t, d, n)
	g.r.run(append(cmds, g.r.ks["DSLClosest"].Dispatch([3]uint32{uint32(n)}, a, from(t, d, org), from(t, d, dir), from(t, d, masks), hb, ab))...)
	out := make([]kernel.Hit, n)
	g.r.run(hb.Download(out))
	return out
}

// host returns kernel.Run's hits of the scene over tris.
func (g *interleavedRig) host(tris []bvh.Triangle, rays []kernel.Ray) []kernel.Hit {
	m, err := bvh.BuildTriangles(tris, bvh.Options{})
	require.NoError(g.t, err)
	var insts []bvh.Instance
	for i, tr := range g.insts {
		insts = append(insts, bvh.Instance{Mesh: m, Transform: tr, Mask: 0xff, ID: uint32(10 + i)})
	}
	sc, err := bvh.BuildScene(insts, bvh.Options{})
	require.NoError(g.t, err)
	hits, _ := hostRun(g.t, sc, rays)
	return hits
}

// check traces the two accels and kernel.Run's scenes: the interleaved
// mesh gives the plain one's hits, bit for bit, and most rays hit. On the
// cpu backend (exact) the device's hits are kernel.Run's.
func (g *interleavedRig) check(what string, rays []kernel.Ray, cmds ...device.Command) []kernel.Hit {
	t := g.t
	want := g.trace(g.ap, rays, cmds...)
	got := g.trace(g.am, rays)
	require.Equal(t, want, got, "%s: NewMeshOf's hits are NewMesh's", what)
	require.Equal(t, want, g.trace(g.am16, rays), "%s: 16-bit indices: NewMeshOf's hits are NewMesh's", what)
	hit := 0
	for _, h := range got {
		if h.Kind != 0 {
			hit++
		}
	}
	require.Greater(t, hit, len(rays)/3, "%s: rays that hit", what)
	plain := make([]bvh.Triangle, len(g.tris))
	for i, tr := range g.tris {
		plain[i] = bvh.Triangle{A: g.pos[tr[0]], B: g.pos[tr[1]], C: g.pos[tr[2]]}
	}
	tris, err := accel.HostTriangles(g.verts[interleavedSkip:], posOffset, g.tris)
	require.NoError(t, err)
	require.Equal(t, plain, tris, "%s: HostTriangles", what)
	tris16 := make([][3]uint16, len(g.tris))
	for i, tr := range g.tris {
		tris16[i] = [3]uint16{uint16(tr[0]), uint16(tr[1]), uint16(tr[2])}
	}
	tris, err = accel.HostTriangles(g.verts[interleavedSkip:], posOffset, tris16)
	require.NoError(t, err)
	require.Equal(t, plain, tris, "%s: HostTriangles, 16-bit indices", what)
	host := g.host(tris, rays)
	require.Equal(t, g.host(plain, rays), host, "%s: kernel.Run", what)
	if g.d.Backend() == "cpu" {
		require.Equal(t, host, got, "%s: cpu backend and kernel.Run", what)
	}
	return got
}

func checkInterleaved(t *testing.T, d *device.Device, what string) {
	g := newInterleavedRig(t, d, newRayRig(t, d))
	rays := g.rays(600)
	built := g.check(what+", built", rays, g.plain.Build(), g.mix.Build(), g.mix16.Build(), g.ap.Build(), g.am.Build(), g.am16.Build())

	// Refit: every position moves; both meshes are updated from their
	// buffers and the accels built again over them.
	for i := range g.pos {
		g.pos[i] = [3]float32{g.pos[i][0]*1.25 + 0.1, g.pos[i][1] - 0.2, g.pos[i][2] * 0.75}
		g.verts[interleavedSkip+i].Pos = g.pos[i]
	}
	moved := g.check(what+", updated", rays, g.pb.Upload(g.pos), g.vb.Upload(g.verts),
		g.plain.Update(), g.mix.Update(), g.mix16.Update(), g.ap.Build(), g.am.Build(), g.am16.Build())
	require.NotEqual(t, built, moved, "%s: the update moved the hits", what)

	// A full rebuild over other triangles' worth of positions.
	for i := range g.pos {
		g.pos[i] = [3]float32{g.pos[i][1], g.pos[i][2], g.pos[i][0]}
		g.verts[interleavedSkip+i].Pos = g.pos[i]
	}
	g.check(what+", rebuilt", rays, g.pb.Upload(g.pos), g.vb.Upload(g.verts),
		g.plain.Build(), g.mix.Build(), g.mix16.Build(), g.ap.Build(), g.am.Build(), g.am16.Build())
}

func TestCPUInterleavedMesh(t *testing.T) {
	for _, validated := range []bool{true, false} {
		checkInterleaved(t, openCPU(t, validated), fmt.Sprintf("cpu (validated %v)", validated))
	}
}

// On Vulkan: native on Mesa 25's lavapipe, software on 22.3 and with
// LUCENT_ACCEL=software.
func TestVulkanInterleavedMesh(t *testing.T) {
	d := nativeDevice(t)
	checkInterleaved(t, d, "vulkan, "+d.Capabilities().RayTracing.String())
}

// NewMeshOf refuses a position offset that is not three float32 of the
// vertex type, naming it.
func TestNewMeshOfBadOffset(t *testing.T) {
	d := openCPU(t, true)
	vb := from(t, d, make([]vertex, 3))
	ib := from(t, d, [][3]uint32{{0, 1, 2}})
	for _, c := range []struct {
		pos  uintptr
		want string
	}{
		{2, "position offset 2 in accel_test.vertex is not a multiple of 4"},
		{24, "position offset 24 in accel_test.vertex (32 bytes) leaves no room for three float32"},
		{1 << 40, "position offset 1099511627776 in accel_test.vertex (32 bytes) leaves no room"},
	} {
		_, err := accel.NewMeshOf(d, vb.All(), c.pos, ib.All(), accel.Options{})
		require.ErrorIs(t, err, device.ErrInvalidArgument, "offset %d", c.pos)
		require.ErrorContains(t, err, "accel: NewMeshOf: invalid argument: "+c.want)
	}
	type tagged struct {
		ID  uint32
		Pos [3]float32
	}
	tb := from(t, d, make([]tagged, 3))
	_, err := accel.NewMeshOf(d, tb.All(), 0, ib.All(), accel.Options{})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "bytes 0 to 4 are not a float32 of it")
	m, err := accel.NewMeshOf(d, tb.All(), unsafe.Offsetof(tagged{}.Pos), ib.All(), accel.Options{})
	require.NoError(t, err)
	require.NoError(t, m.Close())
	// Three float32 fields and a named vector type are positions too.
	type fields struct {
		W       uint32
		X, Y, Z float32
	}
	fb := from(t, d, make([]fields, 3))
	m, err = accel.NewMeshOf(d, fb.All(), 4, ib.All(), accel.Options{})
	require.NoError(t, err)
	require.NoError(t, m.Close())
	_, err = accel.HostTriangles([]fields{{}}, 0, [][3]uint32{{0, 0, 0}})
	require.ErrorContains(t, err, "accel: HostTriangles: ")
	_, err = accel.HostTriangles(make([]fields, 3), 4, [][3]uint32{{0, 1, 2}, {0, 3, 1}})
	require.ErrorContains(t, err, "triangle 1: index 3 past its 3 vertices")
}
