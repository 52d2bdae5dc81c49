package codegen

import (
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

// Printing (kernel ABI v1). A kernel that prints has two more push-constant
// members: the u64 device address of its stream's print ring, and a u32
// tag naming the dispatch to the host. The ring is a buffer of u32 words:
//
//	word 0: cursor, the data words taken so far (atomic)
//	word 1: prints dropped for want of room (atomic)
//	word 2: capacity, the data words there are (written by the host)
//	word 3: reserved
//	word 4…: records, each {tag, site, dispatch id x, y, z, argument words…}
//
// A Print of n words looks at the cursor, takes n words with one atomic
// add when they may fit, writes its record if they did, and otherwise
// counts itself dropped:
//
//	cur := ring[0]
//	off := cur <= cap-n ? atomicAdd(&ring[0], n) : ~0
//	if off <= cap-n { ring[4+off …] = record } else { atomicAdd(&ring[1], 1) }
//
// Looking first keeps the cursor from running on (and wrapping) once the
// ring is full. The host makes cap at least the largest record. Each
// argument takes ir.PrintWords words: components in order, 64-bit ones as
// two words low first, bools as 0 or 1, small integers widened, f16 as f32.
// A kernel that never prints has neither the member nor any of this code.

// printSites numbers kernel f's Print statements (ir.Function.Prints) and
// declares the Private copy of the dispatch id that prints in callables read.
func (g *gen) printSites(f *ir.Function) {
	g.sites = map[*ir.Print]uint32{}
	for i, p := range f.Prints() {
		g.sites[p] = uint32(i)
	}
	uvec3 := g.b.TypeVector(g.u32, 3)
	g.printTID = g.b.Variable(g.ptr(spirv.StorageClassPrivate, uvec3), spirv.StorageClassPrivate, 0)
}

// print emits a Print statement's record.
func (g *gen) print(p *ir.Print) {
	words := []spirv.ID{0, g.b.ConstantUint32(g.sites[p])}
	words = append(words, g.threadWords()...)
	for _, a := range p.Args {
		words = g.printWords(words, a.Type(), g.expr(a))
	}
	g.appendRecord(words)
}

// faultSite is the site word of a fault record of the checked mode:
// {tag, faultSite, dispatch id x, y, z, kind | site<<8, what, index,
// length}, where site numbers the statement that faulted
// (ir.Function.Sites), noSite when there is none (or past 2²⁴−2 sites).
const faultSite = ^uint32(0)

// noSite is the site of code outside any statement with a site.
const noSite = 1<<24 - 1

// Fault kinds, as device.FaultKind numbers them.
const (
	faultBufferIndex  = 1 // what: the argument, | faultInSlot for a bindless slot's buffer
	faultSharedIndex  = 2
	faultDivideByZero = 3
	faultAssert       = 4 // what: the assertion's index in ir.Function.Asserts
	faultTextureCoord = 5 // what: the argument | the coordinate's component<<16
	faultBindlessSlot = 6 // what: the argument; index: the slot; length: the slots
	faultArrayIndex   = 7 // what: the place's index in ir.Function.IndexNames (as faultSharedIndex)
	faultLoopLimit    = 8 // index: the iterations counted; length: Options.LoopLimit
)

// faultInSlot marks a faultBufferIndex's what: the index is of the buffer in
// a slot of the bindless array argument.
const faultInSlot = 1 << 16

// checkFault notes a fault of kind on what (an argument or shared variable
// index) with index and length (u32 values) where ok is false, unless the
// thread faulted before: a thread keeps its first fault in four Private
// words, written with selects, so a check costs no branch (a branch per
// access made saxpy 7–10× slower on Mesa 22.3's lavapipe, whose masked
// code runs both sides). The kernel appends the fault's record when it
// returns (flushFault).
func (g *gen) checkFault(ok spirv.ID, kind, what uint32, index, length spirv.ID) {
	b := g.b
	cur := b.Load(g.u32, g.fault[0])
	set := b.LogicalAnd(g.boolT, b.LogicalNot(g.boolT, ok), b.IEqual(g.boolT, cur, b.ConstantUint32(0)))
	for i, v := range []spirv.ID{b.ConstantUint32(kind | g.site<<8), b.ConstantUint32(what), index, length} {
		old := cur
		if i > 0 {
			old = b.Load(g.u32, g.fault[i])
		}
		b.Store(g.fault[i], b.Select(g.u32, set, v, old))
	}
}

// declareFault makes the Private words of a thread's first fault.
func (g *gen) declareFault() {
	for i := range g.fault {
		g.fault[i] = g.b.Variable(g.ptr(spirv.StorageClassPrivate, g.u32), spirv.StorageClassPrivate, g.b.ConstantUint32(0))
	}
	if g.opts.LoopLimit > 0 {
		g.loops = g.b.Variable(g.ptr(spirv.StorageClassPrivate, g.u32), spirv.StorageClassPrivate, g.b.ConstantUint32(0))
	}
}

// countPass, in a loop's header, counts a pass of the thread's loops as
// the driver does: each iteration, and the pass that leaves the loop.
// flushFault reports a count that reached Options.LoopLimit (the driver
// ended the thread's loops there, or its last pass would only have left
// the loop: the one case reported that lost nothing). One add a pass:
// checked mandelbrot on Mesa 22.3's lavapipe takes 1.045× its time without
// the count, where a fault check in every pass took 1.10–1.15×
// (docs/PERFORMANCE.md, "The checked mode's loop count").
func (g *gen) countPass() {
	if g.loops != 0 {
		g.b.Store(g.loops, g.b.IAdd(g.u32, g.b.Load(g.u32, g.loops), g.b.ConstantUint32(1)))
	}
}

// flushFault, in the kernel before it returns, appends the record of the
// thread's fault, if it had one.
func (g *gen) flushFault() {
	if g.fault[0] == 0 || g.fn.Kind != ir.KernelFunc {
		return
	}
	b := g.b
	if g.loops != 0 {
		site := g.site
		g.site = noSite // not known: the loop the driver ended is not kept
		n, limit := b.Load(g.u32, g.loops), b.ConstantUint32(g.opts.LoopLimit)
		g.checkFault(b.ULessThan(g.boolT, n, limit), faultLoopLimit, 0, n, limit)
		g.site = site
	}
	kind := b.Load(g.u32, g.fault[0])
	faulted := b.INotEqual(g.boolT, kind, b.ConstantUint32(0))
	var outer *spirv.Block
	if g.opts.SubgroupVote {
		// A subgroup-uniform branch around the record: Mesa 22.3's lavapipe
		// otherwise runs the record's code for every thread, masked (saxpy
		// 4× slower checked); with it, checked saxpy runs at the unchecked
		// speed there.
		b.Capability(spirv.CapabilityGroupNonUniformVote)
		any, merge := g.sfn.NewBlock(), g.sfn.NewBlock()
		b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
		b.BranchConditional(b.GroupNonUniformVote(spirv.OpGroupNonUniformAny, g.boolT, spirv.ScopeSubgroup, faulted), any.ID(), merge.ID())
		b.SetBlock(any)
		outer = merge
	}
	words := []spirv.ID{0, b.ConstantUint32(faultSite)}
	words = append(words, g.threadWords()...)
	words = append(words, kind, b.Load(g.u32, g.fault[1]), b.Load(g.u32, g.fault[2]), b.Load(g.u32, g.fault[3]))
	if g.opts.LoopLimit > 0 {
		// The driver runs no loop of a thread whose loops reached its
		// bound, appendFault's included: the record is appended without one.
		then, merge := g.sfn.NewBlock(), g.sfn.NewBlock()
		b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
		b.BranchConditional(faulted, then.ID(), merge.ID())
		b.SetBlock(then)
		g.appendRecord(words)
		b.Branch(merge.ID())
		b.SetBlock(merge)
	} else {
		g.appendFault(faulted, words)
	}
	if outer != nil {
		b.Branch(outer.ID())
		b.SetBlock(outer)
	}
}

// Fault record states (appendFault).
const (
	recCap   = iota // read the ring's capacity
	recLook         // read the cursor
	recClaim        // take the record's words
	recDrop         // count the record dropped
	recWrite        // write word j of the record
	recDone
)

// appendFault appends the fault record words (words[0], the tag, loaded
// here when 0) to the ring where faulted holds: the protocol of
// appendRecord, run as a loop whose body has one atomic add (reading the
// capacity and the cursor, taking the words, counting a drop) and one store
// (a word of the record per iteration). Mesa 22.3's lavapipe runs every
// instruction of a kernel, masked, for every group of lanes, and each
// memory access there is a loop over the lanes: appendRecord's thirteen
// accesses made checked saxpy ≈ 2.7× unchecked, where this loop's two
// cost ≈ 1.2× (docs/PERFORMANCE.md). A thread that did not fault leaves
// the loop at once; one that did runs it 13 times.
func (g *gen) appendFault(faulted spirv.ID, words []spirv.ID) {
	b := g.b
	if words[0] == 0 {
		words[0] = b.Load(g.u32, b.AccessChain(g.ptr(spirv.StorageClassPushConstant, g.u32), g.push, b.ConstantUint32(g.printRing+1)))
	}
	c := b.ConstantUint32
	n := c(uint32(len(words)))
	u64 := b.TypeInt(64, false)
	ringT := b.TypeStructOf(spirv.StructType{
		Members:     []spirv.Member{{Type: b.TypeRuntimeArrayStride(g.u32, 4), Offset: spirv.Off(0)}},
		Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}},
	})
	addr := b.Load(u64, b.AccessChain(g.ptr(spirv.StorageClassPushConstant, u64), g.push, c(g.printRing)))
	ring := b.ConvertUToPtr(g.ptr(spirv.StorageClassPhysicalStorageBuffer, ringT), addr)
	pu32 := g.ptr(spirv.StorageClassPhysicalStorageBuffer, g.u32)
	word := func(i spirv.ID) spirv.ID { return b.AccessChain(pu32, ring, c(0), i) }

	fu32 := g.ptr(spirv.StorageClassFunction, g.u32)
	state, limit, off, j := g.sfn.Variable(fu32, 0), g.sfn.Variable(fu32, 0), g.sfn.Variable(fu32, 0), g.sfn.Variable(fu32, 0)
	b.Store(state, b.Select(g.u32, faulted, c(recCap), c(recDone)))
	b.Store(j, c(0))
	header, body, write, atomic, sel, cont, merge := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
	b.Branch(header.ID())

	b.SetBlock(header)
	b.LoopMerge(merge.ID(), cont.ID(), spirv.LoopControlNone)
	b.BranchConditional(b.INotEqual(g.boolT, b.Load(g.u32, state), c(recDone)), body.ID(), merge.ID())

	b.SetBlock(body)
	st := b.Load(g.u32, state)
	is := func(s uint32) spirv.ID { return b.IEqual(g.boolT, st, c(s)) }
	b.SelectionMerge(sel.ID(), spirv.SelectionControlNone)
	b.BranchConditional(is(recWrite), write.ID(), atomic.ID())

	b.SetBlock(write)
	jv := b.Load(g.u32, j)
	v := words[len(words)-1]
	for k := len(words) - 2; k >= 0; k-- {
		v = b.Select(g.u32, b.IEqual(g.boolT, jv, c(uint32(k))), words[k], v)
	}
	b.Store(word(b.IAdd(g.u32, b.IAdd(g.u32, b.Load(g.u32, off), c(4)), jv)), v, uint32(spirv.MemoryAccessAligned), 4)
	jn := b.IAdd(g.u32, jv, c(1))
	b.Store(j, jn)
	b.Store(state, b.Select(g.u32, b.IEqual(g.boolT, jn, n), c(recDone), c(recWrite)))
	b.Branch(sel.ID())

	b.SetBlock(atomic)
	at := b.Select(g.u32, is(recCap), c(2), b.Select(g.u32, is(recDrop), c(1), c(0)))
	add := b.Select(g.u32, is(recClaim), n, b.Select(g.u32, is(recDrop), c(1), c(0)))
	r := b.AtomicIAdd(g.u32, word(at), spirv.ScopeDevice, spirv.MemorySemanticsNone, add)
	lim := b.Select(g.u32, is(recCap), b.ISub(g.u32, r, n), b.Load(g.u32, limit))
	b.Store(limit, lim)
	b.Store(off, b.Select(g.u32, is(recClaim), r, b.Load(g.u32, off)))
	fits := b.ULessThanEqual(g.boolT, r, lim)
	next := b.Select(g.u32, fits, c(recClaim), c(recDrop))
	next = b.Select(g.u32, is(recClaim), b.Select(g.u32, fits, c(recWrite), c(recDrop)), next)
	next = b.Select(g.u32, is(recDrop), c(recDone), next)
	next = b.Select(g.u32, is(recCap), c(recLook), next)
	b.Store(state, next)
	b.Branch(sel.ID())

	b.SetBlock(sel)
	b.Branch(cont.ID())
	b.SetBlock(cont)
	b.Branch(header.ID())
	b.SetBlock(merge)
}

