package cpu

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// The lane engine: a second compilation of a kernel whose closures each run
// a batch of threads (lanes) of one block, so that a closure call is paid
// once per batch rather than once per thread. Registers are
// struct-of-arrays: slot s of lane l is r[s*w+l]. Control flow is by lane
// lists: a statement gets the lanes that run it and returns those that go
// on; an if splits its lanes by the condition, a switch by the tag's case, a
// loop runs while any lane is in it, and break, continue and return mark a
// lane's status, which the enclosing loop or switch (or the end of the
// kernel) reads. Every check of the
// per-thread engine stays (a buffer index out of range or an integer
// division by zero faults naming the lane's thread).
//
// It compiles the shapes that make up most kernels: scalar arithmetic,
// comparisons, conversions and pure built-ins, components of vectors,
// loads, stores and atomics of 4-byte buffer elements, shared memory (loads,
// stores and atomics of any leaves), constant tables, barriers in uniform
// control flow, locals, uniforms, built-in ids, if, switch, for, loop,
// break, continue and return. A kernel with anything else (callables,
// textures, aggregates built at run time, a barrier where the lanes of a
// block may not all reach it together) runs on the per-thread engine.
// Trees of 32-bit scalar and vector operations and loads are fused into
// one closure each (fuse.go), a loop condition the same in every lane still
// in the loop is evaluated for one (uniform.go's loopCond), and atomic adds
// nothing reads back may be summed per worker (lanes_adds.go).

// laneWidth is the most lanes of a batch of a kernel without barriers or
// shared memory; a kernel with them runs a whole block as one batch (at most
// maxBlockLanes, the backend's MaxWorkgroupInvocations), so that every
// statement has run for every lane of the block before the next starts and
// a barrier in uniform control flow (uniform.go) costs nothing.
const (
	laneWidth     = 256
	maxBlockLanes = 1024
)

// Lane statuses.
const (
	stRun uint8 = iota
	stBrk
	stCont
	stRet
)

// lth is one worker's lane state.
type lth struct {
	w     int      // lanes per batch
	r     []uint64 // slot s of lane l at s*w+l
	st    []uint8
	lists []int32 // lane list k of a node at k*w
	all   []int32 // 0..w-1
	run   *launch
	bid   [3]uint32
	lin0  uint32 // the linear index in the block of lane 0
	flane int32  // the lane a generic operation runs for (faults name it)
	// marked counts lanes given a status other than stRun: a loop whose
	// body marked none has every lane still in it.
	marked int
	ready  int // lanes whose constant slots hold the launch's values (fill)
	// tidAt-1 is the lin0 of the batch whose thread ids the rows hold for
	// all tidN lanes (0: none).
	tidAt  uint32
	tidN   int
	sum    []float64
	shared [][]uint64 // the block's shared variables, leaves as the per-thread engine's
	adds   [][]uint32 // per buffer argument: the worker's atomic adds not yet made (deferAdds)
	noAdd  []bool     // per buffer argument: adds to it are made at once
}

func (t *lth) list(k int) []int32 { return t.lists[k*t.w : (k+1)*t.w] }

// running is the lanes of act still running (stRun), in order, in list k:
// kept in order, a list of every lane stays recognisable (dense).
// after is what goes on from act once a body has run on all of it and
// left the lanes in left: act itself where every lane goes on, else the
// running ones, in list k.
func (t *lth) after(k int, act, left []int32) []int32 {
	if len(left) == len(act) {
		return act
	}
	return t.running(k, act)
}

func (t *lth) running(k int, act []int32) []int32 {
	out := t.list(k)
	n := 0
	for _, l := range act {
		if t.st[l] == stRun {
			out[n] = l
			n++
		}
	}
	return out[:n]
}

// lex is a compiled lane expression: after eval (nil: nothing to do) its n
// leaves are in slots slot..slot+n-1 for the lanes it ran on.
type lex struct {
	eval func(*lth, []int32)
	slot int
	n    int
}

type lstmt = func(*lth, []int32) []int32

type laneUnsupported struct{ what string }

func noLanes(format string, args ...any) { panic(laneUnsupported{fmt.Sprintf(format, args...)}) }

// laneProg is a kernel compiled for the lane engine.
type laneProg struct {
	w      int
	body   lstmt
	nslots int
	nlists int
	consts []laneConst // slots equal in every lane: literals, uniforms, sizes
	locals [][2]int    // slot ranges zeroed per batch
	tid    [3][]uint32 // ThreadID per linear index in the block
	ids    int         // the slots of DispatchID's components, or -1
	tids   int         // ThreadID's, or -1
	idUse  uint8       // the components of DispatchID read (bit i: component i)
	tidUse uint8       // of ThreadID
	bids   int         // BlockID's, or -1
	fusedV int         // vector nodes fused component by component (tests)
	uniL   int         // loops whose condition one lane decides (tests)
	monoIf int         // ifs a batch's ends may decide (monoCond; tests)
	substs int         // locals compiled as their value at their read (substOf; tests)
	marks  bool        // a break, continue or return: lane statuses to clear per batch (else all stay stRun)
	// merge is how many consecutive blocks of a one-dimensional grid run
	// as one (mergeWidth), 1 where none are merged.
	merge uint32
}

// mergeWidth is the lanes that consecutive blocks of a kernel without
// barriers or shared memory, one-dimensional and smaller, are merged up to
// where the kernel reads neither its thread nor its block id: then no
// value tells the blocks apart (what is the same in every lane of a block,
// uniform.go's analysis, is then the same in the whole dispatch), and a
// batch of 128 lanes pays each closure call for twice n-body's 64.
const mergeWidth = 128

// readsBlockIDs says whether f reads ThreadID or BlockID.
func readsBlockIDs(f *ir.Function) bool {
	reads := false
	walkStmts(f.Body, func(ir.Stmt) {}, func(e ir.Expr) {
		if r, ok := e.(*ir.Ref); ok && r.Var.Kind == ir.VarBuiltin && (r.Var.Builtin == ir.ThreadID || r.Var.Builtin == ir.BlockID) {
			reads = true
		}
	})
	return reads
}

// laneConst is a slot holding the same value in every lane: a literal
// (val), or something of the dispatch (get).
type laneConst struct {
	slot int
	val  uint64
	get  func(l *launch) uint64
}

type laneCompiler struct {
	c       *compiler // the per-thread compiler: argument indices and labels
	p       *laneProg
	slots   map[*ir.Var]int
	uni     map[*ir.Var]int
	lits    map[uint64]int
	consts  map[string]int  // dispatch-wide values by name
	hoisted map[ir.Expr]lex // loop-invariant expressions computed before their loop
	linear  bool            // a one-dimensional block: lane j of a dense batch has x id lane 0's plus j
	uniform *uniformity     // which expressions are the same in every lane of a block
	// memo is the values of the statement being compiled, by node: the
	// DSL's Go variables are expressions, which a statement holds as many
	// times as the variable is used (n-body's d seven times), computed
	// once. nil where the statement has atomics (a read after one differs).
	memo map[ir.Expr]lex
	// prev is the statement before the one being compiled in its block
	// (nil for the first).
	prev ir.Stmt
	// addOnly is the buffer arguments the kernel only adds to atomically,
	// not reading the old values (a histogram's bins).
	addOnly map[*ir.Var]bool
	// unread is the locals no expression reads: a batch does not zero them.
	unread map[*ir.Var]bool
	// first and once: the locals assigned whole before any mention in the
	// kernel body itself (assignedFirst), and those assigned only once.
	first, once map[*ir.Var]bool
	// refs counts the expressions reading each variable; subst is the
	// locals compiled as their value at their one read (substOf).
	refs  map[*ir.Var]int
	subst map[*ir.Var]substVal
	// discard says the atomic being compiled is the whole of a statement
	// whose old value goes nowhere (a statement of its own, or an unread
	// local's assignment): the atomic need not write it.
	discard bool
}

// compileLanes compiles f for the lane engine, or returns nil (and what it
// does not take) where the kernel has a shape it does not compile.
func compileLanes(c *compiler, f *ir.Function, threads uint32) (lp *laneProg, why string) {
	whole := c.barrier || len(f.Shared) > 0 // a whole block in one batch
	if whole && threads > maxBlockLanes {
		return nil, fmt.Sprintf("barriers or shared memory in a block of %d threads", threads)
	}
	if c.barrier {
		if why := barriersUniform(f); why != "" {
			return nil, why
		}
	}
	defer func() {
		if r := recover(); r != nil {
			u, ok := r.(laneUnsupported)
			if !ok {
				panic(r)
			}
			lp, why = nil, u.what
		}
	}()
	merge := uint32(1)
	if !whole && f.BlockSize[1] == 1 && f.BlockSize[2] == 1 && threads < mergeWidth && !readsBlockIDs(f) {
		// Consecutive blocks as one: nothing tells them apart but their
		// dispatch ids, consecutive across them.
		merge = mergeWidth / threads
		threads *= merge
	}
	w := int(min(threads, laneWidth))
	if whole {
		w = int(threads)
	}
	lc := &laneCompiler{c: c, p: &laneProg{w: w, ids: -1, tids: -1, bids: -1, merge: merge},
		slots: map[*ir.Var]int{}, uni: map[*ir.Var]int{}, lits: map[uint64]int{}, consts: map[string]int{}, hoisted: map[ir.Expr]lex{}}
	lc.linear = f.BlockSize[1] == 1 && f.BlockSize[2] == 1
	lc.uniform = uniformOf(f)
	lc.addOnly = addOnly(f)
	for i, v := range f.Params {
		if v.Type.IsResource() {
			if v.Type.Kind() != ir.KindBuffer {
				noLanes("argument %s of type %s", v.Name, v.Type)
			}
			continue
		}
		n := ir.Leaves(v.Type)
		o := lc.tmp(n)
		lc.uni[v] = o
		for k := range n {
			i, k := i, k
			lc.p.consts = append(lc.p.consts, laneConst{slot: o + k, get: func(l *launch) uint64 { return l.uni[i][k] }})
		}
	}
	first := assignedFirst(f)
	lc.first, lc.once = first, assignedOnce(f)
	lc.unread = unreadLocals(f)
	lc.refs, lc.subst = refCounts(f), map[*ir.Var]substVal{}
	for _, l := range f.Locals {
		lc.slots[l] = lc.tmp(ir.Leaves(l.Type))
	}
	lc.p.body = lc.block(f.Body)
	for _, l := range f.Locals {
		if _, sub := lc.subst[l]; !first[l] && !lc.unread[l] && !sub { // a substituted local is neither written nor read
			o := lc.slots[l]
			lc.p.locals = append(lc.p.locals, [2]int{o, o + ir.Leaves(l.Type)})
		}
	}
	b := f.BlockSize
	b[0] *= merge // the merged block's: the dispatch ids' offsets (ThreadID is not read)
	for i := range threads {
		lc.p.tid[0] = append(lc.p.tid[0], i%b[0])
		lc.p.tid[1] = append(lc.p.tid[1], i/b[0]%b[1])
		lc.p.tid[2] = append(lc.p.tid[2], i/(b[0]*b[1]))
	}
	return lc.p, ""
}

// substVal is a local's value compiled at its read (substOf), and the
// position of its assignment, which its faults name.
type substVal struct {
	e   ir.Expr
	pos string
}

// at compiles f under the assignment's position.
func (sv substVal) at(lc *laneCompiler, f func()) {
	outer := lc.c.pos
	lc.c.pos = sv.pos
	defer func() { lc.c.pos = outer }()
	f()
}

