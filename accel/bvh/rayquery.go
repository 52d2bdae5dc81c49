package bvh

import "math"

// Trace is the ray query of lucent's kernels (kernel.Accel, the IR's
// OpRayClosest and OpRayAny): every triangle is committed whatever its
// instance's Opaque flag, and a procedural primitive is committed at the
// distance the ray enters its box (TMin when the ray starts inside). With
// anyHit the traversal stops at the first commit. Ties go to the lower
// instance index, then primitive, as in Query.
func (s *Scene) Trace(r Ray, anyHit bool) Hit {
	q := query{s: s, world: r, tmax: r.TMax, cull: widen(r.TMax), anyHit: anyHit, cb: commitCandidate}
	q.run()
	return q.best
}

func commitCandidate(c Candidate) (float32, bool, bool) { return c.T, true, false }

// ObjectRay is r in the object space of instance i (a Hit's or Candidate's
// Instance): the ray a traversal of that instance's mesh follows, with the
// same t.
func (s *Scene) ObjectRay(i uint32, r Ray) Ray { return objectRay(&s.Inverse[i], &r) }

// Decision is what a candidate loop's body decides about one candidate: its
// commits and whether it ends the traversal. Reset it for each candidate,
// hand Verdict to Query.
type Decision struct {
	kind   uint8
	tmin   float32
	t      float32
	commit bool
	stop   bool
}

// Reset starts the decision about c.
func (d *Decision) Reset(c *Candidate) { *d = Decision{kind: c.Kind, tmin: c.ObjectRay.TMin} }

// CommitProcedural commits a procedural candidate at t: the nearest t of
// several calls, each t below the ray's TMin (or NaN) doing nothing, as on
// a device (triangle candidates: nothing). Query drops a t past the
// committed hit's.
func (d *Decision) CommitProcedural(t float32) {
	if d.kind != KindProcedural || !(t >= d.tmin) {
		return
	}
	if !d.commit || t < d.t {
		d.t, d.commit = t, true
	}
}

// CommitTriangle commits a triangle candidate (procedural ones: nothing).
func (d *Decision) CommitTriangle() {
	if d.kind == KindTriangle {
		d.commit = true
	}
}

// Terminate ends the traversal after this candidate.
func (d *Decision) Terminate() { d.stop = true }

// Verdict is the decision as Query's callback returns it.
func (d *Decision) Verdict() (float32, bool, bool) { return d.t, d.commit, d.stop }

// CandidateWords is c as a kernel reads it (kernel.Candidate, the IR's
// RayCandidate): 43 32-bit words, field after field.
func (s *Scene) CandidateWords(c *Candidate) []uint32 {
	f := math.Float32bits
	w := make([]uint32, 0, 43)
	w = append(w, c.ID, c.Instance, c.Prim, uint32(c.Kind), f(c.Bary[0]), f(c.Bary[1]), f(c.T))
	for _, v := range [][3]float32{c.ObjectRay.Origin, c.ObjectRay.Dir, c.Box.Min, c.Box.Max} {
		w = append(w, f(v[0]), f(v[1]), f(v[2]))
	}
	for _, m := range []*[12]float32{&s.Instances[c.Instance].Transform, &s.Inverse[c.Instance]} {
		for _, x := range m {
			w = append(w, f(x))
		}
	}
	return w
}

// ResultWords is what a ray query of r that committed h stores (the IR's
// RayCommitted, kernel.QueryResult): 37 32-bit words, all zero on a miss.
func (s *Scene) ResultWords(h Hit, r Ray) []uint32 {
	w := make([]uint32, 0, 37)
	if h.Kind == KindMiss {
		return w[:37]
	}
	f := math.Float32bits
	or := s.ObjectRay(h.Instance, r)
	w = append(w, h.ID, h.Prim, f(h.Bary[0]), f(h.Bary[1]), f(h.T), uint32(h.Kind), h.Instance)
	for _, v := range [][3]float32{or.Origin, or.Dir} {
		w = append(w, f(v[0]), f(v[1]), f(v[2]))
	}
	for _, m := range []*[12]float32{&s.Instances[h.Instance].Transform, &s.Inverse[h.Instance]} {
		for _, x := range m {
			w = append(w, f(x))
		}
	}
	return w
}
