package codegen

import (
	"math"

	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

// Ray queries (OpRayClosest, OpRayAny; kernel ABI v1, "Accels").
//
// An accel argument is two u64 members of the push-constant block. With
// Options.NativeRayQuery the first is the VkAccelerationStructureKHR's
// device address, turned into the structure by
// OpConvertUToAccelerationStructureKHR and traced with a ray-query loop; the
// second is the address of the accel's box table: per instance, the device
// address of its procedural's boxes (six f32 each), 0 for a mesh, which the
// loop reads to commit a procedural candidate where the ray enters its box.
// Without it the first is the address of the accel's software buffer
// (docs/accel.md), the second 1 when the kernel is to read that buffer
// through the accel's storage-buffer binding, which it also takes, and the
// traversal is code (emit_ray_soft.go).

// rayOperands are a ray call's operands, evaluated before any control flow.
type rayOperands struct {
	addr, aux            spirv.ID // the accel's two u64 members
	sb                   spirv.ID // its storage buffer (software traversal), 0: none
	o, tmin, d, tmax, mk spirv.ID
}

// rayOperandsOf evaluates a ray query's operands (accel, origin, tmin,
// dir, tmax, mask).
func (g *gen) rayOperandsOf(args []ir.Expr) (rayOperands, bool) {
	b := g.b
	v, ok := args[0].(*ir.Ref)
	if !ok || v.Var.Kind != ir.VarArg {
		g.fail("ray query on %s: the accel must be a kernel argument", ir.Describe(args[0]))
		return rayOperands{}, false
	}
	idx, ok := g.argIdx[v.Var]
	if !ok {
		g.fail("ray query on %s outside its kernel", v.Var.Name)
		return rayOperands{}, false
	}
	u64 := b.TypeInt(64, false)
	pu64 := g.ptr(spirv.StorageClassPushConstant, u64)
	var r rayOperands
	if g.spilled[v.Var] {
		r.addr, r.aux = g.spillLoad(v.Var, 0, u64, 8), g.spillLoad(v.Var, 1, u64, 8)
	} else {
		r.addr = b.Load(u64, b.AccessChain(pu64, g.push, b.ConstantUint32(idx)))
		r.aux = b.Load(u64, b.AccessChain(pu64, g.push, b.ConstantUint32(idx+1)))
	}
	r.sb = g.accelSB[v.Var]
	r.o, r.tmin, r.d, r.tmax, r.mk = g.expr(args[1]), g.expr(args[2]), g.expr(args[3]), g.expr(args[4]), g.expr(args[5])
	return r, true
}

func (g *gen) ray(e *ir.Call) spirv.ID {
	b := g.b
	r, ok := g.rayOperandsOf(e.Args)
	if !ok {
		return 0
	}
	from := b.CurrentBlock()
	var res spirv.ID
	if g.opts.NativeRayQuery {
		res = g.rayNative(e.Op, r)
	} else {
		res = g.raySoft(e.Op, r, nil)
	}
	g.reuse.follow(from, b.CurrentBlock()) // the traversal's merge is dominated by from
	return res
}

// rayValid is the condition under which a ray is traced at all (bvh's
// prepare): finite origin and direction, a non-zero direction, 0 ≤ tmin ≤
// tmax (NaN fails). Other rays miss.
func (g *gen) rayValid(r rayOperands) spirv.ID {
	b := g.b
	bvec3 := b.TypeVector(g.boolT, 3)
	vec3 := b.TypeVector(g.f32, 3)
	finite := func(x spirv.ID) spirv.ID {
		return b.LogicalNot(g.boolT, b.Any(g.boolT, b.LogicalOr(bvec3, b.IsNan(bvec3, x), b.IsInf(bvec3, x))))
	}
	ok := b.LogicalAnd(g.boolT, finite(r.o), finite(r.d))
	ok = b.LogicalAnd(g.boolT, ok, b.Any(g.boolT, b.FOrdNotEqual(bvec3, r.d, b.ConstantNull(vec3))))
	ok = b.LogicalAnd(g.boolT, ok, b.FOrdLessThanEqual(g.boolT, b.ConstantFloat32(0), r.tmin))
	ok = b.LogicalAnd(g.boolT, ok, b.FOrdLessThanEqual(g.boolT, r.tmin, r.tmax))
	return b.LogicalAnd(g.boolT, ok, b.LogicalNot(g.boolT, b.IsInf(g.boolT, r.tmin)))
}

// emitOp adds a grammar instruction the builder has no helper for.
func (g *gen) emitOp(op spirv.Op, operands ...any) spirv.ID {
	id, err := g.b.Emit(op, operands...)
	if err != nil {
		g.fail("%v", err)
	}
	return id
}

// boxGrow widens a slab's far distance as accel/bvh's box test does (2γ₃,
// Ize 2013), so a box the exact ray enters is entered here too.
const boxGrow = 2 * (3 * 0x1p-24) / (1 - 3*0x1p-24)

// slab is bvh's box test of the ray (o, inv) against [lo, hi] from tn to tf:
// the entry distance and whether the ray enters before tf. NaN slabs (a
// zero direction component with the origin on a face) do not cull; an
// infinite reciprocal with the origin outside the slab culls (as in bvh:
// its distances are ±∞ of one sign, and a far −∞ widens to NaN, which the
// minimum below skips).
func (g *gen) slab(o, inv [3]spirv.ID, lo, hi [3]spirv.ID, tn, tf spirv.ID) (spirv.ID, spirv.ID) {
	b := g.b
	f := g.f32
	var outside spirv.ID
	for k := range 3 {
		off := b.LogicalAnd(g.boolT, b.IsInf(g.boolT, inv[k]),
			b.LogicalOr(g.boolT, b.FOrdLessThan(g.boolT, o[k], lo[k]), b.FOrdGreaterThan(g.boolT, o[k], hi[k])))
		if k == 0 {
			outside = off
		} else {
			outside = b.LogicalOr(g.boolT, outside, off)
		}
	}
	for k := range 3 {
		t0 := b.FMul(f, b.FSub(f, lo[k], o[k]), inv[k])
		t1 := b.FMul(f, b.FSub(f, hi[k], o[k]), inv[k])
		sw := b.FOrdGreaterThan(g.boolT, t0, t1)
		a := b.Select(f, sw, t1, t0)
		c := b.Select(f, sw, t0, t1)
		c = b.FAdd(f, c, b.FMul(f, b.GLSL(f, spirv.GLSLFAbs, c), b.ConstantFloat32(boxGrow)))
		tn = b.Select(f, b.FOrdGreaterThan(g.boolT, a, tn), a, tn)
		tf = b.Select(f, b.FOrdLessThan(g.boolT, c, tf), c, tf)
	}
	return tn, b.LogicalAnd(g.boolT, b.FOrdLessThanEqual(g.boolT, tn, tf), b.LogicalNot(g.boolT, outside))
}

// NativeDeadBox is the min x of a box the Vulkan backend put in place of
// one that is not a box (a NaN or infinite component, a min above its max)
// in a native procedural's copy (math.MaxFloat32, the box a point there):
// native ray queries take it as entered by no ray, a candidate of neither
// a closest hit nor a candidate loop.
const NativeDeadBox = math.MaxFloat32

// liveBox is in, and the box of corners c not the dead box.
func (g *gen) liveBox(c [6]spirv.ID, in spirv.ID) spirv.ID {
	b := g.b
	return b.LogicalAnd(g.boolT, in, b.FOrdLessThan(g.boolT, c[0], b.ConstantFloat32(NativeDeadBox)))
}

func (g *gen) split3(v spirv.ID) [3]spirv.ID {
	return [3]spirv.ID{g.b.CompositeExtract(g.f32, v, 0), g.b.CompositeExtract(g.f32, v, 1), g.b.CompositeExtract(g.f32, v, 2)}
}

// recip3 is 1/x per component (IEEE: ±Inf for a zero component).
func (g *gen) recip3(v [3]spirv.ID) [3]spirv.ID {
	one := g.b.ConstantFloat32(1)
	return [3]spirv.ID{g.b.FDiv(g.f32, one, v[0]), g.b.FDiv(g.f32, one, v[1]), g.b.FDiv(g.f32, one, v[2])}
}

// ifThen emits "if cond { body() }" and continues after it.
func (g *gen) ifThen(cond spirv.ID, body func()) {
	b := g.b
	then, merge := g.sfn.NewBlock(), g.sfn.NewBlock()
	b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
	b.BranchConditional(cond, then.ID(), merge.ID())
	b.SetBlock(then)
	body()
	if blk := b.CurrentBlock(); !blk.Terminated() {
		b.Branch(merge.ID())
	}
	b.SetBlock(merge)
}

// loadPSB loads a t at device address a (aligned to align bytes).
func (g *gen) loadPSB(t, a spirv.ID, align uint32) spirv.ID {
	p := g.b.ConvertUToPtr(g.ptr(spirv.StorageClassPhysicalStorageBuffer, t), a)
	return g.b.Load(t, p, uint32(spirv.MemoryAccessAligned), align)
}

// loadPSB4 loads a four-component 32-bit vector t at device address a,
// aligned to 8 bytes or more, as two u64 (bitcast): Mesa 22.3's lavapipe
// reads a global load one component at a time, each a loop over the
// lanes, so two components cost half of four.
func (g *gen) loadPSB4(t, a spirv.ID, align uint32) spirv.ID {
	u64v2 := g.b.TypeVector(g.b.TypeInt(64, false), 2)
	return g.b.Bitcast(t, g.loadPSB(u64v2, a, align))
}

// rayNative traces with SPV_KHR_ray_query.
func (g *gen) rayNative(op ir.Op, r rayOperands) spirv.ID {
	b := g.b
	u32, f32 := g.u32, g.f32
	u64 := b.TypeInt(64, false)
	vec2, vec3 := b.TypeVector(f32, 2), b.TypeVector(f32, 3)
	asT := b.TypeAccelerationStructure()
	rqT := b.TypeRayQuery()
	rq := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, rqT), 0)
	cand, comm := b.ConstantUint32(0), b.ConstantUint32(1)

	// The result, zero (a miss) until the query commits something.
	var out spirv.ID
	if op == ir.OpRayAny {
		out = g.sfn.Variable(g.ptr(spirv.StorageClassFunction, g.boolT), 0)
		b.Store(out, b.ConstantNull(g.boolT))
	} else {
		out = g.sfn.Variable(g.ptr(spirv.StorageClassFunction, g.typ(ir.RayHit)), 0)
		b.Store(out, b.ConstantNull(g.typ(ir.RayHit)))
	}
	g.ifThen(g.rayValid(r), func() {
		as := g.emitOp(spirv.OpConvertUToAccelerationStructureKHR, asT, r.addr)
		flags := spirv.RayFlagsNoneKHR
		if op == ir.OpRayAny {
			flags = spirv.RayFlagsTerminateOnFirstHitKHR
		}
		cull := b.BitwiseAnd(u32, r.mk, b.ConstantUint32(0xff))
		g.emitOp(spirv.OpRayQueryInitializeKHR, rq, as, b.ConstantUint32(uint32(flags)), cull, r.o, r.tmin, r.d, r.tmax)

		header, test, body, cont, merge := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
		b.Branch(header.ID())
		b.SetBlock(header)
		b.LoopMerge(merge.ID(), cont.ID(), spirv.LoopControlNone)
		b.Branch(test.ID())
		b.SetBlock(test)
		more := g.emitOp(spirv.OpRayQueryProceedKHR, g.boolT, rq)
		b.BranchConditional(more, body.ID(), merge.ID())
		b.SetBlock(body)
		kind := g.emitOp(spirv.OpRayQueryGetIntersectionTypeKHR, u32, rq, cand)
		tri, box, next := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
		b.SelectionMerge(next.ID(), spirv.SelectionControlNone)
		b.BranchConditional(b.IEqual(g.boolT, kind, b.ConstantUint32(uint32(spirv.RayQueryCandidateIntersectionTypeRayQueryCandidateIntersectionAABBKHR))), box.ID(), tri.ID())

		// A triangle of a non-opaque instance: every candidate is a hit.
		b.SetBlock(tri)
		g.emitOp(spirv.OpRayQueryConfirmIntersectionKHR, rq)
		b.Branch(next.ID())

		// A procedural box: a hit where the ray enters it, if before the
		// committed hit.
		b.SetBlock(box)
		inst := g.emitOp(spirv.OpRayQueryGetIntersectionInstanceIdKHR, u32, rq, cand)
		prim := g.emitOp(spirv.OpRayQueryGetIntersectionPrimitiveIndexKHR, u32, rq, cand)
		oo := g.split3(g.emitOp(spirv.OpRayQueryGetIntersectionObjectRayOriginKHR, vec3, rq, cand))
		od := g.split3(g.emitOp(spirv.OpRayQueryGetIntersectionObjectRayDirectionKHR, vec3, rq, cand))
		boxes := g.loadPSB(u64, b.IAdd(u64, r.aux, b.IMul(u64, b.UConvert(u64, inst), b.ConstantUint64(8))), 8)
		base := b.IAdd(u64, boxes, b.IMul(u64, b.UConvert(u64, prim), b.ConstantUint64(24)))
		var c [6]spirv.ID
		for i := range c {
			c[i] = g.loadPSB(f32, b.IAdd(u64, base, b.ConstantUint64(uint64(4*i))), 4)
		}
		committed := g.emitOp(spirv.OpRayQueryGetIntersectionTypeKHR, u32, rq, comm)
		ct := g.emitOp(spirv.OpRayQueryGetIntersectionTKHR, f32, rq, comm)
		tf := b.Select(f32, b.INotEqual(g.boolT, committed, b.ConstantUint32(0)), ct, r.tmax)
		tn, in := g.slab(oo, g.recip3(od), [3]spirv.ID{c[0], c[1], c[2]}, [3]spirv.ID{c[3], c[4], c[5]}, r.tmin, tf)
		in = g.liveBox(c, in)
		g.ifThen(in, func() { g.emitOp(spirv.OpRayQueryGenerateIntersectionKHR, rq, tn) })
		b.Branch(next.ID())

		b.SetBlock(next)
		b.Branch(cont.ID())
		b.SetBlock(cont)
		b.Branch(header.ID())
		b.SetBlock(merge)

		committed = g.emitOp(spirv.OpRayQueryGetIntersectionTypeKHR, u32, rq, comm)
		hit := b.INotEqual(g.boolT, committed, b.ConstantUint32(0))
		if op == ir.OpRayAny {
			b.Store(out, hit)
			return
		}
		g.ifThen(hit, func() {
			id := g.emitOp(spirv.OpRayQueryGetIntersectionInstanceCustomIndexKHR, u32, rq, comm)
			prim := g.emitOp(spirv.OpRayQueryGetIntersectionPrimitiveIndexKHR, u32, rq, comm)
			t := g.emitOp(spirv.OpRayQueryGetIntersectionTKHR, f32, rq, comm)
			bary := b.ConstantNull(vec2)
			isTri := b.IEqual(g.boolT, committed, b.ConstantUint32(ir.HitTriangle))
			g.ifThen(isTri, func() {
				st := b.CompositeConstruct(g.typ(ir.RayHit), id, prim,
					g.emitOp(spirv.OpRayQueryGetIntersectionBarycentricsKHR, vec2, rq, comm), t, committed)
				b.Store(out, st)
			})
			g.ifThen(b.LogicalNot(g.boolT, isTri), func() {
				b.Store(out, b.CompositeConstruct(g.typ(ir.RayHit), id, prim, bary, t, b.ConstantUint32(ir.HitProcedural)))
			})
		})
	})
	if op == ir.OpRayAny {
		return b.Load(g.boolT, out)
	}
	return b.Load(g.typ(ir.RayHit), out)
}
