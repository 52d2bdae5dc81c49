package bvh

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

var buildOptions = []Options{{}, {FastBuild: true}, {LeafSize: 1}, {LeafSize: 16, Bins: 4}}

func TestRandomScenesMatchBruteForce(t *testing.T) {
	for si, opt := range buildOptions {
		t.Run(fmt.Sprintf("%+v", opt), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(si), 19))
			s, rs, sp := randScene(t, rng, opt)
			cb := sphereCandidates(sp)
			hits := [3]int{}
			for i := 0; i < 3000; i++ {
				r := randRay(rng)
				want := rs.query(s, r, nil)
				requireSameHit(t, want, s.Closest(r), "Closest, ray %d %+v", i, r)
				require.Equal(t, want.Kind != KindMiss, s.Any(r), "Any, ray %d %+v", i, r)
				wantQ := rs.query(s, r, cb)
				requireSameHit(t, wantQ, s.Query(r, cb), "Query, ray %d %+v", i, r)
				hits[wantQ.Kind]++
			}
			// The scene is hit, by both kinds, and missed.
			require.Greater(t, hits[KindMiss], 100)
			require.Greater(t, hits[KindTriangle], 300)
			require.Greater(t, hits[KindProcedural], 50)
		})
	}
}

// A ray at a vertex or an edge of a closed fan hits one of its triangles:
// none slips through the shared edges, whatever the winding.
func TestWatertightFan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 9
	centre := [3]float32{0.1, -0.2, 0.3}
	rim := make([][3]float32, n)
	for i := range rim {
		a := 2 * math.Pi * float64(i) / n
		rim[i] = [3]float32{centre[0] + float32(math.Cos(a)), centre[1] + float32(math.Sin(a)), centre[2] + 0.3*rng.Float32() - 0.15}
	}
	tris := make([]Triangle, n)
	for i := range tris {
		tris[i] = Triangle{centre, rim[i], rim[(i+1)%n]}
		if i%2 == 1 {
			tris[i].B, tris[i].C = tris[i].C, tris[i].B
		}
	}
	m, err := BuildTriangles(tris, Options{LeafSize: 1})
	require.NoError(t, err)
	s, err := BuildScene([]Instance{{Mesh: m, Transform: Identity, Mask: 1, Opaque: true}}, Options{})
	require.NoError(t, err)
	lerp := func(a, b [3]float32, f float32) [3]float32 {
		return [3]float32{a[0] + f*(b[0]-a[0]), a[1] + f*(b[1]-a[1]), a[2] + f*(b[2]-a[2])}
	}
	var targets [][3]float32
	targets = append(targets, centre)
	for i := range rim {
		for _, f := range []float32{0.5, 1e-3, 0.999, 1.0 / 3, 0.123456} {
			targets = append(targets, lerp(centre, rim[i], f))
		}
	}
	for _, target := range targets {
		for k := 0; k < 200; k++ {
			// Steeper than any slope of the fan, from either side: the ray
			// crosses the surface (a grazing ray may pass a crease untouched).
			off := rv(rng, -1, 1)
			off[2] = 1.5 + 1.5*rng.Float32()
			if k%2 == 0 {
				off[2] = -off[2]
			}
			o := [3]float32{target[0] + off[0], target[1] + off[1], target[2] + off[2]}
			r := Ray{Origin: o, Dir: [3]float32{target[0] - o[0], target[1] - o[1], target[2] - o[2]}, TMax: 2, Mask: 1}
			any := false
			for i := range tris {
				if _, _, _, ok := IntersectTriangle(r, tris[i]); ok {
					any = true
				}
			}
			require.True(t, any, "ray %+v at %v slips through the fan", r, target)
			require.Equal(t, uint8(KindTriangle), s.Closest(r).Kind, "traversal of ray %+v at %v", r, target)
		}
	}
}

