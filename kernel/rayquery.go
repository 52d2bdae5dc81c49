package kernel

import (
	"iter"
	"runtime"
)

// Ray-query loops.
//
// A kernel that decides hits itself — procedural primitives intersected
// analytically, non-opaque triangles accepted by a rule — iterates a ray's
// candidates:
//
//	q := acc.Query(ray)
//	for q.Next() {
//		c := q.Candidate()
//		if c.Kind == kernel.HitProcedural {
//			if t, ok := sphere(c); ok {
//				q.CommitProcedural(t)
//			}
//		} else if c.Prim%2 == 0 {
//			q.CommitTriangle()
//		}
//	}
//	h := q.Committed()
//
// The candidates are every procedural primitive whose box the ray enters
// before the committed hit, and every triangle of a non-opaque instance the
// ray hits before it; triangles of opaque instances are committed by the
// traversal. A candidate left uncommitted is dropped. In a kernel the loop
// is one statement (ir.RayQuery): q is declared by Query and used only by
// its one for q.Next() loop and, after it, by Committed and Result; the
// loop's body may not break, continue or return out of it (Terminate ends
// the traversal), nor trace another query.

// Transform is a 3×4 affine transform as three rows: x' = Row·(x, y, z, 1).
type Transform [3]Float4

// Apply is t·(p, 1).
func (t Transform) Apply(p Float3) Float3 {
	r := func(w Float4) float32 { return w.X*p.X + w.Y*p.Y + w.Z*p.Z + w.W }
	return Float3{r(t[0]), r(t[1]), r(t[2])}
}

// Candidate is a ray query's candidate. Instance is its instance's user id
// and Index the instance's index in the accel, Prim the primitive's index
// in its mesh or procedural, Kind HitTriangle or HitProcedural. A
// triangle's Bary and T are its hit; a procedural candidate's T is where the
// ray enters its box, BoxMin and BoxMax (object space) that box.
// ObjectOrigin and ObjectDir are the ray in the instance's object space (the
// same t), ObjectToWorld and WorldToObject the instance's transforms. Its
// layout is the device's (ir.RayCandidate).
type Candidate struct {
	Instance, Index, Prim, Kind uint32
	Bary                        Float2
	T                           float32
	ObjectOrigin, ObjectDir     Float3
	BoxMin, BoxMax              Float3
	ObjectToWorld               Transform
	WorldToObject               Transform
}

// QueryResult is what a ray query committed: the hit, its instance's index,
// the ray in that instance's object space and the instance's transforms;
// all zero on a miss. Its layout is the device's (ir.RayCommitted).
type QueryResult struct {
	Hit                     Hit
	Index                   uint32
	ObjectOrigin, ObjectDir Float3
	ObjectToWorld           Transform
	WorldToObject           Transform
}

// RayQuery is a ray's traversal in flight (Accel.Query).
type RayQuery struct{ *query }

// query is a RayQuery's state, which the traversal's coroutine holds; the
// RayQuery handle, which it does not, ends a traversal its thread left
// unfinished (a panic in the loop) once the handle is unreachable.
type query struct {
	tmin    float32 // the ray's: a CommitProcedural below it does nothing
	next    func() (Candidate, bool)
	stop    func()
	cand    Candidate
	in      bool // a candidate is in hand
	commitT float32
	commit  bool
	term    bool
	res     QueryResult
	done    bool
}

// Query starts a ray query of r: Next steps through its candidates. On the
// CPU the traversal runs beside the kernel's thread, handing it each
// candidate in turn.
func (a Accel) Query(r Ray) *RayQuery {
	t := a.tracer()
	q := &query{tmin: r.TMin}
	q.next, q.stop = iter.Pull(func(yield func(Candidate) bool) {
		q.res = t.Query(r, func(c Candidate) (float32, bool, bool) {
			q.commit, q.term = false, false
			if !yield(c) {
				// The loop was left (Result before the end): the
				// candidate's commit counts, the traversal ends.
				return q.commitT, q.commit, true
			}
			return q.commitT, q.commit, q.term
		})
	})
	h := &RayQuery{q}
	runtime.AddCleanup(h, func(q *query) {
		if !q.done {
			q.stop()
		}
	}, q)
	return h
}

// Next moves to the next candidate, reporting whether there is one; once it
// reports false the traversal is over and Committed holds its hit.
func (q *RayQuery) Next() bool {
	if q.done {
		return false
	}
	c, ok := q.next()
	if !ok {
		q.finish()
		return false
	}
	q.cand, q.in = c, true
	return true
}

func (q *query) finish() {
	q.stop()
	q.done, q.in = true, false
}

func (q *query) candidate(what string) *Candidate {
	if !q.in {
		panic("kernel: RayQuery." + what + " outside the query's for q.Next() loop")
	}
	return &q.cand
}

// Candidate returns the candidate in hand.
func (q *RayQuery) Candidate() Candidate { return *q.candidate("Candidate") }

// CommitProcedural commits a procedural candidate's hit at t, if t lies in
// [TMin, the committed hit's t]; called more than once for one candidate, the
// nearest t of those in that range counts (a call outside it does nothing).
// It does nothing for a triangle candidate.
func (q *RayQuery) CommitProcedural(t float32) {
	// t past the committed hit is the tracer's to drop: the nearest of the
	// calls at or above TMin is in range when any is.
	if c := q.candidate("CommitProcedural"); c.Kind != HitProcedural || !(t >= q.tmin) {
		return
	}
	if !q.commit || t < q.commitT {
		q.commitT, q.commit = t, true
	}
}

// CommitTriangle commits a triangle candidate at its own t. It does nothing
// for a procedural candidate.
func (q *RayQuery) CommitTriangle() {
	if q.candidate("CommitTriangle").Kind == HitTriangle {
		q.commit = true
	}
}

// Terminate ends the traversal once the candidate's commit, if any, is made:
// the next Next reports false.
func (q *RayQuery) Terminate() {
	q.candidate("Terminate")
	q.term = true
}

// Result returns what the query committed, ending the traversal first if
// the loop left it early (on the CPU: the candidate in hand keeps its
// commit, as with Terminate).
func (q *RayQuery) Result() QueryResult {
	if !q.done {
		q.finish()
	}
	return q.res
}

// Committed returns the committed hit (Result().Hit).
func (q *RayQuery) Committed() Hit { return q.Result().Hit }
