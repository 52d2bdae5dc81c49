package accel_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/raytest"
	"github.com/lucent-gpu/lucent/kernel"
)

// axisScene is a row of boxes placed as they are and turned (so that rays
// along the world's axes have zero components in object space either
// way), and a quad of two triangles.
func axisScene() *raytest.Scene {
	var row []bvh.AABB
	for i := range 3 {
		x := float32(2 * i)
		row = append(row, bvh.AABB{Min: [3]float32{x - 0.5, -0.5, -0.5}, Max: [3]float32{x + 0.5, 0.5, 0.5}})
	}
	quad := []bvh.Triangle{
		{A: [3]float32{-1, -1, 0}, B: [3]float32{1, -1, 0}, C: [3]float32{1, 1, 0}},
		{A: [3]float32{-1, -1, 0}, B: [3]float32{1, 1, 0}, C: [3]float32{-1, 1, 0}},
	}
	up := bvh.Identity
	up[7], up[11] = 5, 1
	turn := [12]float32{0, 0, 1, -2, 0, 1, 0, -5, -1.5, 0, 0, 0}
	quadAt := bvh.Identity
	quadAt[0], quadAt[5], quadAt[3], quadAt[11] = 3, 3, 3, 3
	return &raytest.Scene{
		Meshes: [][]bvh.Triangle{quad},
		Procs:  [][]bvh.AABB{row},
		Insts: []raytest.Instance{
			{Procedural: true, Transform: up, Mask: 0xff, Opaque: true, ID: 500},
			{Procedural: true, Transform: turn, Mask: 0xff, Opaque: true, ID: 501},
			{Prim: 0, Transform: quadAt, Mask: 0xff, Opaque: true, ID: 7},
		},
	}
}

// axisRays are rays along ±x, ±y and ±z (with +0 and −0 in the other
// components) from a grid of origins, most of them beside the boxes.
func axisRays() []kernel.Ray {
	negz := float32(math.Copysign(0, -1))
	var rays []kernel.Ray
	for _, zero := range []float32{0, negz} {
		for axis := range 3 {
			for _, sign := range []float32{1, -1} {
				for a := -7; a <= 7; a++ {
					for b := -7; b <= 7; b++ {
						o := [3]float32{zero, zero, zero}
						d := [3]float32{zero, zero, zero}
						o[axis] = -12 * sign
						o[(axis+1)%3] = float32(a) + 0.3
						o[(axis+2)%3] = float32(b) + 0.3
						d[axis] = sign
						rays = append(rays, kernel.Ray{Origin: kernel.F3(o[0], o[1], o[2]), Dir: kernel.F3(d[0], d[1], d[2]), TMax: 100, Mask: 0xff})
					}
				}
			}
		}
	}
	return rays
}

