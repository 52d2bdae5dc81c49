package bvh

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The brute-force reference: every instance, every primitive, the same
// commit rule (nearest, ties to the lower instance then primitive), no
// hierarchy. Traversal must return exactly its hit.

type refScene struct {
	inst  []Instance
	tris  map[*Mesh][]Triangle
	boxes map[*Mesh][]AABB
}

// tTolerance is how far a traversal's t may lie from the reference's,
// relative to max(1, |t|); ids and kinds must be equal.
const tTolerance = 1e-6

func (rs *refScene) query(s *Scene, r Ray, cb func(Candidate) (float32, bool, bool)) Hit {
	var best Hit
	have := false
	tmax := r.TMax
	better := func(t float32, ii, prim uint32) bool {
		if !have {
			return t >= r.TMin && t <= r.TMax
		}
		if t != tmax {
			return t < tmax
		}
		return ii < best.Instance || ii == best.Instance && prim < best.Prim
	}
	p, ok := prepare(r)
	if !ok {
		return Hit{}
	}
	_ = p
	for i := range rs.inst {
		inst := &rs.inst[i]
		ii := uint32(i)
		if inst.Mask&r.Mask == 0 {
			continue
		}
		or := objectRay(&s.Inverse[i], &r)
		op, ok := prepare(or)
		if !ok {
			continue
		}
		if tris, ok := rs.tris[inst.Mesh]; ok {
			for j := range tris {
				t, u, v, ok := op.tri(&tris[j], r.TMax)
				if !ok || !better(t, ii, uint32(j)) {
					continue
				}
				if !inst.Opaque && cb != nil {
					if _, commit, _ := cb(Candidate{Instance: ii, Prim: uint32(j), ID: inst.ID, Kind: KindTriangle, T: t, Bary: [2]float32{u, v}, ObjectRay: or}); !commit {
						continue
					}
				}
				best, tmax, have = Hit{Instance: ii, Prim: uint32(j), Bary: [2]float32{u, v}, T: t, Kind: KindTriangle, ID: inst.ID}, t, true
			}
		}
		if boxes, ok := rs.boxes[inst.Mesh]; ok && cb != nil {
			for j := range boxes {
				ct, commit, _ := cb(Candidate{Instance: ii, Prim: uint32(j), ID: inst.ID, Kind: KindProcedural, ObjectRay: or})
				if commit && better(ct, ii, uint32(j)) {
					best, tmax, have = Hit{Instance: ii, Prim: uint32(j), T: ct, Kind: KindProcedural, ID: inst.ID}, ct, true
				}
			}
		}
	}
	return best
}

func requireSameHit(t *testing.T, want, got Hit, msg ...any) {
	t.Helper()
	require.Equal(t, want.Kind, got.Kind, msg...)
	require.Equal(t, want.Instance, got.Instance, msg...)
	require.Equal(t, want.Prim, got.Prim, msg...)
	require.Equal(t, want.ID, got.ID, msg...)
	tol := tTolerance * max(1, math.Abs(float64(want.T)))
	require.InDelta(t, want.T, got.T, tol, msg...)
	require.InDelta(t, want.Bary[0], got.Bary[0], tTolerance, msg...)
	require.InDelta(t, want.Bary[1], got.Bary[1], tTolerance, msg...)
}

func rv(rng *rand.Rand, lo, hi float32) [3]float32 {
	return [3]float32{lo + (hi-lo)*rng.Float32(), lo + (hi-lo)*rng.Float32(), lo + (hi-lo)*rng.Float32()}
}

// soup is n random triangles of size about s in the unit cube.
func soup(rng *rand.Rand, n int, s float32) []Triangle {
	tris := make([]Triangle, n)
	for i := range tris {
		c := rv(rng, 0, 1)
		for j, d := 0, [3]*[3]float32{&tris[i].A, &tris[i].B, &tris[i].C}; j < 3; j++ {
			o := rv(rng, -s, s)
			*d[j] = [3]float32{c[0] + o[0], c[1] + o[1], c[2] + o[2]}
		}
	}
	return tris
}

// grid is a w×h grid of quads over the unit square, two triangles each, with
// a random height at every vertex: every inner edge is shared.
func grid(rng *rand.Rand, w, h int) []Triangle {
	z := make([]float32, (w+1)*(h+1))
	for i := range z {
		z[i] = 0.2 * rng.Float32()
	}
	p := func(x, y int) [3]float32 {
		return [3]float32{float32(x) / float32(w), float32(y) / float32(h), z[y*(w+1)+x]}
	}
	var tris []Triangle
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			tris = append(tris, Triangle{p(x, y), p(x+1, y), p(x+1, y+1)}, Triangle{p(x, y), p(x+1, y+1), p(x, y+1)})
		}
	}
	return tris
}

