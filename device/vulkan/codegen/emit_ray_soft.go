package codegen

import (
	"math"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

// The software traversal: accel/bvh's, in code, over the device layout of
// docs/accel.md ("The software path"): the accel's buffer holds the top
// level and a copy of each mesh, read at byte offsets through the accel's
// storage-buffer binding or, past maxStorageBufferRange, its device address
// (raySoft emits both, under a uniform branch). Each level starts with a
// 16-byte header (four u32); its nodes (bvh.Node, 32 bytes) follow from
// byte 16:
//
//	accel:  order offset, instance offset, instance count, object→world offset
//	mesh:   primitive offset, 0, primitive count, procedural (0/1)
//
// A mesh's primitives, in leaf order, are 16-byte rows, the input id in
// the first row's fourth word: triangles {A, id}, {B, 0}, {C, 0}, boxes
// {Min, id}, {Max, 0}.
// An accel's instances are SoftInstanceBytes (64) each: the world→object
// transform (12 f32, rows), the offset of the mesh's copy (u64), the user id
// (u32), then mask, opaque and procedural bytes; its object→world table
// holds per instance the transform it was given (12 f32, rows, 48 bytes),
// which ray queries return as it is (only they read it, so the traversal's
// records stay as small). Both levels keep a stack of bvh.StackSize
// (LeftFirst, Count, entry t) entries in function memory, visit the near
// child first and drop popped entries past the committed hit, as bvh's
// traversal does; a node is loaded once, by its parent. Every 16-byte,
// 16-aligned read (node halves, rows, records, headers) is one uvec4 load
// through the binding, or one load of two u64 through the address
// (loadPSB4): Mesa 22.3's lavapipe runs a lane loop per component of a
// global load, so this halves its loops, and Mesa 25 is no slower;
// triangles take its watertight test (products kept apart: NoContraction),
// a box is a hit where the ray enters it. Ties in t go to the lower instance
// index, then the lower primitive id, so the hit is bvh's whatever the
// order the tree is visited in. One difference: bvh recomputes a zero edge
// function in float64; here it stays zero (the ray is taken to pass the
// edge), which keeps the test watertight (a ray through an edge hits both
// triangles, the tie rule picks one) and needs no Float64; in the scaled
// test of far triangles (docs/bvh.md §6) a zero scaled edge function takes
// the unscaled one's sign.

// SoftInstanceBytes is the size of an instance record of a software accel,
// SoftTransformBytes that of an entry of its object→world table
// (docs/accel.md, "The software path").
const (
	SoftInstanceBytes  = 64
	SoftTransformBytes = 48
)

// SoftTriangleBytes and SoftBoxBytes are the sizes of a software mesh's
// primitive records: 16-byte rows {A, id}, {B, 0}, {C, 0} and {Min, id},
// {Max, 0}, the id the primitive's input index (docs/accel.md).
const (
	SoftTriangleBytes = 48
	SoftBoxBytes      = 32
)

// swVars are the function variables of one software traversal.
type swVars struct {
	bestT, u, v                    spirv.ID // f32
	have, stop, done, descend      spirv.ID // bool
	ii, prim, id, kind             spirv.ID // u32: the committed hit
	sp, ni, nc, j, end, found      spirv.ID // top level (found: bool)
	bsp, bni, bnc, bj, bend, bdone spirv.ID // bottom level (bdone: bool)
	bdescend, bfound               spirv.ID // bool
	stack, stackC, stackT          spirv.ID // [StackSize]u32, u32, f32: top level
	bstack, bstackC, bstack2       spirv.ID // the same, bottom level
}

// swMem is how the software traversal being emitted reads the accel: at
// byte offsets (of type ot) into its buffer, through the storage buffer sb
// (u32 offsets: the buffer is within maxStorageBufferRange), or when sb is
// 0 through the buffer's device address base (u64 offsets).
type swMem struct {
	base, sb, ot spirv.ID
}

// swC is the offset constant c; swU an offset from the u32 x.
func (g *gen) swC(c uint64) spirv.ID {
	if g.sw.ot == g.u32 {
		return g.b.ConstantUint32(uint32(c))
	}
	return g.b.ConstantUint64(c)
}

func (g *gen) swU(x spirv.ID) spirv.ID {
	if g.sw.ot == g.u32 {
		return x
	}
	return g.b.UConvert(g.sw.ot, x)
}

// raySoft emits the software traversal of a ray (op), or of a ray-query
// loop s, whose committed RayCommitted it returns. With the accel's
// storage buffer (and without Options.SoftAccelByAddress) it emits the
// traversal twice, one reading through the buffer, one through the
// address, and takes the first when the accel's second push-constant word
// is not 0 (a uniform branch: the runtime sets it when the buffer fits in
// maxStorageBufferRange and the driver reads storage buffers faster; one
// form per kernel measured no faster on lavapipe 22.3).
func (g *gen) raySoft(op ir.Op, r rayOperands, s *ir.RayQuery) spirv.ID {
	b := g.b
	saved := g.sw // a query body's own traversal restores the query's
	defer func() { g.sw = saved }()
	u64 := b.TypeInt(64, false)
	if r.sb == 0 || g.opts.SoftAccelByAddress {
		g.sw = swMem{base: r.addr, ot: u64}
		return g.raySoftOne(op, r, s)
	}
	t := g.typ(ir.RayHit)
	switch {
	case s != nil:
		t = g.typ(ir.RayCommitted)
	case op == ir.OpRayAny:
		t = g.boolT
	}
	out := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, t), 0)
	desc, byAddr, merge := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
	b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
	b.BranchConditional(b.INotEqual(g.boolT, r.aux, b.ConstantUint64(0)), desc.ID(), byAddr.ID())
	for _, form := range []struct {
		blk *spirv.Block
		sw  swMem
	}{{desc, swMem{sb: r.sb, ot: g.u32}}, {byAddr, swMem{base: r.addr, ot: u64}}} {
		b.SetBlock(form.blk)
		g.sw = form.sw
		b.Store(out, g.raySoftOne(op, r, s))
		b.Branch(merge.ID())
	}
	b.SetBlock(merge)
	return b.Load(t, out)
}