// axisHits traces rays on d with the Go-subset Closest kernel.
func axisHits(t *testing.T, d *device.Device, s *raytest.Scene, rays []kernel.Ray) []kernel.Hit {
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

// TestAxisRaysBesideBoxes traces rays along the axes past boxes they do
// not enter (their origins outside the boxes' slabs in the axes the rays
// do not move along, so the slab distances there are infinite): no path
// may report such a box as a procedural hit. Every path is held to the
// brute-force reference (ids exact, t within raytest's tolerance), and the
// rays are traced again with a negative TMin, which every path misses.
func TestAxisRaysBesideBoxes(t *testing.T) {
	s := axisScene()
	rays := axisRays()
	neg := make([]kernel.Ray, len(rays))
	for i, r := range rays {
		r.TMin = -1
		neg[i] = r
	}
	all := append(append([]kernel.Ray{}, rays...), neg...)
	kinds := [3]int{}
	want := make([]kernel.Hit, len(all))
	sure := make([]bool, len(all))
	for i, r := range rays {
		a := s.Reference(r)
		want[i], sure[i] = a.Hit, !a.Ambiguous
		kinds[a.Hit.Kind]++
		sure[len(rays)+i] = true // a miss
	}
	require.Greater(t, kinds[kernel.HitProcedural], 20)
	require.Greater(t, kinds[kernel.HitTriangle], 20)
	require.Greater(t, kinds[kernel.HitMiss], len(rays)/2)
	check := func(what string, got []kernel.Hit) {
		t.Helper()
		for i, g := range got {
			if !sure[i] {
				continue
			}
			w := want[i]
			require.Equal(t, [3]uint32{w.Kind, w.Instance, w.Prim}, [3]uint32{g.Kind, g.Instance, g.Prim}, "%s: ray %d %+v: want %+v, got %+v", what, i, all[i], w, g)
			require.InDelta(t, w.T, g.T, raytest.Eps*max(1, math.Abs(float64(w.T))), "%s: ray %d", what, i)
		}
	}
	bs, err := s.BVH()
	require.NoError(t, err)
	host, err := accel.Host(bs)
	require.NoError(t, err)
	got := make([]kernel.Hit, len(all))
	for i, r := range all {
		got[i] = host.TraceClosest(r)
	}
	check("kernel.Run's tracer", got)
	check("cpu", axisHits(t, openCPU(t, true), s, all))
	d := nativeDevice(t)
	check("vulkan", axisHits(t, d, s, all))
	if native(d) {
		t.Setenv("LUCENT_ACCEL", "software")
		check("vulkan, software", axisHits(t, openVulkan(t), s, all))
	}
}

// TestHugeTriangles traces rays at triangles whose vertices lie 10¹⁹ to
// 10³⁸ from the rays' origins, where the watertight test's float32 edge
// products overflow: every path hits them as the brute-force reference
// does (before, the software and CPU paths missed them all and the native
// path hit them), and misses past their edges.
func TestHugeTriangles(t *testing.T) {
	rng := raytest.Rand(41)
	s := &raytest.Scene{}
	var rays []kernel.Ray
	for i, big := range []float32{1e19, 3e20, 1e25, 1e30, 1e36, 1e38} {
		// A triangle in the plane z = 4i+2 around the point (0, 0), the
		// instance moving it 10i along x.
		z := float32(4*i + 2)
		s.Meshes = append(s.Meshes, []bvh.Triangle{{A: [3]float32{-big, -big, z}, B: [3]float32{big, -big, z}, C: [3]float32{0, big, z}}})
		tr := bvh.Identity
		tr[3] = float32(10 * i)
		s.Insts = append(s.Insts, raytest.Instance{Prim: i, Transform: tr, Mask: 1 << i, Opaque: true, ID: uint32(i + 1)})
		for range 20 {
			// Rays from points about the triangle's size from its
			// vertices, through it or past an edge (a tenth of its size
			// outside).
			x, y := float32(rng.Float64()-0.5)*big, float32(rng.Float64()-0.5)*big
			if rng.IntN(3) == 0 {
				y = -1.1 * big
			}
			o := kernel.F3(float32(10*i)+x, y, -3)
			rays = append(rays, kernel.Ray{Origin: o, Dir: kernel.F3(float32(rng.Float64()-0.5), float32(rng.Float64()-0.5), 1), TMax: 100, Mask: 1 << i})
		}
	}
	want := make([]kernel.Hit, len(rays))
	sure := make([]bool, len(rays))
	hits := 0
	for i, r := range rays {
		a := s.Reference(r)
		want[i], sure[i] = a.Hit, !a.Ambiguous
		if a.Hit.Kind == kernel.HitTriangle {
			hits++
		}
	}
	require.Greater(t, hits, 40)
	require.Less(t, hits, len(rays)-20)
	check := func(what string, got []kernel.Hit) {
		t.Helper()
		for i, g := range got {
			if !sure[i] {
				continue
			}
			w := want[i]
			require.Equal(t, [3]uint32{w.Kind, w.Instance, w.Prim}, [3]uint32{g.Kind, g.Instance, g.Prim}, "%s: ray %d %+v: want %+v, got %+v", what, i, rays[i], w, g)
			require.InDelta(t, w.T, g.T, raytest.Eps*max(1, math.Abs(float64(w.T))), "%s: ray %d", what, i)
		}
	}
	bs, err := s.BVH()
	require.NoError(t, err)
	host, err := accel.Host(bs)
	require.NoError(t, err)
	got := make([]kernel.Hit, len(rays))
	for i, r := range rays {
		got[i] = host.TraceClosest(r)
	}
	check("kernel.Run's tracer", got)
	check("cpu", axisHits(t, openCPU(t, true), s, rays))
	d := nativeDevice(t)
	check("vulkan", axisHits(t, d, s, rays))
	if native(d) {
		t.Setenv("LUCENT_ACCEL", "software")
		check("vulkan, software", axisHits(t, openVulkan(t), s, rays))
	}
}
