package accel_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/raytest"
	"github.com/lucent-gpu/lucent/kernel"
)

// tieScene is a scene where every hit is a tie in t: a grid of triangles,
// each one twice (primitive k and k+n), placed twice by instances 0 and 1
// with one transform, and a grid of boxes, each twice, placed twice by
// instances 2 and 3. The instances' user ids fall as their indices rise,
// so the rule (lower index) and the ids disagree.
func tieScene() (s *raytest.Scene, tris, boxes int) {
	s = &raytest.Scene{}
	var mesh []bvh.Triangle
	for j := range 4 {
		for i := range 4 {
			x, y := float32(i-2), float32(j-2)
			mesh = append(mesh, bvh.Triangle{A: [3]float32{x, y, 0}, B: [3]float32{x + 1, y, 0}, C: [3]float32{x, y + 1, 0}},
				bvh.Triangle{A: [3]float32{x + 1, y, 0}, B: [3]float32{x + 1, y + 1, 0}, C: [3]float32{x, y + 1, 0}})
		}
	}
	tris = len(mesh)
	s.Meshes = [][]bvh.Triangle{append(mesh, mesh...)}
	var procs []bvh.AABB
	for j := range 3 {
		for i := range 3 {
			x, y := float32(i)-1.5, float32(j)-1.5
			procs = append(procs, bvh.AABB{Min: [3]float32{x + 0.1, y + 0.1, 0}, Max: [3]float32{x + 0.9, y + 0.9, 0.5}})
		}
	}
	boxes = len(procs)
	s.Procs = [][]bvh.AABB{append(procs, procs...)}
	c, sn := float32(math.Cos(0.3)), float32(math.Sin(0.3))
	rot := func(tx float32) [12]float32 { return [12]float32{1, 0, 0, tx, 0, c, -sn, 0, 0, sn, c, 0} }
	for i := range 4 {
		s.Insts = append(s.Insts, raytest.Instance{Procedural: i >= 2, Transform: rot(float32(10 * (i / 2))), Mask: 0xff, Opaque: true, ID: uint32(50 - i)})
	}
	return s, tris, boxes
}

// tieRays aims n rays at the triangles (x near 0) and the boxes (x near 10).
func tieRays(n int) []kernel.Ray {
	r := rand.New(rand.NewPCG(5, 23))
	rays := make([]kernel.Ray, n)
	for i := range rays {
		x := float32(10 * (i % 2))
		rays[i] = kernel.Ray{Origin: kernel.F3(x+4*r.Float32()-2, 4*r.Float32()-2, -5),
			Dir: kernel.F3(0.1*r.Float32()-0.05, 0.1*r.Float32()-0.05, 1), TMax: 100, Mask: 0xff}
	}
	return rays
}

// checkTies holds the hits of tieScene to the tie rule: the lower instance
// index (user id 50, or 48 for the boxes), then the lower primitive index.
func checkTies(t *testing.T, what string, hits []kernel.Hit, tris, boxes int) {
	t.Helper()
	kinds := [3]int{}
	for i, h := range hits {
		kinds[h.Kind]++
		switch h.Kind {
		case kernel.HitTriangle:
			require.Equal(t, uint32(50), h.Instance, "%s: ray %d: %+v: the lower instance", what, i, h)
			require.Less(t, h.Prim, uint32(tris), "%s: ray %d: %+v: the lower primitive", what, i, h)
		case kernel.HitProcedural:
			require.Equal(t, uint32(48), h.Instance, "%s: ray %d: %+v: the lower instance", what, i, h)
			require.Less(t, h.Prim, uint32(boxes), "%s: ray %d: %+v: the lower primitive", what, i, h)
		}
	}
	require.Greater(t, kinds[kernel.HitTriangle], len(hits)/4, "%s: triangle hits", what)
	require.Greater(t, kinds[kernel.HitProcedural], len(hits)/8, "%s: box hits", what)
}

// tieHits traces tieScene's rays on d with the Go-subset Closest kernel.
func tieHits(t *testing.T, d *device.Device, rays []kernel.Ray) []kernel.Hit {
	s, _, _ := tieScene()
	st, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	closeAll(t, st)
	k, err := device.Compile(d, rayKernels(t)["Closest"])
	require.NoError(t, err)
	closeAll(t, k)
	o, err := s.Make(d, accel.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, o.Close()) })
	hb := buffer[kernel.Hit](t, d, len(rays))
	hits := make([]kernel.Hit, len(rays))
	require.NoError(t, st.Submit(append(o.Build(), k.Dispatch([3]uint32{uint32(len(rays))}, o.Accel, from(t, d, rays), hb), hb.Download(hits))...))
	require.NoError(t, st.Synchronize(context.Background()))
	return hits
}

// TestTiesInT traces a scene of exact ties: kernel.Run, the cpu backend and
// the Vulkan software path (on 22.3, and forced on Mesa 25) all return the
// hit of the lower instance index, then the lower primitive index, and the
// same hit. The native path returns what the driver returns, which is
// logged, not held to the rule.
func TestTiesInT(t *testing.T) {
	s, tris, boxes := tieScene()
	rays := tieRays(400)
	bs, err := s.BVH()
	require.NoError(t, err)
	host, err := accel.Host(bs)
	require.NoError(t, err)
	want := make([]kernel.Hit, len(rays))
	for i, r := range rays {
		want[i] = host.TraceClosest(r)
	}
	checkTies(t, "kernel.Run's tracer", want, tris, boxes)

	check := func(what string, got []kernel.Hit) {
		t.Helper()
		checkTies(t, what, got, tris, boxes)
		for i := range got {
			w, g := want[i], got[i]
			require.Equal(t, [3]uint32{w.Kind, w.Instance, w.Prim}, [3]uint32{g.Kind, g.Instance, g.Prim}, "%s: ray %d: the host's %+v, got %+v", what, i, w, g)
		}
	}
	check("cpu", tieHits(t, openCPU(t, true), rays))
	d := nativeDevice(t)
	got := tieHits(t, d, rays)
	if native(d) {
		rule := 0
		for i := range got {
			if got[i].Kind == want[i].Kind && got[i].Instance == want[i].Instance && got[i].Prim == want[i].Prim {
				rule++
			}
		}
		t.Logf("native: %d of %d tied hits are the lower instance and primitive", rule, len(rays))
		t.Setenv("LUCENT_ACCEL", "software")
		d = openVulkan(t)
		got = tieHits(t, d, rays)
	}
	check("vulkan, software", got)
}
