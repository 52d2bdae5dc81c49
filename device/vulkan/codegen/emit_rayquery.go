package codegen

import (
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

// Ray-query loops (ir.RayQuery). Native: OpRayQueryInitializeKHR, then
// "while OpRayQueryProceedKHR { body }", the candidate ops reading and
// steering the query object (commits guarded as the IR defines them, so
// that no Generate or Confirm the spec leaves undefined is issued). Software:
// the traversal of emit_ray_soft.go with the body inlined at its one
// candidate point, after the leaf test: a procedural box the ray enters, or
// a hit triangle of a non-opaque instance, sets the candidate's function
// variables, the body runs, and its decision (commit, terminate) is applied
// with the traversal's commit rule; the instance's transforms are the
// accel's (its object→world table's entry, as given, and the record's
// world→object rows, the host's inverse). Either way the committed hit, its
// instance's transforms and the object-space ray are stored to Result.

// queryState is the ray query whose body is being emitted.
type queryState struct {
	r rayOperands
	// native
	rq spirv.ID
	// software: the body, the candidate's variables and the instance's values
	body                *ir.Block
	pending             spirv.ID // bool: a candidate awaits the body
	kind, prim, t, u, v spirv.ID // function variables
	lo, hi              spirv.ID // vec3 function variables: a box candidate's box
	commit, term, ct    spirv.ID // the body's decision (bool, bool, f32)
	ii, id              spirv.ID // the instance's index and user id
	oo, od              [3]spirv.ID
	w2o                 [3]spirv.ID // vec4 rows
	o2w                 spirv.ID    // u64: the offset of the accel's object→world table
	sw                  swMem       // how the traversal reads the accel
}

func (g *gen) rayQuery(s *ir.RayQuery) {
	r, ok := g.rayOperandsOf(s.Args)
	if !ok {
		return
	}
	from := g.b.CurrentBlock()
	var res spirv.ID
	if g.opts.NativeRayQuery {
		res = g.queryNative(s, r)
	} else {
		res = g.querySoft(s, r)
	}
	g.reuse.follow(from, g.b.CurrentBlock())
	g.store(s.Result, res)
}

// rows turns a SPIR-V mat4x3 (four vec3 columns) into three vec4 rows.
func (g *gen) rows(m spirv.ID) spirv.ID {
	b := g.b
	vec4 := b.TypeVector(g.f32, 4)
	var rs [3]spirv.ID
	for r := range rs {
		var c [4]spirv.ID
		for k := range c {
			c[k] = b.CompositeExtract(g.f32, m, uint32(k), uint32(r))
		}
		rs[r] = b.CompositeConstruct(vec4, c[0], c[1], c[2], c[3])
	}
	return b.CompositeConstruct(g.typ(ir.Transform), rs[0], rs[1], rs[2])
}

func (g *gen) queryNative(s *ir.RayQuery, r rayOperands) spirv.ID {
	b := g.b
	u32, f32 := g.u32, g.f32
	vec2, vec3 := b.TypeVector(f32, 2), b.TypeVector(f32, 3)
	mat := b.TypeMatrix(vec3, 4)
	rqT := b.TypeRayQuery()
	rq := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, rqT), 0)
	comm := b.ConstantUint32(1)
	rc := g.typ(ir.RayCommitted)
	out := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, rc), 0)
	b.Store(out, b.ConstantNull(rc))
	g.ifThen(g.rayValid(r), func() {
		as := g.emitOp(spirv.OpConvertUToAccelerationStructureKHR, b.TypeAccelerationStructure(), r.addr)
		cull := b.BitwiseAnd(u32, r.mk, b.ConstantUint32(0xff))
		g.emitOp(spirv.OpRayQueryInitializeKHR, rq, as, b.ConstantUint32(uint32(spirv.RayFlagsNoneKHR)), cull, r.o, r.tmin, r.d, r.tmax)
		run := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, g.boolT), 0)
		g.whileLoop(func() spirv.ID { return g.emitOp(spirv.OpRayQueryProceedKHR, g.boolT, rq) }, func() {
			qs := &queryState{r: r, rq: rq}
			// A driver may report a box the ray misses (the spec lets it):
			// the body sees only boxes the ray enters, as on the other paths.
			b.Store(run, b.ConstantBool(true))
			g.ifThen(g.nativeIsBox(qs), func() {
				_, _, in := g.nativeBox(qs)
				b.Store(run, in)
			})
			g.ifThen(b.Load(g.boolT, run), func() {
				outer := g.query
				g.query = qs
				g.enter()
				g.reuse.forget()
				g.block(s.Body)
				g.reuse.forget()
				g.leave()
				g.query = outer
			})
		})
		committed := g.emitOp(spirv.OpRayQueryGetIntersectionTypeKHR, u32, rq, comm)
		g.ifThen(b.INotEqual(g.boolT, committed, b.ConstantUint32(0)), func() {
			get := func(op spirv.Op, t spirv.ID) spirv.ID { return g.emitOp(op, t, rq, comm) }
			id := get(spirv.OpRayQueryGetIntersectionInstanceCustomIndexKHR, u32)
			prim := get(spirv.OpRayQueryGetIntersectionPrimitiveIndexKHR, u32)
			t := get(spirv.OpRayQueryGetIntersectionTKHR, f32)
			tail := []spirv.ID{get(spirv.OpRayQueryGetIntersectionInstanceIdKHR, u32),
				get(spirv.OpRayQueryGetIntersectionObjectRayOriginKHR, vec3), get(spirv.OpRayQueryGetIntersectionObjectRayDirectionKHR, vec3),
				g.rows(get(spirv.OpRayQueryGetIntersectionObjectToWorldKHR, mat)), g.rows(get(spirv.OpRayQueryGetIntersectionWorldToObjectKHR, mat))}
			isTri := b.IEqual(g.boolT, committed, b.ConstantUint32(ir.HitTriangle))
			g.ifThen(isTri, func() {
				h := b.CompositeConstruct(g.typ(ir.RayHit), id, prim, get(spirv.OpRayQueryGetIntersectionBarycentricsKHR, vec2), t, committed)
				b.Store(out, b.CompositeConstruct(rc, append([]spirv.ID{h}, tail...)...))
			})
			g.ifThen(b.LogicalNot(g.boolT, isTri), func() {
				h := b.CompositeConstruct(g.typ(ir.RayHit), id, prim, b.ConstantNull(vec2), t, b.ConstantUint32(ir.HitProcedural))
				b.Store(out, b.CompositeConstruct(rc, append([]spirv.ID{h}, tail...)...))
			})
		})
	})
	return b.Load(rc, out)
}