// accelBuffer declares accel argument a's buffer as a read-only storage
// buffer of uvec4 at its binding (kernel ABI v1, "Accels").
func (g *gen) accelBuffer(a Argument) {
	b := g.b
	bt := b.TypeStructOf(spirv.StructType{
		Members:     []spirv.Member{{Type: b.TypeRuntimeArrayStride(b.TypeVector(g.u32, 4), 16), Offset: spirv.Off(0)}},
		Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}},
	})
	v := b.Variable(g.ptr(spirv.StorageClassStorageBuffer, bt), spirv.StorageClassStorageBuffer, 0)
	b.Decorate(v, spirv.DecorationNonWritable)
	b.Decorate(v, spirv.DecorationDescriptorSet, 0)
	b.Decorate(v, spirv.DecorationBinding, uint32(a.Bound))
	if g.opts.Names {
		b.Name(v, a.Var.Name)
	}
	g.accelSB[a.Var] = v
}

// swLoad loads a t (u32, or a four-component 32-bit vector at a 16-aligned
// offset) at byte offset off of the accel's buffer: through its storage
// buffer g.sw.sb, or when that is 0 through its address, a four-component
// vector then as two u64 (loadPSB4).
func (g *gen) swLoad(t, off spirv.ID, align uint32) spirv.ID {
	b := g.b
	u64 := b.TypeInt(64, false)
	uvec4 := b.TypeVector(g.u32, 4)
	if g.sw.sb == 0 {
		a := b.IAdd(u64, g.sw.base, off)
		if align >= 8 && (t == uvec4 || t == b.TypeVector(g.f32, 4)) {
			return g.loadPSB4(t, a, align)
		}
		return g.loadPSB(t, a, align)
	}
	i := b.ShiftRightLogical(g.u32, off, b.ConstantUint32(4))
	zero := b.ConstantUint32(0)
	if t == g.u32 {
		c := b.BitwiseAnd(g.u32, b.ShiftRightLogical(g.u32, off, b.ConstantUint32(2)), b.ConstantUint32(3))
		return b.Load(g.u32, b.AccessChain(g.ptr(spirv.StorageClassStorageBuffer, g.u32), g.sw.sb, zero, i, c))
	}
	q := b.Load(uvec4, b.AccessChain(g.ptr(spirv.StorageClassStorageBuffer, uvec4), g.sw.sb, zero, i))
	if t != uvec4 {
		q = b.Bitcast(t, q)
	}
	return q
}

// swNode is a loaded bvh.Node.
type swNode struct {
	lo, hi    [3]spirv.ID
	lf, count spirv.ID
}

// querySoft is the software traversal of a ray-query loop (emit_rayquery.go).
func (g *gen) querySoft(s *ir.RayQuery, r rayOperands) spirv.ID {
	return g.raySoft(ir.OpRayClosest, r, s)
}