// threadWords are the dispatch id's three words.
func (g *gen) threadWords() []spirv.ID {
	b := g.b
	tid := g.builtins[ir.DispatchID]
	if g.fn.Kind != ir.KernelFunc {
		tid = b.Load(b.TypeVector(g.u32, 3), g.printTID)
	}
	return []spirv.ID{b.CompositeExtract(g.u32, tid, 0), b.CompositeExtract(g.u32, tid, 1), b.CompositeExtract(g.u32, tid, 2)}
}

// appendRecord appends a record to the ring; words[0], the tag, is loaded
// here when 0.
func (g *gen) appendRecord(words []spirv.ID) {
	b := g.b
	if words[0] == 0 {
		words[0] = b.Load(g.u32, b.AccessChain(g.ptr(spirv.StorageClassPushConstant, g.u32), g.push, b.ConstantUint32(g.printRing+1)))
	}
	n := b.ConstantUint32(uint32(len(words)))

	u64 := b.TypeInt(64, false)
	ringT := b.TypeStructOf(spirv.StructType{
		Members:     []spirv.Member{{Type: b.TypeRuntimeArrayStride(g.u32, 4), Offset: spirv.Off(0)}},
		Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}},
	})
	addr := b.Load(u64, b.AccessChain(g.ptr(spirv.StorageClassPushConstant, u64), g.push, b.ConstantUint32(g.printRing)))
	ring := b.ConvertUToPtr(g.ptr(spirv.StorageClassPhysicalStorageBuffer, ringT), addr)
	pu32 := g.ptr(spirv.StorageClassPhysicalStorageBuffer, g.u32)
	word := func(i spirv.ID) spirv.ID { return b.AccessChain(pu32, ring, b.ConstantUint32(0), i) }
	aligned := []uint32{uint32(spirv.MemoryAccessAligned), 4}

	limit := b.ISub(g.u32, b.Load(g.u32, word(b.ConstantUint32(2)), aligned...), n)
	cur := b.Load(g.u32, word(b.ConstantUint32(0)), aligned...)
	room := b.ULessThanEqual(g.boolT, cur, limit)
	head := b.CurrentBlock().ID()
	take, taken := g.sfn.NewBlock(), g.sfn.NewBlock()
	b.SelectionMerge(taken.ID(), spirv.SelectionControlNone)
	b.BranchConditional(room, take.ID(), taken.ID())
	b.SetBlock(take)
	got := b.AtomicIAdd(g.u32, word(b.ConstantUint32(0)), spirv.ScopeDevice, spirv.MemorySemanticsNone, n)
	b.Branch(taken.ID())
	b.SetBlock(taken)
	off := b.Phi(g.u32, spirv.PhiIncoming{Value: got, Parent: take.ID()},
		spirv.PhiIncoming{Value: b.ConstantUint32(^uint32(0)), Parent: head})

	write, drop, done := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
	b.SelectionMerge(done.ID(), spirv.SelectionControlNone)
	b.BranchConditional(b.ULessThanEqual(g.boolT, off, limit), write.ID(), drop.ID())
	b.SetBlock(write)
	base := b.IAdd(g.u32, off, b.ConstantUint32(4))
	for i, w := range words {
		b.Store(word(b.IAdd(g.u32, base, b.ConstantUint32(uint32(i)))), w, aligned...)
	}
	b.Branch(done.ID())
	b.SetBlock(drop)
	b.AtomicIAdd(g.u32, word(b.ConstantUint32(1)), spirv.ScopeDevice, spirv.MemorySemanticsNone, b.ConstantUint32(1))
	b.Branch(done.ID())
	b.SetBlock(done)
}

