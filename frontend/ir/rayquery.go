package ir

// Ray-query loops.
//
// A RayQuery statement traces one ray and runs its Body once per candidate
// the traversal reaches: every procedural primitive whose box the ray enters
// before the committed hit, and every triangle of a non-opaque instance the
// ray hits before it (triangles of opaque instances are committed by the
// traversal itself). Inside the body, and only there,
//
//	OpRayCandidate            → RayCandidate: the candidate in hand
//	OpRayCommitProcedural(t)  commit a procedural candidate's hit at t (when
//	                          tmin ≤ t ≤ the committed hit's t; else nothing)
//	OpRayCommitTriangle       commit a triangle candidate at its own t
//	OpRayTerminate            end the traversal after this candidate
//
// read and steer the traversal; a candidate left uncommitted is dropped.
// When the traversal ends the committed hit, its instance's transforms and
// the ray in its object space are stored to Result (a RayCommitted place).
//
// The body is a structured block, not a coroutine: the software traversal
// emitted in SPIR-V inlines it at its one candidate point, the native path
// runs it between OpRayQueryProceedKHR calls, and the CPU engines call it
// from accel/bvh's traversal as a callback. So the body may not leave the
// statement (no break, continue or return reaching out of it) and holds no
// other RayQuery; Validate says so.
type RayQuery struct {
	// Args are OpRayClosest's operands: accel, origin, tmin, dir, tmax,
	// mask.
	Args   []Expr
	Body   *Block
	Result Expr
}

func (*RayQuery) stmtNode() {}

// Transform is a 3×4 affine transform as three rows (x' = row · (x, y, z, 1)),
// laid out as kernel.Transform ([3]kernel.Float4).
var Transform = Array(Vector(TF32, 4), 3)

// RayCandidate is what OpRayCandidate yields, laid out as kernel.Candidate:
// the instance's user id and index, the primitive's index, its Kind
// (HitTriangle or HitProcedural), a triangle's barycentrics and t (for a
// procedural candidate, t is where the ray enters its box), the ray in the
// instance's object space (its t is the world ray's), a procedural
// candidate's box (zero for a triangle), and the instance's transforms.
var RayCandidate = mustStruct("RayCandidate", []Field{
	{Name: "Instance", Type: TU32, Offset: 0},
	{Name: "Index", Type: TU32, Offset: 4},
	{Name: "Prim", Type: TU32, Offset: 8},
	{Name: "Kind", Type: TU32, Offset: 12},
	{Name: "Bary", Type: Vector(TF32, 2), Offset: 16},
	{Name: "T", Type: TF32, Offset: 24},
	{Name: "ObjectOrigin", Type: Vector(TF32, 3), Offset: 28},
	{Name: "ObjectDir", Type: Vector(TF32, 3), Offset: 40},
	{Name: "BoxMin", Type: Vector(TF32, 3), Offset: 52},
	{Name: "BoxMax", Type: Vector(TF32, 3), Offset: 64},
	{Name: "ObjectToWorld", Type: Transform, Offset: 76},
	{Name: "WorldToObject", Type: Transform, Offset: 124},
}, 172)

// RayCommitted is what a RayQuery stores to its Result, laid out as
// kernel.QueryResult: the committed hit, its instance's index, the ray in
// that instance's object space and the instance's transforms (all zero on a
// miss).
var RayCommitted = mustStruct("RayCommitted", []Field{
	{Name: "Hit", Type: RayHit, Offset: 0},
	{Name: "Index", Type: TU32, Offset: 24},
	{Name: "ObjectOrigin", Type: Vector(TF32, 3), Offset: 28},
	{Name: "ObjectDir", Type: Vector(TF32, 3), Offset: 40},
	{Name: "ObjectToWorld", Type: Transform, Offset: 52},
	{Name: "WorldToObject", Type: Transform, Offset: 100},
}, 148)

// CandidateOp reports the ops valid only inside a RayQuery's body.
func CandidateOp(op Op) bool { return op >= OpRayCandidate && op <= OpRayTerminate }

func ruleCandidate(op Op, args []Expr) (*Type, error) {
	switch op {
	case OpRayCandidate:
		return RayCandidate, nil
	case OpRayCommitProcedural:
		if args[0].Type() != TF32 {
			return nil, mismatch(op, "the hit distance is %s, want f32", args[0].Type())
		}
	}
	return TVoid, nil
}

// rayQuery checks s: its operands, result and body.
func (v *validator) rayQuery(s *RayQuery) error {
	if len(s.Args) != 6 {
		return v.errf("ray query with %d operands, want 6 (accel, origin, tmin, dir, tmax, mask)", len(s.Args))
	}
	for _, a := range s.Args {
		if err := v.expr(a); err != nil {
			return err
		}
	}
	if _, err := ruleRay(OpRayClosest, s.Args); err != nil {
		return v.errf("ray query: %v", err)
	}
	if s.Result == nil {
		return v.errf("ray query without a result")
	}
	if err := v.expr(s.Result); err != nil {
		return err
	}
	if !IsPlace(s.Result) || s.Result.Type() != RayCommitted {
		return v.errf("ray query result %s is not a place of type %s", Describe(s.Result), RayCommitted)
	}
	if v.query {
		return v.errf("a ray query inside another's candidate loop: trace the inner ray after the loop")
	}
	loops, brk := v.loops, v.brk
	v.loops, v.brk, v.query = 0, 0, true
	defer func() { v.loops, v.brk, v.query = loops, brk, false }()
	return v.block(s.Body)
}