// raySoftOne emits one traversal, reading the accel as g.sw says.
func (g *gen) raySoftOne(op ir.Op, r rayOperands, s *ir.RayQuery) spirv.ID {
	b := g.b
	u32, f32 := g.u32, g.f32
	ot := g.sw.ot
	arrU := b.TypeArray(u32, bvh.StackSize)
	arrF := b.TypeArray(f32, bvh.StackSize)
	fv := func(t spirv.ID) spirv.ID { return g.sfn.Variable(g.ptr(spirv.StorageClassFunction, t), 0) }
	var v swVars
	for _, p := range []*spirv.ID{&v.bestT, &v.u, &v.v} {
		*p = fv(f32)
	}
	for _, p := range []*spirv.ID{&v.have, &v.stop, &v.done, &v.descend, &v.found, &v.bdone, &v.bdescend, &v.bfound} {
		*p = fv(g.boolT)
	}
	for _, p := range []*spirv.ID{&v.ii, &v.prim, &v.id, &v.kind, &v.sp, &v.ni, &v.nc, &v.j, &v.end, &v.bsp, &v.bni, &v.bnc, &v.bj, &v.bend} {
		*p = fv(u32)
	}
	v.stack, v.stackC, v.stackT, v.bstack, v.bstackC, v.bstack2 = fv(arrU), fv(arrU), fv(arrF), fv(arrU), fv(arrU), fv(arrF)
	b.Store(v.have, b.ConstantNull(g.boolT))
	b.Store(v.stop, b.ConstantNull(g.boolT))
	b.Store(v.kind, b.ConstantUint32(0))
	var qs *queryState
	var out spirv.ID
	rc := g.typ(ir.RayCommitted)
	vec3 := b.TypeVector(f32, 3)
	if s != nil {
		qs = &queryState{r: r, body: s.Body, kind: fv(u32), prim: fv(u32), t: fv(f32), u: fv(f32), v: fv(f32),
			lo: fv(vec3), hi: fv(vec3), commit: fv(g.boolT), term: fv(g.boolT), ct: fv(f32), pending: fv(g.boolT)}
		out = fv(rc)
		b.Store(out, b.ConstantNull(rc))
	}

	g.ifThen(g.rayValid(r), func() {
		b.Store(v.bestT, r.tmax)
		o, d := g.split3(r.o), g.split3(r.d)
		inv := g.recip3(d)
		zero := g.swC(0) // offsets from the accel buffer's start
		hdr := g.swLoad(b.TypeVector(u32, 4), zero, 16)
		orderOff := g.swU(b.CompositeExtract(u32, hdr, 0))
		instOff := g.swU(b.CompositeExtract(u32, hdr, 1))
		if qs != nil {
			// Only ray queries read the object→world table.
			qs.o2w, qs.sw = g.swU(b.CompositeExtract(u32, hdr, 3)), g.sw
		}
		nodes := g.swC(16)
		g.traverse(&v, nodes, o, inv, r.tmin, false, func(j spirv.ID) {
			ii := g.swLoad(u32, b.IAdd(ot, orderOff, b.IMul(ot, g.swU(j), g.swC(4))), 4)
			rec := b.IAdd(ot, instOff, b.IMul(ot, g.swU(ii), g.swC(SoftInstanceBytes)))
			g.softInstance(op, &v, r, rec, ii, o, d, qs)
		})
		if qs == nil {
			return
		}
		g.ifThen(b.Load(g.boolT, v.have), func() {
			ii := b.Load(u32, v.ii)
			rec := b.IAdd(ot, instOff, b.IMul(ot, g.swU(ii), g.swC(SoftInstanceBytes)))
			m := g.softTransform(rec)
			oo, od := g.softObjectRay(m, o, d)
			h := b.CompositeConstruct(g.typ(ir.RayHit), b.Load(u32, v.id), b.Load(u32, v.prim),
				b.CompositeConstruct(b.TypeVector(f32, 2), b.Load(f32, v.u), b.Load(f32, v.v)), b.Load(f32, v.bestT), b.Load(u32, v.kind))
			b.Store(out, b.CompositeConstruct(rc, h, ii, b.CompositeConstruct(vec3, oo[0], oo[1], oo[2]), b.CompositeConstruct(vec3, od[0], od[1], od[2]),
				g.softObjectToWorld(qs.o2w, ii), g.softRows(m)))
		})
	})
	if qs != nil {
		return b.Load(rc, out)
	}
	if op == ir.OpRayAny {
		return b.Load(g.boolT, v.have)
	}
	hit := b.Load(g.boolT, v.have)
	rh := g.typ(ir.RayHit)
	val := b.CompositeConstruct(rh, b.Load(u32, v.id), b.Load(u32, v.prim),
		b.CompositeConstruct(b.TypeVector(f32, 2), b.Load(f32, v.u), b.Load(f32, v.v)), b.Load(f32, v.bestT), b.Load(u32, v.kind))
	return b.Select(rh, hit, val, b.ConstantNull(rh))
}

// loadNode loads node i of the array at nodes.
func (g *gen) loadNode(nodes, i spirv.ID) swNode {
	b := g.b
	ot := g.sw.ot
	uvec4 := b.TypeVector(g.u32, 4)
	a := b.IAdd(ot, nodes, b.IMul(ot, g.swU(i), g.swC(32)))
	q0 := g.swLoad(uvec4, a, 16)
	q1 := g.swLoad(uvec4, b.IAdd(ot, a, g.swC(16)), 16)
	var n swNode
	for k := range 3 {
		n.lo[k] = b.Bitcast(g.f32, b.CompositeExtract(g.u32, q0, uint32(k)))
		n.hi[k] = b.Bitcast(g.f32, b.CompositeExtract(g.u32, q1, uint32(k)))
	}
	n.lf, n.count = b.CompositeExtract(g.u32, q0, 3), b.CompositeExtract(g.u32, q1, 3)
	return n
}

// whileLoop emits "for cond() { body() }" with cond evaluated in the loop.
func (g *gen) whileLoop(cond func() spirv.ID, body func()) {
	b := g.b
	header, test, bodyB, cont, merge := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
	b.Branch(header.ID())
	b.SetBlock(header)
	b.LoopMerge(merge.ID(), cont.ID(), spirv.LoopControlNone)
	b.Branch(test.ID())
	b.SetBlock(test)
	b.BranchConditional(cond(), bodyB.ID(), merge.ID())
	b.SetBlock(bodyB)
	body()
	b.Branch(cont.ID())
	b.SetBlock(cont)
	b.Branch(header.ID())
	b.SetBlock(merge)
}

