// Package raytest is the shared fixture of the ray-query tests: random
// scenes of triangle meshes and procedural boxes placed by instances with
// transforms and masks, random rays, and a brute-force reference in
// float64 that every path (kernel.Run over accel.Host, the interpreter, the
// cpu backend, the Vulkan backend) is compared with.
//
// The reference tests every primitive of every instance. A ray whose answer
// rounding could change (a hit within Eps of a triangle's edge or of a
// box's silhouette, two hits within Eps of each other, a hit within Eps of
// TMin or TMax) is ambiguous and left out of the comparison; Check requires
// almost every ray to be unambiguous, and some of every kind of answer.
package raytest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/kernel"
)

// Eps is the relative margin of the reference's ambiguity tests and the
// tolerance on T: |T - Tref| ≤ Eps·max(1, |Tref|). Bary is compared within
// BaryTol.
const (
	Eps     = 1e-4
	BaryTol = 1e-3
)

// Instance places mesh or procedural Prim of a Scene.
type Instance struct {
	Procedural bool
	Prim       int // index into Scene.Meshes or Scene.Procs
	Transform  [12]float32
	Mask       uint8
	Opaque     bool
	ID         uint32
}

// Scene is a scene in object-space primitives and instances.
type Scene struct {
	Meshes [][]bvh.Triangle
	Procs  [][]bvh.AABB
	Insts  []Instance
}

func rnd(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// RandomTransform is a rotation, a uniform scale in [0.5, 2] and a
// translation in [-5, 5]³.
func RandomTransform(r *rand.Rand) [12]float32 {
	q := [4]float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	w, x, y, z := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	s := rnd(r, 0.5, 2)
	rot := [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
	var t [12]float32
	for i := range 3 {
		for j := range 3 {
			t[4*i+j] = float32(s * rot[i][j])
		}
		t[4*i+3] = float32(rnd(r, -5, 5))
	}
	return t
}

// Random returns a scene of four meshes of 30 small triangles, two
// procedurals of 8 boxes and 16 instances of them with random transforms,
// masks (one or two of four bits, or all), opaque flags and distinct ids.
func Random(seed uint64) *Scene {
	r := rand.New(rand.NewPCG(seed, 19))
	s := &Scene{}
	for range 4 {
		tris := make([]bvh.Triangle, 30)
		for i := range tris {
			c := [3]float64{rnd(r, -1.5, 1.5), rnd(r, -1.5, 1.5), rnd(r, -1.5, 1.5)}
			v := func() [3]float32 {
				return [3]float32{float32(c[0] + rnd(r, -.9, .9)), float32(c[1] + rnd(r, -.9, .9)), float32(c[2] + rnd(r, -.9, .9))}
			}
			tris[i] = bvh.Triangle{A: v(), B: v(), C: v()}
		}
		s.Meshes = append(s.Meshes, tris)
	}
	for range 2 {
		boxes := make([]bvh.AABB, 8)
		for i := range boxes {
			for k := range 3 {
				lo := rnd(r, -1.2, 1)
				boxes[i].Min[k], boxes[i].Max[k] = float32(lo), float32(lo+rnd(r, 0.2, 0.9))
			}
		}
		s.Procs = append(s.Procs, boxes)
	}
	masks := []uint8{1, 2, 4, 8, 3, 12, 0xff}
	for i := range 16 {
		in := Instance{
			Procedural: i%4 == 3, Transform: RandomTransform(r), Mask: masks[r.IntN(len(masks))],
			Opaque: r.IntN(2) == 0, ID: uint32(100 + 7*i),
		}
		if in.Procedural {
			in.Prim = r.IntN(len(s.Procs))
		} else {
			in.Prim = r.IntN(len(s.Meshes))
		}
		s.Insts = append(s.Insts, in)
	}
	return s
}

// Rays returns n random rays through the scene's middle: origins in
// [-12, 12]³ aimed at points of [-4, 4]³, directions of random length;
// mostly tmin 0 and an unbounded tmax, some shorter; masks of all bits,
// one or two bits, or none.
func Rays(seed uint64, n int) []kernel.Ray {
	r := rand.New(rand.NewPCG(seed, 7))
	masks := []uint32{0xff, 0xff, 0xff, 1, 2, 4, 8, 0xc, 0x100, 0}
	out := make([]kernel.Ray, n)
	for i := range out {
		var o, d [3]float32
		s := rnd(r, 0.1, 2)
		for k := range 3 {
			oo := rnd(r, -12, 12)
			o[k], d[k] = float32(oo), float32((rnd(r, -4, 4)-oo)*s)
		}
		tmin, tmax := float32(0), float32(1e30)
		if r.IntN(4) == 0 {
			tmin = float32(rnd(r, 0, 0.6) / s)
		}
		if r.IntN(4) == 0 {
			tmax = float32(rnd(r, 0.6, 1.2) / s)
		}
		out[i] = kernel.Ray{
			Origin: kernel.F3(o[0], o[1], o[2]), TMin: tmin, Dir: kernel.F3(d[0], d[1], d[2]), TMax: tmax,
			Mask: masks[r.IntN(len(masks))],
		}
	}
	return out
}

// BVH builds the scene with accel/bvh.
func (s *Scene) BVH() (*bvh.Scene, error) {
	var meshes, procs []*bvh.Mesh
	for i, tris := range s.Meshes {
		m, err := bvh.BuildTriangles(tris, bvh.Options{})
		if err != nil {
			return nil, fmt.Errorf("mesh %d: %w", i, err)
		}
		meshes = append(meshes, m)
	}
	for i, boxes := range s.Procs {
		m, err := bvh.BuildAABBs(boxes, bvh.Options{})
		if err != nil {
			return nil, fmt.Errorf("procedural %d: %w", i, err)
		}
		procs = append(procs, m)
	}
	insts := make([]bvh.Instance, len(s.Insts))
	for i, in := range s.Insts {
		m := meshes
		if in.Procedural {
			m = procs
		}
		insts[i] = bvh.Instance{Mesh: m[in.Prim], Transform: in.Transform, Mask: in.Mask, Opaque: in.Opaque, ID: in.ID}
	}
	return bvh.BuildScene(insts, bvh.Options{})
}

// Answer is the reference's answer for one ray.
type Answer struct {
	Hit       kernel.Hit
	Any       bool
	Ambiguous bool // the closest hit could change with rounding
	AnyAmbig  bool // whether anything is hit could change with rounding
}

type cand struct {
	t        float64
	inst     int
	hit      kernel.Hit
	definite bool
}

func inverse(m *[12]float32) (inv [3][4]float64) {
	var a [3][3]float64
	for i := range 3 {
		for j := range 3 {
			a[i][j] = float64(m[4*i+j])
		}
	}
	det := a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) - a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) + a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
	for i := range 3 {
		for j := range 3 {
			// cofactor of a[j][i]
			r0, r1 := (j+1)%3, (j+2)%3
			c0, c1 := (i+1)%3, (i+2)%3
			inv[i][j] = (a[r0][c0]*a[r1][c1] - a[r0][c1]*a[r1][c0]) / det
		}
	}
	for i := range 3 {
		inv[i][3] = -(inv[i][0]*float64(m[3]) + inv[i][1]*float64(m[7]) + inv[i][2]*float64(m[11]))
	}
	return inv
}