// candidateOp emits an op of a candidate loop's body.
func (g *gen) candidateOp(e *ir.Call) spirv.ID {
	q := g.query
	if q == nil {
		g.fail("%s outside a ray query's candidate loop", e.Op)
		return 0
	}
	if g.opts.NativeRayQuery {
		return g.candidateNative(q, e)
	}
	return g.candidateSoft(q, e)
}

// nativeTMax is the committed hit's t, or the ray's tmax while none is.
func (g *gen) nativeTMax(q *queryState) spirv.ID {
	b := g.b
	comm := b.ConstantUint32(1)
	committed := g.emitOp(spirv.OpRayQueryGetIntersectionTypeKHR, g.u32, q.rq, comm)
	ct := g.emitOp(spirv.OpRayQueryGetIntersectionTKHR, g.f32, q.rq, comm)
	return b.Select(g.f32, b.INotEqual(g.boolT, committed, b.ConstantUint32(0)), ct, q.r.tmax)
}

func (g *gen) candidateNative(q *queryState, e *ir.Call) spirv.ID {
	b := g.b
	u32, f32 := g.u32, g.f32

	vec3 := b.TypeVector(f32, 3)
	cand := b.ConstantUint32(0)
	isBox := func() spirv.ID { return g.nativeIsBox(q) }
	switch e.Op {
	case ir.OpRayCommitProcedural:
		t := g.expr(e.Args[0])
		ok := b.LogicalAnd(g.boolT, isBox(), b.FOrdGreaterThanEqual(g.boolT, t, q.r.tmin))
		g.ifThen(ok, func() {
			g.ifThen(b.FOrdLessThanEqual(g.boolT, t, g.nativeTMax(q)), func() {
				g.emitOp(spirv.OpRayQueryGenerateIntersectionKHR, q.rq, t)
			})
		})
		return 0
	case ir.OpRayCommitTriangle:
		g.ifThen(b.LogicalNot(g.boolT, isBox()), func() {
			t := g.emitOp(spirv.OpRayQueryGetIntersectionTKHR, f32, q.rq, cand)
			g.ifThen(b.FOrdLessThanEqual(g.boolT, t, g.nativeTMax(q)), func() {
				g.emitOp(spirv.OpRayQueryConfirmIntersectionKHR, q.rq)
			})
		})
		return 0
	case ir.OpRayTerminate:
		g.emitOp(spirv.OpRayQueryTerminateKHR, q.rq)
		return 0
	}
	rc := g.typ(ir.RayCandidate)
	out := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, rc), 0)
	get := func(op spirv.Op, t spirv.ID) spirv.ID { return g.emitOp(op, t, q.rq, cand) }
	mat := b.TypeMatrix(vec3, 4)
	id := get(spirv.OpRayQueryGetIntersectionInstanceCustomIndexKHR, u32)
	inst := get(spirv.OpRayQueryGetIntersectionInstanceIdKHR, u32)
	prim := get(spirv.OpRayQueryGetIntersectionPrimitiveIndexKHR, u32)
	oo := get(spirv.OpRayQueryGetIntersectionObjectRayOriginKHR, vec3)
	od := get(spirv.OpRayQueryGetIntersectionObjectRayDirectionKHR, vec3)
	o2w := g.rows(get(spirv.OpRayQueryGetIntersectionObjectToWorldKHR, mat))
	w2o := g.rows(get(spirv.OpRayQueryGetIntersectionWorldToObjectKHR, mat))
	box := isBox()
	tri, bx, next := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
	b.SelectionMerge(next.ID(), spirv.SelectionControlNone)
	b.BranchConditional(box, bx.ID(), tri.ID())
	b.SetBlock(tri)
	zero3 := b.ConstantNull(vec3)
	b.Store(out, b.CompositeConstruct(rc, id, inst, prim, b.ConstantUint32(ir.HitTriangle),
		get(spirv.OpRayQueryGetIntersectionBarycentricsKHR, b.TypeVector(f32, 2)), get(spirv.OpRayQueryGetIntersectionTKHR, f32),
		oo, od, zero3, zero3, o2w, w2o))
	b.Branch(next.ID())
	b.SetBlock(bx)
	c, tn, _ := g.nativeBox(q)
	b.Store(out, b.CompositeConstruct(rc, id, inst, prim, b.ConstantUint32(ir.HitProcedural),
		b.ConstantNull(b.TypeVector(f32, 2)), tn, oo, od,
		b.CompositeConstruct(vec3, c[0], c[1], c[2]), b.CompositeConstruct(vec3, c[3], c[4], c[5]), o2w, w2o))
	b.Branch(next.ID())
	b.SetBlock(next)
	return b.Load(rc, out)
}