// traverse walks one level's hierarchy (nodes at address nodes) with the
// ray (o, inv) from tmin to the committed t, calling leaf for each entry j
// of each leaf it reaches, until the level is done or v.stop. A node is
// read once, by its parent (both children's boxes, each one's first/left
// index and count); the node visited next and the stacked far children
// keep those two words, so a visit loads no node of its own.
func (g *gen) traverse(v *swVars, nodes spirv.ID, o, inv [3]spirv.ID, tmin spirv.ID, bottom bool, leaf func(j spirv.ID)) {
	b := g.b
	u32, f32 := g.u32, g.f32
	sp, ni, nc, j, end, done, descend, found, stack, stackC, stackT := v.sp, v.ni, v.nc, v.j, v.end, v.done, v.descend, v.found, v.stack, v.stackC, v.stackT
	if bottom {
		sp, ni, nc, j, end, done, descend, found, stack, stackC, stackT = v.bsp, v.bni, v.bnc, v.bj, v.bend, v.bdone, v.bdescend, v.bfound, v.bstack, v.bstackC, v.bstack2
	}
	pu, pf := g.ptr(spirv.StorageClassFunction, u32), g.ptr(spirv.StorageClassFunction, f32)
	root := g.loadNode(nodes, b.ConstantUint32(0))
	_, in := g.slab(o, inv, root.lo, root.hi, tmin, b.Load(f32, v.bestT))
	b.Store(done, b.LogicalNot(g.boolT, in))
	b.Store(ni, root.lf) // ni, nc: the visited node's LeftFirst and Count
	b.Store(nc, root.count)
	b.Store(sp, b.ConstantUint32(0))
	g.whileLoop(func() spirv.ID { return b.LogicalNot(g.boolT, b.Load(g.boolT, done)) }, func() {
		lf, count := b.Load(u32, ni), b.Load(u32, nc)
		b.Store(descend, b.ConstantNull(g.boolT))
		isLeaf := b.INotEqual(g.boolT, count, b.ConstantUint32(0))
		leafB, inner, next := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
		b.SelectionMerge(next.ID(), spirv.SelectionControlNone)
		b.BranchConditional(isLeaf, leafB.ID(), inner.ID())

		b.SetBlock(leafB)
		b.Store(j, lf)
		b.Store(end, b.IAdd(u32, lf, count))
		g.whileLoop(func() spirv.ID {
			return b.LogicalAnd(g.boolT, b.ULessThan(g.boolT, b.Load(u32, j), b.Load(u32, end)), b.LogicalNot(g.boolT, b.Load(g.boolT, v.stop)))
		}, func() {
			jj := b.Load(u32, j)
			leaf(jj)
			b.Store(j, b.IAdd(u32, jj, b.ConstantUint32(1)))
		})
		b.Branch(next.ID())

		b.SetBlock(inner)
		nl, nr := g.loadNode(nodes, lf), g.loadNode(nodes, b.IAdd(u32, lf, b.ConstantUint32(1)))
		bt := b.Load(f32, v.bestT)
		tl, hl := g.slab(o, inv, nl.lo, nl.hi, tmin, bt)
		tr, hr := g.slab(o, inv, nr.lo, nr.hi, tmin, bt)
		both := b.LogicalAnd(g.boolT, hl, hr)
		swap := b.FOrdLessThan(g.boolT, tr, tl)
		tfar := b.Select(f32, swap, tl, tr)
		g.ifThen(both, func() {
			s := b.Load(u32, sp)
			s = b.GLSL(u32, spirv.GLSLUMin, s, b.ConstantUint32(bvh.StackSize-1)) // bvh bounds the depth; never past the array
			b.Store(b.AccessChain(pu, stack, s), b.Select(u32, swap, nl.lf, nr.lf))
			b.Store(b.AccessChain(pu, stackC, s), b.Select(u32, swap, nl.count, nr.count))
			b.Store(b.AccessChain(pf, stackT, s), tfar)
			b.Store(sp, b.IAdd(u32, s, b.ConstantUint32(1)))
		})
		any := b.LogicalOr(g.boolT, hl, hr)
		g.ifThen(any, func() {
			// The near child when both are entered, else the one that is.
			right := b.Select(g.boolT, both, swap, b.LogicalNot(g.boolT, hl))
			b.Store(ni, b.Select(u32, right, nr.lf, nl.lf))
			b.Store(nc, b.Select(u32, right, nr.count, nl.count))
			b.Store(descend, b.ConstantBool(true))
		})
		b.Branch(next.ID())

		b.SetBlock(next)
		stop := b.Load(g.boolT, v.stop)
		g.ifThen(stop, func() { b.Store(done, b.ConstantBool(true)) })
		pop := b.LogicalAnd(g.boolT, b.LogicalNot(g.boolT, stop), b.LogicalNot(g.boolT, b.Load(g.boolT, descend)))
		g.ifThen(pop, func() {
			b.Store(found, b.ConstantNull(g.boolT))
			g.whileLoop(func() spirv.ID {
				return b.LogicalAnd(g.boolT, b.LogicalNot(g.boolT, b.Load(g.boolT, found)), b.UGreaterThan(g.boolT, b.Load(u32, sp), b.ConstantUint32(0)))
			}, func() {
				s := b.ISub(u32, b.Load(u32, sp), b.ConstantUint32(1))
				b.Store(sp, s)
				ok := b.FOrdLessThanEqual(g.boolT, b.Load(f32, b.AccessChain(pf, stackT, s)), b.Load(f32, v.bestT))
				g.ifThen(ok, func() {
					b.Store(found, b.ConstantBool(true))
					b.Store(ni, b.Load(u32, b.AccessChain(pu, stack, s)))
					b.Store(nc, b.Load(u32, b.AccessChain(pu, stackC, s)))
				})
			})
			b.Store(done, b.LogicalNot(g.boolT, b.Load(g.boolT, found)))
		})
	})
}