// refCounts is the number of expressions of f reading each variable.
func refCounts(f *ir.Function) map[*ir.Var]int {
	n := map[*ir.Var]int{}
	walkStmts(f.Body, func(ir.Stmt) {}, func(e ir.Expr) {
		if r, ok := e.(*ir.Ref); ok {
			n[r.Var]++
		}
	})
	return n
}

// substOf is, where statement s assigns a local that next, the statement
// after it in the same block, reads and nothing else does, the local and
// its value: the value is then compiled at the read, as part of next's
// tree (a DSL temporary of a load feeding an atomic or a store: one pass
// less, and the load fused into its user). The value is computed for the
// same lanes (s leaves none), before next has any effect (a statement's
// operands run on every lane before its store or atomic), from the same
// memory (nothing runs between); where next can fault only after its
// operands (nothing in it but the value can), the first fault is the same.
// nil where not.
func (lc *laneCompiler) substOf(s, next ir.Stmt) (*ir.Var, ir.Expr) {
	a, ok := s.(*ir.Assign)
	if !ok {
		return nil, nil
	}
	r, ok := a.Dst.(*ir.Ref)
	if !ok || r.Var.Kind != ir.VarLocal || !is32(r.Var.Type) || lc.refs[r.Var] != 1 || !lc.once[r.Var] || !valueOnly(a.Src) {
		return nil, nil
	}
	v := r.Var
	found := false
	ok = true
	check := func(e ir.Expr) { // next's operands: v's read, or what cannot fault
		var walk func(e ir.Expr)
		walk = func(e ir.Expr) {
			if x, isRef := e.(*ir.Ref); isRef && x.Var == v {
				found = true
				return
			}
			if !noFault(e) {
				ok = false
				return
			}
			for _, ch := range children(e) {
				walk(ch)
			}
		}
		walk(e)
	}
	place := func(p ir.Expr) bool { // a buffer's or shared variable's element
		ix, isIx := p.(*ir.Index)
		if !isIx {
			return false
		}
		root, isRef := ix.X.(*ir.Ref)
		if !isRef || (root.Var.Kind != ir.VarShared && root.Var.Type.Kind() != ir.KindBuffer) {
			return false
		}
		check(ix.I)
		return true
	}
	effect := func(e ir.Expr) { // an atomic on a place, or a value
		if c, isCall := e.(*ir.Call); isCall && c.Func == nil && isAtomicOp(c.Op) {
			if !place(c.Args[0]) {
				ok = false
			}
			for _, x := range c.Args[1:] {
				check(x)
			}
			return
		}
		check(e)
	}
	switch n := next.(type) {
	case *ir.Assign:
		if d, isRef := n.Dst.(*ir.Ref); isRef && d.Var.Kind == ir.VarLocal {
			effect(n.Src)
		} else if place(n.Dst) {
			check(n.Src)
		} else {
			return nil, nil
		}
	case *ir.ExprStmt:
		c, isCall := n.X.(*ir.Call)
		if !isCall || c.Func != nil || !isAtomicOp(c.Op) {
			return nil, nil
		}
		effect(n.X)
	default:
		return nil, nil
	}
	if !ok || !found {
		return nil, nil
	}
	return v, a.Src
}

// valueOnly says whether e computes a value from loads, locals, uniforms
// and arithmetic alone: no atomic, call or other effect.
func valueOnly(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.Literal, *ir.Ref, *ir.Binary, *ir.Unary, *ir.Cast, *ir.Swizzle, *ir.Index:
	case *ir.Call:
		if x.Func != nil || x.Op != ir.OpSelect && x.Op != ir.OpBufferSize {
			return false
		}
	default:
		return false
	}
	for _, ch := range children(e) {
		if !valueOnly(ch) {
			return false
		}
	}
	return true
}

// noFault says whether node e cannot fault by itself (its children
// aside): no load, no integer division but by a nonzero literal.
func noFault(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.Literal, *ir.Ref, *ir.Unary, *ir.Cast, *ir.Swizzle:
		return true
	case *ir.Binary:
		if (x.Op == ir.Div || x.Op == ir.Rem) && x.T.IsInteger() {
			l, isLit := x.Y.(*ir.Literal)
			return isLit && ir.Truncate(l.Bits, l.T) != 0
		}
		return true
	case *ir.Index:
		_, ok := vecComp(x)
		return ok
	case *ir.Call:
		return x.Func == nil && (x.Op == ir.OpSelect || x.Op == ir.OpBufferSize)
	}
	return false
}

// assignedOnce is the locals of f that one assignment writes (whole or in
// part) and no other.
func assignedOnce(f *ir.Function) map[*ir.Var]bool {
	n := map[*ir.Var]int{}
	walkStmts(f.Body, func(s ir.Stmt) {
		if a, ok := s.(*ir.Assign); ok {
			if v := ir.PlaceRoot(a.Dst); v != nil {
				n[v]++
			}
		}
	}, func(ir.Expr) {})
	out := map[*ir.Var]bool{}
	for v, c := range n {
		if c == 1 {
			out[v] = true
		}
	}
	return out
}

// unreadLocals is the locals of f that no expression reads (an atomic's
// old value kept in a DSL temporary): what they hold never matters.
func unreadLocals(f *ir.Function) map[*ir.Var]bool {
	read := map[*ir.Var]bool{}
	walkStmts(f.Body, func(ir.Stmt) {}, func(e ir.Expr) {
		if r, ok := e.(*ir.Ref); ok {
			read[r.Var] = true
		}
	})
	out := map[*ir.Var]bool{}
	for _, l := range f.Locals {
		if !read[l] {
			out[l] = true
		}
	}
	return out
}

// assignedFirst is the locals of f whose first mention is an assignment of
// the whole variable, in the kernel body itself, from a value that does not
// read it: every lane that reads one has written it before, so a batch
// need not zero it (the DSL's temporaries and initialised variables).
func assignedFirst(f *ir.Function) map[*ir.Var]bool {
	first, seen := map[*ir.Var]bool{}, map[*ir.Var]bool{}
	mention := func(s ir.Stmt) {
		walkStmts(&ir.Block{Stmts: []ir.Stmt{s}}, func(s ir.Stmt) {
			if a, ok := s.(*ir.Assign); ok {
				if v := ir.PlaceRoot(a.Dst); v != nil {
					seen[v] = true
				}
			}
		}, func(e ir.Expr) {
			if r, ok := e.(*ir.Ref); ok {
				seen[r.Var] = true
			}
		})
	}
	if f.Body == nil {
		return first
	}
	for _, s := range f.Body.Stmts {
		if a, ok := s.(*ir.Assign); ok {
			if r, ok := a.Dst.(*ir.Ref); ok && r.Var.Kind == ir.VarLocal && !seen[r.Var] {
				mention(&ir.ExprStmt{X: a.Src})
				first[r.Var] = !seen[r.Var]
			}
		}
		mention(s)
	}
	return first
}

func (lc *laneCompiler) tmp(n int) int {
	o := lc.p.nslots
	lc.p.nslots += n
	return o
}

func (lc *laneCompiler) newList() int {
	k := lc.p.nlists
	lc.p.nlists++
	return k
}

func (lc *laneCompiler) lit(v uint64) int {
	if o, ok := lc.lits[v]; ok {
		return o
	}
	o := lc.tmp(1)
	lc.lits[v] = o
	lc.p.consts = append(lc.p.consts, laneConst{slot: o, val: v})
	return o
}

// dispatchConst is a slot holding get(launch) in every lane.
func (lc *laneCompiler) dispatchConst(name string, get func(l *launch) uint64) int {
	if o, ok := lc.consts[name]; ok {
		return o
	}
	o := lc.tmp(1)
	lc.consts[name] = o
	lc.p.consts = append(lc.p.consts, laneConst{slot: o, get: get})
	return o
}

func (lc *laneCompiler) block(b *ir.Block) lstmt {
	var fns []lstmt
	if b != nil {
		var prev ir.Stmt
		var stmts []ir.Stmt
		for _, s := range b.Stmts {
			if _, ok := s.(*ir.Comment); !ok {
				stmts = append(stmts, s)
			}
		}
		for i, s := range stmts {
			lc.prev = prev
			prev = s
			if i+1 < len(stmts) {
				if v, e := lc.substOf(s, stmts[i+1]); v != nil {
					pos := ir.StmtPos(s)
					if pos == "" {
						pos = lc.c.pos
					}
					lc.subst[v] = substVal{e, pos} // compiled where the next statement reads it
					lc.p.substs++
					continue
				}
			}
			if f := lc.stmt(s); f != nil { // nil: nothing to run
				fns = append(fns, f)
			}
		}
	}
	switch len(fns) {
	case 0:
		return func(_ *lth, act []int32) []int32 { return act }
	case 1:
		return fns[0]
	}
	return func(t *lth, act []int32) []int32 {
		for _, f := range fns {
			if act = f(t, act); len(act) == 0 {
				return act
			}
		}
		return act
	}
}

// mark sets the status of every lane of act to s: they leave.
func mark(s uint8) lstmt {
	return func(t *lth, act []int32) []int32 {
		for _, l := range act {
			t.st[l] = s
		}
		t.marked += len(act)
		return act[:0]
	}
}

func (lc *laneCompiler) stmt(s ir.Stmt) lstmt {
	if pos := ir.StmtPos(s); pos != "" {
		defer func(outer string) { lc.c.pos = outer }(lc.c.pos)
		lc.c.pos = pos
	}
	defer func(outer map[ir.Expr]lex) { lc.memo = outer }(lc.memo)
	lc.memo = nil
	switch s := s.(type) {
	case *ir.Assign:
		if !hasAtomic(s.Src) && !hasAtomic(s.Dst) {
			lc.memo = map[ir.Expr]lex{}
		}
	case *ir.ExprStmt:
		if !hasAtomic(s.X) {
			lc.memo = map[ir.Expr]lex{}
		}
	}
	switch s := s.(type) {
	case *ir.Block:
		return lc.block(s)
	case *ir.If:
		return lc.ifStmt(s)
	case *ir.For:
		return lc.loop(s.Cond, s.Body, s.Update)
	case *ir.Loop:
		return lc.loop(nil, s.Body, nil)
	case *ir.Switch:
		return lc.switchStmt(s)
	case *ir.Break:
		lc.p.marks = true
		return mark(stBrk)
	case *ir.Continue:
		lc.p.marks = true
		return mark(stCont)
	case *ir.Return:
		if s.Value != nil {
			noLanes("a kernel returning a value")
		}
		lc.p.marks = true
		return mark(stRet)
	case *ir.Assign:
		return lc.assign(s)
	case *ir.ExprStmt:
		if c, ok := s.X.(*ir.Call); ok && c.Func == nil && c.Op == ir.OpBarrier {
			// The batch is the block, and the barrier is in uniform control
			// flow (compileLanes): every lane has done what comes before.
			return nil
		}
		// A call for its effect (an atomic whose old value goes unused).
		if c, ok := s.X.(*ir.Call); ok && c.Func == nil && isAtomicOp(c.Op) {
			lc.discard = true
		}
		ev := lc.expr(s.X, -1).eval
		lc.discard = false
		return func(t *lth, act []int32) []int32 {
			if ev != nil {
				ev(t, act)
			}
			return act
		}
	}
	noLanes("statement %T", s)
	return nil
}