// printWords appends the record words of value v of type t.
func (g *gen) printWords(words []spirv.ID, t *ir.Type, v spirv.ID) []spirv.ID {
	b := g.b
	if t.Kind() == ir.KindVector {
		for i := range t.Len() {
			words = g.printWords(words, t.Elem(), b.CompositeExtract(g.typ(t.Elem()), v, uint32(i)))
		}
		return words
	}
	switch {
	case t.Kind() == ir.KindBool:
		return append(words, b.Select(g.u32, v, b.ConstantUint32(1), b.ConstantUint32(0)))
	case t.Bits() == 64:
		two := b.Bitcast(b.TypeVector(g.u32, 2), v)
		return append(words, b.CompositeExtract(g.u32, two, 0), b.CompositeExtract(g.u32, two, 1))
	case t.Kind() == ir.KindFloat:
		if t.Bits() != 32 {
			v = b.FConvert(g.f32, v)
		}
		return append(words, b.Bitcast(g.u32, v))
	case t.Kind() == ir.KindInt:
		if t.Bits() != 32 {
			v = b.SConvert(g.i32, v)
		}
		return append(words, b.Bitcast(g.u32, v))
	default:
		if t.Bits() != 32 {
			v = b.UConvert(g.u32, v)
		}
		return append(words, v)
	}
}

