package vulkan

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// BenchmarkRayQueries traces primary rays (closest hit, a 512×512 camera)
// and shadow rays (any hit, from every primary hit towards a light) through
// a heightfield of 2·N² triangles, N from LUCENT_RAY_BENCH_N (default 708:
// 1.0 M triangles), on the device's ray-query path (LUCENT_ACCEL=software
// forces the software one, LUCENT_ACCEL_READ=binding or =address how its
// kernels read the accel). It reports rays/s and the build time.
//
//	go test -run '^$' -bench RayQueries -benchtime 3x ./device/vulkan
func BenchmarkRayQueries(b *testing.B) {
	d, _ := openBenchDevice(b)
	if d.Capabilities().RayQuery == device.PathNone {
		b.Skip("no ray queries on this device")
	}
	n := 708
	if v, err := strconv.Atoi(os.Getenv("LUCENT_RAY_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	st, err := d.CreateStream(device.StreamCompute)
	require.NoError(b, err)
	defer d.DestroyStream(st)
	buf := func(size int) device.Handle {
		h, err := d.CreateBuffer(device.BufferDesc{Size: uint64(size)})
		require.NoError(b, err)
		b.Cleanup(func() { d.DestroyBuffer(h) })
		return h
	}
	verts, idx := heightfield(n)
	vb, ib := buf(len(verts)), buf(len(idx))
	require.NoError(b, d.Dispatch(st, &device.CommandList{Commands: []device.Command{
		&device.BufferUpload{Buffer: vb, Data: verts}, &device.BufferUpload{Buffer: ib, Data: idx}}}))
	require.NoError(b, d.SynchronizeStream(context.Background(), st))
	m, err := d.CreateMesh(device.AccelOptions{})
	require.NoError(b, err)
	defer d.DestroyMesh(m)
	a, err := d.CreateAccel(device.AccelOptions{})
	require.NoError(b, err)
	defer d.DestroyAccel(a)
	start := time.Now()
	require.NoError(b, d.Dispatch(st, &device.CommandList{Commands: []device.Command{
		&device.MeshBuild{Mesh: m, Geometry: device.MeshGeometry{Vertices: vb, VertexStride: 12, VertexCount: uint32((n + 1) * (n + 1)),
			Indices: ib, Triangles: uint32(2 * n * n)}},
		&device.AccelBuild{Accel: a, Count: 1, Updates: []device.InstanceUpdate{{Change: device.ChangeAll,
			Instance: device.Instance{Primitive: m, Kind: device.KindMesh, Transform: device.IdentityTransform, Mask: 0xff, Opaque: true}}}},
	}}))
	require.NoError(b, d.SynchronizeStream(context.Background(), st))
	build := time.Since(start)

	const w, h = 512, 512
	var rays []byte
	eye := [3]float64{0, 8, -14}
	for y := range h {
		for x := range w {
			// Towards a point of the plane y = 0 on [-10, 10]².
			tx, tz := (float64(x)+0.5)/w*20-10, (float64(y)+0.5)/h*20-10
			dir := [3]float64{tx - eye[0], -eye[1], tz - eye[2]}
			rays = appendF32(rays, float32(eye[0]), float32(eye[1]), float32(eye[2]), 0,
				float32(dir[0]), float32(dir[1]), float32(dir[2]), 2)
		}
	}
	rb, hb, anyb := buf(len(rays)), buf(24*w*h), buf(4*w*h)
	require.NoError(b, d.Dispatch(st, &device.CommandList{Commands: []device.Command{&device.BufferUpload{Buffer: rb, Data: rays}}}))
	shader := func(f *ir.Function) device.Handle {
		sig, _, err := device.KernelSignature(f)
		require.NoError(b, err)
		sh, _, err := d.CreateShader(device.ShaderDesc{Kernel: f, Signature: &sig})
		require.NoError(b, err)
		b.Cleanup(func() { d.DestroyShader(sh) })
		return sh
	}
	run := func(sh device.Handle, rays device.Handle) {
		require.NoError(b, d.Dispatch(st, &device.CommandList{Commands: []device.Command{
			&device.ShaderDispatch{Shader: sh, Size: [3]uint32{w * h, 1, 1}, Args: []device.Arg{
				{Kind: device.ArgAccel, Handle: a}, {Kind: device.ArgBuffer, Handle: rays, Size: device.WholeSize},
				{Kind: device.ArgBuffer, Handle: hb, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: anyb, Size: device.WholeSize},
				{Kind: device.ArgUniform, Uniform: binary.LittleEndian.AppendUint32(nil, 0xff)}}}}}))
		require.NoError(b, d.SynchronizeStream(context.Background(), st))
	}
	closest, anyHit := shader(programs.RayClosest()), shader(programs.RayAny())
	run(closest, rb) // warm-up: pipeline compilation

	// Shadow rays from the primary hits towards the light; a primary miss
	// gives a ray of zero length.
	hits := make([]byte, 24*w*h)
	require.NoError(b, d.Dispatch(st, &device.CommandList{Commands: []device.Command{&device.BufferDownload{Buffer: hb, Data: hits}}}))
	require.NoError(b, d.SynchronizeStream(context.Background(), st))
	var shadow []byte
	primaryHits := 0
	for i := range w * h {
		t := math.Float32frombits(binary.LittleEndian.Uint32(hits[24*i+16:]))
		kind := binary.LittleEndian.Uint32(hits[24*i+20:])
		o := [3]float32{}
		tmax := float32(0)
		if kind != 0 {
			primaryHits++
			for k := range 3 {
				ro := math.Float32frombits(binary.LittleEndian.Uint32(rays[32*i+4*k:]))
				rd := math.Float32frombits(binary.LittleEndian.Uint32(rays[32*i+16+4*k:]))
				o[k] = ro + t*rd
			}
			tmax = 100
		}
		shadow = appendF32(shadow, o[0], o[1], o[2], 1e-3, 0.4, 1, 0.3, tmax)
	}
	sb := buf(len(shadow))
	require.NoError(b, d.Dispatch(st, &device.CommandList{Commands: []device.Command{&device.BufferUpload{Buffer: sb, Data: shadow}}}))
	run(anyHit, sb)
	b.Logf("%s path: %d triangles, build %v, %d of %d primary rays hit", d.Capabilities().RayQuery, 2*n*n, build, primaryHits, w*h)
	b.ReportMetric(build.Seconds(), "build-s")
	for _, c := range []struct {
		name string
		sh   device.Handle
		rays device.Handle
	}{{"primary", closest, rb}, {"shadow", anyHit, sb}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				run(c.sh, c.rays)
			}
			b.ReportMetric(float64(w*h)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
		})
	}
}

// heightfield is BenchmarkRayQueries's mesh: the vertices (float32×3) and
// indices (uint32) of 2·n² triangles over [-10, 10]².
func heightfield(n int) (verts, idx []byte) {
	height := func(x, z float64) float64 { return 0.5*math.Sin(1.3*x)*math.Cos(1.7*z) + 0.2*math.Sin(3*x+2*z) }
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			x, z := float64(i)/float64(n)*20-10, float64(j)/float64(n)*20-10
			verts = appendF32(verts, float32(x), float32(height(x, z)), float32(z))
		}
	}
	for j := range n {
		for i := range n {
			a := uint32(j*(n+1) + i)
			for _, v := range []uint32{a, a + 1, a + uint32(n) + 1, a + 1, a + uint32(n) + 2, a + uint32(n) + 1} {
				idx = binary.LittleEndian.AppendUint32(idx, v)
			}
		}
	}
	return verts, idx
}
