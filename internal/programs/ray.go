package programs

import "github.com/lucent-gpu/lucent/frontend/ir"

// RayTrace is, per thread i, hits[i] = ray_closest(scene, ray i, mask)
// and any[i] = 1 where ray_any(…) holds (left alone elsewhere); ray i is
// rays[8i : 8i+8] = origin, tmin, direction, tmax.
func RayTrace() *ir.Function { return rayKernel("trace", true, true) }

// RayClosest is RayTrace without the any-hit query (primary rays).
func RayClosest() *ir.Function { return rayKernel("trace_closest", true, false) }

// RayAny is RayTrace without the closest-hit query (shadow rays).
func RayAny() *ir.Function { return rayKernel("trace_any", false, true) }

func rayKernel(name string, closest, anyHit bool) *ir.Function {
	k := ir.NewKernel(name, 1, [3]uint32{64, 1, 1})
	scene := &ir.Ref{Var: k.AddParam("scene", ir.Accel, ir.VarArg)}
	rays := &ir.Ref{Var: k.AddParam("rays", ir.Buffer(ir.TF32), ir.VarArg)}
	hits := &ir.Ref{Var: k.AddParam("hits", ir.Buffer(ir.RayHit), ir.VarArg)}
	anys := &ir.Ref{Var: k.AddParam("any", ir.Buffer(ir.TU32), ir.VarArg)}
	mask := &ir.Ref{Var: k.AddParam("mask", ir.TU32, ir.VarArg)}
	did := &ir.Ref{Var: &ir.Var{Name: "dispatch_id", Type: ir.Vector(ir.TU32, 3), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}}
	i := &ir.Swizzle{X: did, Comps: []uint8{0}, T: ir.TU32}
	at := func(j int64) ir.Expr {
		idx := &ir.Binary{Op: ir.Add, X: &ir.Binary{Op: ir.Mul, X: i, Y: ir.LitInt(ir.TU32, 8), T: ir.TU32}, Y: ir.LitInt(ir.TU32, j), T: ir.TU32}
		return &ir.Index{X: rays, I: idx, T: ir.TF32}
	}
	v3 := ir.Vector(ir.TF32, 3)
	args := []ir.Expr{scene, &ir.Construct{T: v3, Args: []ir.Expr{at(0), at(1), at(2)}}, at(3),
		&ir.Construct{T: v3, Args: []ir.Expr{at(4), at(5), at(6)}}, at(7), mask}
	if closest {
		k.Body.Stmts = append(k.Body.Stmts,
			&ir.Assign{Dst: &ir.Index{X: hits, I: i, T: ir.RayHit}, Src: &ir.Call{Op: ir.OpRayClosest, Args: args, T: ir.RayHit}})
	}
	if anyHit {
		k.Body.Stmts = append(k.Body.Stmts, &ir.If{Cond: &ir.Call{Op: ir.OpRayAny, Args: args, T: ir.TBool},
			Then: &ir.Block{Stmts: []ir.Stmt{&ir.Assign{Dst: &ir.Index{X: anys, I: i, T: ir.TU32}, Src: ir.LitInt(ir.TU32, 1)}}}})
	}
	return k
}

// RayQuery is, per thread i, a candidate loop over ray i (laid out as in
// RayTrace) that commits every triangle candidate, and every procedural
// candidate where the ray enters its box, terminating once it has seen
// limit candidates; res[i] is what the query committed.
func RayQuery() (*ir.Function, error) {
	k := ir.NewKernel("ray_query", 1, [3]uint32{64, 1, 1})
	scene := &ir.Ref{Var: k.AddParam("scene", ir.Accel, ir.VarArg)}
	rays := &ir.Ref{Var: k.AddParam("rays", ir.Buffer(ir.TF32), ir.VarArg)}
	res := &ir.Ref{Var: k.AddParam("res", ir.Buffer(ir.RayCommitted), ir.VarArg)}
	limit := &ir.Ref{Var: k.AddParam("limit", ir.TU32, ir.VarArg)}
	did := &ir.Ref{Var: &ir.Var{Name: "dispatch_id", Type: ir.Vector(ir.TU32, 3), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}}
	i := &ir.Swizzle{X: did, Comps: []uint8{0}, T: ir.TU32}
	at := func(j int64) ir.Expr {
		idx := &ir.Binary{Op: ir.Add, X: &ir.Binary{Op: ir.Mul, X: i, Y: ir.LitInt(ir.TU32, 8), T: ir.TU32}, Y: ir.LitInt(ir.TU32, j), T: ir.TU32}
		return &ir.Index{X: rays, I: idx, T: ir.TF32}
	}
	v3 := ir.Vector(ir.TF32, 3)
	args := []ir.Expr{scene, &ir.Construct{T: v3, Args: []ir.Expr{at(0), at(1), at(2)}}, at(3),
		&ir.Construct{T: v3, Args: []ir.Expr{at(4), at(5), at(6)}}, at(7), ir.LitInt(ir.TU32, 0xff)}
	out := &ir.Ref{Var: k.AddLocal("out", ir.RayCommitted)}
	seen := &ir.Ref{Var: k.AddLocal("seen", ir.TU32)}
	cand := &ir.Ref{Var: k.AddLocal("cand", ir.RayCandidate)}
	field := func(x ir.Expr, t *ir.Type, f int) ir.Expr { return &ir.Member{X: x, Field: f, T: t.Fields()[f].Type} }
	void := func(op ir.Op, a ...ir.Expr) ir.Stmt { return &ir.ExprStmt{X: &ir.Call{Op: op, Args: a, T: ir.TVoid}} }
	body := &ir.Block{Stmts: []ir.Stmt{
		&ir.Assign{Dst: cand, Src: &ir.Call{Op: ir.OpRayCandidate, T: ir.RayCandidate}},
		&ir.Assign{Dst: seen, Src: &ir.Binary{Op: ir.Add, X: seen, Y: ir.LitInt(ir.TU32, 1), T: ir.TU32}},
		&ir.If{Cond: &ir.Binary{Op: ir.Eq, X: field(cand, ir.RayCandidate, 3), Y: ir.LitInt(ir.TU32, ir.HitProcedural), T: ir.TBool},
			Then: &ir.Block{Stmts: []ir.Stmt{void(ir.OpRayCommitProcedural, field(cand, ir.RayCandidate, 5))}},
			Else: &ir.Block{Stmts: []ir.Stmt{void(ir.OpRayCommitTriangle)}}},
		&ir.If{Cond: &ir.Binary{Op: ir.Ge, X: seen, Y: limit, T: ir.TBool}, Then: &ir.Block{Stmts: []ir.Stmt{void(ir.OpRayTerminate)}}},
	}}
	k.Body.Stmts = append(k.Body.Stmts,
		&ir.Assign{Dst: seen, Src: ir.LitInt(ir.TU32, 0)},
		&ir.RayQuery{Args: args, Body: body, Result: out},
		&ir.Assign{Dst: &ir.Index{X: res, I: i, T: ir.RayCommitted}, Src: out})
	return k, k.Validate()
}