// switchStmt runs each case on the lanes whose tag (a 32-bit integer,
// Validate) it lists and not an earlier case's, the default on the rest,
// every lane sorted before any body runs. A lane that breaks leaves the
// switch and goes on after it; one that continues or returns stays
// marked, for its loop or the kernel.
func (lc *laneCompiler) switchStmt(s *ir.Switch) lstmt {
	tag := lc.scalar(s.Tag, -1)
	ev, ts := tag.eval, tag.slot
	type laneCase struct {
		vals []uint32
		body lstmt
		list int
	}
	cases := make([]laneCase, len(s.Cases), len(s.Cases)+1)
	for i, c := range s.Cases {
		for _, v := range c.Values {
			cases[i].vals = append(cases[i].vals, uint32(v))
		}
		cases[i].body = lc.block(c.Body)
		cases[i].list = lc.newList()
	}
	if s.Default != nil && len(s.Default.Stmts) > 0 {
		cases = append(cases, laneCase{body: lc.block(s.Default), list: lc.newList()})
	}
	nvals := len(s.Cases) // cases past it are the default
	m := lc.newList()
	return func(t *lth, act []int32) []int32 {
		if ev != nil {
			ev(t, act)
		}
		r := t.r[ts*t.w : (ts+1)*t.w]
		var counts [16]int // each case's lanes; per call, as workers share the closure
		n := counts[:]
		if len(cases) > len(counts) {
			n = make([]int, len(cases))
		}
		for _, l := range act {
			v := uint32(r[l])
			i := 0
			for i < nvals && !slices.Contains(cases[i].vals, v) {
				i++
			}
			if i < len(cases) {
				t.list(cases[i].list)[n[i]] = l
				n[i]++
			}
		}
		m0 := t.marked
		for i, c := range cases {
			if n[i] > 0 {
				c.body(t, t.list(c.list)[:n[i]])
			}
		}
		if t.marked == m0 { // no lane broke, continued or returned
			return act
		}
		for _, l := range act {
			if t.st[l] == stBrk {
				t.st[l] = stRun
			}
		}
		return t.running(m, act)
	}
}

func (lc *laneCompiler) ifStmt(s *ir.If) lstmt {
	cond := lc.scalar(s.Cond, -1)
	then, els := lc.block(s.Then), lc.block(s.Else)
	a, b, m := lc.newList(), lc.newList(), lc.newList()
	ev, cs := cond.eval, cond.slot
	mono := lc.monoCond(s.Cond)
	if mono != nil {
		lc.p.monoIf++
	}
	if s.Else == nil || len(s.Else.Stmts) == 0 {
		// No else: only the lanes that take the branch are listed.
		return func(t *lth, act []int32) []int32 {
			if mono != nil {
				switch mono(t, act) {
				case 0:
					return act
				case 1:
					return t.after(m, act, then(t, act))
				}
			}
			if ev != nil {
				ev(t, act)
			}
			r := t.r[cs*t.w : (cs+1)*t.w]
			if allTrue(r, act) { // the commonest (a bounds check): the list as it is
				return t.after(m, act, then(t, act))
			}
			ta := t.list(a)
			na := 0
			for _, l := range act {
				if r[l] != 0 {
					ta[na] = l
					na++
				}
			}
			if na == 0 || len(then(t, ta[:na])) == na {
				return act
			}
			return t.running(m, act) // the lanes going on
		}
	}
	return func(t *lth, act []int32) []int32 {
		if mono != nil {
			switch mono(t, act) {
			case 0:
				return t.after(m, act, els(t, act))
			case 1:
				return t.after(m, act, then(t, act))
			}
		}
		if ev != nil {
			ev(t, act)
		}
		r := t.r[cs*t.w : (cs+1)*t.w]
		ta, tb := t.list(a), t.list(b)
		na, nb := 0, 0
		for _, l := range act {
			if r[l] != 0 {
				ta[na] = l
				na++
			} else {
				tb[nb] = l
				nb++
			}
		}
		var oa, ob []int32
		if na > 0 {
			oa = then(t, ta[:na])
		}
		if nb > 0 {
			ob = els(t, tb[:nb])
		}
		if len(oa) == na && len(ob) == nb {
			return act
		}
		return t.running(m, act) // the lanes going on
	}
}

// linID says whether x is the x component of the dispatch or thread id of
// a one-dimensional block, read from its row: lane l of a batch holds lane
// 0's value plus l (ids do not wrap), so on a dense batch the lanes' values
// are consecutive.
func (lc *laneCompiler) linID(x ir.Expr) bool {
	sw, ok := x.(*ir.Swizzle)
	if !ok || !lc.linear || len(sw.Comps) != 1 || sw.Comps[0] != 0 {
		return false
	}
	r, ok := sw.X.(*ir.Ref)
	if !ok || r.Var.Kind != ir.VarBuiltin || (r.Var.Builtin != ir.DispatchID && r.Var.Builtin != ir.ThreadID) {
		return false
	}
	_, h := lc.hoisted[sw.X]
	return !h
}

// monoCond is, for a condition comparing the x id of a one-dimensional
// block (dispatch or thread id) with a value the same in every lane (a
// bounds check: i < n), what decides it for a batch from its first and last
// lanes: a lane list is in lane order, so its ids increase and the
// comparison, monotone in the id, holds for every lane (1) or none (0) when
// it is the same at both ends; -1 otherwise (each lane's then computed).
// nil where the condition is not of that shape. Nothing in it can fault.
func (lc *laneCompiler) monoCond(e ir.Expr) func(t *lth, act []int32) int {
	b, ok := e.(*ir.Binary)
	if !ok || !lc.linear || b.X.Type() != ir.TU32 || b.Y.Type() != ir.TU32 {
		return nil
	}
	op := b.Op
	var cmp func(x, y uint32) bool
	idLeaf := func(x ir.Expr) (int, bool) {
		if !lc.linID(x) {
			return 0, false
		}
		l := lc.expr(x, -1)
		return l.slot, l.eval == nil
	}
	uni := func(y ir.Expr) (int, bool) {
		if !lc.uniform.expr(y) {
			return 0, false
		}
		switch y.(type) {
		case *ir.Ref, *ir.Literal:
		default:
			return 0, false
		}
		l := lc.expr(y, -1)
		return l.slot, l.eval == nil && l.n == 1
	}
	xs, okx := idLeaf(b.X)
	ys, oky := uni(b.Y)
	if !okx || !oky {
		// n > i: the id on the right.
		if xs, okx = idLeaf(b.Y); !okx {
			return nil
		}
		if ys, oky = uni(b.X); !oky {
			return nil
		}
		switch op {
		case ir.Lt:
			op = ir.Gt
		case ir.Le:
			op = ir.Ge
		case ir.Gt:
			op = ir.Lt
		case ir.Ge:
			op = ir.Le
		}
	}
	switch op {
	case ir.Lt:
		cmp = func(x, y uint32) bool { return x < y }
	case ir.Le:
		cmp = func(x, y uint32) bool { return x <= y }
	case ir.Gt:
		cmp = func(x, y uint32) bool { return x > y }
	case ir.Ge:
		cmp = func(x, y uint32) bool { return x >= y }
	default:
		return nil
	}
	return func(t *lth, act []int32) int {
		w := t.w
		l0, l1 := act[0], act[len(act)-1]
		y := uint32(t.r[ys*w+int(l0)])
		c0, c1 := cmp(uint32(t.r[xs*w+int(l0)]), y), cmp(uint32(t.r[xs*w+int(l1)]), y)
		switch {
		case c0 != c1:
			return -1
		case c0:
			return 1
		}
		return 0
	}
}

// allTrue says whether r is nonzero at every lane of act.
func allTrue(r []uint64, act []int32) bool {
	if d := dense(act); d > 0 {
		for _, v := range r[:d] {
			if v == 0 {
				return false
			}
		}
		return true
	}
	for _, l := range act {
		if r[l] == 0 {
			return false
		}
	}
	return true
}

// loop is For (cond and update may be nil) and Loop.
func (lc *laneCompiler) loop(condE ir.Expr, bodyB, updB *ir.Block) lstmt {
	prev := lc.prev
	// Loop-invariant expressions (the DSL writes them into the body) are
	// computed once for the lanes entering the loop, as on the per-thread
	// engine (hoist.go: they cannot fault).
	var hoisted []ir.Expr
	var evs []func(*lth, []int32)
	for _, e := range hoistable([]any{condE, bodyB, updB}, func(e ir.Expr) bool { _, done := lc.hoisted[e]; return done }) {
		x := lc.expr(e, -1)
		evs = append(evs, x.eval)
		lc.hoisted[e] = lex{slot: x.slot, n: x.n}
		hoisted = append(hoisted, e)
	}
	defer func() {
		for _, e := range hoisted {
			delete(lc.hoisted, e)
		}
	}()
	pre := seq(evs...)
	var cond lex
	// A condition the same in every lane of the block (uniform.go) is
	// decided by the first lane in the loop, for all of them.
	uni := false
	if condE != nil {
		cond = lc.scalar(condE, -1)
		if uni = lc.uniform.loopCond(prev, condE, bodyB, updB); uni {
			lc.p.uniL++
		}
	}
	body, upd := lc.block(bodyB), lc.block(updB)
	hasUpd := updB != nil && len(updB.Stmts) > 0
	in, out := lc.newList(), lc.newList()
	hasCond := condE != nil
	ev, cs := cond.eval, cond.slot
	return func(t *lth, act []int32) []int32 {
		if pre != nil {
			pre(t, act)
		}
		cur := t.list(in)
		cur = cur[:copy(cur, act)]
		returned := false
		for len(cur) > 0 {
			if t.run.failed.Load() || t.run.stop.Load() {
				panic(errAbort) // a closing device, or a fault in another thread
			}
			if hasCond && uni {
				if ev != nil {
					ev(t, cur[:1])
				}
				if t.r[cs*t.w+int(cur[0])] == 0 {
					break
				}
			} else if hasCond {
				if ev != nil {
					ev(t, cur)
				}
				r := t.r[cs*t.w : (cs+1)*t.w]
				k := 0
				for _, l := range cur {
					if r[l] != 0 {
						cur[k] = l
						k++
					}
				}
				if cur = cur[:k]; k == 0 {
					break
				}
			}
			m0 := t.marked
			body(t, cur)
			if t.marked == m0 { // no lane broke, continued or returned
				if hasUpd {
					upd(t, cur)
				}
				continue
			}
			k := 0
			for _, l := range cur {
				switch t.st[l] {
				case stCont:
					t.st[l] = stRun
					fallthrough
				case stRun:
					cur[k] = l
					k++
				case stBrk:
					t.st[l] = stRun
				case stRet:
					returned = true
				}
			}
			cur = cur[:k]
			if hasUpd && k > 0 {
				upd(t, cur)
			}
		}
		if !returned {
			return act
		}
		return t.running(out, act)
	}
}