// checkBuffer records a fault where index i (of integer type t) of buffer
// argument v is past the view's elements.
func (g *gen) checkBuffer(v *ir.Var, i spirv.ID, t *ir.Type) {
	b := g.b
	what := uint32(0)
	for k, p := range g.kernelFn.Params {
		if p == v {
			what = uint32(k)
		}
	}
	if !v.Type.ByAddress() && t.Bits() == 32 {
		// In 32 bits, where most indices are: a negative i32 is a u32 past
		// any length.
		if t.Kind() == ir.KindInt {
			i = b.Bitcast(g.u32, i)
		}
		n := b.ArrayLength(g.u32, g.vars[v].ptr, 0)
		g.checkFault(b.ULessThan(g.boolT, i, n), faultBufferIndex, what, i, n)
		return
	}
	u64 := b.TypeInt(64, false)
	var n spirv.ID
	if v.Type.ByAddress() {
		n = g.addrCount(v)
	} else {
		n = b.UConvert(u64, b.ArrayLength(g.u32, g.vars[v].ptr, 0))
	}
	i64 := g.index64(i, t)
	g.checkFault(b.ULessThan(g.boolT, i64, n), faultBufferIndex, what, g.sat32(i64), g.sat32(n))
}

// checkIndex records a fault where index i of array, vector or matrix
// index expression e is out of range (FaultSharedIndex in a shared
// variable, FaultArrayIndex elsewhere, naming the place by
// ir.Function.IndexNames), and returns the index to use: i, or 0 when out
// of range (an access out of range of a Function, Private or Workgroup
// variable has no robust behaviour).
func (g *gen) checkIndex(e *ir.Index, i spirv.ID) spirv.ID {
	b := g.b
	n := e.X.Type().Len()
	if lit, ok := e.I.(*ir.Literal); ok && lit.Bits < uint64(n) {
		return i
	}
	i64 := g.index64(i, e.I.Type())
	ok := b.ULessThan(g.boolT, i64, b.ConstantUint64(uint64(n)))
	kind := uint32(faultArrayIndex)
	if root := ir.PlaceRoot(e); root != nil && root.Kind == ir.VarShared {
		kind = faultSharedIndex
	}
	what, known := g.places[e]
	if !known {
		what = -1
	}
	g.checkFault(ok, kind, uint32(what), g.sat32(i64), b.ConstantUint32(uint32(n)))
	return b.Select(g.typ(e.I.Type()), ok, i, b.ConstantNull(g.typ(e.I.Type())))
}