// nativeIsBox reports whether the candidate in hand is a procedural box.
func (g *gen) nativeIsBox(q *queryState) spirv.ID {
	b := g.b
	kind := g.emitOp(spirv.OpRayQueryGetIntersectionTypeKHR, g.u32, q.rq, b.ConstantUint32(0))
	return b.IEqual(g.boolT, kind, b.ConstantUint32(uint32(spirv.RayQueryCandidateIntersectionTypeRayQueryCandidateIntersectionAABBKHR)))
}

// nativeBox loads the box of the box candidate in hand from the accel's box
// table (six f32: min, max) and tests the object-space ray against it, as
// the software path does: its corners, where the ray enters it and whether
// it does before the committed hit.
func (g *gen) nativeBox(q *queryState) ([6]spirv.ID, spirv.ID, spirv.ID) {
	b := g.b
	u32, f32 := g.u32, g.f32
	u64 := b.TypeInt(64, false)
	vec3 := b.TypeVector(f32, 3)
	cand := b.ConstantUint32(0)
	inst := g.emitOp(spirv.OpRayQueryGetIntersectionInstanceIdKHR, u32, q.rq, cand)
	prim := g.emitOp(spirv.OpRayQueryGetIntersectionPrimitiveIndexKHR, u32, q.rq, cand)
	oo := g.emitOp(spirv.OpRayQueryGetIntersectionObjectRayOriginKHR, vec3, q.rq, cand)
	od := g.emitOp(spirv.OpRayQueryGetIntersectionObjectRayDirectionKHR, vec3, q.rq, cand)
	boxes := g.loadPSB(u64, b.IAdd(u64, q.r.aux, b.IMul(u64, b.UConvert(u64, inst), b.ConstantUint64(8))), 8)
	base := b.IAdd(u64, boxes, b.IMul(u64, b.UConvert(u64, prim), b.ConstantUint64(24)))
	var c [6]spirv.ID
	for i := range c {
		c[i] = g.loadPSB(f32, b.IAdd(u64, base, b.ConstantUint64(uint64(4*i))), 4)
	}
	tn, in := g.slab(g.split3(oo), g.recip3(g.split3(od)), [3]spirv.ID{c[0], c[1], c[2]}, [3]spirv.ID{c[3], c[4], c[5]}, q.r.tmin, g.nativeTMax(q))
	return c, tn, g.liveBox(c, in)
}