func (lc *laneCompiler) assign(s *ir.Assign) lstmt {
	if ix, ok := s.Dst.(*ir.Index); ok && ix.X.Type().Kind() == ir.KindBuffer {
		return lc.store(ix, s.Src)
	}
	if v := ir.PlaceRoot(s.Dst); v != nil && v.Kind == ir.VarShared {
		return lc.sharedStore(s.Dst, s.Src)
	}
	r, ok := s.Dst.(*ir.Ref)
	if !ok {
		noLanes("assignment to %T", s.Dst)
	}
	d, ok := lc.slots[r.Var]
	if !ok {
		noLanes("assignment to %s", r.Var.Name)
	}
	n := ir.Leaves(r.Var.Type)
	dst := -1
	if b, ok := s.Src.(*ir.Binary); n == 1 || ok && b.X.Type().Kind() == ir.KindVector {
		dst = d // the operation writes the variable itself
	}
	if c, ok := s.Src.(*ir.Call); ok && c.Func == nil && lc.unread[r.Var] && isAtomicOp(c.Op) {
		lc.discard = true // cleared by the atomic, before its operands
	}
	src := lc.expr(s.Src, dst)
	lc.discard = false
	if src.n != n {
		noLanes("assignment of %d leaves to %d", src.n, n)
	}
	ev, so := src.eval, src.slot
	if ev == nil && n == 1 && lc.first[r.Var] && lc.once[r.Var] && lc.isConst(so) {
		// The kernel's one assignment of the variable, before any mention
		// of it, of a value the same in every lane all the dispatch (a
		// buffer's length, a uniform, a literal): the variable is that
		// constant slot, and nothing is copied.
		lc.slots[r.Var] = so
		return nil
	}
	if so == d {
		return func(t *lth, act []int32) []int32 {
			if ev != nil {
				ev(t, act)
			}
			return act
		}
	}
	return func(t *lth, act []int32) []int32 {
		if ev != nil {
			ev(t, act)
		}
		w := t.w
		dn := dense(act)
		for k := range n {
			a, b := t.r[(d+k)*w:(d+k+1)*w], t.r[(so+k)*w:(so+k+1)*w]
			if dn > 0 {
				copy(a[:dn], b[:dn])
				continue
			}
			for _, l := range act {
				a[l] = b[l]
			}
		}
		return act
	}
}

// word32 is a buffer argument of 4-byte elements indexed by an integer.
func (lc *laneCompiler) word32(ix *ir.Index) (k int, idx lex, signed bool, label site) {
	if ix.T.Size() != 4 || !ix.T.IsScalar() {
		noLanes("buffer access of %s", ix.T)
	}
	if !ix.I.Type().IsInteger() || ix.I.Type().Bits() != 32 {
		noLanes("buffer index of %s", ix.I.Type())
	}
	v := ix.X.(*ir.Ref).Var
	return lc.c.params[v], lc.scalar(ix.I, -1), ix.I.Type().Kind() == ir.KindInt, lc.c.argSite(v)
}

// words is an access to a buffer element of several 4-byte leaves (a vec4,
// a struct of 4-byte fields): the checked element index, then each leaf.
func (lc *laneCompiler) words(ix *ir.Index) (k int, idx lex, signed bool, label site, offs []int, es uint64) {
	if !ix.I.Type().IsInteger() || ix.I.Type().Bits() != 32 {
		noLanes("buffer index of %s", ix.I.Type())
	}
	for _, l := range layout(ix.T) {
		if l.size != 4 {
			noLanes("buffer access of %s", ix.T)
		}
		offs = append(offs, l.off)
	}
	v := ix.X.(*ir.Ref).Var
	return lc.c.params[v], lc.scalar(ix.I, -1), ix.I.Type().Kind() == ir.KindInt, lc.c.argSite(v), offs, uint64(ix.T.Size())
}

// elemAt is the checked byte offset of element i (as its index's bits).
func (t *lth) elemAt(l int32, i uint64, signed bool, b []byte, es uint64, label site) uint64 {
	if signed {
		i = uint64(int64(int32(uint32(i))))
	}
	if n := uint64(len(b)) / es; i >= n {
		t.fault(l, label, i, n)
	}
	return i * es
}

func (lc *laneCompiler) storeWords(ix *ir.Index, src ir.Expr) lstmt {
	v := lc.expr(src, -1) // compiled in the order they run
	k, idx, signed, label, offs, es := lc.words(ix)
	if v.n != len(offs) {
		noLanes("a store of %d leaves into %s", v.n, ix.T)
	}
	pre := seq(v.eval, idx.eval)
	is, vs := idx.slot, v.slot
	return func(t *lth, act []int32) []int32 {
		if pre != nil {
			pre(t, act)
		}
		w := t.w
		b := t.run.bufs[k]
		ri := t.r[is*w : (is+1)*w]
		for _, l := range act {
			at := t.elemAt(l, ri[l], signed, b, es, label)
			for j, off := range offs {
				binary.LittleEndian.PutUint32(b[at+uint64(off):], uint32(t.r[(vs+j)*w+int(l)]))
			}
		}
		return act
	}
}

func (lc *laneCompiler) loadWords(ix *ir.Index) lex {
	k, idx, signed, label, offs, es := lc.words(ix)
	o := lc.tmp(len(offs))
	iev, is := idx.eval, idx.slot
	uni := lc.uniform.expr(ix.I)
	return lex{slot: o, n: len(offs), eval: func(t *lth, act []int32) {
		if iev != nil {
			iev(t, act)
		}
		w := t.w
		b := t.run.bufs[k]
		ri := t.r[is*w : (is+1)*w]
		if uni {
			// The same element in every lane: read once (the first lane
			// faults, as it would first), then broadcast.
			l0 := act[0]
			at := t.elemAt(l0, ri[l0], signed, b, es, label)
			d := dense(act)
			for j, off := range offs {
				v := uint64(binary.LittleEndian.Uint32(b[at+uint64(off):]))
				row := t.r[(o+j)*w : (o+j+1)*w]
				if d > 0 {
					fill64(row[:d], v)
					continue
				}
				for _, l := range act {
					row[l] = v
				}
			}
			return
		}
		for _, l := range act {
			at := t.elemAt(l, ri[l], signed, b, es, label)
			for j, off := range offs {
				t.r[(o+j)*w+int(l)] = uint64(binary.LittleEndian.Uint32(b[at+uint64(off):]))
			}
		}
	}}
}

func (lc *laneCompiler) store(ix *ir.Index, src ir.Expr) lstmt {
	if !ix.T.IsScalar() {
		return lc.storeWords(ix, src)
	}
	if laneFuse && fusableLoad(ix) && (lc.fusable(src) || lc.fusable(ix.I)) {
		return lc.fuseStore(ix, src)
	}
	v := lc.scalar(src, -1) // compiled in the order they run
	k, idx, signed, label := lc.word32(ix)
	iev, is, vev, vs := idx.eval, idx.slot, v.eval, v.slot
	return func(t *lth, act []int32) []int32 {
		if vev != nil {
			vev(t, act)
		}
		if iev != nil {
			iev(t, act)
		}
		w := t.w
		b := t.run.bufs[k]
		n := uint64(len(b)) / 4
		ri, rv := t.r[is*w:(is+1)*w], t.r[vs*w:(vs+1)*w]
		if d := dense(act); d > 0 && !signed {
			ri, rv := ri[:d], rv[:d]
			for l, i := range ri {
				if i >= n {
					t.fault(int32(l), label, i, n)
				}
				binary.LittleEndian.PutUint32(b[4*i:], uint32(rv[l]))
			}
			return act
		}
		for _, l := range act {
			i := ri[l]
			if signed {
				i = uint64(int64(int32(uint32(i))))
			}
			if i >= n {
				t.fault(l, label, i, n)
			}
			binary.LittleEndian.PutUint32(b[4*i:], uint32(rv[l]))
		}
		return act
	}
}

// fault fails the dispatch for lane l's thread: buffer index i of label
// out of range [0, n).
func (t *lth) fault(l int32, label site, i, n uint64) {
	t.faultKind(l, label, device.FaultBufferIndex, i, n)
}

// faultKind fails the dispatch for lane l's thread with a fault of kind at
// label: index i out of range [0, n).
func (t *lth) faultKind(l int32, label site, kind device.FaultKind, i, n uint64) {
	t.flane = l
	label.fault(kind, i, n)
}

// scalar compiles a one-leaf expression.
func (lc *laneCompiler) scalar(e ir.Expr, dst int) lex {
	x := lc.expr(e, dst)
	if x.n != 1 {
		noLanes("%d-leaf value where a scalar goes", x.n)
	}
	return x
}

// out is the slot an operation writes: dst, or a new temporary.
func (lc *laneCompiler) out(dst int) int {
	if dst >= 0 {
		return dst
	}
	return lc.tmp(1)
}

// expr compiles e; an operation writes its result into dst when dst >= 0
// (lanes read their own operands before writing, so dst may be an operand).
func (lc *laneCompiler) expr(e ir.Expr, dst int) lex {
	if h, ok := lc.hoisted[e]; ok {
		return h
	}
	if lc.memo == nil || dst >= 0 {
		return lc.expr1(e, dst)
	}
	if x, ok := lc.memo[e]; ok {
		return lex{slot: x.slot, n: x.n} // computed before, in the same lanes
	}
	x := lc.expr1(e, dst)
	lc.memo[e] = x
	return x
}

// expr1 is expr of a node not computed before.
func (lc *laneCompiler) expr1(e ir.Expr, dst int) lex {
	if laneFuse && lc.fusable(e) {
		// One node fused where the unfused engine has no loop of its own
		// for it (a remainder: a call a lane).
		b, bin := e.(*ir.Binary)
		slow := bin && b.X.Type().IsScalar() && laneFast(b.Op, b.X.Type().Scalar(), b.Y.Type().Scalar(), nil, 0, 0, 0) == nil
		if _, load := e.(*ir.Index); load || slow || lc.fusedNodes(e) > 1 {
			return lc.fuseExpr(e, dst)
		}
	}
	switch e := e.(type) {
	case *slotExpr:
		return lex{slot: e.slot, n: 1}
	case *ir.Literal:
		return lex{slot: lc.lit(ir.Truncate(e.Bits, e.T)), n: 1}
	case *ir.Ref:
		if sv, ok := lc.subst[e.Var]; ok {
			var x lex
			sv.at(lc, func() { x = lc.expr(sv.e, dst) })
			return x
		}
		return lc.ref(e.Var)
	case *ir.Swizzle:
		var mask uint8
		for _, c := range e.Comps {
			mask |= 1 << c
		}
		x := lc.vecOf(e.X, mask)
		run := true // components in order, one after another: a view
		for i, c := range e.Comps {
			run = run && int(c) == int(e.Comps[0])+i
		}
		if run {
			return lex{eval: x.eval, slot: x.slot + int(e.Comps[0]), n: len(e.Comps)}
		}
		srcs := make([]int, len(e.Comps))
		for i, c := range e.Comps {
			srcs[i] = x.slot + int(c)
		}
		return lc.gather(x.eval, srcs)
	case *ir.Construct:
		if e.T.Kind() != ir.KindVector {
			noLanes("construct of %s", e.T)
		}
		n := ir.Leaves(e.T)
		var evs []func(*lth, []int32)
		var srcs []int
		for _, a := range e.Args {
			x := lc.expr(a, -1)
			evs = append(evs, x.eval)
			for k := range x.n {
				srcs = append(srcs, x.slot+k)
			}
		}
		if len(srcs) == 1 { // a splat
			for len(srcs) < n {
				srcs = append(srcs, srcs[0])
			}
		}
		if len(srcs) != n {
			noLanes("construct of %s from %d scalars", e.T, len(srcs))
		}
		return lc.gather(seq(evs...), srcs)
	case *ir.Member:
		if v := ir.PlaceRoot(e); v != nil && v.Kind == ir.VarShared {
			return lc.sharedLoad(e, dst)
		}
	case *ir.Index:
		xt := e.X.Type()
		if xt.Kind() == ir.KindBuffer {
			return lc.load(e, dst)
		}
		if v := ir.PlaceRoot(e); v != nil && v.Kind == ir.VarShared {
			return lc.sharedLoad(e, dst)
		}
		if ca, ok := e.X.(*ir.ConstArray); ok && ir.Leaves(e.T) == 1 {
			return lc.constIndex(ca, e.I, dst)
		}
		// A constant component of a vector (id.X from Go source).
		if l, ok := e.I.(*ir.Literal); ok && xt.Kind() == ir.KindVector {
			if i := ir.Truncate(l.Bits, l.T); i < uint64(xt.Len()) && (l.T.Kind() == ir.KindUint || int64(ir.SignExtend(l.Bits, l.T)) >= 0) {
				x := lc.vecOf(e.X, 1<<i)
				return lex{eval: x.eval, slot: x.slot + int(i), n: 1}
			}
		}
		noLanes("index of %s", xt)
	case *ir.Binary:
		return lc.binary(e, dst)
	case *ir.Unary:
		return lc.unary(e, dst)
	case *ir.Cast:
		return lc.cast(e, dst)
	case *ir.Call:
		if e.Func == nil {
			return lc.builtin(e, dst)
		}
	}
	noLanes("expression %T", e)
	return lex{}
}