func TestIntersectTriangle(t *testing.T) {
	tri := Triangle{[3]float32{0, 0, 0}, [3]float32{2, 0, 0}, [3]float32{0, 2, 0}}
	for _, tc := range []struct {
		name string
		r    Ray
		ok   bool
		t    float32
		u, v float32
	}{
		{"front", Ray{Origin: [3]float32{0.5, 0.5, 1}, Dir: [3]float32{0, 0, -1}, TMax: 10}, true, 1, 0.25, 0.25},
		{"back", Ray{Origin: [3]float32{0.5, 1, -2}, Dir: [3]float32{0, 0, 0.5}, TMax: 10}, true, 4, 0.25, 0.5},
		{"outside", Ray{Origin: [3]float32{1.5, 1.5, 1}, Dir: [3]float32{0, 0, -1}, TMax: 10}, false, 0, 0, 0},
		{"past tmax", Ray{Origin: [3]float32{0.5, 0.5, 1}, Dir: [3]float32{0, 0, -1}, TMax: 0.5}, false, 0, 0, 0},
		{"before tmin", Ray{Origin: [3]float32{0.5, 0.5, 1}, Dir: [3]float32{0, 0, -1}, TMin: 1.5, TMax: 10}, false, 0, 0, 0},
		{"tmin inclusive", Ray{Origin: [3]float32{0.5, 0.5, 1}, Dir: [3]float32{0, 0, -1}, TMin: 1, TMax: 1}, true, 1, 0.25, 0.25},
		{"behind", Ray{Origin: [3]float32{0.5, 0.5, 1}, Dir: [3]float32{0, 0, 1}, TMax: 10}, false, 0, 0, 0},
		{"parallel", Ray{Origin: [3]float32{0.5, 0.5, 0}, Dir: [3]float32{1, 0, 0}, TMax: 10}, false, 0, 0, 0},
		{"zero direction", Ray{Origin: [3]float32{0.5, 0.5, 0}, TMax: 10}, false, 0, 0, 0},
		{"NaN origin", Ray{Origin: [3]float32{float32(math.NaN()), 0.5, 1}, Dir: [3]float32{0, 0, -1}, TMax: 10}, false, 0, 0, 0},
		{"Inf direction", Ray{Origin: [3]float32{0.5, 0.5, 1}, Dir: [3]float32{0, 0, float32(math.Inf(-1))}, TMax: 10}, false, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th, u, v, ok := IntersectTriangle(tc.r, tri)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.t, th)
			require.InDelta(t, tc.u, u, 1e-6)
			require.InDelta(t, tc.v, v, 1e-6)
		})
	}
	_, _, _, ok := IntersectTriangle(Ray{Origin: [3]float32{0, 0, 1}, Dir: [3]float32{0, 0, -1}, TMax: 10},
		Triangle{[3]float32{0, 0, 0}, [3]float32{1, 1, 0}, [3]float32{2, 2, 0}})
	require.False(t, ok, "a degenerate triangle is never hit")
}

// The watertight test against Möller–Trumbore in float64 away from edges:
// the same hits, t and barycentrics within tTolerance·10.
func TestIntersectTriangleAgainstFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for i := 0; i < 20000; i++ {
		tri := Triangle{rv(rng, -1, 1), rv(rng, -1, 1), rv(rng, -1, 1)}
		r := Ray{Origin: rv(rng, -3, 3), TMax: 100}
		target := rv(rng, -1, 1)
		r.Dir = [3]float32{target[0] - r.Origin[0], target[1] - r.Origin[1], target[2] - r.Origin[2]}
		th, u, v, ok := IntersectTriangle(r, tri)
		wt, wu, wv, wok, margin := mollerTrumbore64(r, tri)
		if margin < 1e-4 {
			continue
		}
		checked++
		require.Equal(t, wok, ok, "ray %+v triangle %+v", r, tri)
		if ok {
			require.InDelta(t, wt, float64(th), 1e-5*max(1, math.Abs(wt)))
			require.InDelta(t, wu, float64(u), 1e-5)
			require.InDelta(t, wv, float64(v), 1e-5)
		}
	}
	require.Greater(t, checked, 10000)
}