func (g *gen) candidateSoft(q *queryState, e *ir.Call) spirv.ID {
	b := g.b
	u32, f32 := g.u32, g.f32
	kind := b.Load(u32, q.kind)
	switch e.Op {
	case ir.OpRayCommitProcedural:
		t := g.expr(e.Args[0])
		// A t below tmin (or NaN) does nothing; the nearest of the others
		// is committed after the body where it is not past the committed hit.
		ok := b.LogicalAnd(g.boolT, b.IEqual(g.boolT, kind, b.ConstantUint32(ir.HitProcedural)), b.FOrdGreaterThanEqual(g.boolT, t, q.r.tmin))
		g.ifThen(ok, func() {
			nearer := b.LogicalOr(g.boolT, b.LogicalNot(g.boolT, b.Load(g.boolT, q.commit)), b.FOrdLessThan(g.boolT, t, b.Load(f32, q.ct)))
			g.ifThen(nearer, func() {
				b.Store(q.ct, t)
				b.Store(q.commit, b.ConstantBool(true))
			})
		})
		return 0
	case ir.OpRayCommitTriangle:
		g.ifThen(b.IEqual(g.boolT, kind, b.ConstantUint32(ir.HitTriangle)), func() { b.Store(q.commit, b.ConstantBool(true)) })
		return 0
	case ir.OpRayTerminate:
		b.Store(q.term, b.ConstantBool(true))
		return 0
	}
	vec2, vec3 := b.TypeVector(f32, 2), b.TypeVector(f32, 3)
	g.sw = q.sw // the body may have traced another accel
	return b.CompositeConstruct(g.typ(ir.RayCandidate), q.id, q.ii, b.Load(u32, q.prim), kind,
		b.CompositeConstruct(vec2, b.Load(f32, q.u), b.Load(f32, q.v)), b.Load(f32, q.t),
		b.CompositeConstruct(vec3, q.oo[0], q.oo[1], q.oo[2]), b.CompositeConstruct(vec3, q.od[0], q.od[1], q.od[2]),
		b.Load(vec3, q.lo), b.Load(vec3, q.hi), g.softObjectToWorld(q.o2w, q.ii), g.softRows(q.w2o))
}

// softCandidate hands the body a candidate: its variables, and pending.
func (g *gen) softCandidate(qs *queryState, kind uint32, prim, t, u, v, lo, hi spirv.ID) {
	b := g.b
	b.Store(qs.kind, b.ConstantUint32(kind))
	b.Store(qs.prim, prim)
	b.Store(qs.t, t)
	b.Store(qs.u, u)
	b.Store(qs.v, v)
	b.Store(qs.lo, lo)
	b.Store(qs.hi, hi)
	b.Store(qs.pending, b.ConstantBool(true))
}

// softBody runs the body on a pending candidate, then applies its decision
// with the traversal's commit rule (a procedural hit at a t in [tmin, the
// committed t]).
func (g *gen) softBody(op ir.Op, v *swVars, qs *queryState) {
	b := g.b
	u32, f32 := g.u32, g.f32
	g.ifThen(b.Load(g.boolT, qs.pending), func() {
		b.Store(qs.pending, b.ConstantBool(false))
		b.Store(qs.commit, b.ConstantBool(false))
		b.Store(qs.term, b.ConstantBool(false))
		outer := g.query
		g.query = qs
		g.enter()
		g.reuse.forget()
		g.block(qs.body)
		g.reuse.forget()
		g.leave()
		g.query = outer
		commit := b.Load(g.boolT, qs.commit)
		kind := b.Load(u32, qs.kind)
		prim := b.Load(u32, qs.prim)
		g.ifThen(b.LogicalAnd(g.boolT, commit, b.IEqual(g.boolT, kind, b.ConstantUint32(ir.HitProcedural))), func() {
			t := b.Load(f32, qs.ct)
			g.ifThen(b.FOrdGreaterThanEqual(g.boolT, t, qs.r.tmin), func() {
				g.softCommit(op, v, t, b.ConstantFloat32(0), b.ConstantFloat32(0), qs.ii, prim, qs.id, ir.HitProcedural)
			})
		})
		g.ifThen(b.LogicalAnd(g.boolT, commit, b.IEqual(g.boolT, kind, b.ConstantUint32(ir.HitTriangle))), func() {
			g.softCommit(op, v, b.Load(f32, qs.t), b.Load(f32, qs.u), b.Load(f32, qs.v), qs.ii, prim, qs.id, ir.HitTriangle)
		})
		g.ifThen(b.Load(g.boolT, qs.term), func() { b.Store(v.stop, b.ConstantBool(true)) })
	})
}
