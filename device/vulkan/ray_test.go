package vulkan

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/vk"
)

// rayScene is a random scene: meshes of small triangles and procedurals
// of boxes, placed by instances with random transforms, masks and ids.
type rayScene struct {
	tris  [][]bvh.Triangle // by mesh
	boxes [][]bvh.AABB     // by procedural
	inst  []sceneInstance
	// stride and offset, where not zero, lay the meshes' vertices out
	// stride bytes apart from offset (the bytes between them NaN).
	stride, offset uint32
}

type sceneInstance struct {
	proc      bool
	prim      int // index into tris or boxes
	transform [12]float32
	mask      uint8
	opaque    bool
	id        uint32
}

func randomTransform(rng *rand.Rand) [12]float32 {
	// A rotation about a random axis, a scale in [0.5, 2], a translation.
	ax := [3]float64{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}
	n := math.Sqrt(ax[0]*ax[0] + ax[1]*ax[1] + ax[2]*ax[2])
	x, y, z := ax[0]/n, ax[1]/n, ax[2]/n
	a := rng.Float64() * 2 * math.Pi
	c, s, C := math.Cos(a), math.Sin(a), 1-math.Cos(a)
	r := [3][3]float64{
		{x*x*C + c, x*y*C - z*s, x*z*C + y*s},
		{y*x*C + z*s, y*y*C + c, y*z*C - x*s},
		{z*x*C - y*s, z*y*C + x*s, z*z*C + c},
	}
	sc := 0.5 + 1.5*rng.Float64()
	var m [12]float32
	for i := range 3 {
		for j := range 3 {
			m[4*i+j] = float32(r[i][j] * sc)
		}
		m[4*i+3] = float32(rng.Float64()*8 - 4)
	}
	return m
}

func newRayScene(rng *rand.Rand) *rayScene {
	s := &rayScene{}
	p := func() [3]float32 {
		return [3]float32{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}
	}
	for range 3 {
		var ts []bvh.Triangle
		for range 20 + rng.IntN(40) {
			c := p()
			d := func() [3]float32 {
				q := p()
				return [3]float32{c[0] + 0.4*q[0], c[1] + 0.4*q[1], c[2] + 0.4*q[2]}
			}
			ts = append(ts, bvh.Triangle{A: d(), B: d(), C: d()})
		}
		s.tris = append(s.tris, ts)
	}
	for range 2 {
		var bs []bvh.AABB
		for range 5 + rng.IntN(10) {
			c := p()
			e := [3]float32{0.05 + 0.2*rng.Float32(), 0.05 + 0.2*rng.Float32(), 0.05 + 0.2*rng.Float32()}
			bs = append(bs, bvh.AABB{Min: [3]float32{c[0] - e[0], c[1] - e[1], c[2] - e[2]}, Max: [3]float32{c[0] + e[0], c[1] + e[1], c[2] + e[2]}})
		}
		s.boxes = append(s.boxes, bs)
	}
	for i := range 10 {
		in := sceneInstance{transform: randomTransform(rng), mask: uint8(1 << rng.IntN(4)), opaque: rng.IntN(2) == 0, id: rng.Uint32N(1 << 24)}
		if i%4 == 3 {
			in.proc, in.prim = true, rng.IntN(len(s.boxes))
		} else {
			in.prim = rng.IntN(len(s.tris))
		}
		s.inst = append(s.inst, in)
	}
	return s
}

