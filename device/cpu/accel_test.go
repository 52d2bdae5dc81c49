package cpu_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
)

// openCPU opens the cpu backend, with the validation wrapper when validated.
func openCPU(t *testing.T, validated bool) *device.Device {
	var opts []device.Option
	if validated {
		opts = append(opts, device.WithValidation())
	}
	d, err := device.Open(context.Background(), "cpu", opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d
}

func closeLater(t *testing.T, cs ...interface{ Close() error }) {
	t.Cleanup(func() {
		for _, c := range cs {
			require.NoError(t, c.Close())
		}
	})
}

// refHit is the brute-force closest hit of a ray over instanced triangles
// moved to world space (Möller–Trumbore in float64).
func refHit(r bvh.Ray, inst []bvh.Instance, tris [][]bvh.Triangle) (hit bool, in, prim uint32, t float64) {
	t = math.Inf(1)
	for ii, x := range inst {
		if x.Mask&r.Mask == 0 {
			continue
		}
		for pi, tr := range tris[ii] {
			a, b, c := world(x.Transform, tr.A), world(x.Transform, tr.B), world(x.Transform, tr.C)
			if tt, ok := intersect(r, a, b, c); ok && tt < t {
				hit, in, prim, t = true, uint32(ii), uint32(pi), tt
			}
		}
	}
	return
}

func world(m [12]float32, p [3]float32) [3]float64 {
	var out [3]float64
	for i := range 3 {
		out[i] = float64(m[4*i])*float64(p[0]) + float64(m[4*i+1])*float64(p[1]) + float64(m[4*i+2])*float64(p[2]) + float64(m[4*i+3])
	}
	return out
}

func intersect(r bvh.Ray, a, b, c [3]float64) (float64, bool) {
	o := [3]float64{float64(r.Origin[0]), float64(r.Origin[1]), float64(r.Origin[2])}
	d := [3]float64{float64(r.Dir[0]), float64(r.Dir[1]), float64(r.Dir[2])}
	sub := func(x, y [3]float64) [3]float64 { return [3]float64{x[0] - y[0], x[1] - y[1], x[2] - y[2]} }
	cross := func(x, y [3]float64) [3]float64 {
		return [3]float64{x[1]*y[2] - x[2]*y[1], x[2]*y[0] - x[0]*y[2], x[0]*y[1] - x[1]*y[0]}
	}
	dot := func(x, y [3]float64) float64 { return x[0]*y[0] + x[1]*y[1] + x[2]*y[2] }
	e1, e2 := sub(b, a), sub(c, a)
	p := cross(d, e2)
	det := dot(e1, p)
	if math.Abs(det) < 1e-12 {
		return 0, false
	}
	s := sub(o, a)
	u := dot(s, p) / det
	q := cross(s, e1)
	v := dot(d, q) / det
	t := dot(e2, q) / det
	if u < 0 || v < 0 || u+v > 1 || t < float64(r.TMin) || t > float64(r.TMax) {
		return 0, false
	}
	return t, true
}

// TestSoftwareSceneMatchesBruteForce builds a random scene of instanced
// meshes through package accel on the cpu backend, then traces it with
// bvh's host traversal and checks every ray against a brute-force loop:
// instance and triangle exact, t within 1e-4 relative; after a refit of
// moved instances too.
func TestSoftwareSceneMatchesBruteForce(t *testing.T) {
	d := openCPU(t, false) // the test reads the backend's scene
	require.Equal(t, device.PathEmulated, d.Capabilities().RayTracing)
	rng := rand.New(rand.NewPCG(3, 4))
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	closeLater(t, s)

	const meshes, perMesh = 3, 60
	var ms []*accel.Mesh
	var meshTris [][]bvh.Triangle
	for range meshes {
		verts := make([][3]float32, 3*perMesh)
		idx := make([][3]uint32, perMesh)
		tris := make([]bvh.Triangle, perMesh)
		for i := range perMesh {
			c := [3]float32{rng.Float32()*8 - 4, rng.Float32()*8 - 4, rng.Float32()*8 - 4}
			for j := range 3 {
				verts[3*i+j] = [3]float32{c[0] + rng.Float32() - 0.5, c[1] + rng.Float32() - 0.5, c[2] + rng.Float32() - 0.5}
			}
			idx[i] = [3]uint32{uint32(3 * i), uint32(3*i + 1), uint32(3*i + 2)}
			tris[i] = bvh.Triangle{A: verts[3*i], B: verts[3*i+1], C: verts[3*i+2]}
		}
		vb, err := device.NewBufferFrom(d, verts)
		require.NoError(t, err)
		ib, err := device.NewBufferFrom(d, idx)
		require.NoError(t, err)
		m, err := accel.NewMesh(d, vb.All(), ib.All(), accel.Options{})
		require.NoError(t, err)
		closeLater(t, m, ib, vb)
		ms = append(ms, m)
		meshTris = append(meshTris, tris)
	}
	a, err := accel.NewAccel(d, accel.Options{AllowUpdate: true})
	require.NoError(t, err)
	closeLater(t, a)
	var inst []bvh.Instance
	var tris [][]bvh.Triangle
	randomTransform := func() [12]float32 {
		th := rng.Float64() * 2 * math.Pi
		c, sn := float32(math.Cos(th)), float32(math.Sin(th))
		return [12]float32{c, 0, sn, rng.Float32()*20 - 10, 0, 1, 0, rng.Float32()*20 - 10, -sn, 0, c, rng.Float32()*4 - 2}
	}
	for i := range 8 {
		k := i % meshes
		x := bvh.Instance{Transform: randomTransform(), Mask: uint8(1 << (i % 3)), ID: uint32(100 + i)}
		_, err := a.Add(accel.Instance{Primitive: ms[k], Transform: x.Transform, Mask: x.Mask, ID: x.ID, Opaque: true})
		require.NoError(t, err)
		inst, tris = append(inst, x), append(tris, meshTris[k])
	}
	cmds := []device.Command{}
	for _, m := range ms {
		cmds = append(cmds, m.Build())
	}
	require.NoError(t, s.Submit(append(cmds, a.Build())...))
	require.NoError(t, s.Synchronize(context.Background()))

	check := func(what string) {
		sc := cpu.SceneOf(d.Interface().(*cpu.Device), a.Handle())
		require.NotNil(t, sc)
		hits := 0
		for range 2000 {
			o := [3]float32{rng.Float32()*30 - 15, rng.Float32()*30 - 15, -20}
			// Aim near a random triangle's centroid: most rays hit.
			ii := rng.IntN(len(inst))
			tr := tris[ii][rng.IntN(len(tris[ii]))]
			a, b, c := world(inst[ii].Transform, tr.A), world(inst[ii].Transform, tr.B), world(inst[ii].Transform, tr.C)
			var aim [3]float32
			for k := range 3 {
				aim[k] = float32((a[k]+b[k]+c[k])/3) + (rng.Float32()-0.5)*0.3
			}
			dir := [3]float32{aim[0] - o[0], aim[1] - o[1], aim[2] - o[2]}
			r := bvh.Ray{Origin: o, Dir: dir, TMax: 10, Mask: uint8(rng.IntN(8))}
			got := sc.Closest(r)
			ok, in, prim, tt := refHit(r, inst, tris)
			require.Equal(t, ok, got.Kind == bvh.KindTriangle, "%s: ray %v", what, r)
			if !ok {
				continue
			}
			hits++
			require.Equal(t, in, got.Instance, "%s: ray %v", what, r)
			require.Equal(t, prim, got.Prim, "%s: ray %v", what, r)
			require.Equal(t, inst[in].ID, got.ID)
			require.InEpsilon(t, tt, float64(got.T), 1e-4, "%s: ray %v", what, r)
		}
		require.Greater(t, hits, 400, "%s: the rays hit something", what)
	}
	check("build")
	for i := range inst {
		if i%2 == 0 {
			inst[i].Transform = randomTransform()
			require.NoError(t, a.SetTransform(i, inst[i].Transform))
		}
	}
	require.NoError(t, s.Submit(a.Update()))
	require.NoError(t, s.Synchronize(context.Background()))
	check("update")
}