// spheres are n spheres (centre, radius) in the unit cube, with their boxes
// a little larger than the spheres.
func spheres(rng *rand.Rand, n int) ([][4]float32, []AABB) {
	sp := make([][4]float32, n)
	bx := make([]AABB, n)
	for i := range sp {
		c := rv(rng, 0, 1)
		r := 0.01 + 0.08*rng.Float32()
		sp[i] = [4]float32{c[0], c[1], c[2], r}
		e := r * 1.01
		bx[i] = AABB{[3]float32{c[0] - e, c[1] - e, c[2] - e}, [3]float32{c[0] + e, c[1] + e, c[2] + e}}
	}
	return sp, bx
}

// hitSphere is the nearest t of ray r on sphere s within [r.TMin, r.TMax].
func hitSphere(r Ray, s [4]float32) (float32, bool) {
	var oc [3]float64
	var a, b, c float64
	for k := 0; k < 3; k++ {
		oc[k] = float64(r.Origin[k]) - float64(s[k])
		d := float64(r.Dir[k])
		a += d * d
		b += oc[k] * d
		c += oc[k] * oc[k]
	}
	c -= float64(s[3]) * float64(s[3])
	disc := b*b - a*c
	if disc < 0 || a == 0 {
		return 0, false
	}
	sq := math.Sqrt(disc)
	for _, t := range []float64{(-b - sq) / a, (-b + sq) / a} {
		if t32 := float32(t); t32 >= r.TMin && t32 <= r.TMax {
			return t32, true
		}
	}
	return 0, false
}

// randTransform is a rotation, a non-uniform scale in [0.5, 2] and a
// translation in [-2, 2]³.
func randTransform(rng *rand.Rand) [12]float32 {
	q := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	w, x, y, z := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	rot := [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
	sc := [3]float64{0.5 + 1.5*rng.Float64(), 0.5 + 1.5*rng.Float64(), 0.5 + 1.5*rng.Float64()}
	var m [12]float32
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			m[4*r+c] = float32(rot[r][c] * sc[c])
		}
		m[4*r+3] = float32(-2 + 4*rng.Float64())
	}
	return m
}

// randRay aims from around the scene at a point inside it.
func randRay(rng *rand.Rand) Ray {
	o := rv(rng, -5, 5)
	target := rv(rng, -2.5, 2.5)
	r := Ray{Origin: o, Dir: [3]float32{target[0] - o[0], target[1] - o[1], target[2] - o[2]}, TMax: float32(math.Inf(1)), Mask: 0xff}
	switch rng.IntN(4) {
	case 0:
		r.TMin = 0.3 * rng.Float32()
	case 1:
		r.TMax = 0.5 + rng.Float32()
	case 2:
		r.Mask = uint8(1 << rng.IntN(3))
	}
	return r
}

// randScene builds a scene of triangle soups, height grids and spheres.
func randScene(t *testing.T, rng *rand.Rand, opt Options) (*Scene, *refScene, [][4]float32) {
	rs := &refScene{tris: map[*Mesh][]Triangle{}, boxes: map[*Mesh][]AABB{}}
	var meshes []*Mesh
	for _, tris := range [][]Triangle{soup(rng, 300, 0.05), soup(rng, 40, 0.3), grid(rng, 12, 9), soup(rng, 1, 0.2)} {
		m, err := BuildTriangles(tris, opt)
		require.NoError(t, err)
		require.NoError(t, m.Validate())
		rs.tris[m] = tris
		meshes = append(meshes, m)
	}
	sp, bx := spheres(rng, 60)
	pm, err := BuildAABBs(bx, opt)
	require.NoError(t, err)
	require.NoError(t, pm.Validate())
	rs.boxes[pm] = bx
	meshes = append(meshes, pm)
	for i := 0; i < 24; i++ {
		rs.inst = append(rs.inst, Instance{
			Mesh:      meshes[rng.IntN(len(meshes))],
			Transform: randTransform(rng),
			Mask:      []uint8{1, 2, 4, 0xff}[rng.IntN(4)],
			Opaque:    rng.IntN(3) != 0,
			ID:        1000 + uint32(rng.IntN(50)),
		})
	}
	s, err := BuildScene(rs.inst, opt)
	require.NoError(t, err)
	require.NoError(t, s.Validate())
	return s, rs, sp
}

// sphereCandidates commits sphere hits and every odd non-opaque triangle
// (an alpha test).
func sphereCandidates(sp [][4]float32) func(Candidate) (float32, bool, bool) {
	return func(c Candidate) (float32, bool, bool) {
		if c.Kind == KindTriangle {
			return 0, c.Prim%2 == 1, false
		}
		t, ok := hitSphere(c.ObjectRay, sp[c.Prim])
		return t, ok, false
	}
}