// inverse is the world→object transform of a 3×4 object→world one.
func inverse(m [12]float32) [12]float64 {
	a := [3][3]float64{}
	for i := range 3 {
		for j := range 3 {
			a[i][j] = float64(m[4*i+j])
		}
	}
	det := a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) - a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) + a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
	var inv [3][3]float64
	inv[0][0] = (a[1][1]*a[2][2] - a[1][2]*a[2][1]) / det
	inv[0][1] = (a[0][2]*a[2][1] - a[0][1]*a[2][2]) / det
	inv[0][2] = (a[0][1]*a[1][2] - a[0][2]*a[1][1]) / det
	inv[1][0] = (a[1][2]*a[2][0] - a[1][0]*a[2][2]) / det
	inv[1][1] = (a[0][0]*a[2][2] - a[0][2]*a[2][0]) / det
	inv[1][2] = (a[0][2]*a[1][0] - a[0][0]*a[1][2]) / det
	inv[2][0] = (a[1][0]*a[2][1] - a[1][1]*a[2][0]) / det
	inv[2][1] = (a[0][1]*a[2][0] - a[0][0]*a[2][1]) / det
	inv[2][2] = (a[0][0]*a[1][1] - a[0][1]*a[1][0]) / det
	var out [12]float64
	for i := range 3 {
		for j := range 3 {
			out[4*i+j] = inv[i][j]
		}
		out[4*i+3] = -(inv[i][0]*float64(m[3]) + inv[i][1]*float64(m[7]) + inv[i][2]*float64(m[11]))
	}
	return out
}

type refHit struct {
	inst, id, prim uint32
	t              float32
	kind           uint32
}

// brute is the reference: every instance, every primitive, nearest hit
// (ties to the lower instance, then primitive), triangles by bvh's
// watertight test, a box hit where the ray enters it.
func (s *rayScene) brute(r bvh.Ray) (refHit, bool) {
	best := refHit{}
	have := false
	tmax := r.TMax
	for ii, in := range s.inst {
		if in.mask&r.Mask == 0 {
			continue
		}
		inv := inverse(in.transform)
		var or bvh.Ray
		for k := range 3 {
			or.Origin[k] = float32(inv[4*k]*float64(r.Origin[0]) + inv[4*k+1]*float64(r.Origin[1]) + inv[4*k+2]*float64(r.Origin[2]) + inv[4*k+3])
			or.Dir[k] = float32(inv[4*k]*float64(r.Dir[0]) + inv[4*k+1]*float64(r.Dir[1]) + inv[4*k+2]*float64(r.Dir[2]))
		}
		or.TMin, or.TMax, or.Mask = r.TMin, tmax, r.Mask
		consider := func(t float32, prim uint32, kind uint32) {
			if t < r.TMin || t > tmax || have && t == tmax && (uint32(ii) > best.inst || uint32(ii) == best.inst && prim > best.prim) {
				return
			}
			best, tmax, have = refHit{inst: uint32(ii), id: in.id, prim: prim, t: t, kind: kind}, t, true
			or.TMax = tmax
		}
		if !in.proc {
			for j, tri := range s.tris[in.prim] {
				if t, _, _, ok := bvh.IntersectTriangle(or, tri); ok {
					consider(t, uint32(j), ir.HitTriangle)
				}
			}
			continue
		}
		for j, b := range s.boxes[in.prim] {
			tn, tf := float64(r.TMin), float64(tmax)
			for k := range 3 {
				inv := 1 / float64(or.Dir[k])
				t0, t1 := (float64(b.Min[k])-float64(or.Origin[k]))*inv, (float64(b.Max[k])-float64(or.Origin[k]))*inv
				tn, tf = max(tn, min(t0, t1)), min(tf, max(t0, t1))
			}
			if tn <= tf {
				consider(float32(tn), uint32(j), ir.HitProcedural)
			}
		}
	}
	return best, have
}