// slotExpr is an operand already in a slot (a component, in compwise).
type slotExpr struct {
	ir.Expr
	slot int
	t    *ir.Type
}

func (e *slotExpr) Type() *ir.Type { return e.t }

// norm is dot, length and distance on vectors of floats: the sum in
// float64, as the per-thread engine computes it.
func (lc *laneCompiler) norm(e *ir.Call, dst int) lex {
	at := e.Args[0].Type()
	if at.Kind() != ir.KindVector || at.Scalar().Kind() != ir.KindFloat {
		noLanes("built-in %s on %s", e.Op, at)
	}
	s := at.Scalar()
	x := lc.expr(e.Args[0], -1)
	y := x
	if len(e.Args) > 1 {
		y = lc.expr(e.Args[1], -1)
	}
	pre := seq(x.eval, y.eval)
	if len(e.Args) == 1 {
		pre = x.eval
	}
	o, m, a, b, op := lc.out(dst), x.n, x.slot, y.slot, e.Op
	if s == ir.TF32 {
		// Component by component over the lanes, each lane's sum in float64
		// in the same order.
		ev := normF32(op, m, a, b, o)
		if pre != nil {
			ev = seq(pre, ev)
		}
		return lex{slot: o, n: 1, eval: ev}
	}
	return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
		if pre != nil {
			pre(t, act)
		}
		w := t.w
		for _, l := range act {
			var sum float64
			for i := range m {
				p, q := toF(t.r[(a+i)*w+int(l)], s), toF(t.r[(b+i)*w+int(l)], s)
				if op == ir.OpDistance {
					p, q = p-q, p-q
				} else if op != ir.OpDot {
					q = p
				}
				sum += p * q
			}
			if op != ir.OpDot {
				sum = math.Sqrt(sum)
			}
			t.r[o*w+int(l)] = fromF(sum, s)
		}
	}}
}

func (lc *laneCompiler) ref(v *ir.Var) lex {
	switch v.Kind {
	case ir.VarLocal:
		return lex{slot: lc.slots[v], n: ir.Leaves(v.Type)}
	case ir.VarArg:
		if v.Type.IsResource() {
			noLanes("resource %s used as a value", v.Name)
		}
		return lex{slot: lc.uni[v], n: ir.Leaves(v.Type)}
	case ir.VarBuiltin:
		lc.useComps(v.Builtin, 7)
		return lc.builtinVar(v.Builtin)
	}
	noLanes("variable %s (%v)", v.Name, v.Kind)
	return lex{}
}

// vecOf compiles vector x of which the components in mask are read: of a
// built-in id, only those are filled per batch.
func (lc *laneCompiler) vecOf(x ir.Expr, mask uint8) lex {
	if r, ok := x.(*ir.Ref); ok && r.Var.Kind == ir.VarBuiltin {
		if _, h := lc.hoisted[x]; !h {
			lc.useComps(r.Var.Builtin, mask)
			return lc.builtinVar(r.Var.Builtin)
		}
	}
	return lc.expr(x, -1)
}

// useComps records that the components in mask of built-in b are read.
func (lc *laneCompiler) useComps(b ir.BuiltinVar, mask uint8) {
	switch b {
	case ir.DispatchID:
		lc.p.idUse |= mask
	case ir.ThreadID:
		lc.p.tidUse |= mask
	}
}

func (lc *laneCompiler) builtinVar(b ir.BuiltinVar) lex {
	filled := func(o *int) lex { // filled per batch (ids) or per block
		if *o < 0 {
			*o = lc.tmp(3)
		}
		return lex{slot: *o, n: 3}
	}
	vec := func(name string, get func(l *launch, i int) uint64) lex {
		if o, ok := lc.consts[name]; ok {
			return lex{slot: o, n: 3}
		}
		o := lc.tmp(3)
		lc.consts[name] = o
		for i := range 3 {
			lc.p.consts = append(lc.p.consts, laneConst{slot: o + i, get: func(l *launch) uint64 { return get(l, i) }})
		}
		return lex{slot: o, n: 3}
	}
	switch b {
	case ir.DispatchID:
		return filled(&lc.p.ids)
	case ir.ThreadID:
		return filled(&lc.p.tids)
	case ir.BlockID:
		return filled(&lc.p.bids)
	case ir.DispatchSize:
		return vec("size", func(l *launch, i int) uint64 { return uint64(l.size[i]) })
	case ir.BlockSize:
		return vec("block", func(l *launch, i int) uint64 { return uint64(l.block[i]) })
	case ir.DispatchGroups:
		return vec("groups", func(l *launch, i int) uint64 { return uint64(l.groups[i]) })
	case ir.SubgroupLane:
		return lex{slot: lc.lit(0), n: 1}
	case ir.SubgroupSize:
		return lex{slot: lc.lit(1), n: 1}
	}
	noLanes("built-in variable %v", b)
	return lex{}
}

func (lc *laneCompiler) load(e *ir.Index, dst int) lex {
	if !e.T.IsScalar() {
		return lc.loadWords(e)
	}
	k, idx, signed, label := lc.word32(e)
	o := lc.out(dst)
	iev, is := idx.eval, idx.slot
	return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
		if iev != nil {
			iev(t, act)
		}
		w := t.w
		b := t.run.bufs[k]
		n := uint64(len(b)) / 4
		ri, rd := t.r[is*w:(is+1)*w], t.r[o*w:(o+1)*w]
		if d := dense(act); d > 0 && !signed {
			ri, rd := ri[:d], rd[:d]
			for l, i := range ri {
				if i >= n {
					t.fault(int32(l), label, i, n)
				}
				rd[l] = uint64(binary.LittleEndian.Uint32(b[4*i:]))
			}
			return
		}
		for _, l := range act {
			i := ri[l]
			if signed {
				i = uint64(int64(int32(uint32(i))))
			}
			if i >= n {
				t.fault(l, label, i, n)
			}
			rd[l] = uint64(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}}
}

// gather copies slots srcs into new consecutive slots, after pre.
func (lc *laneCompiler) gather(pre func(*lth, []int32), srcs []int) lex {
	o := lc.tmp(len(srcs))
	return lex{slot: o, n: len(srcs), eval: func(t *lth, act []int32) {
		if pre != nil {
			pre(t, act)
		}
		w := t.w
		for j, sl := range srcs {
			a, b := t.r[(o+j)*w:(o+j+1)*w], t.r[sl*w:(sl+1)*w]
			if d := dense(act); d > 0 {
				copy(a[:d], b[:d])
				continue
			}
			for _, l := range act {
				a[l] = b[l]
			}
		}
	}}
}

// compwise is an operation on vectors, component by component: comp(k)
// makes component k's lane loop; operands of one leaf are broadcast.
// normF32 is the lane loop of dot, length or distance on float32 vectors
// of m components in slots a.. and b..: each lane's sum in float64, the
// components in order, as the per-thread engine adds them. The operation
// is chosen once a batch, not once a lane and component, and a list of
// every lane runs as a plain loop over the rows.
//
// Not inlined: a closure copied into a large caller is compiled under
// that caller's smaller inlining budget, which left f32, uf32 and dense
// as calls in its inner loops.
//
//go:noinline
func normF32(op ir.Op, m, a, b, o int) func(*lth, []int32) {
	return func(t *lth, act []int32) {
		w := t.w
		if len(t.sum) < w {
			t.sum = make([]float64, w)
		}
		if n := dense(act); n > 0 {
			sum := t.sum[:n]
			clear(sum)
			for i := range m {
				ra, rb := t.r[(a+i)*w:][:n], t.r[(b+i)*w:][:n]
				switch op {
				case ir.OpDot:
					for l := range sum {
						sum[l] += float64(f32(ra[l])) * float64(f32(rb[l]))
					}
				case ir.OpLength:
					for l := range sum {
						p := float64(f32(ra[l]))
						sum[l] += p * p
					}
				default:
					for l := range sum {
						p := float64(f32(ra[l])) - float64(f32(rb[l]))
						sum[l] += p * p
					}
				}
			}
			ro := t.r[o*w:][:n]
			if op == ir.OpDot {
				for l, v := range sum {
					ro[l] = uf32(float32(v))
				}
				return
			}
			for l, v := range sum {
				ro[l] = uf32(float32(math.Sqrt(v)))
			}
			return
		}
		sum := t.sum[:w]
		for _, l := range act {
			sum[l] = 0
		}
		for i := range m {
			ra, rb := t.r[(a+i)*w:(a+i+1)*w], t.r[(b+i)*w:(b+i+1)*w]
			switch op {
			case ir.OpDot:
				for _, l := range act {
					sum[l] += float64(f32(ra[l])) * float64(f32(rb[l]))
				}
			case ir.OpLength:
				for _, l := range act {
					p := float64(f32(ra[l]))
					sum[l] += p * p
				}
			default:
				for _, l := range act {
					p := float64(f32(ra[l])) - float64(f32(rb[l]))
					sum[l] += p * p
				}
			}
		}
		ro := t.r[o*w : (o+1)*w]
		for _, l := range act {
			v := sum[l]
			if op != ir.OpDot {
				v = math.Sqrt(v)
			}
			ro[l] = uf32(float32(v))
		}
	}
}

// unaryF32 is the lane loop of the commonest float32 built-ins of one
// operand from slot a to o, as RefFloat32 computes them, written out (no
// call per lane); nil for the others. Not inlined, for the reason normF32
// is not.
//
//go:noinline
func unaryF32(op ir.Op, a, o int) func(*lth, []int32) {
	switch op {
	case ir.OpSqrt:
		return func(t *lth, act []int32) {
			w := t.w
			ra, ro := t.r[a*w:(a+1)*w], t.r[o*w:(o+1)*w]
			if n := dense(act); n > 0 {
				ra, ro := ra[:n], ro[:n]
				for l := range ro {
					ro[l] = uf32(float32(math.Sqrt(float64(f32(ra[l])))))
				}
				return
			}
			for _, l := range act {
				ro[l] = uf32(float32(math.Sqrt(float64(f32(ra[l])))))
			}
		}
	case ir.OpInverseSqrt:
		return func(t *lth, act []int32) {
			w := t.w
			ra, ro := t.r[a*w:(a+1)*w], t.r[o*w:(o+1)*w]
			if n := dense(act); n > 0 {
				ra, ro := ra[:n], ro[:n]
				for l := range ro {
					ro[l] = uf32(float32(1 / math.Sqrt(float64(f32(ra[l])))))
				}
				return
			}
			for _, l := range act {
				ro[l] = uf32(float32(1 / math.Sqrt(float64(f32(ra[l])))))
			}
		}
	case ir.OpAbs:
		return func(t *lth, act []int32) {
			w := t.w
			ra, ro := t.r[a*w:(a+1)*w], t.r[o*w:(o+1)*w]
			if n := dense(act); n > 0 {
				ra, ro := ra[:n], ro[:n]
				for l := range ro {
					ro[l] = uf32(float32(math.Abs(float64(f32(ra[l])))))
				}
				return
			}
			for _, l := range act {
				ro[l] = uf32(float32(math.Abs(float64(f32(ra[l])))))
			}
		}
	case ir.OpFloor:
		return func(t *lth, act []int32) {
			w := t.w
			ra, ro := t.r[a*w:(a+1)*w], t.r[o*w:(o+1)*w]
			if n := dense(act); n > 0 {
				ra, ro := ra[:n], ro[:n]
				for l := range ro {
					ro[l] = uf32(float32(math.Floor(float64(f32(ra[l])))))
				}
				return
			}
			for _, l := range act {
				ro[l] = uf32(float32(math.Floor(float64(f32(ra[l])))))
			}
		}
	}
	return nil
}

