package raytest

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/kernel"
)

// The reference of ray-query candidate loops (testdata/gokernel/rayquery's
// Spheres, DSLSpheres): a procedural box holds the sphere inscribed in it,
// hit at the first t ≥ tmin; a non-opaque instance's odd triangles are
// rejected. A ray grazing a sphere (within 1% of its radius², squared
// distance) is ambiguous.

// QueryReference is r's answer under the candidate loop's rule.
func (s *Scene) QueryReference(r kernel.Ray) Answer { return answer(s.cands(r, true)) }

// sphere intersects the object-space ray (o, d) with the sphere inscribed in b.
func sphere(o, d v3, b bvh.AABB, tmin, tmax float64) (cand, bool) {
	lo, hi := f64(b.Min), f64(b.Max)
	var c v3
	rad := math.Inf(1)
	for k := range 3 {
		c[k] = (lo[k] + hi[k]) / 2
		rad = min(rad, (hi[k]-lo[k])/2)
	}
	a := dot(d, d)
	f := sub(o, c)
	bb := dot(f, d)
	var l v3
	for k := range 3 {
		l[k] = f[k] - d[k]*bb/a
	}
	q := rad*rad - dot(l, l)
	if q < -0.01*rad*rad {
		return cand{}, false
	}
	grazing := q < 0.01*rad*rad
	h := math.Sqrt(max(q, 0) * a)
	t0, t1 := (-bb-h)/a, (-bb+h)/a
	t := t0
	near := math.Abs(t0-tmin) <= tol(t0)
	if t < tmin {
		t = t1
		near = near || math.Abs(t1-tmin) <= tol(t1)
	}
	if t < tmin-tol(t) || t > tmax+tol(t) {
		return cand{}, false
	}
	return cand{t: t, hit: kernel.Hit{T: float32(t), Kind: kernel.HitProcedural},
		definite: !grazing && !near && inRange(t, tmin+tol(t), tmax-tol(t))}, true
}

// CheckQuery compares what rayquery.Spheres (or DSLSpheres) committed with
// the reference: the hits as Check does; for every hit, its instance's index
// and transforms (object-to-world exactly the instance's, world-to-object
// as inv says) and the ray in its object space. With first (the loop terminated at its first
// candidate) each ray saw at most one candidate and its committed hit, if
// any, must be one of the ray's hits under the rule.
func (s *Scene) CheckQuery(t testing.TB, what string, rays []kernel.Ray, res []kernel.QueryResult, seen []uint32, first bool, inv Inverse) {
	t.Helper()
	require.Len(t, res, len(rays), what)
	hits := make([]kernel.Hit, len(rays))
	for i, r := range res {
		hits[i] = r.Hit
	}
	saw := uint32(0)
	for _, n := range seen {
		saw += n
	}
	require.NotZero(t, saw, "%s: no ray saw a candidate", what)
	if !first {
		s.check(t, what, rays, hits, nil, true)
		// The loop's rule must matter: TraceClosest's answers would fail.
		differ := 0
		for _, r := range rays {
			a, b := s.QueryReference(r), s.Reference(r)
			if !a.Ambiguous && !b.Ambiguous && (a.Hit.Kind != b.Hit.Kind || a.Hit.Instance != b.Hit.Instance || a.Hit.Prim != b.Hit.Prim) {
				differ++
			}
		}
		require.Greater(t, differ, len(rays)/50, "%s: the candidate loop's rule changes too few answers for the test to mean much", what)
	}
	for i, r := range res {
		h := r.Hit
		if first {
			require.LessOrEqual(t, seen[i], uint32(1), "%s: ray %d went on past its first candidate", what, i)
			if h.Kind != kernel.HitMiss {
				found := false
				for _, c := range s.cands(rays[i], true) {
					found = found || c.hit.Instance == h.Instance && c.hit.Prim == h.Prim && c.hit.Kind == h.Kind && math.Abs(float64(h.T)-c.t) <= 10*tol(c.t)
				}
				require.True(t, found, "%s: ray %d committed %+v, which is none of its hits", what, i, h)
			}
		}
		if h.Kind == kernel.HitMiss {
			require.Equal(t, kernel.QueryResult{}, r, "%s: ray %d: a miss is all zero", what, i)
			continue
		}
		require.Less(t, int(r.Index), len(s.Insts), "%s: ray %d: instance index", what, i)
		in := s.Insts[r.Index]
		require.Equal(t, in.ID, h.Instance, "%s: ray %d: the index %d is not the hit instance's", what, i, r.Index)
		s.checkSpace(t, what, i, rays[i], in, r.ObjectOrigin, r.ObjectDir, r.ObjectToWorld, r.WorldToObject, inv)
	}
}