// buildScene builds s on d: its meshes, procedurals and accel.
func buildScene(t *testing.T, d *Device, st device.Handle, s *rayScene, opt device.AccelOptions) (accelH device.Handle, prims []device.Handle) {
	var cmds []device.Command
	upload := func(data []byte) device.Handle {
		h, err := d.CreateBuffer(device.BufferDesc{Size: uint64(len(data))})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, d.DestroyBuffer(h)) })
		cmds = append(cmds, &device.BufferUpload{Buffer: h, Data: data})
		return h
	}
	var meshes, procs []device.Handle
	stride := max(s.stride, 12)
	nan := float32(math.NaN())
	pad := func(v []byte, words uint32) []byte {
		for range words {
			v = appendF32(v, nan)
		}
		return v
	}
	for _, ts := range s.tris {
		var ix []byte
		v := pad(nil, s.offset/4)
		for j, tri := range ts {
			for _, p := range [][3]float32{tri.A, tri.B, tri.C} {
				v = pad(appendF32(v, p[:]...), (stride-12)/4)
			}
			for k := range 3 {
				ix = binary.LittleEndian.AppendUint32(ix, uint32(3*j+k))
			}
		}
		vb, ib := upload(v), upload(ix)
		m, err := d.CreateMesh(opt)
		require.NoError(t, err)
		meshes = append(meshes, m)
		cmds = append(cmds, &device.MeshBuild{Mesh: m, Geometry: device.MeshGeometry{Vertices: vb, VertexOffset: uint64(s.offset), VertexStride: stride,
			VertexCount: uint32(3 * len(ts)), Indices: ib, Triangles: uint32(len(ts))}})
	}
	for _, bs := range s.boxes {
		var v []byte
		for _, b := range bs {
			v = appendF32(v, b.Min[:]...)
			v = appendF32(v, b.Max[:]...)
		}
		bb := upload(v)
		p, err := d.CreateProcedural(opt)
		require.NoError(t, err)
		procs = append(procs, p)
		cmds = append(cmds, &device.ProceduralBuild{Procedural: p, AABBs: bb, Count: uint32(len(bs))})
	}
	a, err := d.CreateAccel(opt)
	require.NoError(t, err)
	ups := make([]device.InstanceUpdate, len(s.inst))
	for i, in := range s.inst {
		ups[i] = device.InstanceUpdate{Index: uint32(i), Change: device.ChangeAll, Instance: s.instance(in, meshes, procs)}
	}
	cmds = append(cmds, &device.AccelBuild{Accel: a, Count: uint32(len(s.inst)), Updates: ups})
	require.NoError(t, d.Dispatch(st, &device.CommandList{Commands: cmds}))
	t.Cleanup(func() {
		require.NoError(t, d.DestroyAccel(a))
		for _, m := range meshes {
			require.NoError(t, d.DestroyMesh(m))
		}
		for _, p := range procs {
			require.NoError(t, d.DestroyProcedural(p))
		}
	})
	return a, append(meshes, procs...)
}

func (s *rayScene) instance(in sceneInstance, meshes, procs []device.Handle) device.Instance {
	di := device.Instance{Transform: in.transform, Mask: in.mask, Opaque: in.opaque, ID: in.id}
	if in.proc {
		di.Primitive, di.Kind = procs[in.prim], device.KindProcedural
	} else {
		di.Primitive, di.Kind = meshes[in.prim], device.KindMesh
	}
	return di
}

func randomRays(rng *rand.Rand, n int) []bvh.Ray {
	rays := make([]bvh.Ray, n)
	for i := range rays {
		o := [3]float32{rng.Float32()*16 - 8, rng.Float32()*16 - 8, rng.Float32()*16 - 8}
		to := [3]float32{rng.Float32()*6 - 3, rng.Float32()*6 - 3, rng.Float32()*6 - 3}
		rays[i] = bvh.Ray{Origin: o, Dir: [3]float32{to[0] - o[0], to[1] - o[1], to[2] - o[2]}, TMin: 0, TMax: 2, Mask: 0xff}
		if i%7 == 0 {
			rays[i].TMax = 0.5 + rng.Float32()
		}
	}
	return rays
}