func (lc *laneCompiler) compwise(n int, args []lex, comp func(slots []int, o int) func(*lth, []int32), dst int) lex {
	var evs []func(*lth, []int32)
	for _, a := range args {
		if a.n != 1 && a.n != n {
			noLanes("an operation on %d and %d leaves", a.n, n)
		}
		evs = append(evs, a.eval)
	}
	pre := seq(evs...)
	// Into dst (a variable assigned the value) where no operand reads a
	// component of it that an earlier component's loop writes.
	for _, a := range args {
		if dst >= 0 && a.slot < dst+n && dst < a.slot+a.n && (a.slot != dst || a.n != n) {
			dst = -1
		}
	}
	o := dst
	if o < 0 {
		o = lc.tmp(n)
	}
	comps := make([]func(*lth, []int32), n)
	for k := range n {
		slots := make([]int, len(args))
		for i, a := range args {
			slots[i] = a.slot
			if a.n > 1 {
				slots[i] += k
			}
		}
		comps[k] = comp(slots, o+k)
	}
	return lex{slot: o, n: n, eval: func(t *lth, act []int32) {
		if pre != nil {
			pre(t, act)
		}
		for _, c := range comps {
			c(t, act)
		}
	}}
}

// dense returns n where act is every lane 0..n-1 (lists are kept in
// order), else 0: the lane loop then runs without the list.
func dense(act []int32) int {
	n := len(act)
	if n > 0 && act[0] == 0 && int(act[n-1]) == n-1 {
		return n
	}
	return 0
}

// seq runs evals in order.
func seq(evs ...func(*lth, []int32)) func(*lth, []int32) {
	var fs []func(*lth, []int32)
	for _, f := range evs {
		if f != nil {
			fs = append(fs, f)
		}
	}
	switch len(fs) {
	case 0:
		return nil
	case 1:
		return fs[0]
	case 2:
		a, b := fs[0], fs[1]
		return func(t *lth, act []int32) { a(t, act); b(t, act) }
	}
	return func(t *lth, act []int32) {
		for _, f := range fs {
			f(t, act)
		}
	}
}

// op2 makes the lane loop of a binary operation f from slots a and b to o.
func op2(pre func(*lth, []int32), a, b, o int, f func(x, y uint64) uint64) func(*lth, []int32) {
	return func(t *lth, act []int32) {
		if pre != nil {
			pre(t, act)
		}
		w := t.w
		ra, rb, ro := t.r[a*w:(a+1)*w], t.r[b*w:(b+1)*w], t.r[o*w:(o+1)*w]
		for _, l := range act {
			t.flane = l
			ro[l] = f(ra[l], rb[l])
		}
	}
}

func (lc *laneCompiler) binary(e *ir.Binary, dst int) lex {
	xt, yt := e.X.Type(), e.Y.Type()
	if xt.Kind() == ir.KindMatrix || yt.Kind() == ir.KindMatrix {
		noLanes("%s on %s and %s", e.Op, xt, yt)
	}
	checkFloat(xt, "arithmetic")
	if n := ir.Leaves(e.T); n > 1 || !xt.IsScalar() || !yt.IsScalar() {
		if e.Op == ir.LogicAnd || e.Op == ir.LogicOr {
			noLanes("%s on vectors", e.Op)
		}
		s, ys := xt.Scalar(), yt.Scalar()
		op := scalarOpAt(e.Op, s, ys, lc.c.pos)
		return lc.compwise(n, []lex{lc.expr(e.X, -1), lc.expr(e.Y, -1)}, func(sl []int, o int) func(*lth, []int32) {
			if f := laneFast(e.Op, s, ys, nil, sl[0], sl[1], o); f != nil {
				return f
			}
			return op2(nil, sl[0], sl[1], o, op)
		}, dst)
	}
	if e.Op == ir.LogicAnd || e.Op == ir.LogicOr {
		return lc.logic(e, dst)
	}
	x, y := lc.scalar(e.X, -1), lc.scalar(e.Y, -1)
	o := lc.out(dst)
	pre := seq(x.eval, y.eval)
	a, b := x.slot, y.slot
	s := xt.Scalar()
	if f := laneFast(e.Op, s, yt.Scalar(), pre, a, b, o); f != nil {
		return lex{eval: f, slot: o, n: 1}
	}
	return lex{eval: op2(pre, a, b, o, scalarOpAt(e.Op, s, yt.Scalar(), lc.c.pos)), slot: o, n: 1}
}

// laneFast is the lane loop of the commonest float32 and u32 operations,
// written out (no call per lane).
func laneFast(op ir.BinaryOp, s, ys *ir.Type, pre func(*lth, []int32), a, b, o int) func(*lth, []int32) {
	type k = struct {
		s  *ir.Type
		op ir.BinaryOp
	}
	var f func(ra, rb, ro []uint64, act []int32)
	switch (k{s, op}) {
	case k{ir.TF32, ir.Add}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = uf32(f32(ra[l]) + f32(rb[l]))
				}
				return
			}
			for _, l := range act {
				ro[l] = uf32(f32(ra[l]) + f32(rb[l]))
			}
		}
	case k{ir.TF32, ir.Sub}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = uf32(f32(ra[l]) - f32(rb[l]))
				}
				return
			}
			for _, l := range act {
				ro[l] = uf32(f32(ra[l]) - f32(rb[l]))
			}
		}
	case k{ir.TF32, ir.Mul}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = uf32(f32(ra[l]) * f32(rb[l]))
				}
				return
			}
			for _, l := range act {
				ro[l] = uf32(f32(ra[l]) * f32(rb[l]))
			}
		}
	case k{ir.TF32, ir.Div}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = uf32(f32(ra[l]) / f32(rb[l]))
				}
				return
			}
			for _, l := range act {
				ro[l] = uf32(f32(ra[l]) / f32(rb[l]))
			}
		}
	case k{ir.TF32, ir.Lt}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(f32(ra[l]) < f32(rb[l]))
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(f32(ra[l]) < f32(rb[l]))
			}
		}
	case k{ir.TF32, ir.Le}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(f32(ra[l]) <= f32(rb[l]))
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(f32(ra[l]) <= f32(rb[l]))
			}
		}
	case k{ir.TF32, ir.Gt}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(f32(ra[l]) > f32(rb[l]))
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(f32(ra[l]) > f32(rb[l]))
			}
		}
	case k{ir.TF32, ir.Ge}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(f32(ra[l]) >= f32(rb[l]))
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(f32(ra[l]) >= f32(rb[l]))
			}
		}
	case k{ir.TU32, ir.Add}, k{ir.TI32, ir.Add}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = uint64(uint32(ra[l]) + uint32(rb[l]))
				}
				return
			}
			for _, l := range act {
				ro[l] = uint64(uint32(ra[l]) + uint32(rb[l]))
			}
		}
	case k{ir.TU32, ir.Sub}, k{ir.TI32, ir.Sub}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = uint64(uint32(ra[l]) - uint32(rb[l]))
				}
				return
			}
			for _, l := range act {
				ro[l] = uint64(uint32(ra[l]) - uint32(rb[l]))
			}
		}
	case k{ir.TU32, ir.Mul}, k{ir.TI32, ir.Mul}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = uint64(uint32(ra[l]) * uint32(rb[l]))
				}
				return
			}
			for _, l := range act {
				ro[l] = uint64(uint32(ra[l]) * uint32(rb[l]))
			}
		}
	case k{ir.TU32, ir.And}, k{ir.TI32, ir.And}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = ra[l] & rb[l]
				}
				return
			}
			for _, l := range act {
				ro[l] = ra[l] & rb[l]
			}
		}
	case k{ir.TU32, ir.Or}, k{ir.TI32, ir.Or}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = ra[l] | rb[l]
				}
				return
			}
			for _, l := range act {
				ro[l] = ra[l] | rb[l]
			}
		}
	case k{ir.TU32, ir.Xor}, k{ir.TI32, ir.Xor}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = ra[l] ^ rb[l]
				}
				return
			}
			for _, l := range act {
				ro[l] = ra[l] ^ rb[l]
			}
		}
	case k{ir.TU32, ir.Lt}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(ra[l] < rb[l])
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(ra[l] < rb[l])
			}
		}
	case k{ir.TU32, ir.Le}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(ra[l] <= rb[l])
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(ra[l] <= rb[l])
			}
		}
	case k{ir.TU32, ir.Gt}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(ra[l] > rb[l])
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(ra[l] > rb[l])
			}
		}
	case k{ir.TU32, ir.Ge}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(ra[l] >= rb[l])
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(ra[l] >= rb[l])
			}
		}
	case k{ir.TU32, ir.Eq}, k{ir.TI32, ir.Eq}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(ra[l] == rb[l])
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(ra[l] == rb[l])
			}
		}
	case k{ir.TU32, ir.Ne}, k{ir.TI32, ir.Ne}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(ra[l] != rb[l])
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(ra[l] != rb[l])
			}
		}
	case k{ir.TI32, ir.Lt}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(int32(uint32(ra[l])) < int32(uint32(rb[l])))
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(int32(uint32(ra[l])) < int32(uint32(rb[l])))
			}
		}
	case k{ir.TI32, ir.Ge}:
		f = func(ra, rb, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, rb, ro := ra[:n], rb[:n], ro[:n]
				for l := range ro {
					ro[l] = b2u(int32(uint32(ra[l])) >= int32(uint32(rb[l])))
				}
				return
			}
			for _, l := range act {
				ro[l] = b2u(int32(uint32(ra[l])) >= int32(uint32(rb[l])))
			}
		}
	}
	if f == nil || (s.IsInteger() && ys != s) {
		return nil
	}
	return func(t *lth, act []int32) {
		if pre != nil {
			pre(t, act)
		}
		w := t.w
		f(t.r[a*w:(a+1)*w], t.r[b*w:(b+1)*w], t.r[o*w:(o+1)*w], act)
	}
}

