package bvh

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