// mollerTrumbore64 returns the hit in float64 and how far (in barycentric
// terms, and relative to the triangle's area seen from the ray) it is from
// deciding otherwise.
func mollerTrumbore64(r Ray, tri Triangle) (t, u, v float64, ok bool, margin float64) {
	f := func(a [3]float32) [3]float64 { return [3]float64{float64(a[0]), float64(a[1]), float64(a[2])} }
	sub := func(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	A, B, C, O, D := f(tri.A), f(tri.B), f(tri.C), f(r.Origin), f(r.Dir)
	e1, e2 := sub(B, A), sub(C, A)
	p := cross(D, e2)
	det := dot(e1, p)
	n := cross(e1, e2)
	cosine := math.Abs(dot(n, D)) / math.Sqrt(dot(n, n)*dot(D, D))
	if cosine < 1e-3 {
		return 0, 0, 0, false, 0
	}
	inv := 1 / det
	s := sub(O, A)
	u = dot(s, p) * inv
	q := cross(s, e1)
	v = dot(D, q) * inv
	t = dot(e2, q) * inv
	margin = min(math.Abs(u), math.Abs(v), math.Abs(1-u-v), math.Abs(t-float64(r.TMin))/max(1, math.Abs(t)), math.Abs(t-float64(r.TMax))/max(1, math.Abs(t)))
	ok = u >= 0 && v >= 0 && u+v <= 1 && t >= float64(r.TMin) && t <= float64(r.TMax)
	return t, u, v, ok, margin
}

func TestRefit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tris := grid(rng, 20, 20)
	m, err := BuildTriangles(tris, Options{})
	require.NoError(t, err)
	inst := []Instance{{Mesh: m, Transform: Identity, Mask: 1, Opaque: true}}
	// Move every vertex: a wave, shared vertices moved alike.
	moved := make([]Triangle, len(tris))
	wave := func(p [3]float32) [3]float32 {
		return [3]float32{p[0] + 0.1*float32(math.Sin(float64(4*p[1]))), p[1], p[2] + 0.5*float32(math.Sin(float64(6*p[0])))}
	}
	for i, tr := range tris {
		moved[i] = Triangle{wave(tr.A), wave(tr.B), wave(tr.C)}
	}
	require.NoError(t, m.Refit(moved))
	require.NoError(t, m.Validate())
	s, err := BuildScene(inst, Options{})
	require.NoError(t, err)
	rs := &refScene{inst: inst, tris: map[*Mesh][]Triangle{m: moved}}
	for i := 0; i < 3000; i++ {
		r := randRay(rng)
		r.Mask = 1
		requireSameHit(t, rs.query(s, r, nil), s.Closest(r), "ray %d %+v", i, r)
	}
	require.ErrorIs(t, m.Refit(moved[1:]), ErrInvalidArgument)
	moved[7].B[1] = float32(math.NaN())
	err = m.Refit(moved)
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.ErrorContains(t, err, "triangle 7")
	require.ErrorIs(t, m.RefitAABBs(nil), ErrInvalidArgument)
}

func TestUpdateInstance(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s, rs, sp := randScene(t, rng, Options{})
	cb := sphereCandidates(sp)
	for step := 0; step < 10; step++ {
		i := rng.IntN(len(rs.inst))
		inst := rs.inst[i]
		inst.Transform = randTransform(rng)
		inst.Mask = []uint8{1, 2, 4, 0xff}[rng.IntN(4)]
		inst.ID = 5000 + uint32(step)
		require.NoError(t, s.Update(i, inst))
		rs.inst[i] = inst
		require.NoError(t, s.Validate())
		for k := 0; k < 300; k++ {
			r := randRay(rng)
			requireSameHit(t, rs.query(s, r, nil), s.Closest(r), "step %d ray %+v", step, r)
			requireSameHit(t, rs.query(s, r, cb), s.Query(r, cb), "step %d query ray %+v", step, r)
		}
	}
	require.ErrorIs(t, s.Update(len(rs.inst), rs.inst[0]), ErrInvalidArgument)
	require.ErrorIs(t, s.Update(-1, rs.inst[0]), ErrInvalidArgument)
	require.ErrorIs(t, s.Update(0, Instance{Transform: Identity}), ErrInvalidArgument)
}

