package bvh

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Trace commits what Closest would not: triangles of non-opaque instances
// and procedural boxes, at the distance the ray enters them (TMin from
// inside); masks still skip instances.
func TestTraceCommitsEveryCandidate(t *testing.T) {
	tri, err := BuildTriangles([]Triangle{{A: [3]float32{-1, -1, 0}, B: [3]float32{1, -1, 0}, C: [3]float32{0, 1, 0}}}, Options{})
	require.NoError(t, err)
	box, err := BuildAABBs([]AABB{{Min: [3]float32{-1, -1, -1}, Max: [3]float32{1, 1, 1}}}, Options{})
	require.NoError(t, err)
	at := func(z float32) [12]float32 { return [12]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, z} }
	sc, err := BuildScene([]Instance{
		{Mesh: tri, Transform: at(5), Mask: 1, Opaque: false, ID: 10},
		{Mesh: box, Transform: at(10), Mask: 2, ID: 20},
	}, Options{})
	require.NoError(t, err)
	ray := Ray{Dir: [3]float32{0, 0, 1}, TMax: 100, Mask: 0xff}
	require.Equal(t, uint8(KindMiss), sc.Closest(Ray{Origin: [3]float32{0, 0, 7}, Dir: [3]float32{0, 0, 1}, TMax: 100, Mask: 0xff}).Kind, "Closest ignores boxes")

	h := sc.Trace(ray, false)
	require.Equal(t, Hit{Instance: 0, Prim: 0, Bary: h.Bary, T: 5, Kind: KindTriangle, ID: 10}, h, "a non-opaque triangle is committed")
	require.InDelta(t, 0.25, h.Bary[0], 1e-6)
	require.InDelta(t, 0.5, h.Bary[1], 1e-6)

	ray.Mask = 2
	require.Equal(t, Hit{Instance: 1, T: 9, Kind: KindProcedural, ID: 20}, sc.Trace(ray, false), "the box at its entry; the mask skips the triangle")
	ray.Origin[2] = 9.5
	require.Equal(t, Hit{Instance: 1, T: 0, Kind: KindProcedural, ID: 20}, sc.Trace(ray, false), "from inside: at TMin")
	ray.TMin = 0.25
	require.Equal(t, float32(0.25), sc.Trace(ray, false).T)
	require.Equal(t, uint8(KindProcedural), sc.Trace(ray, true).Kind)
	ray.Mask = 4
	require.Equal(t, Hit{}, sc.Trace(ray, true))
}