// checkSlot records a fault where slot (u32) of bindless array argument v
// is past the array's slot records or present (whether the record holds a
// resource, false for a slot past them: robust access reads zero) is false.
func (g *gen) checkSlot(v *ir.Var, slot, present spirv.ID) {
	b := g.b
	n := b.ArrayLength(g.u32, g.vars[v].ptr, 0)
	g.checkFault(b.LogicalAnd(g.boolT, b.ULessThan(g.boolT, slot, n), present), faultBindlessSlot, g.argIndex(v), slot, n)
}

// argIndex is the position of kernel argument v.
func (g *gen) argIndex(v *ir.Var) uint32 {
	for k, p := range g.kernelFn.Params {
		if p == v {
			return uint32(k)
		}
	}
	return 0
}

// checkDivisor records a fault where integer divisor y (of type t, a scalar
// or vector) is zero in any component.
func (g *gen) checkDivisor(y spirv.ID, t *ir.Type) {
	b := g.b
	zero := b.ConstantNull(g.typ(t))
	var ok spirv.ID
	if t.Kind() == ir.KindVector {
		ok = b.All(g.boolT, b.INotEqual(b.TypeVector(g.boolT, uint32(t.Len())), y, zero))
	} else {
		ok = b.INotEqual(g.boolT, y, zero)
	}
	g.checkFault(ok, faultDivideByZero, 0, b.ConstantUint32(0), b.ConstantUint32(0))
}

// checkTexel records a fault where a component of texel coordinate c (of
// vector type t) of storage texture argument v is past the level's extent
// (img's size), each component a check of its own.
func (g *gen) checkTexel(v *ir.Var, img, c spirv.ID, t *ir.Type) {
	b := g.b
	n := t.Len()
	uvec := b.TypeVector(g.u32, uint32(n))
	if t.Elem().Kind() == ir.KindInt {
		c = b.Bitcast(uvec, c)
	}
	b.Capability(spirv.CapabilityImageQuery)
	size := b.Bitcast(uvec, b.ImageQuerySize(b.TypeVector(g.i32, uint32(n)), img))
	what := uint32(0)
	for k, p := range g.kernelFn.Params {
		if p == v {
			what = uint32(k)
		}
	}
	for d := range n {
		cd, sd := b.CompositeExtract(g.u32, c, uint32(d)), b.CompositeExtract(g.u32, size, uint32(d))
		g.checkFault(b.ULessThan(g.boolT, cd, sd), faultTextureCoord, what|uint32(d)<<16, cd, sd)
	}
}
