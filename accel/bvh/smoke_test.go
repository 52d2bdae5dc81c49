package bvh

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSmoke(t *testing.T) {
	m, err := BuildTriangles([]Triangle{{A: [3]float32{0, 0, 0}, B: [3]float32{1, 0, 0}, C: [3]float32{0, 1, 0}}}, Options{})
	require.NoError(t, err)
	s, err := BuildScene([]Instance{{Mesh: m, Transform: Identity, Mask: 0xff, Opaque: true, ID: 7}}, Options{})
	require.NoError(t, err)
	h := s.Closest(Ray{Origin: [3]float32{0.25, 0.25, -1}, Dir: [3]float32{0, 0, 1}, TMax: 10, Mask: 1})
	require.Equal(t, uint8(KindTriangle), h.Kind)
	require.Equal(t, float32(1), h.T)
	require.Equal(t, uint32(7), h.ID)
	require.InDelta(t, 0.25, h.Bary[0], 1e-6)
	require.InDelta(t, 0.25, h.Bary[1], 1e-6)
}
