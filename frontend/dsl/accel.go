package dsl

import (
	"fmt"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Accel is an accel argument (docs/accel.md): the scene a kernel traces
// rays against. Its ray is (origin, tmin, dir, tmax, mask): the points
// origin + t·dir for t in [tmin, tmax], skipping instances whose mask shares
// no bit with mask.
type Accel struct {
	k *K
	v *ir.Var
}

func (Accel) paramType() (*ir.Type, error) { return ir.Accel, nil }
func (Accel) bind(k *K, v *ir.Var) any     { return Accel{k: k, v: v} }

func (a Accel) trace(op ir.Op, origin F32x3, tmin F32, dir F32x3, tmax F32, mask U32) ir.Expr {
	if a.k == nil {
		return poison(fmt.Errorf("%w: use of an unbound accel", ErrDSL))
	}
	args := []ir.Expr{&ir.Ref{Var: a.v}, origin.Expr(), tmin.Expr(), dir.Expr(), tmax.Expr(), mask.Expr()}
	if !a.k.check(args...) {
		return &ir.Poison{Err: a.k.err}
	}
	t, err := ir.CallType(op, args)
	if err != nil {
		a.k.fail(fmt.Errorf("%s: %s: %w", a.k.fn.Name, site(), err))
		return poison(err)
	}
	return a.k.let(&ir.Call{Op: op, Args: args, T: t})
}

// TraceClosest traces the ray once, where it is called, and returns its
// closest hit (Kind HitMiss when there is none).
func (a Accel) TraceClosest(origin F32x3, tmin F32, dir F32x3, tmax F32, mask U32) Hit {
	return Hit{a.trace(ir.OpRayClosest, origin, tmin, dir, tmax, mask)}
}

// TraceAny reports whether the ray hits anything (a shadow ray).
func (a Accel) TraceAny(origin F32x3, tmin F32, dir F32x3, tmax F32, mask U32) Bool {
	return Bool{a.trace(ir.OpRayAny, origin, tmin, dir, tmax, mask)}
}

// Hit is a ray's closest hit, laid out as kernel.Hit (ir.RayHit): it can be
// stored in a Buf[Hit] that the host reads as []kernel.Hit.
type Hit struct{ e ir.Expr }

func (h Hit) Expr() ir.Expr              { return exprOf(h.e) }
func (Hit) wrap(e ir.Expr) Value         { return Hit{e} }
func (Hit) valueType() (*ir.Type, error) { return ir.RayHit, nil }
func (Hit) paramType() (*ir.Type, error) { return ir.RayHit, nil }
func (Hit) bind(_ *K, v *ir.Var) any     { return Hit{&ir.Ref{Var: v}} }

func (h Hit) field(i int) ir.Expr {
	x := h.Expr()
	if p := poisoned(x); p != nil {
		return p
	}
	return &ir.Member{X: x, Field: i, T: ir.RayHit.Fields()[i].Type}
}

// Instance is the hit instance's user id.
func (h Hit) Instance() U32 { return U32{h.field(0)} }

// Prim is the hit primitive's index in its mesh or procedural.
func (h Hit) Prim() U32 { return U32{h.field(1)} }

// Bary is a triangle hit's barycentrics (u, v): the hit point is
// (1-u-v)·A + u·B + v·C.
func (h Hit) Bary() F32x2 { return F32x2{h.field(2)} }

// T is the distance along the ray.
func (h Hit) T() F32 { return F32{h.field(3)} }

// Kind is HitMiss, HitTriangle or HitProcedural.
func (h Hit) Kind() U32 { return U32{h.field(4)} }

// The kinds of a Hit.
const (
	HitMiss       = ir.HitMiss
	HitTriangle   = ir.HitTriangle
	HitProcedural = ir.HitProcedural
)

// Query traces the ray with a candidate loop (ir.RayQuery): body runs once
// per candidate — every procedural primitive whose box the ray enters
// before the committed hit, and every triangle of a non-opaque instance it
// hits before it — with q, which reads the candidate and commits it or
// ends the traversal; triangles of opaque instances are committed by the
// traversal. q is valid in body only, and body may not break, continue or
// return out of it. Query returns what was committed.
func (a Accel) Query(origin F32x3, tmin F32, dir F32x3, tmax F32, mask U32, body func(q Query)) QueryResult {
	if a.k == nil {
		return QueryResult{poison(fmt.Errorf("%w: use of an unbound accel", ErrDSL))}
	}
	k := a.k
	args := []ir.Expr{&ir.Ref{Var: a.v}, origin.Expr(), tmin.Expr(), dir.Expr(), tmax.Expr(), mask.Expr()}
	if !k.check(args...) {
		return QueryResult{&ir.Poison{Err: k.err}}
	}
	if _, err := ir.CallType(ir.OpRayClosest, args); err != nil {
		k.fail(fmt.Errorf("%s: %s: Query: %w", k.fn.Name, site(), err))
		return QueryResult{poison(err)}
	}
	if k.query != nil {
		k.failf("Query inside another query's body: trace the inner ray after the outer Query returns")
		return QueryResult{&ir.Poison{Err: k.err}}
	}
	k.n++
	res := k.fn.AddLocal(fmt.Sprintf("query%d", k.n), ir.RayCommitted)
	st := &queryState{}
	k.query = st
	// The body may not leave the query: no loop or switch around it
	// takes a Break or Continue from inside.
	loops, breakable := k.loops, k.breakable
	k.loops, k.breakable = 0, 0
	loop := k.nested(func() { body(Query{k: k, st: st}) })
	k.loops, k.breakable = loops, breakable
	k.query, st.done = nil, true
	k.emit(&ir.RayQuery{Args: args, Body: loop, Result: &ir.Ref{Var: res}})
	return QueryResult{k.let(&ir.Ref{Var: res})}
}

// Query is a ray query's candidate in hand, inside Accel.Query's body.
type Query struct {
	k  *K
	st *queryState
}

// queryState says whether a query's body has been traced to its end.
type queryState struct{ done bool }

// usable reports whether q may be used here, recording why not.
func (q Query) usable(method string) bool {
	if q.k == nil {
		panic(fmt.Sprintf("dsl: Query.%s on a zero Query: use the q Accel.Query passes to its body", method))
	}
	if q.st.done {
		q.k.failf("q.%s after its Query returned: q is valid in the query's body only", method)
		return false
	}
	return true
}

func (q Query) op(method string, op ir.Op, args ...ir.Expr) {
	if q.usable(method) && q.k.check(args...) {
		q.k.emit(&ir.ExprStmt{X: &ir.Call{Op: op, Args: args, T: ir.TVoid}})
	}
}

// Candidate reads the candidate.
func (q Query) Candidate() Candidate {
	if !q.usable("Candidate") {
		return Candidate{&ir.Poison{Err: q.k.err}}
	}
	return Candidate{q.k.let(&ir.Call{Op: ir.OpRayCandidate, T: ir.RayCandidate})}
}

// CommitProcedural commits a procedural candidate's hit at t, when t lies
// in [tmin, the committed hit's t] (the nearest of several calls in that
// range counts; a call outside it does nothing); for a triangle candidate
// it does nothing.
func (q Query) CommitProcedural(t F32) { q.op("CommitProcedural", ir.OpRayCommitProcedural, t.Expr()) }

// CommitTriangle commits a triangle candidate at its t; for a procedural
// candidate it does nothing.
func (q Query) CommitTriangle() { q.op("CommitTriangle", ir.OpRayCommitTriangle) }

// Terminate ends the traversal after this candidate.
func (q Query) Terminate() { q.op("Terminate", ir.OpRayTerminate) }

// Candidate is a ray query's candidate, laid out as kernel.Candidate
// (ir.RayCandidate).
type Candidate struct{ e ir.Expr }

func (c Candidate) Expr() ir.Expr              { return exprOf(c.e) }
func (Candidate) wrap(e ir.Expr) Value         { return Candidate{e} }
func (Candidate) valueType() (*ir.Type, error) { return ir.RayCandidate, nil }
func (Candidate) paramType() (*ir.Type, error) { return ir.RayCandidate, nil }
func (Candidate) bind(_ *K, v *ir.Var) any     { return Candidate{&ir.Ref{Var: v}} }

func member(x ir.Expr, t *ir.Type, i int) ir.Expr {
	if p := poisoned(x); p != nil {
		return p
	}
	return &ir.Member{X: x, Field: i, T: t.Fields()[i].Type}
}

// transformRow is row r (0–2) of a transform member: (a, b, c, d) with
// x' = a·x + b·y + c·z + d.
func transformRow(x ir.Expr, r int) F32x4 {
	if p := poisoned(x); p != nil {
		return F32x4{p}
	}
	return F32x4{&ir.Index{X: x, I: ir.LitInt(ir.TU32, int64(r)), T: ir.Vector(ir.TF32, 4)}}
}

// Instance is the candidate instance's user id.
func (c Candidate) Instance() U32 { return U32{member(c.Expr(), ir.RayCandidate, 0)} }

// Index is the candidate instance's index in the accel.
func (c Candidate) Index() U32 { return U32{member(c.Expr(), ir.RayCandidate, 1)} }

// Prim is the candidate primitive's index in its mesh or procedural.
func (c Candidate) Prim() U32 { return U32{member(c.Expr(), ir.RayCandidate, 2)} }

// Kind is HitTriangle or HitProcedural.
func (c Candidate) Kind() U32 { return U32{member(c.Expr(), ir.RayCandidate, 3)} }

// Bary is a triangle candidate's barycentrics.
func (c Candidate) Bary() F32x2 { return F32x2{member(c.Expr(), ir.RayCandidate, 4)} }

// T is a triangle candidate's t, or where the ray enters a procedural box.
func (c Candidate) T() F32 { return F32{member(c.Expr(), ir.RayCandidate, 5)} }

// ObjectOrigin is the ray's origin in the instance's object space.
func (c Candidate) ObjectOrigin() F32x3 { return F32x3{member(c.Expr(), ir.RayCandidate, 6)} }

// ObjectDir is the ray's direction in the instance's object space.
func (c Candidate) ObjectDir() F32x3 { return F32x3{member(c.Expr(), ir.RayCandidate, 7)} }

// BoxMin is a procedural candidate's box's low corner (object space).
func (c Candidate) BoxMin() F32x3 { return F32x3{member(c.Expr(), ir.RayCandidate, 8)} }

// BoxMax is a procedural candidate's box's high corner (object space).
func (c Candidate) BoxMax() F32x3 { return F32x3{member(c.Expr(), ir.RayCandidate, 9)} }

// ObjectToWorld is row r (0–2) of the instance's object-to-world transform.
func (c Candidate) ObjectToWorld(r int) F32x4 {
	return transformRow(member(c.Expr(), ir.RayCandidate, 10), r)
}

// WorldToObject is row r (0–2) of the instance's world-to-object transform.
func (c Candidate) WorldToObject(r int) F32x4 {
	return transformRow(member(c.Expr(), ir.RayCandidate, 11), r)
}

// QueryResult is what a ray query committed, laid out as kernel.QueryResult
// (ir.RayCommitted): it can be stored in a Buf[QueryResult] the host reads
// as []kernel.QueryResult.
type QueryResult struct{ e ir.Expr }

func (r QueryResult) Expr() ir.Expr              { return exprOf(r.e) }
func (QueryResult) wrap(e ir.Expr) Value         { return QueryResult{e} }
func (QueryResult) valueType() (*ir.Type, error) { return ir.RayCommitted, nil }
func (QueryResult) paramType() (*ir.Type, error) { return ir.RayCommitted, nil }
func (QueryResult) bind(_ *K, v *ir.Var) any     { return QueryResult{&ir.Ref{Var: v}} }

// Hit is the committed hit (Kind HitMiss when none).
func (r QueryResult) Hit() Hit { return Hit{member(r.Expr(), ir.RayCommitted, 0)} }

// Index is the hit instance's index in the accel.
func (r QueryResult) Index() U32 { return U32{member(r.Expr(), ir.RayCommitted, 1)} }

// ObjectOrigin is the ray's origin in the hit instance's object space.
func (r QueryResult) ObjectOrigin() F32x3 { return F32x3{member(r.Expr(), ir.RayCommitted, 2)} }

// ObjectDir is the ray's direction in the hit instance's object space.
func (r QueryResult) ObjectDir() F32x3 { return F32x3{member(r.Expr(), ir.RayCommitted, 3)} }

// ObjectToWorld is row i (0–2) of the hit instance's object-to-world transform.
func (r QueryResult) ObjectToWorld(i int) F32x4 {
	return transformRow(member(r.Expr(), ir.RayCommitted, 4), i)
}

// WorldToObject is row i (0–2) of the hit instance's world-to-object transform.
func (r QueryResult) WorldToObject(i int) F32x4 {
	return transformRow(member(r.Expr(), ir.RayCommitted, 5), i)
}