// trace runs programs.RayTrace over rays with one mask per call (the kernel's
// uniform), returning the hits and any flags.
func trace(t *testing.T, d *Device, st, sh, a device.Handle, rays []bvh.Ray, mask uint8) ([]refHit, []bool) {
	var raw []byte
	for _, r := range rays {
		raw = appendF32(raw, r.Origin[0], r.Origin[1], r.Origin[2], r.TMin, r.Dir[0], r.Dir[1], r.Dir[2], r.TMax)
	}
	n := len(rays)
	mk := func(size int) device.Handle {
		h, err := d.CreateBuffer(device.BufferDesc{Size: uint64(size)})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, d.DestroyBuffer(h)) })
		return h
	}
	rb, hb, ab := mk(len(raw)), mk(24*n), mk(4*n)
	hits, anys := make([]byte, 24*n), make([]byte, 4*n)
	require.NoError(t, d.Dispatch(st, &device.CommandList{Commands: []device.Command{
		&device.BufferUpload{Buffer: rb, Data: raw},
		&device.BufferFill{Buffer: ab, Size: uint64(4 * n)},
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{uint32(n), 1, 1}, Args: []device.Arg{
			{Kind: device.ArgAccel, Handle: a}, {Kind: device.ArgBuffer, Handle: rb, Size: device.WholeSize},
			{Kind: device.ArgBuffer, Handle: hb, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: ab, Size: device.WholeSize},
			{Kind: device.ArgUniform, Uniform: binary.LittleEndian.AppendUint32(nil, uint32(mask))}}},
		&device.BufferDownload{Buffer: hb, Data: hits},
		&device.BufferDownload{Buffer: ab, Data: anys},
	}}))
	require.NoError(t, d.SynchronizeStream(context.Background(), st))
	out := make([]refHit, n)
	any := make([]bool, n)
	for i := range out {
		w := func(k int) uint32 { return binary.LittleEndian.Uint32(hits[24*i+4*k:]) }
		out[i] = refHit{id: w(0), prim: w(1), t: math.Float32frombits(w(4)), kind: w(5)}
		any[i] = binary.LittleEndian.Uint32(anys[4*i:]) != 0
	}
	return out, any
}

// rayTolerance is how far a traced t may lie from the reference's,
// relative to max(1, t): the native traversal and the transforms round
// differently from the host's float64 inverse.
const rayTolerance = 1e-5

func checkHits(t *testing.T, s *rayScene, rays []bvh.Ray, got []refHit, anys []bool, what string) (hits int) {
	t.Helper()
	worst := 0.0
	for i, r := range rays {
		want, have := s.brute(r)
		g := got[i]
		require.Equal(t, have, anys[i], "%s: ray %d (%+v): any", what, i, r)
		if !have {
			require.Equal(t, refHit{}, g, "%s: ray %d (%+v): a miss", what, i, r)
			continue
		}
		hits++
		require.Equal(t, want.kind, g.kind, "%s: ray %d (%+v): kind (want %+v, got %+v)", what, i, r, want, g)
		require.Equal(t, want.id, g.id, "%s: ray %d (%+v): instance id (want %+v, got %+v)", what, i, r, want, g)
		require.Equal(t, want.prim, g.prim, "%s: ray %d (%+v): primitive (want %+v, got %+v)", what, i, r, want, g)
		require.InDelta(t, want.t, g.t, rayTolerance*max(1, float64(want.t)), "%s: ray %d: t", what, i)
		worst = max(worst, math.Abs(float64(want.t-g.t))/max(1, float64(want.t)))
	}
	t.Logf("%s: %d hits of %d rays, t within %.2g (relative) of the reference", what, hits, len(rays), worst)
	return hits
}

// rayDevice opens a device with ray queries (native or software: every
// test device has one or the other) and a compute stream on it.
func rayDevice(t *testing.T) (*Device, device.Handle) {
	t.Helper()
	d, _ := openDevice(t)
	if d.Capabilities().RayQuery == device.PathNone {
		testenv.Need(t, "ray queries", errors.New("the device has neither native nor software ones"))
	}
	st, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	t.Cleanup(func() { d.DestroyStream(st) })
	return d, st
}

// rayTraceShader is programs.RayTrace compiled on d.
func rayTraceShader(t *testing.T, d *Device) device.Handle {
	t.Helper()
	f := programs.RayTrace()
	sig, _, err := device.KernelSignature(f)
	require.NoError(t, err)
	sh, _, err := d.CreateShader(device.ShaderDesc{Kernel: f, Signature: &sig})
	require.NoError(t, err)
	t.Cleanup(func() { d.DestroyShader(sh) })
	return sh
}

// TestRayQueriesMatchBruteForce traces random rays through random scenes
// (meshes and procedurals, instances with transforms, masks, opaque or
// not) and compares every closest hit and any-hit with the brute-force
// reference, on the device's path (native on Mesa 25's lavapipe, software
// on lavapipe 22.3 and with LUCENT_ACCEL=software).
func TestRayQueriesMatchBruteForce(t *testing.T) {
	d, st := rayDevice(t)
	if os.Getenv("LUCENT_EXPECT_SAMPLING") == "native" && os.Getenv("LUCENT_ACCEL") != "software" {
		require.Equal(t, device.PathNative, d.Capabilities().RayQuery)
	}
	matchBruteForce(t, d, st)
}