// CheckCandidates checks the last candidate each ray saw (where it saw
// any): its instance (index and user id agree, a box only from a procedural
// instance, a triangle only from a non-opaque one), the instance's
// transforms, the ray in its object space, a box candidate's box and entry
// distance, a triangle candidate's t and barycentrics, against the
// reference's hit on that primitive; world-to-object as inv says.
func (s *Scene) CheckCandidates(t testing.TB, what string, rays []kernel.Ray, last []kernel.Candidate, seen []uint32, inv Inverse) {
	t.Helper()
	checked := [3]int{}
	for i, c := range last {
		if seen[i] == 0 {
			continue
		}
		require.Less(t, int(c.Index), len(s.Insts), "%s: ray %d: candidate instance index", what, i)
		in := s.Insts[c.Index]
		require.Equal(t, in.ID, c.Instance, "%s: ray %d: candidate %+v: user id", what, i, c)
		if c.Kind == kernel.HitProcedural {
			require.True(t, in.Procedural, "%s: ray %d: a box candidate from a mesh instance", what, i)
			b := s.Procs[in.Prim][c.Prim]
			require.Equal(t, [2][3]float32{b.Min, b.Max}, [2][3]float32{{c.BoxMin.X, c.BoxMin.Y, c.BoxMin.Z}, {c.BoxMax.X, c.BoxMax.Y, c.BoxMax.Z}}, "%s: ray %d: box", what, i)
		} else {
			require.Equal(t, uint32(kernel.HitTriangle), c.Kind, "%s: ray %d: kind", what, i)
			require.False(t, in.Procedural || in.Opaque, "%s: ray %d: a triangle candidate from an opaque or procedural instance", what, i)
		}
		var ref *cand
		for _, r := range s.cands(rays[i], false) {
			if r.inst == int(c.Index) && r.hit.Prim == c.Prim {
				ref = &r
			}
		}
		require.NotNil(t, ref, "%s: ray %d: candidate %+v meets nothing of the reference", what, i, c)
		if ref.definite {
			require.InDelta(t, ref.t, c.T, 10*tol(ref.t), "%s: ray %d: candidate t", what, i)
			if c.Kind == kernel.HitTriangle {
				require.InDelta(t, ref.hit.Bary.X, c.Bary.X, BaryTol, "%s: ray %d: u", what, i)
				require.InDelta(t, ref.hit.Bary.Y, c.Bary.Y, BaryTol, "%s: ray %d: v", what, i)
			}
			checked[c.Kind]++
		}
		s.checkSpace(t, what, i, rays[i], in, c.ObjectOrigin, c.ObjectDir, c.ObjectToWorld, c.WorldToObject, inv)
	}
	require.NotZero(t, checked[kernel.HitTriangle], "%s: no triangle candidate checked", what)
	require.NotZero(t, checked[kernel.HitProcedural], "%s: no box candidate checked", what)
}

// Inverse says which world-to-object a path returns, and so how closely
// checkSpace holds it.
type Inverse uint8

const (
	// HostInverse: bvh.Invert of the instance's transform, bit for bit, and
	// the ray bvh.ToObject moves through it, bit for bit. The software
	// accel, device/cpu, kernel.Run (accel.Host) and the interpreter all
	// take this one inverse, so they agree with each other exactly.
	HostInverse Inverse = iota
	// DriverInverse: native ray queries, where the driver inverts the
	// transform itself in float32 (its own order of operations, perhaps
	// fused): within Eps of the float64 inverse, the object-space ray
	// within 10·Eps.
	DriverInverse
)