// logic is && and ||: the right operand runs only on the lanes whose left
// operand does not decide (it may guard an access).
func (lc *laneCompiler) logic(e *ir.Binary, dst int) lex {
	x := lc.scalar(e.X, -1)
	// The right operand runs on some of the lanes: what it computes is not
	// there for the others.
	outer := lc.memo
	if outer != nil {
		lc.memo = maps.Clone(outer)
	}
	y := lc.scalar(e.Y, -1)
	lc.memo = outer
	o := lc.out(dst)
	sub := lc.newList()
	and := e.Op == ir.LogicAnd
	xev, xs, yev, ys := x.eval, x.slot, y.eval, y.slot
	return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
		if xev != nil {
			xev(t, act)
		}
		w := t.w
		rx, ry, ro := t.r[xs*w:(xs+1)*w], t.r[ys*w:(ys+1)*w], t.r[o*w:(o+1)*w]
		rest := t.list(sub)
		n := 0
		for _, l := range act {
			if (rx[l] != 0) == and { // undecided
				rest[n] = l
				n++
			} else {
				ro[l] = rx[l]
			}
		}
		if n == 0 {
			return
		}
		rest = rest[:n]
		if yev != nil {
			yev(t, rest)
		}
		for _, l := range rest {
			ro[l] = ry[l]
		}
	}}
}

// op1 makes the lane loop of a one-operand operation f.
func op1(pre func(*lth, []int32), a, o int, f func(uint64) uint64) func(*lth, []int32) {
	return func(t *lth, act []int32) {
		if pre != nil {
			pre(t, act)
		}
		w := t.w
		ra, ro := t.r[a*w:(a+1)*w], t.r[o*w:(o+1)*w]
		for _, l := range act {
			ro[l] = f(ra[l])
		}
	}
}

func (lc *laneCompiler) unary(e *ir.Unary, dst int) lex {
	x := lc.expr(e.X, -1)
	s := e.T.Scalar()
	checkFloat(s, "negation")
	var f func(uint64) uint64
	switch {
	case e.Op == ir.Not:
		f = func(v uint64) uint64 { return v ^ 1 }
	case e.Op == ir.BitNot:
		f = func(v uint64) uint64 { return ir.Truncate(^v, s) }
	case s == ir.TF32:
		f = func(v uint64) uint64 { return v ^ 1<<31 }
	case s.Kind() == ir.KindFloat:
		f = func(v uint64) uint64 { return v ^ 1<<63 }
	default:
		f = func(v uint64) uint64 { return ir.Truncate(-v, s) }
	}
	if x.n > 1 {
		return lc.compwise(x.n, []lex{x}, func(sl []int, o int) func(*lth, []int32) { return op1(nil, sl[0], o, f) }, -1)
	}
	o := lc.out(dst)
	return lex{eval: op1(x.eval, x.slot, o, f), slot: o, n: 1}
}

func (lc *laneCompiler) cast(e *ir.Cast, dst int) lex {
	fs, ts := e.X.Type(), e.T
	if (fs.Kind() == ir.KindVector && ts.Kind() == ir.KindVector && fs.Len() == ts.Len()) && !e.Bit {
		f := castFn(fs.Scalar(), ts.Scalar())
		return lc.compwise(fs.Len(), []lex{lc.expr(e.X, -1)}, func(sl []int, o int) func(*lth, []int32) { return op1(nil, sl[0], o, f) }, -1)
	}
	if !fs.IsScalar() || !ts.IsScalar() {
		noLanes("conversion from %s to %s", fs, ts)
	}
	if e.Bit {
		if fs.Bits() != ts.Bits() {
			noLanes("bitcast between %s and %s", fs, ts)
		}
		return lc.scalar(e.X, dst)
	}
	x := lc.scalar(e.X, -1)
	o := lc.out(dst)
	pre, a := x.eval, x.slot
	var f func(ra, ro []uint64, act []int32)
	switch {
	case fs == ir.TU32 && ts == ir.TF32:
		f = func(ra, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, ro := ra[:n], ro[:n]
				for l := range ro {
					ro[l] = uf32(float32(uint32(ra[l])))
				}
				return
			}
			for _, l := range act {
				ro[l] = uf32(float32(uint32(ra[l])))
			}
		}
	case fs == ir.TI32 && ts == ir.TF32:
		f = func(ra, ro []uint64, act []int32) {
			if n := dense(act); n > 0 {
				ra, ro := ra[:n], ro[:n]
				for l := range ro {
					ro[l] = uf32(float32(int32(uint32(ra[l]))))
				}
				return
			}
			for _, l := range act {
				ro[l] = uf32(float32(int32(uint32(ra[l]))))
			}
		}
	}
	if f != nil {
		return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
			if pre != nil {
				pre(t, act)
			}
			w := t.w
			f(t.r[a*w:(a+1)*w], t.r[o*w:(o+1)*w], act)
		}}
	}
	return lex{eval: op1(pre, a, o, castFn(fs.Scalar(), ts.Scalar())), slot: o, n: 1}
}

// atomic compiles an atomic read-modify-write of a 4-byte buffer element:
// the lanes one after another, each with sync/atomic as the per-thread
// engine does (other workers run other blocks at the same time), each
// lane's old value in its slot.
func (lc *laneCompiler) atomic(e *ir.Call, dst int) lex {
	if v := ir.PlaceRoot(e.Args[0]); v != nil && v.Kind == ir.VarShared {
		return lc.sharedAtomic(e, dst)
	}
	lc.discard = false // the buffer's atomics write their old values regardless
	ix, ok := e.Args[0].(*ir.Index)
	if !ok || ix.X.Type().Kind() != ir.KindBuffer {
		noLanes("%s on %T", e.Op, e.Args[0])
	}
	if _, ok := ix.X.(*ir.Ref); !ok {
		noLanes("%s on a buffer view", e.Op)
	}
	if ix.T.Size() != 4 || !ix.T.IsScalar() || !ix.I.Type().IsInteger() {
		noLanes("%s on %s", e.Op, ix.T)
	}
	var evs []func(*lth, []int32)
	var vals []int
	for _, a := range e.Args[1:] { // compiled in the order they run: the operands, then the index
		x := lc.scalar(a, -1)
		evs = append(evs, x.eval)
		vals = append(vals, x.slot)
	}
	v := ix.X.(*ir.Ref).Var
	k, idx, label := lc.c.params[v], lc.scalar(ix.I, -1), lc.c.argSite(v)
	signed, wide := ix.I.Type().Kind() == ir.KindInt, ix.I.Type().Bits() == 64 // Go's int: an i64 index
	pre := seq(append(evs, idx.eval)...)
	f := rmw(e.Op, ix.T)
	cas := e.Op == ir.OpAtomicCAS
	add := e.Op == ir.OpAtomicAdd && ix.T.IsInteger()
	later := add && lc.addOnly[v] // may be added up per worker (deferAdds)
	lin := lc.linID(ix.I)
	is, o := idx.slot, lc.out(dst)
	now := func(t *lth, act []int32) { // the atomics made at once
		w := t.w
		b := t.run.bufs[k]
		n := uint64(len(b)) / 4
		ri, rv, ro := t.r[is*w:(is+1)*w], t.r[vals[0]*w:(vals[0]+1)*w], t.r[o*w:(o+1)*w]
		var rc []uint64
		if cas {
			rc, rv = rv, t.r[vals[1]*w:(vals[1]+1)*w]
		}
		for _, l := range act {
			i := ri[l]
			if signed && !wide {
				i = uint64(int64(int32(uint32(i))))
			}
			if i >= n {
				t.fault(l, label, i, n)
			}
			p := (*uint32)(unsafe.Pointer(&b[4*i]))
			v := uint32(rv[l])
			switch {
			case add:
				ro[l] = uint64(atomic.AddUint32(p, v) - v)
			case cas:
				want := uint32(rc[l])
				for {
					old := atomic.LoadUint32(p)
					if old != want || atomic.CompareAndSwapUint32(p, old, v) {
						ro[l] = uint64(old)
						break
					}
				}
			default:
				for {
					old := atomic.LoadUint32(p)
					if atomic.CompareAndSwapUint32(p, old, uint32(f(uint64(old), uint64(v)))) {
						ro[l] = uint64(old)
						break
					}
				}
			}
		}
	}
	if !later {
		return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
			if pre != nil {
				pre(t, act)
			}
			now(t, act)
		}}
	}
	return lex{slot: o, n: 1, eval: func(t *lth, act []int32) { // its own closure: a small frame
		if pre != nil {
			pre(t, act)
		}
		sum := t.deferAdds(k)
		if sum == nil {
			now(t, act)
			return
		}
		w := t.w
		ri, rv := t.r[is*w:(is+1)*w], t.r[vals[0]*w:(vals[0]+1)*w]
		// One word of sum for each of the buffer's.
		n := uint64(len(sum))
		if d := dense(act); d > 0 && !(signed && !wide) { // every lane: no list
			if i0 := ri[0]; lin && i0 < n && uint64(d) <= n-i0 {
				// Consecutive words, all in range.
				addTo32(sum[i0:i0+uint64(d)], rv)
				return
			}
			ri, rv := ri[:d], rv[:d]
			for l, i := range ri {
				if i >= n {
					t.fault(int32(l), label, i, n)
					continue // not reached: a fault unwinds
				}
				sum[i] += uint32(rv[l])
			}
			return
		}
		for _, l := range act {
			i := ri[l]
			if signed && !wide {
				i = uint64(int64(int32(uint32(i))))
			}
			if i >= n {
				t.fault(l, label, i, n)
			}
			sum[i] += uint32(rv[l]) // the old value is not read
		}
	}}
}