// TestRayQueriesStridedVertices is TestRayQueriesMatchBruteForce with the
// meshes' vertices 20 bytes apart from byte 8, NaN between them: the build
// (and natively the index check, which reads the vertices) takes only each
// vertex's first 12 bytes.
func TestRayQueriesStridedVertices(t *testing.T) {
	d, st := rayDevice(t)
	matchBruteForceLaid(t, d, st, 20, 8)
}

// TestRayQueriesByAddressAndBinding is TestRayQueriesMatchBruteForce on
// the software path with accels read through their device addresses (as
// kernels read those past maxStorageBufferRange: the limit lowered to one
// byte), then through their bindings, whichever the driver's choice.
func TestRayQueriesByAddressAndBinding(t *testing.T) {
	t.Setenv("LUCENT_ACCEL", "software")
	d, st := rayDevice(t)
	require.Equal(t, device.PathEmulated, d.Capabilities().RayQuery)
	d.softDescLimit.Store(1)
	matchBruteForce(t, d, st)
	d.softDescLimit.Store(d.caps.MaxStorageBufferRange)
	matchBruteForce(t, d, st)
}

// TestRayQueriesDeviceMeshBuild is TestRayQueriesMatchBruteForce with the
// software path's meshes built on the device (LUCENT_SOFT_BUILD=gpu), so
// the device build's buffers go through the accel build's mesh copies and
// the traversal end to end, read by address and by binding.
func TestRayQueriesDeviceMeshBuild(t *testing.T) {
	t.Setenv("LUCENT_ACCEL", "software")
	t.Setenv("LUCENT_SOFT_BUILD", "gpu")
	d, st := rayDevice(t)
	require.Equal(t, device.PathEmulated, d.Capabilities().RayQuery)
	require.Zero(t, d.lbvh[0].shaders[0], "no device build yet")
	d.softDescLimit.Store(1)
	matchBruteForce(t, d, st)
	d.softDescLimit.Store(d.caps.MaxStorageBufferRange)
	matchBruteForce(t, d, st)
	require.NotZero(t, d.lbvh[0].shaders[0], "the meshes were built on the device (its kernels made)")
}

// TestAccelReadChoice: kernels read software accels through their binding
// on lavapipe before Mesa 23, through their address elsewhere, unless
// LUCENT_ACCEL_READ says otherwise.
func TestAccelReadChoice(t *testing.T) {
	t.Setenv("LUCENT_ACCEL", "software")
	d, _ := rayDevice(t)
	v := driverVersion(d.phys.props.DriverVersion, vk.ByteString(d.phys.p12.DriverInfo[:]))
	old := d.phys.p12.DriverID == vk.DRIVER_ID_MESA_LLVMPIPE && v < 23<<22
	want := map[bool]uint64{true: d.caps.MaxStorageBufferRange}[old]
	require.Equal(t, want, d.accelDescriptorLimit(), "driver %s", d.phys.name())
	require.Equal(t, map[bool]string{true: "binding", false: "address"}[old], d.Capabilities().AccelRead, "the choice as Capabilities (and lucent info) report it")
	for env, limit := range map[string]uint64{"binding": d.caps.MaxStorageBufferRange, "address": 0} {
		t.Setenv(EnvAccelRead, env)
		d, _ := rayDevice(t)
		require.Equal(t, limit, d.accelDescriptorLimit(), env)
		require.Equal(t, env, d.Capabilities().AccelRead)
	}
}

// matchBruteForce traces random rays through random scenes on d and
// compares every hit with the brute-force reference.
func matchBruteForce(t *testing.T, d *Device, st device.Handle) {
	matchBruteForceLaid(t, d, st, 0, 0)
}