type v3 = [3]float64

func sub(a, b v3) v3      { return v3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot(a, b v3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b v3) v3 {
	return v3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func norm(a v3) float64              { return math.Sqrt(dot(a, a)) }
func f64(p [3]float32) v3            { return v3{float64(p[0]), float64(p[1]), float64(p[2])} }
func tol(t float64) float64          { return Eps * max(1, math.Abs(t)) }
func k3(v kernel.Float3) v3          { return v3{float64(v.X), float64(v.Y), float64(v.Z)} }
func inRange(t, lo, hi float64) bool { return t >= lo && t <= hi }

// Reference traces r against every primitive of every instance.
func (s *Scene) Reference(r kernel.Ray) Answer { return answer(s.cands(r, false)) }

// cands are r's hits on every primitive: with query, as the candidate loop
// of rayquery.Spheres decides them (spheres in the boxes, a non-opaque
// instance's odd triangles rejected), else as TraceClosest does.
func (s *Scene) cands(r kernel.Ray, query bool) []cand {
	var cands []cand
	tmin, tmax := float64(r.TMin), float64(r.TMax)
	for ii, in := range s.Insts {
		if in.Mask&uint8(r.Mask) == 0 {
			continue
		}
		inv := inverse(&in.Transform)
		wo, wd := k3(r.Origin), k3(r.Dir)
		var o, d v3
		for k := range 3 {
			o[k] = inv[k][0]*wo[0] + inv[k][1]*wo[1] + inv[k][2]*wo[2] + inv[k][3]
			d[k] = inv[k][0]*wd[0] + inv[k][1]*wd[1] + inv[k][2]*wd[2]
		}
		if in.Procedural && query {
			for j, b := range s.Procs[in.Prim] {
				if c, ok := sphere(o, d, b, tmin, tmax); ok {
					c.inst, c.hit.Instance, c.hit.Prim = ii, in.ID, uint32(j)
					cands = append(cands, c)
				}
			}
			continue
		}
		if in.Procedural {
			for j, b := range s.Procs[in.Prim] {
				tn, tf := tmin, tmax
				lo, hi := f64(b.Min), f64(b.Max)
				miss := false
				for k := range 3 {
					if d[k] == 0 {
						if o[k] < lo[k] || o[k] > hi[k] {
							miss = true
						}
						continue
					}
					t0, t1 := (lo[k]-o[k])/d[k], (hi[k]-o[k])/d[k]
					if t0 > t1 {
						t0, t1 = t1, t0
					}
					tn, tf = max(tn, t0), min(tf, t1)
				}
				if miss || tf < tn-tol(tn) {
					continue
				}
				c := cand{t: tn, inst: ii, hit: kernel.Hit{Instance: in.ID, Prim: uint32(j), T: float32(tn), Kind: kernel.HitProcedural}}
				c.definite = tf-tn > tol(tn)
				cands = append(cands, c)
			}
			continue
		}
		for j, tr := range s.Meshes[in.Prim] {
			if query && !in.Opaque && j%2 == 1 {
				continue
			}
			a, b, c := f64(tr.A), f64(tr.B), f64(tr.C)
			e1, e2 := sub(b, a), sub(c, a)
			p := cross(d, e2)
			det := dot(e1, p)
			if math.Abs(det) <= 1e-9*norm(d)*norm(e1)*norm(e2) {
				continue // parallel: the watertight test misses too, or the hit is on the edge
			}
			sv := sub(o, a)
			u := dot(sv, p) / det
			q := cross(sv, e1)
			v := dot(d, q) / det
			t := dot(e2, q) / det
			margin := min(u, v, 1-u-v)
			grazing := math.Abs(det) < 1e-3*norm(d)*norm(e1)*norm(e2)
			if margin < -Eps || t < tmin-tol(t) || t > tmax+tol(t) {
				continue
			}
			cd := cand{t: t, inst: ii, hit: kernel.Hit{
				Instance: in.ID, Prim: uint32(j), Bary: kernel.F2(float32(u), float32(v)), T: float32(t), Kind: kernel.HitTriangle,
			}}
			cd.definite = margin > Eps && !grazing && inRange(t, tmin+tol(t), tmax-tol(t))
			cands = append(cands, cd)
		}
	}
	return cands
}

func answer(cands []cand) Answer {
	var ans Answer
	best := -1
	for i, c := range cands {
		if c.definite && (best < 0 || c.t < cands[best].t) {
			best = i
		}
	}
	for i, c := range cands {
		if !c.definite {
			ans.AnyAmbig = ans.AnyAmbig || best < 0
		}
		if i != best && (best < 0 || c.t <= cands[best].t+tol(cands[best].t)) {
			ans.Ambiguous = true
		}
	}
	if best >= 0 {
		ans.Hit, ans.Any = cands[best].hit, true
	}
	return ans
}

// Check compares the closest hits and any-hit answers of the rays with the
// reference. hits or anys may be nil (not compared). It fails when more than
// 3% of the rays are ambiguous, and unless the compared rays include
// triangle hits, procedural hits and misses.
func (s *Scene) Check(t testing.TB, what string, rays []kernel.Ray, hits []kernel.Hit, anys []uint32) {
	t.Helper()
	s.check(t, what, rays, hits, anys, false)
}

func (s *Scene) check(t testing.TB, what string, rays []kernel.Ray, hits []kernel.Hit, anys []uint32, query bool) {
	t.Helper()
	if hits != nil {
		require.Len(t, hits, len(rays), what)
	}
	if anys != nil {
		require.Len(t, anys, len(rays), what)
	}
	ambiguous, kinds := 0, [3]int{}
	for i, r := range rays {
		a := answer(s.cands(r, query))
		if hits != nil && !a.Ambiguous {
			h, w := hits[i], a.Hit
			kinds[w.Kind]++
			require.Equal(t, w.Kind, h.Kind, "%s: ray %d %+v: kind (want %+v, got %+v)", what, i, r, w, h)
			require.Equal(t, w.Instance, h.Instance, "%s: ray %d %+v: instance (want %+v, got %+v)", what, i, r, w, h)
			require.Equal(t, w.Prim, h.Prim, "%s: ray %d %+v: primitive (want %+v, got %+v)", what, i, r, w, h)
			require.InDelta(t, w.T, h.T, tol(float64(w.T)), "%s: ray %d: t", what, i)
			require.InDelta(t, w.Bary.X, h.Bary.X, BaryTol, "%s: ray %d: u", what, i)
			require.InDelta(t, w.Bary.Y, h.Bary.Y, BaryTol, "%s: ray %d: v", what, i)
		}
		if a.Ambiguous {
			ambiguous++
		}
		if anys != nil && !a.AnyAmbig {
			want := uint32(0)
			if a.Any {
				want = 1
			}
			require.Equal(t, want, anys[i], "%s: ray %d %+v: any hit", what, i, r)
		}
	}
	require.LessOrEqual(t, ambiguous, len(rays)*3/100, "%s: too many ambiguous rays for the comparison to mean much", what)
	if hits != nil {
		for k, n := range kinds {
			require.NotZero(t, n, "%s: no compared ray has kind %d", what, k)
		}
	}
}

// Rand is the generator of the seed, for tests that move instances.
func Rand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 23)) }