// builtin compiles the pure scalar built-ins (on float32 and 32-bit
// integers, as the per-thread engine computes them), select and a buffer's
// length.
func (lc *laneCompiler) builtin(e *ir.Call, dst int) lex {
	if e.Op == ir.OpBufferSize {
		v := e.Args[0].(*ir.Ref).Var
		k, es := lc.c.params[v], uint64(v.Type.Elem().Size())
		return lex{slot: lc.dispatchConst(fmt.Sprint("len", k), func(l *launch) uint64 { return uint64(uint32(uint64(len(l.bufs[k])) / es)) }), n: 1}
	}
	if e.Op >= ir.OpAtomicExchange && e.Op <= ir.OpAtomicMax {
		return lc.atomic(e, dst)
	}
	switch op := e.Op; {
	case op == ir.OpBarrier,
		op >= ir.OpSubgroupElect && op <= ir.OpSubgroupExclusiveAdd,
		op >= ir.OpTextureRead && op <= ir.OpTextureSample,
		op >= ir.OpBindlessRead && op <= ir.OpBindlessSize, op >= ir.OpBindlessTexRead && op <= ir.OpBindlessTexSize,
		op == ir.OpTranspose, op == ir.OpDeterminant, op == ir.OpInverse, op == ir.OpOuterProduct, op == ir.OpReflect,
		op == ir.OpIsNaN, op == ir.OpIsInf, op == ir.OpNormalize,
		op == ir.OpCross, op == ir.OpAny, op == ir.OpAll,
		op == ir.OpReduceSum, op == ir.OpReduceProd, op == ir.OpReduceMin, op == ir.OpReduceMax:
		noLanes("built-in %s", op) // the per-thread engine's own forms
	}
	if e.Op == ir.OpDot || e.Op == ir.OpLength || e.Op == ir.OpDistance {
		return lc.norm(e, dst)
	}
	if n := ir.Leaves(e.T); n > 1 {
		if e.T.Kind() != ir.KindVector {
			noLanes("built-in %s of %s", e.Op, e.T)
		}
		// Component by component, each the scalar built-in on components.
		var args []lex
		for _, a := range e.Args {
			args = append(args, lc.expr(a, -1))
		}
		return lc.compwise(n, args, func(sl []int, o int) func(*lth, []int32) {
			parts := make([]ir.Expr, len(e.Args))
			for i, a := range e.Args {
				parts[i] = &slotExpr{slot: sl[i], t: a.Type().Scalar()}
			}
			return lc.builtin(&ir.Call{Op: e.Op, Args: parts, T: e.T.Scalar()}, o).eval
		}, -1)
	}
	args := make([]lex, len(e.Args))
	var evs []func(*lth, []int32)
	for i, a := range e.Args {
		if !a.Type().IsScalar() {
			noLanes("built-in %s on %s", e.Op, a.Type())
		}
		args[i] = lc.scalar(a, -1)
		evs = append(evs, args[i].eval)
	}
	pre := seq(evs...)
	o := lc.out(dst)
	if e.Op == ir.OpSelect {
		c, a, b := args[0].slot, args[1].slot, args[2].slot
		return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
			if pre != nil {
				pre(t, act)
			}
			w := t.w
			rc, ra, rb, ro := t.r[c*w:(c+1)*w], t.r[a*w:(a+1)*w], t.r[b*w:(b+1)*w], t.r[o*w:(o+1)*w]
			for _, l := range act {
				if rc[l] != 0 {
					ro[l] = ra[l]
				} else {
					ro[l] = rb[l]
				}
			}
		}}
	}
	if len(args) == 0 || len(args) > 4 {
		noLanes("built-in %s", e.Op)
	}
	s := e.Args[0].Type()
	slots := make([]int, len(args))
	for i, a := range args {
		slots[i] = a.slot
	}
	op := e.Op
	switch {
	case s == ir.TF32:
		ops := make([]float32, len(args))
		if !probe(func() bool { _, ok := ir.RefFloat32(op, ops...); return ok }) {
			noLanes("built-in %s on %s", op, s)
		}
		// The commonest, as RefFloat32 computes them, without its switch per lane.
		if f := unaryF32(op, slots[0], o); f != nil {
			return lex{eval: seq(pre, f), slot: o, n: 1}
		}
		switch op {
		case ir.OpMin:
			return lex{eval: op2(pre, slots[0], slots[1], o, func(a, b uint64) uint64 { return uf32(float32(math.Min(float64(f32(a)), float64(f32(b))))) }), slot: o, n: 1}
		case ir.OpMax:
			return lex{eval: op2(pre, slots[0], slots[1], o, func(a, b uint64) uint64 { return uf32(float32(math.Max(float64(f32(a)), float64(f32(b))))) }), slot: o, n: 1}
		}
		return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
			if pre != nil {
				pre(t, act)
			}
			w := t.w
			ro := t.r[o*w : (o+1)*w]
			var buf [4]float32
			in := buf[:len(slots)]
			for _, l := range act {
				for i, sl := range slots {
					in[i] = f32(t.r[sl*w+int(l)])
				}
				r, _ := ir.RefFloat32(op, in...)
				ro[l] = uf32(r)
			}
		}}
	case s.IsInteger() && s.Bits() == 32:
		signed := s.Kind() == ir.KindInt
		ops := make([]uint32, len(args))
		if !probe(func() bool { _, ok := ir.RefInt(op, signed, ops...); return ok }) {
			noLanes("built-in %s on %s", op, s)
		}
		return lex{slot: o, n: 1, eval: func(t *lth, act []int32) {
			if pre != nil {
				pre(t, act)
			}
			w := t.w
			ro := t.r[o*w : (o+1)*w]
			var buf [4]uint32
			in := buf[:len(slots)]
			for _, l := range act {
				for i, sl := range slots {
					in[i] = uint32(t.r[sl*w+int(l)])
				}
				r, _ := ir.RefInt(op, signed, in...)
				ro[l] = uint64(r)
			}
		}}
	}
	noLanes("built-in %s on %s", op, s)
	return lex{}
}

// laneEngine says whether CreateShader compiles kernels for the lane
// engine too (tests compare the engines).
var laneEngine = true

// newLanes is a worker's lane state for launch l.
func (p *program) newLanes(l *launch) *lth {
	lp := p.lanes
	t, ok := p.lanePool.Get().(*lth)
	if !ok {
		w := lp.w
		t = &lth{w: w, r: make([]uint64, lp.nslots*w), st: make([]uint8, w), lists: make([]int32, (lp.nlists+1)*w), all: make([]int32, w)}
		for i := range t.all {
			t.all[i] = int32(i)
		}
		for _, n := range p.shared {
			t.shared = append(t.shared, make([]uint64, n))
		}
	}
	t.run = l
	t.ready = 0
	return t
}

// fill makes the constant slots of lanes [0, n) hold their values for the
// worker's launch: lanes are filled when a batch first needs them, so a
// dispatch of one thread fills one lane, not a batch's width.
func (p *program) fill(t *lth, n int) {
	if n <= t.ready {
		return
	}
	w := t.w
	for _, c := range p.lanes.consts {
		v := c.val
		if c.get != nil {
			v = c.get(t.run)
		}
		fill64(t.r[c.slot*w+t.ready:c.slot*w+n], v)
	}
	t.ready = n
}

func (p *program) freeLanes(t *lth) {
	t.flushAdds()
	t.run = nil
	p.lanePool.Put(t)
}

// laneBlocks runs blocks on lane state t until none is left, the dispatch
// failed or the device stops. A fault ends the worker's part (as it would
// end its loop), so one deferred recovery serves all its blocks.
func (p *program) laneBlocks(e *execBlocks, l *launch, g [3]uint32, total uint64, t *lth) {
	defer func() {
		if r := recover(); r != nil {
			b, bid := p.block, t.bid
			lin := t.lin0 + uint32(t.flane)
			if m := p.lanes.merge; m > 1 { // a merged block: the lane's own
				bid[0], lin = bid[0]*m+lin/b[0], lin%b[0]
			}
			tid := [3]uint32{lin % b[0], lin / b[0] % b[1], lin / (b[0] * b[1])}
			id := [3]uint32{bid[0]*b[0] + tid[0], bid[1]*b[1] + tid[1], bid[2]*b[2] + tid[2]}
			p.fault(l, &th{tid: tid, bid: bid, id: id}, r)
		}
	}()
	for {
		lo, hi, bid, ok := e.claim(g, total)
		if !ok {
			return
		}
		for b := lo; b < hi; b, bid = b+1, nextBlock(bid, g) {
			if l.failed.Load() || l.stop.Load() {
				return
			}
			p.blockLanes(l, bid, t)
		}
	}
}

// blockLanes runs the threads of a block in batches of lanes (one batch,
// the whole block, where the kernel has barriers or shared memory); a
// fault panics to laneBlocks, with t.bid, t.lin0 and t.flane naming the
// thread.
func (p *program) blockLanes(l *launch, bid [3]uint32, t *lth) {
	lp := p.lanes
	w := t.w
	b := p.block
	b[0] *= lp.merge
	n := b[0] * b[1] * b[2]
	base := [3]uint32{bid[0] * b[0], bid[1] * b[1], bid[2] * b[2]}
	t.bid = bid
	for _, s := range t.shared {
		clear(s) // zero at each block, as on the per-thread engine
	}
	act := t.lists[lp.nlists*w : (lp.nlists+1)*w]
	whole := true // every thread of the block is in the dispatch
	for i := range 3 {
		whole = whole && uint64(base[i])+uint64(b[i]) <= uint64(l.size[i])
	}
	tx, ty, tz := lp.tid[0], lp.tid[1], lp.tid[2]
	for lin0 := uint32(0); lin0 < n; lin0 += uint32(w) {
		t.lin0 = lin0
		cnt := int(min(uint32(w), n-lin0))
		bx, by, bz := tx[lin0:int(lin0)+cnt], ty[lin0:int(lin0)+cnt], tz[lin0:int(lin0)+cnt]
		// The running lanes: a run of t.all where they are (no statement
		// writes into the list it is given), else listed in act.
		var run []int32
		if whole {
			run = t.all[:cnt]
		} else if b[1] == 1 && b[2] == 1 {
			// One-dimensional: the lanes below the dispatch's end, in one run.
			end := max(uint64(l.size[0]), uint64(base[0])) - uint64(base[0])
			if uint64(lin0) >= end {
				break // and so are the later batches' lanes
			}
			run = t.all[:min(uint64(cnt), end-uint64(lin0))]
		} else {
			na := 0
			for j := range cnt {
				if uint64(base[0])+uint64(bx[j]) < uint64(l.size[0]) && uint64(base[1])+uint64(by[j]) < uint64(l.size[1]) && uint64(base[2])+uint64(bz[j]) < uint64(l.size[2]) {
					act[na] = int32(j)
					na++
				}
			}
			run = act[:na]
		}
		na := len(run)
		if na == 0 {
			continue
		}
		// Only lanes below hi run: the slots of the others are not read (a
		// one-thread dispatch fills and clears one lane, not a batch).
		hi := int(run[na-1]) + 1
		p.fill(t, hi)
		if lp.bids >= 0 {
			for i := range 3 {
				row := t.r[(lp.bids+i)*w : (lp.bids+i)*w+hi]
				for j := range row {
					row[j] = uint64(bid[i])
				}
			}
		}
		// The ids of the running lanes only: the others are not read (a
		// one-thread dispatch of a 256-thread block fills one lane, not 256).
		if lp.ids >= 0 && lp.idUse == 1 && na == cnt && b[0] == n {
			// Of a 1-D block only the x id is read: the linear index.
			iota64(t.r[lp.ids*w:lp.ids*w+cnt], uint64(base[0])+uint64(lin0))
		} else if lp.ids >= 0 {
			for i, src := range [3][]uint32{bx, by, bz} {
				if lp.idUse&(1<<i) == 0 {
					continue // not read
				}
				row, o := t.r[(lp.ids+i)*w:(lp.ids+i)*w+cnt], uint64(base[i])
				if na == cnt {
					switch {
					case i == 0 && b[0] == n: // the x id of a 1-D block: the linear index
						iota64(row, o+uint64(lin0))
					case b[i] == 1:
						for j := range row {
							row[j] = o
						}
					default:
						src := src[:len(row)]
						for j, v := range src {
							row[j] = o + uint64(v)
						}
					}
					continue
				}
				for _, j := range run {
					row[j] = o + uint64(src[j])
				}
			}
		}
		// Thread ids depend on the batch's place in the block only: rows
		// holding every lane's for this lin0 (nothing writes them) are kept.
		if lp.tids >= 0 && (t.tidAt != lin0+1 || t.tidN != cnt) {
			t.tidAt, t.tidN = 0, 0
			if na == cnt {
				t.tidAt, t.tidN = lin0+1, cnt
			}
			for i, src := range [3][]uint32{bx, by, bz} {
				if lp.tidUse&(1<<i) == 0 {
					continue
				}
				row := t.r[(lp.tids+i)*w : (lp.tids+i)*w+cnt]
				if na == cnt {
					if i == 0 && b[0] == n { // the x id of a 1-D block: the linear index
						iota64(row, uint64(lin0))
						continue
					}
					src := src[:len(row)]
					for j, v := range src {
						row[j] = uint64(v)
					}
					continue
				}
				for _, j := range run {
					row[j] = uint64(src[j])
				}
			}
		}
		if lp.marks {
			clear(t.st[:hi])
		}
		for _, r := range lp.locals {
			for sl := r[0]; sl < r[1]; sl++ {
				clear(t.r[sl*w : sl*w+hi])
			}
		}
		t.flane = 0
		lp.body(t, run)
	}
}

// isAtomicOp says whether op is an atomic read-modify-write.
func isAtomicOp(op ir.Op) bool { return op >= ir.OpAtomicExchange && op <= ir.OpAtomicMax }