// matchBruteForceLaid is matchBruteForce with the meshes' vertices stride
// bytes apart from offset (0, 0: packed from 0).
func matchBruteForceLaid(t *testing.T, d *Device, st device.Handle, stride, offset uint32) {
	sh := rayTraceShader(t, d)
	total := 0
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 19))
		s := newRayScene(rng)
		s.stride, s.offset = stride, offset
		a, _ := buildScene(t, d, st, s, device.AccelOptions{})
		rays := randomRays(rng, 512)
		for _, mask := range []uint8{0xff, 0x5, 0} {
			rs := append([]bvh.Ray(nil), rays...)
			for i := range rs {
				rs[i].Mask = mask
			}
			got, anys := trace(t, d, st, sh, a, rs, mask)
			total += checkHits(t, s, rs, got, anys, d.Capabilities().RayQuery.String())
		}
	}
	require.Greater(t, total, 300, "too few hits for the test to mean much")
}

// TestRayQueriesAfterUpdateAndCompaction moves instances (a refit, then a
// full rebuild), compacts every structure, and after each step traces the
// rays again against the brute-force reference of the scene as it is.
func TestRayQueriesAfterUpdateAndCompaction(t *testing.T) {
	d, st := rayDevice(t)
	sh := rayTraceShader(t, d)
	rng := rand.New(rand.NewPCG(7, 19))
	s := newRayScene(rng)
	opt := device.AccelOptions{AllowUpdate: true, AllowCompaction: true}
	a, prims := buildScene(t, d, st, s, opt)
	rays := randomRays(rng, 512)
	check := func(what string) {
		got, anys := trace(t, d, st, sh, a, rays, 0xff)
		require.Greater(t, checkHits(t, s, rays, got, anys, what), 50, what)
	}
	check("built")

	move := func(mode device.BuildMode) {
		var ups []device.InstanceUpdate
		for i := range s.inst {
			if i%2 == 0 {
				s.inst[i].transform = randomTransform(rng)
				ups = append(ups, device.InstanceUpdate{Index: uint32(i), Change: device.ChangeTransform,
					Instance: device.Instance{Transform: s.inst[i].transform}})
			}
		}
		require.NoError(t, d.Dispatch(st, &device.CommandList{Commands: []device.Command{
			&device.AccelBuild{Accel: a, Mode: mode, Count: uint32(len(s.inst)), Updates: ups}}}))
	}
	move(device.BuildUpdate)
	check("after an update moving half the instances")
	move(device.BuildFull)
	check("after a rebuild moving half the instances")

	// Compaction: the primitives first (which moves them: the accel is
	// built again), then the accel.
	var cmds []device.Command
	for i, p := range prims {
		kind := device.KindMesh
		if i >= len(s.tris) {
			kind = device.KindProcedural
		}
		cmds = append(cmds, &device.AccelCompact{Handle: p, Kind: kind})
	}
	require.NoError(t, d.Dispatch(st, &device.CommandList{Commands: cmds}))
	move(device.BuildFull)
	check("after compacting the primitives and a rebuild")
	require.NoError(t, d.Dispatch(st, &device.CommandList{Commands: []device.Command{&device.AccelCompact{Handle: a, Kind: device.KindAccel}}}))
	check("after compacting the accel")
}

// TestRayKernelForTheOtherPath creates a kernel compiled for the other ray
// path than the device's structures (as an ahead-of-time kernel may be):
// refused at creation with ErrUnsupported naming the accel argument and
// both paths, which sends device.LoadKernel and lucentc's launchers to the
// kernel's IR; a device without ray queries refuses a native kernel for the
// capability. A kernel compiled for the device's path is created.
func TestRayKernelForTheOtherPath(t *testing.T) {
	d, _ := rayDevice(t)
	f := programs.RayTrace()
	sig, _, err := device.KernelSignature(f)
	require.NoError(t, err)
	native := d.Capabilities().RayQuery == device.PathNative
	for _, own := range []bool{false, true} {
		words, err := codegen.Emit(f, codegen.Options{NativeRayQuery: native == own})
		require.NoError(t, err)
		sh, _, err := d.CreateShader(device.ShaderDesc{SPIRV: words, Signature: &sig, Trusted: true})
		if own {
			require.NoError(t, err, "the device's own path")
			require.NoError(t, d.DestroyShader(sh))
			continue
		}
		require.ErrorIs(t, err, device.ErrUnsupported)
		if !native && d.phys.rq.RayQuery == 0 {
			// lavapipe 22.3: the device has no ray queries at all.
			require.ErrorContains(t, err, "RayQueryKHR")
			continue
		}
		if native {
			require.ErrorContains(t, err, "traces argument 0 (scene) by the software traversal, the device's accels take native ray queries")
		} else {
			require.ErrorContains(t, err, "traces argument 0 (scene) by native ray queries, the device's accels take the software traversal")
		}
	}
}