// softTransform loads the three rows (vec4) of a transform at address a:
// an instance record's world→object transform, or an entry of the
// object→world table.
func (g *gen) softTransform(a spirv.ID) [3]spirv.ID {
	b := g.b
	ot := g.sw.ot
	var m [3]spirv.ID
	for k := range m {
		m[k] = g.swLoad(b.TypeVector(g.f32, 4), b.IAdd(ot, a, g.swC(uint64(16*k))), 16)
	}
	return m
}

// softObjectToWorld is instance ii's object→world transform, as it was
// given, from the accel's table at o2w.
func (g *gen) softObjectToWorld(o2w, ii spirv.ID) spirv.ID {
	b := g.b
	ot := g.sw.ot
	return g.softRows(g.softTransform(b.IAdd(ot, o2w, b.IMul(ot, g.swU(ii), g.swC(SoftTransformBytes)))))
}

// softRows is the ir.Transform of three rows.
func (g *gen) softRows(m [3]spirv.ID) spirv.ID {
	return g.b.CompositeConstruct(g.typ(ir.Transform), m[0], m[1], m[2])
}

// softObjectRay moves the ray (o, d) into object space by the rows m, as
// bvh's objectRay does (no contraction).
func (g *gen) softObjectRay(m [3]spirv.ID, o, d [3]spirv.ID) (oo, od [3]spirv.ID) {
	b := g.b
	f32 := g.f32
	nc := g.noContract
	for k := range 3 {
		e := func(c uint32) spirv.ID { return b.CompositeExtract(f32, m[k], c) }
		oo[k] = nc(b.FAdd(f32, nc(b.FAdd(f32, nc(b.FAdd(f32, nc(b.FMul(f32, e(0), o[0])), nc(b.FMul(f32, e(1), o[1])))), nc(b.FMul(f32, e(2), o[2])))), e(3)))
		od[k] = nc(b.FAdd(f32, nc(b.FAdd(f32, nc(b.FMul(f32, e(0), d[0])), nc(b.FMul(f32, e(1), d[1])))), nc(b.FMul(f32, e(2), d[2]))))
	}
	return oo, od
}