// Query's stop ends the traversal at once: stopping at the first candidate
// makes it report a hit exactly when Any-style search finds a candidate.
func TestQueryStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	_, bx := spheres(rng, 200)
	pm, err := BuildAABBs(bx, Options{})
	require.NoError(t, err)
	s, err := BuildScene([]Instance{{Mesh: pm, Transform: Identity, Mask: 1}}, Options{})
	require.NoError(t, err)
	for i := 0; i < 500; i++ {
		r := randRay(rng)
		r.Mask = 1
		calls := 0
		h := s.Query(r, func(c Candidate) (float32, bool, bool) {
			calls++
			return c.T, true, true
		})
		require.LessOrEqual(t, calls, 1)
		require.Equal(t, calls == 1, h.Kind == KindProcedural)
		if calls == 1 {
			b := bx[h.Prim]
			_, in := func() (float32, bool) { p, _ := prepare(r); return p.box(&b.Min, &b.Max, r.TMax) }()
			require.True(t, in)
		}
	}
}

func TestBadInput(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	good := Triangle{[3]float32{0, 0, 0}, [3]float32{1, 0, 0}, [3]float32{0, 1, 0}}
	for _, tc := range []struct {
		name string
		tris []Triangle
		want string
	}{
		{"NaN", []Triangle{good, good, {good.A, [3]float32{1, nan, 0}, good.C}}, "triangle 2: vertex B"},
		{"Inf", []Triangle{{good.A, good.B, [3]float32{0, 0, -inf}}, good}, "triangle 0: vertex C"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, opt := range []Options{{}, {FastBuild: true}} {
				_, err := BuildTriangles(tc.tris, opt)
				require.ErrorIs(t, err, ErrInvalidArgument, "%+v", opt)
				require.ErrorContains(t, err, tc.want, "%+v", opt)
			}
		})
	}
	_, err := BuildAABBs([]AABB{{Max: [3]float32{1, 1, 1}}, {Min: [3]float32{0, 2, 0}, Max: [3]float32{1, 1, 1}}}, Options{})
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.ErrorContains(t, err, "box 1")
	_, err = BuildAABBs([]AABB{{Max: [3]float32{1, inf, 1}}}, Options{})
	require.ErrorContains(t, err, "box 0")

	m, err := BuildTriangles([]Triangle{good}, Options{})
	require.NoError(t, err)
	singular := Identity
	singular[5] = 0
	nanT := Identity
	nanT[7] = nan
	for _, tc := range []struct {
		name string
		inst Instance
		want string
	}{
		{"nil mesh", Instance{Transform: Identity}, "instance 1: nil mesh"},
		{"singular", Instance{Mesh: m, Transform: singular}, "instance 1: transform"},
		{"NaN transform", Instance{Mesh: m, Transform: nanT}, "instance 1: transform element 7 (row 1, column 3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BuildScene([]Instance{{Mesh: m, Transform: Identity}, tc.inst}, Options{})
			require.ErrorIs(t, err, ErrInvalidArgument)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// No primitives, no instances: a defined result every ray misses.
func TestEmpty(t *testing.T) {
	empty, err := BuildTriangles(nil, Options{})
	require.NoError(t, err)
	require.Empty(t, empty.Nodes)
	require.NoError(t, empty.Validate())
	require.NoError(t, empty.Refit(nil))
	boxes, err := BuildAABBs(nil, Options{})
	require.NoError(t, err)
	require.Empty(t, boxes.Nodes)
	r := Ray{Origin: [3]float32{0, 0, -1}, Dir: [3]float32{0, 0, 1}, TMax: 10, Mask: 0xff}
	s, err := BuildScene(nil, Options{})
	require.NoError(t, err)
	require.Equal(t, Hit{}, s.Closest(r))
	require.False(t, s.Any(r))
	tri, err := BuildTriangles([]Triangle{{[3]float32{-1, -1, 0}, [3]float32{1, -1, 0}, [3]float32{0, 1, 0}}}, Options{})
	require.NoError(t, err)
	s, err = BuildScene([]Instance{
		{Mesh: empty, Transform: Identity, Mask: 1},
		{Mesh: boxes, Transform: Identity, Mask: 1},
		{Mesh: tri, Transform: Identity, Mask: 2, Opaque: true},
	}, Options{})
	require.NoError(t, err)
	require.NoError(t, s.Validate())
	h := s.Query(r, func(Candidate) (float32, bool, bool) { panic("no candidates in an empty mesh") })
	require.Equal(t, uint8(KindTriangle), h.Kind)
	require.Equal(t, uint32(2), h.Instance)
	r.Mask = 1
	require.Equal(t, Hit{}, s.Closest(r), "the mask skips the only mesh with a triangle")
	// An empty mesh's instance becomes a full one through Update.
	require.NoError(t, s.Update(0, Instance{Mesh: tri, Transform: Identity, Mask: 1, Opaque: true, ID: 3}))
	require.Equal(t, uint32(3), s.Closest(r).ID)
}

// Degenerate inputs the heuristic cannot cut (every centroid equal, huge
// coordinates) still give valid hierarchies within StackSize.
func TestDegenerateBuilds(t *testing.T) {
	same := make([]Triangle, 5000)
	for i := range same {
		same[i] = Triangle{[3]float32{0, 0, 0}, [3]float32{1, 0, 0}, [3]float32{0, 1, 0}}
	}
	huge := make([]Triangle, 300)
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range huge {
		s := float32(math.MaxFloat32)
		huge[i] = Triangle{[3]float32{s, -s, s * rng.Float32()}, [3]float32{-s, s, 0}, [3]float32{s * rng.Float32(), 1, -s}}
	}
	// A geometric progression of sizes: the heuristic cuts off one at a time.
	geo := make([]Triangle, 2000)
	for i := range geo {
		x := float32(math.Pow(1.02, float64(i)))
		geo[i] = Triangle{[3]float32{x, 0, 0}, [3]float32{x * 1.01, 0, 0}, [3]float32{x, x * 0.01, 0}}
	}
	for name, tris := range map[string][]Triangle{"same": same, "huge": huge, "geometric": geo} {
		for _, opt := range buildOptions {
			m, err := BuildTriangles(tris, opt)
			require.NoError(t, err, name)
			require.NoError(t, m.Validate(), name)
			s, err := BuildScene([]Instance{{Mesh: m, Transform: Identity, Mask: 1, Opaque: true}}, opt)
			require.NoError(t, err)
			r := Ray{Origin: [3]float32{0.2, 0.2, 1}, Dir: [3]float32{0, 0, -1}, TMax: 10, Mask: 1}
			rs := &refScene{inst: s.Instances, tris: map[*Mesh][]Triangle{m: tris}}
			requireSameHit(t, rs.query(s, r, nil), s.Closest(r), name)
		}
	}
}

func TestErrorsWrap(t *testing.T) {
	_, err := BuildTriangles([]Triangle{{A: [3]float32{float32(math.NaN())}}}, Options{})
	require.True(t, errors.Is(err, ErrInvalidArgument))
}

// The parallel parts of a build are spliced in order: the hierarchy does not
// depend on GOMAXPROCS.
func TestBuildIndependentOfGOMAXPROCS(t *testing.T) {
	tris := terrain(200) // 80,000 triangles: past the parallel thresholds
	for _, opt := range []Options{{}, {FastBuild: true}} {
		var meshes []*Mesh
		for _, p := range []int{1, 2, 5} {
			old := runtime.GOMAXPROCS(p)
			m, err := BuildTriangles(tris, opt)
			runtime.GOMAXPROCS(old)
			require.NoError(t, err)
			require.NoError(t, m.Validate())
			meshes = append(meshes, m)
		}
		for _, m := range meshes[1:] {
			require.Equal(t, meshes[0].Nodes, m.Nodes, "%+v", opt)
			require.Equal(t, meshes[0].Prims, m.Prims, "%+v", opt)
		}
		// A top level of 20,000 instances: past them too.
		rng := rand.New(rand.NewPCG(3, 4))
		insts := make([]Instance, 20000)
		for i := range insts {
			tr := Identity
			for k := 0; k < 3; k++ {
				tr[4*k+3] = 100 * rng.Float32()
			}
			insts[i] = Instance{Mesh: meshes[0], Transform: tr, Mask: 1, Opaque: true, ID: uint32(i)}
		}
		var scenes []*Scene
		for _, p := range []int{1, 2, 5} {
			old := runtime.GOMAXPROCS(p)
			s, err := BuildScene(insts, opt)
			runtime.GOMAXPROCS(old)
			require.NoError(t, err)
			require.NoError(t, s.Validate())
			scenes = append(scenes, s)
		}
		for _, s := range scenes[1:] {
			require.Equal(t, scenes[0].Nodes, s.Nodes, "%+v", opt)
			require.Equal(t, scenes[0].Order, s.Order, "%+v", opt)
		}
	}
}

// Coplanar triangles across a ray's path, seen head on: their t differ by
// an ulp or tie, and the box entries round to other values than the
// triangles' t. Traversal still returns exactly brute force's hit: no box is
// culled for lying an ulp past the committed distance.
func TestCoplanarTiesMatchBruteForce(t *testing.T) {
	const z = 6.4096906e-10
	rng := rand.New(rand.NewPCG(13, 14))
	for k := 0; k < 400; k++ {
		tris := make([]Triangle, 2+rng.IntN(4))
		for i := range tris {
			s := 0.5 + 2*rng.Float32()
			tris[i] = Triangle{[3]float32{-s * rng.Float32(), -s, z}, [3]float32{s, -s * rng.Float32(), z}, [3]float32{0, s, z}}
		}
		opt := buildOptions[k%len(buildOptions)]
		opt.LeafSize = 1
		m, err := BuildTriangles(tris, opt)
		require.NoError(t, err)
		s, err := BuildScene([]Instance{{Mesh: m, Transform: Identity, Mask: 1, Opaque: true}}, opt)
		require.NoError(t, err)
		rs := &refScene{inst: s.Instances, tris: map[*Mesh][]Triangle{m: tris}}
		for i := 0; i < 20; i++ {
			r := Ray{Origin: [3]float32{0.4*rng.Float32() - 0.2, 0.4*rng.Float32() - 0.2, -10}, Dir: [3]float32{0, 0, 1}, TMax: 20, Mask: 1}
			requireSameHit(t, rs.query(s, r, nil), s.Closest(r), "%+v %v ray %+v", opt, tris, r)
		}
	}
}

// radixSort30 orders keys (keys[i] holding a code and i) as a comparison
// sort does: by code, then by the index below it, for sizes on both sides of its parallel and per-bucket
// thresholds and codes drawn from a few values (long runs of equal codes)
// or from all of them.
func TestRadixSort30(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 1<<14 - 1, 1 << 14, 100000} {
		for _, codes := range []uint32{1, 3, 1 << 10, 1 << 30} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = uint64(rng.Uint32N(codes))<<32 | uint64(i)
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			radixSort30(keys)
			require.Equal(t, want, keys, "%d keys of %d codes", n, codes)
		}
	}
}