// TestRayAccelOverMovedOrDestroyedMesh traces an accel whose mesh was
// rebuilt into other memory, then one whose mesh was destroyed: both are
// refused naming the instance (the accel would point at released memory),
// and building the accel again after the rebuild makes it traceable.
func TestRayAccelOverMovedOrDestroyedMesh(t *testing.T) {
	d, st := rayDevice(t)
	sh := rayTraceShader(t, d)
	mk := func(data []byte) device.Handle { return uploaded(t, d, st, data) }
	// 64 triangles; the first build uses 1 of them, the rebuild all.
	var verts, idx []byte
	for i := range 64 {
		z := float32(i)
		verts = appendF32(verts, -1, -1, z, 1, -1, z, 0, 1, z)
		idx = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(idx, uint32(3*i)), uint32(3*i+1)), uint32(3*i+2))
	}
	vb, ib := mk(verts), mk(idx)
	m, err := d.CreateMesh(device.AccelOptions{})
	require.NoError(t, err)
	a, err := d.CreateAccel(device.AccelOptions{})
	require.NoError(t, err)
	defer d.DestroyAccel(a)
	meshBuild := func(tris uint32) device.Command {
		return &device.MeshBuild{Mesh: m, Geometry: device.MeshGeometry{Vertices: vb, VertexStride: 12, VertexCount: 3 * tris, Indices: ib, Triangles: tris}}
	}
	accelBuild := &device.AccelBuild{Accel: a, Count: 1, Updates: []device.InstanceUpdate{{Change: device.ChangeAll,
		Instance: device.Instance{Primitive: m, Kind: device.KindMesh, Transform: device.IdentityTransform, Mask: 1, Opaque: true, ID: 5}}}}
	require.NoError(t, d.Dispatch(st, &device.CommandList{Commands: []device.Command{meshBuild(1), accelBuild}}))
	rays := []bvh.Ray{{Origin: [3]float32{0, 0, -1}, Dir: [3]float32{0, 0, 1}, TMax: 100, Mask: 0xff}}
	hits, _ := trace(t, d, st, sh, a, rays, 0xff)
	require.Equal(t, refHit{id: 5, t: 1, kind: ir.HitTriangle}, hits[0])

	out := make([]byte, 24)
	hb := mk(out)
	rb := mk(appendF32(nil, 0, 0, -1, 0, 0, 0, 1, 100))
	dispatch := func() error {
		return d.Dispatch(st, &device.CommandList{Commands: []device.Command{
			&device.ShaderDispatch{Shader: sh, Size: [3]uint32{1, 1, 1}, Args: []device.Arg{
				{Kind: device.ArgAccel, Handle: a}, {Kind: device.ArgBuffer, Handle: rb, Size: device.WholeSize},
				{Kind: device.ArgBuffer, Handle: hb, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: hb, Offset: 0, Size: 4},
				{Kind: device.ArgUniform, Uniform: []byte{0xff, 0, 0, 0}}}}}})
	}
	require.NoError(t, d.Dispatch(st, &device.CommandList{Commands: []device.Command{meshBuild(64)}}))
	err = dispatch()
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "instance 0")
	require.ErrorContains(t, err, "build the accel again")
	require.NoError(t, d.Dispatch(st, &device.CommandList{Commands: []device.Command{accelBuild}}))
	require.NoError(t, dispatch())
	require.NoError(t, d.SynchronizeStream(context.Background(), st))

	require.NoError(t, d.DestroyMesh(m))
	err = dispatch()
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "destroyed")
}