// softInstance traverses instance ii (its record at rec) of the software
// accel: mask test, the ray into object space, the mesh's hierarchy; with
// qs, as a ray-query loop whose body decides the candidates.
func (g *gen) softInstance(op ir.Op, v *swVars, r rayOperands, rec, ii spirv.ID, o, d [3]spirv.ID, qs *queryState) {
	b := g.b
	u32, f32 := g.u32, g.f32
	ot := g.sw.ot
	uvec4 := b.TypeVector(u32, 4)
	m := g.softTransform(rec)
	q := g.swLoad(uvec4, b.IAdd(ot, rec, g.swC(48)), 16)
	mesh := g.swU(b.CompositeExtract(u32, q, 0)) // the high word is 0 within 4 GiB
	if ot != u32 {
		mesh = b.BitwiseOr(ot, mesh, b.ShiftLeftLogical(ot, g.swU(b.CompositeExtract(u32, q, 1)), b.ConstantUint32(32)))
	}
	id := b.CompositeExtract(u32, q, 2)
	flags := b.CompositeExtract(u32, q, 3)
	mask := b.BitwiseAnd(u32, flags, b.ConstantUint32(0xff))
	live := b.LogicalAnd(g.boolT, b.INotEqual(g.boolT, b.BitwiseAnd(u32, mask, r.mk), b.ConstantUint32(0)),
		b.INotEqual(g.boolT, mesh, g.swC(0)))
	g.ifThen(live, func() {
		oo, od := g.softObjectRay(m, o, d)
		oinv := g.recip3(od)
		var opaque spirv.ID
		if qs != nil {
			opaque = b.INotEqual(g.boolT, b.BitwiseAnd(u32, flags, b.ConstantUint32(0xff00)), b.ConstantUint32(0))
			qs.ii, qs.id, qs.oo, qs.od, qs.w2o = ii, id, oo, od, m
		}
		// The watertight test's frame: kz the largest |component|, kx and
		// ky the next two (swapped when dir[kz] < 0, keeping the winding).
		abs := func(x spirv.ID) spirv.ID { return b.GLSL(f32, spirv.GLSLFAbs, x) }
		kz := b.Select(u32, b.FOrdGreaterThan(g.boolT, abs(od[1]), abs(od[0])), b.ConstantUint32(1), b.ConstantUint32(0))
		vec3 := b.TypeVector(f32, 3)
		odv := b.CompositeConstruct(vec3, od[0], od[1], od[2])
		dyn := func(vv, k spirv.ID) spirv.ID { return b.VectorExtractDynamic(f32, vv, k) }
		kz = b.Select(u32, b.FOrdGreaterThan(g.boolT, abs(od[2]), abs(dyn(odv, kz))), b.ConstantUint32(2), kz)
		kx := b.UMod(u32, b.IAdd(u32, kz, b.ConstantUint32(1)), b.ConstantUint32(3))
		ky := b.UMod(u32, b.IAdd(u32, kz, b.ConstantUint32(2)), b.ConstantUint32(3))
		dz := dyn(odv, kz)
		neg := b.FOrdLessThan(g.boolT, dz, b.ConstantFloat32(0))
		kx, ky = b.Select(u32, neg, ky, kx), b.Select(u32, neg, kx, ky)
		sx := b.FDiv(f32, dyn(odv, kx), dz)
		sy := b.FDiv(f32, dyn(odv, ky), dz)
		sz := b.FDiv(f32, b.ConstantFloat32(1), dz)
		oov := b.CompositeConstruct(vec3, oo[0], oo[1], oo[2])

		mh := g.swLoad(uvec4, mesh, 16)
		primOff := g.swU(b.CompositeExtract(u32, mh, 0))
		proc := b.INotEqual(g.boolT, b.CompositeExtract(u32, mh, 3), b.ConstantUint32(0))
		vec4 := b.TypeVector(f32, 4)
		// rows loads n 16-byte rows of primitive j's record (size bytes);
		// the first row's fourth word is its id.
		rows := func(j64 spirv.ID, size uint64, n int) ([]spirv.ID, spirv.ID) {
			base := b.IAdd(ot, b.IAdd(ot, mesh, primOff), b.IMul(ot, j64, g.swC(size)))
			out := make([]spirv.ID, n)
			var id spirv.ID
			for i := range out {
				q := g.swLoad(uvec4, b.IAdd(ot, base, g.swC(uint64(16*i))), 16)
				if i == 0 {
					id = b.CompositeExtract(u32, q, 3) // never a float value
				}
				out[i] = b.Bitcast(vec4, q)
			}
			return out, id
		}
		xyz := func(v spirv.ID) spirv.ID { return b.VectorShuffle(vec3, v, v, 0, 1, 2) }
		g.traverse(v, b.IAdd(ot, mesh, g.swC(16)), oo, oinv, r.tmin, true, func(j spirv.ID) {
			j64 := g.swU(j)
			pb, tb, after := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
			b.SelectionMerge(after.ID(), spirv.SelectionControlNone)
			b.BranchConditional(proc, pb.ID(), tb.ID())

			b.SetBlock(pb)
			box, prim := rows(j64, SoftBoxBytes, 2)
			lo, hi := g.split3(box[0]), g.split3(box[1])
			tn, in := g.slab(oo, oinv, lo, hi, r.tmin, b.Load(f32, v.bestT))
			g.ifThen(in, func() {
				if qs != nil {
					g.softCandidate(qs, ir.HitProcedural, prim, tn, b.ConstantFloat32(0), b.ConstantFloat32(0), xyz(box[0]), xyz(box[1]))
					return
				}
				g.softCommit(op, v, tn, b.ConstantFloat32(0), b.ConstantFloat32(0), ii, prim, id, ir.HitProcedural)
			})
			b.Branch(after.ID())

			b.SetBlock(tb)
			tri, prim := rows(j64, SoftTriangleBytes, 3)
			vert := [3]spirv.ID{xyz(tri[0]), xyz(tri[1]), xyz(tri[2])}
			t, u, vv, ok := g.watertight(oov, vert, kx, ky, kz, sx, sy, sz, r.tmin, b.Load(f32, v.bestT))
			if qs == nil {
				g.ifThen(ok, func() { g.softCommit(op, v, t, u, vv, ii, prim, id, ir.HitTriangle) })
			} else {
				g.ifThen(b.LogicalAnd(g.boolT, ok, opaque), func() { g.softCommit(op, v, t, u, vv, ii, prim, id, ir.HitTriangle) })
				g.ifThen(b.LogicalAnd(g.boolT, ok, b.LogicalNot(g.boolT, opaque)), func() {
					zero := b.ConstantNull(vec3)
					g.softCandidate(qs, ir.HitTriangle, prim, t, u, vv, zero, zero)
				})
			}
			b.Branch(after.ID())
			b.SetBlock(after)
			if qs != nil {
				g.softBody(op, v, qs)
			}
		})
	})
}

// noContract keeps a float operation from being fused with another (no
// FMA), so that shared edges compute the same values as the host's.
func (g *gen) noContract(id spirv.ID) spirv.ID {
	g.b.Decorate(id, spirv.DecorationNoContraction)
	return id
}