// InverseOf is the Inverse of d's ray queries: DriverInverse on a native
// ray-tracing path, HostInverse otherwise.
func InverseOf(d *device.Device) Inverse {
	if d.Capabilities().RayTracing == device.PathNative {
		return DriverInverse
	}
	return HostInverse
}

// checkSpace checks transforms and an object-space ray against instance in
// and ray r: object-to-world is the transform the instance was given, bit
// for bit, on every path; world-to-object and the object-space ray as inv
// says.
func (s *Scene) checkSpace(t testing.TB, what string, i int, ray kernel.Ray, in Instance, oo, od kernel.Float3, o2w, w2o kernel.Transform, inv Inverse) {
	t.Helper()
	if inv == HostInverse {
		host, ok := bvh.Invert(&in.Transform)
		require.True(t, ok, "%s: ray %d: the instance's transform is singular", what, i)
		or := bvh.ToObject(&host, bvh.Ray{Origin: [3]float32{ray.Origin.X, ray.Origin.Y, ray.Origin.Z}, Dir: [3]float32{ray.Dir.X, ray.Dir.Y, ray.Dir.Z}})
		f := math.Float32bits
		for row := range 3 {
			got := [4]float32{o2w[row].X, o2w[row].Y, o2w[row].Z, o2w[row].W}
			gotInv := [4]float32{w2o[row].X, w2o[row].Y, w2o[row].Z, w2o[row].W}
			for c := range 4 {
				require.Equal(t, f(in.Transform[4*row+c]), f(got[c]), "%s: ray %d: object to world [%d][%d]", what, i, row, c)
				require.Equal(t, f(host[4*row+c]), f(gotInv[c]), "%s: ray %d: world to object [%d][%d]: %v, the host's inverse %v", what, i, row, c, gotInv[c], host[4*row+c])
			}
		}
		gotO, gotD := [3]float32{oo.X, oo.Y, oo.Z}, [3]float32{od.X, od.Y, od.Z}
		for k := range 3 {
			require.Equal(t, f(or.Origin[k]), f(gotO[k]), "%s: ray %d: object origin %d: %v, bvh.ToObject's %v", what, i, k, gotO[k], or.Origin[k])
			require.Equal(t, f(or.Dir[k]), f(gotD[k]), "%s: ray %d: object direction %d: %v, bvh.ToObject's %v", what, i, k, gotD[k], or.Dir[k])
		}
		return
	}
	ref := inverse(&in.Transform)
	for row := range 3 {
		got := [4]float32{o2w[row].X, o2w[row].Y, o2w[row].Z, o2w[row].W}
		gotInv := [4]float32{w2o[row].X, w2o[row].Y, w2o[row].Z, w2o[row].W}
		for c := range 4 {
			require.Equal(t, in.Transform[4*row+c], got[c], "%s: ray %d: object to world [%d][%d]", what, i, row, c)
			require.InDelta(t, ref[row][c], gotInv[c], Eps*max(1, math.Abs(ref[row][c])), "%s: ray %d: world to object [%d][%d]", what, i, row, c)
		}
	}
	wo, wd := k3(ray.Origin), k3(ray.Dir)
	gotO, gotD := k3(oo), k3(od)
	for k := range 3 {
		o := ref[k][0]*wo[0] + ref[k][1]*wo[1] + ref[k][2]*wo[2] + ref[k][3]
		d := ref[k][0]*wd[0] + ref[k][1]*wd[1] + ref[k][2]*wd[2]
		require.InDelta(t, o, gotO[k], 10*Eps*max(1, math.Abs(o)), "%s: ray %d: object origin %d", what, i, k)
		require.InDelta(t, d, gotD[k], 10*Eps*max(1, math.Abs(d)), "%s: ray %d: object direction %d", what, i, k)
	}
}
