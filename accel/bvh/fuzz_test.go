package bvh

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzBuild reads triangles (any bit patterns: NaN, Inf, huge, equal) and
// options from the input: every build either fails naming a triangle or
// gives a hierarchy that passes Validate and traces like brute force.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 4}, []byte("0123456789abcdef0123456789abcdef0123"))
	f.Add([]byte{1, 1}, make([]byte, 36*9))
	nan := make([]byte, 36*3)
	binary.LittleEndian.PutUint32(nan[40:], math.Float32bits(float32(math.NaN())))
	f.Add([]byte{2, 2}, nan)
	f.Fuzz(func(t *testing.T, opts, data []byte) {
		var opt Options
		if len(opts) > 0 {
			opt.FastBuild = opts[0]&1 != 0
		}
		if len(opts) > 1 {
			opt.LeafSize = int(int8(opts[1]))
			opt.Bins = int(int8(opts[1] >> 1))
		}
		tris := make([]Triangle, len(data)/36)
		for i := range tris {
			for j := 0; j < 9; j++ {
				v := math.Float32frombits(binary.LittleEndian.Uint32(data[36*i+4*j:]))
				[]*[3]float32{&tris[i].A, &tris[i].B, &tris[i].C}[j/3][j%3] = v
			}
		}
		m, err := BuildTriangles(tris, opt)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidArgument)
			require.ErrorContains(t, err, "triangle ")
			return
		}
		require.NoError(t, m.Validate())
		s, err := BuildScene([]Instance{{Mesh: m, Transform: Identity, Mask: 1, Opaque: true}}, opt)
		require.NoError(t, err)
		rs := &refScene{inst: s.Instances, tris: map[*Mesh][]Triangle{m: tris}}
		for i := range tris {
			// A ray from off the triangle's plane through its centroid, and
			// one along an axis.
			c := tris[i].centroid()
			for _, r := range []Ray{
				{Origin: [3]float32{c[0] + 1, c[1] + 2, c[2] + 3}, Dir: [3]float32{-1, -2, -3}, TMax: float32(math.Inf(1)), Mask: 1},
				{Origin: [3]float32{c[0], c[1], c[2] - 10}, Dir: [3]float32{0, 0, 1}, TMax: 20, Mask: 1},
			} {
				requireSameHit(t, rs.query(s, r, nil), s.Closest(r), "ray %+v", r)
			}
		}
	})
}