// watertight is bvh's ray–triangle test in the ray's sheared frame
// (accel/bvh/intersect.go), within [tmin, tmax].
func (g *gen) watertight(o spirv.ID, v [3]spirv.ID, kx, ky, kz, sx, sy, sz, tmin, tmax spirv.ID) (t, u, w, ok spirv.ID) {
	b := g.b
	f32 := g.f32
	vec3 := b.TypeVector(f32, 3)
	nc := g.noContract
	sub := func(x, y spirv.ID) spirv.ID { return nc(b.FSub(f32, x, y)) }
	mul := func(x, y spirv.ID) spirv.ID { return nc(b.FMul(f32, x, y)) }
	dyn := func(vv, k spirv.ID) spirv.ID { return b.VectorExtractDynamic(f32, vv, k) }
	var X, Y, Z [3]spirv.ID
	for i := range v {
		a := nc(b.FSub(vec3, v[i], o))
		ax, ay, az := dyn(a, kx), dyn(a, ky), dyn(a, kz)
		X[i], Y[i], Z[i] = sub(ax, mul(sx, az)), sub(ay, mul(sy, az)), az
	}
	U := sub(mul(X[2], Y[1]), mul(Y[2], X[1]))
	V := sub(mul(X[0], Y[2]), mul(Y[0], X[2]))
	W := sub(mul(X[1], Y[0]), mul(Y[1], X[0]))
	zero := b.ConstantFloat32(0)
	lt := func(x spirv.ID) spirv.ID { return b.FOrdLessThan(g.boolT, x, zero) }
	gt := func(x spirv.ID) spirv.ID { return b.FOrdGreaterThan(g.boolT, x, zero) }
	or3 := func(x, y, z spirv.ID) spirv.ID { return b.LogicalOr(g.boolT, b.LogicalOr(g.boolT, x, y), z) }
	mixed := b.LogicalAnd(g.boolT, or3(lt(U), lt(V), lt(W)), or3(gt(U), gt(V), gt(W)))
	det := nc(b.FAdd(f32, nc(b.FAdd(f32, U, V)), W))
	Az, Bz, Cz := mul(sz, Z[0]), mul(sz, Z[1]), mul(sz, Z[2])
	T := nc(b.FAdd(f32, nc(b.FAdd(f32, mul(U, Az), mul(V, Bz))), mul(W, Cz)))
	rcp := nc(b.FDiv(f32, b.ConstantFloat32(1), det))
	t = mul(T, rcp)
	inRange := b.LogicalAnd(g.boolT, b.FOrdGreaterThanEqual(g.boolT, t, tmin), b.FOrdLessThanEqual(g.boolT, t, tmax))
	ok = b.LogicalAnd(g.boolT, b.LogicalAnd(g.boolT, b.LogicalNot(g.boolT, mixed), b.FOrdNotEqual(g.boolT, det, zero)), inRange)
	u, w = mul(V, rcp), mul(W, rcp)

	// Where the edge functions, their sum or the distance overflowed
	// (vertices about 1e19 or more from the origin), bvh's scaled test
	// (watertightScaled): the frame scaled by powers of two, a zero
	// scaled edge function taking the unscaled one's sign.
	fin := func(x spirv.ID) spirv.ID {
		return b.LogicalNot(g.boolT, b.LogicalOr(g.boolT, b.IsNan(g.boolT, x), b.IsInf(g.boolT, x)))
	}
	and := func(xs ...spirv.ID) spirv.ID {
		r := xs[0]
		for _, x := range xs[1:] {
			r = b.LogicalAnd(g.boolT, r, x)
		}
		return r
	}
	// An overflowed edge function makes det infinite or NaN, so det and T
	// tell (|x| < +Inf: false for both).
	inf := b.ConstantFloat32(float32(math.Inf(1)))
	small := func(x spirv.ID) spirv.ID { return b.FOrdLessThan(g.boolT, b.GLSL(f32, spirv.GLSLFAbs, x), inf) }
	over := b.LogicalNot(g.boolT, b.LogicalAnd(g.boolT, small(det), small(T)))
	inputs := and(fin(X[0]), fin(Y[0]), fin(X[1]), fin(Y[1]), fin(X[2]), fin(Y[2]), fin(Az), fin(Bz), fin(Cz))
	fp := g.ptr(spirv.StorageClassFunction, f32)
	vt, vu, vw := g.sfn.Variable(fp, 0), g.sfn.Variable(fp, 0), g.sfn.Variable(fp, 0)
	vok := g.sfn.Variable(g.ptr(spirv.StorageClassFunction, g.boolT), 0)
	b.Store(vt, t)
	b.Store(vu, u)
	b.Store(vw, w)
	b.Store(vok, ok)
	g.ifThen(over, func() {
		i32 := g.i32
		abs := func(x spirv.ID) spirv.ID { return b.GLSL(f32, spirv.GLSLFAbs, x) }
		fmax := func(xs ...spirv.ID) spirv.ID {
			r := xs[0]
			for _, x := range xs[1:] {
				r = b.GLSL(f32, spirv.GLSLFMax, r, x)
			}
			return r
		}
		expOf := func(x spirv.ID) spirv.ID {
			return b.Bitcast(i32, b.BitwiseAnd(g.u32, b.ShiftRightLogical(g.u32, b.Bitcast(g.u32, x), b.ConstantUint32(23)), b.ConstantUint32(0xff)))
		}
		pow2 := func(k spirv.ID) spirv.ID { // k in [-126, 127]
			return b.Bitcast(f32, b.ShiftLeftLogical(g.u32, b.Bitcast(g.u32, b.IAdd(i32, k, b.ConstantInt32(127))), b.ConstantUint32(23)))
		}
		smax := func(x, y spirv.ID) spirv.ID { return b.GLSL(i32, spirv.GLSLSMax, x, y) }
		smin := func(x, y spirv.ID) spirv.ID { return b.GLSL(i32, spirv.GLSLSMin, x, y) }
		neg := func(x spirv.ID) spirv.ID { return b.ISub(i32, b.ConstantInt32(0), x) }
		i0 := b.ConstantInt32(0)
		m := fmax(abs(X[0]), abs(Y[0]), abs(X[1]), abs(Y[1]), abs(X[2]), abs(Y[2]))
		sc := pow2(neg(smax(i0, b.ISub(i32, expOf(m), b.ConstantInt32(127+61)))))
		var x, y [3]spirv.ID
		for i := range 3 {
			x[i], y[i] = mul(X[i], sc), mul(Y[i], sc)
		}
		U2 := sub(mul(x[2], y[1]), mul(y[2], x[1]))
		V2 := sub(mul(x[0], y[2]), mul(y[0], x[2]))
		W2 := sub(mul(x[1], y[0]), mul(y[1], x[0]))
		sign := func(scaled, unscaled spirv.ID) spirv.ID {
			return b.Select(f32, b.FOrdEqual(g.boolT, scaled, zero), unscaled, scaled)
		}
		Us, Vs, Ws := sign(U2, U), sign(V2, V), sign(W2, W)
		mixed := b.LogicalAnd(g.boolT, or3(lt(Us), lt(Vs), lt(Ws)), or3(gt(Us), gt(Vs), gt(Ws)))
		det := nc(b.FAdd(f32, nc(b.FAdd(f32, U2, V2)), W2))
		kz := smax(i0, b.ISub(i32, b.IAdd(i32, expOf(fmax(abs(U2), abs(V2), abs(W2))), expOf(fmax(abs(Az), abs(Bz), abs(Cz)))), b.ConstantInt32(376)))
		k1 := smin(kz, b.ConstantInt32(126))
		s1, s2 := pow2(neg(k1)), pow2(neg(b.ISub(i32, kz, k1)))
		az, bz, cz := mul(mul(Az, s1), s2), mul(mul(Bz, s1), s2), mul(mul(Cz, s1), s2)
		T := nc(b.FAdd(f32, nc(b.FAdd(f32, mul(U2, az), mul(V2, bz))), mul(W2, cz)))
		rcp := nc(b.FDiv(f32, b.ConstantFloat32(1), det))
		u1 := smin(kz, b.ConstantInt32(127))
		t := mul(mul(mul(T, rcp), pow2(u1)), pow2(b.ISub(i32, kz, u1)))
		inRange := b.LogicalAnd(g.boolT, b.FOrdGreaterThanEqual(g.boolT, t, tmin), b.FOrdLessThanEqual(g.boolT, t, tmax))
		b.Store(vt, t)
		b.Store(vu, mul(V2, rcp))
		b.Store(vw, mul(W2, rcp))
		b.Store(vok, and(inputs, b.LogicalNot(g.boolT, mixed), b.FOrdNotEqual(g.boolT, det, zero), inRange))
	})
	return b.Load(f32, vt), b.Load(f32, vu), b.Load(f32, vw), b.Load(g.boolT, vok)
}