// A ray with a zero direction component misses a box whose slab in that
// axis its origin is outside of, on either side and with +0 or −0 (the
// slab distances are then −∞, which must cull, not widen to NaN): a box
// beside an axis-aligned ray is not a procedural hit, and one the ray runs
// through or along a face of is.
func TestProceduralBesideAxisRay(t *testing.T) {
	box := AABB{Min: [3]float32{-0.5, -0.5, -0.5}, Max: [3]float32{0.5, 0.5, 0.5}}
	m, err := BuildAABBs([]AABB{box}, Options{})
	require.NoError(t, err)
	s, err := BuildScene([]Instance{{Mesh: m, Transform: Identity, Mask: 1, ID: 3}}, Options{})
	require.NoError(t, err)
	negz := float32(math.Copysign(0, -1))
	for _, zero := range []float32{0, negz} {
		for _, y := range []float32{-2, 2, 0.5, -0.5, 0} {
			r := Ray{Origin: [3]float32{0, y, -5}, Dir: [3]float32{zero, zero, 1}, TMax: 100, Mask: 1}
			want := y >= -0.5 && y <= 0.5 // through the box or along a face
			for _, anyHit := range []bool{false, true} {
				h := s.Trace(r, anyHit)
				require.Equal(t, want, h.Kind == KindProcedural, "origin y %v, dir %v, any %v: %+v", y, r.Dir, anyHit, h)
				if want {
					require.Equal(t, float32(4.5), h.T, "origin y %v", y)
				}
			}
			calls := 0
			s.Query(r, func(c Candidate) (float32, bool, bool) { calls++; return 0, false, false })
			require.Equal(t, want, calls == 1, "origin y %v, dir %v: candidates %d", y, r.Dir, calls)
		}
	}
	// The same through an instance whose world→object transform turns a
	// world axis-aligned ray into one with zero components.
	turn := [12]float32{0, 0, 1, -2, 0, 1, 0, -5, -1.5, 0, 0, 0}
	s, err = BuildScene([]Instance{{Mesh: m, Transform: turn, Mask: 1, ID: 4}}, Options{})
	require.NoError(t, err)
	r := Ray{Origin: [3]float32{-2, 5, -10}, Dir: [3]float32{0, 0, 1}, TMax: 100, Mask: 1} // 10 above the box
	require.Equal(t, Hit{}, s.Trace(r, false))
	r.Origin[1] = -5 // through it
	require.Equal(t, uint8(KindProcedural), s.Trace(r, false).Kind)
}