// softCommit commits a hit at t on (ii, prim) when it beats the committed
// one: nearer, or as near on a lower instance index, then primitive id.
func (g *gen) softCommit(op ir.Op, v *swVars, t, u, w, ii, prim, id spirv.ID, kind uint32) {
	b := g.b
	u32, f32 := g.u32, g.f32
	have := b.Load(g.boolT, v.have)
	bt := b.Load(f32, v.bestT)
	bi, bp := b.Load(u32, v.ii), b.Load(u32, v.prim)
	tie := b.LogicalOr(g.boolT, b.ULessThan(g.boolT, ii, bi), b.LogicalAnd(g.boolT, b.IEqual(g.boolT, ii, bi), b.ULessThan(g.boolT, prim, bp)))
	better := b.Select(g.boolT, b.FOrdNotEqual(g.boolT, t, bt), b.FOrdLessThan(g.boolT, t, bt), tie)
	better = b.Select(g.boolT, have, better, b.FOrdLessThanEqual(g.boolT, t, bt))
	g.ifThen(better, func() {
		b.Store(v.bestT, t)
		b.Store(v.u, u)
		b.Store(v.v, w)
		b.Store(v.ii, ii)
		b.Store(v.prim, prim)
		b.Store(v.id, id)
		b.Store(v.kind, b.ConstantUint32(kind))
		b.Store(v.have, b.ConstantBool(true))
		if op == ir.OpRayAny {
			b.Store(v.stop, b.ConstantBool(true))
		}
	})
}