// A ray with TMin below zero or infinite misses, as on the Vulkan paths
// (where a negative TMin is not allowed): every query of it.
func TestTMinOutOfRangeMisses(t *testing.T) {
	tri := Triangle{[3]float32{-1, -1, 0}, [3]float32{1, -1, 0}, [3]float32{0, 1, 0}}
	m, err := BuildTriangles([]Triangle{tri}, Options{})
	require.NoError(t, err)
	b, err := BuildAABBs([]AABB{{Min: [3]float32{-1, -1, 2}, Max: [3]float32{1, 1, 3}}}, Options{})
	require.NoError(t, err)
	s, err := BuildScene([]Instance{{Mesh: m, Transform: Identity, Mask: 1, ID: 1}, {Mesh: b, Transform: Identity, Mask: 1, ID: 2}}, Options{})
	require.NoError(t, err)
	inf := float32(math.Inf(1))
	ok := Ray{Origin: [3]float32{0, 0, -1}, Dir: [3]float32{0, 0, 1}, TMax: inf, Mask: 1}
	require.Equal(t, uint32(1), s.Trace(ok, false).ID)
	for _, tmin := range []float32{-1, -0.5, float32(math.Inf(-1)), inf, -0x1p-149} {
		r := ok
		r.TMin = tmin
		require.Equal(t, Hit{}, s.Trace(r, false), "tmin %v", tmin)
		require.Equal(t, Hit{}, s.Trace(r, true), "tmin %v", tmin)
		require.Equal(t, Hit{}, s.Closest(r), "tmin %v", tmin)
		require.False(t, s.Any(r), "tmin %v", tmin)
		calls := 0
		require.Equal(t, Hit{}, s.Query(r, func(c Candidate) (float32, bool, bool) { calls++; return c.T, true, false }), "tmin %v", tmin)
		require.Zero(t, calls, "tmin %v", tmin)
	}
	r := ok
	r.TMin = float32(math.Copysign(0, -1)) // −0 is zero
	require.Equal(t, uint32(1), s.Trace(r, false).ID)
}
