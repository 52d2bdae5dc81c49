package cpu

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// The kernel compiler: each node of the kernel AST becomes one Go closure,
// built once at CreateShader; running a thread calls the closures, with no
// look at the AST. Values are flattened to scalar leaves, each a uint64
// holding the scalar's bits at its own width (a float32 as its IEEE bits,
// integers zero-extended), as in frontend/interp, the oracle.
//
// Every variable and every temporary of a kernel and of the callables it
// reaches has a fixed range of slots in the thread's register file (the
// language has no recursion, so no function is active twice in one thread).

// th is one thread's state.
type th struct {
	r    []uint64   // the register file
	refs [][]uint64 // by-reference parameters, bound at each call
	id   [3]uint32  // dispatch id
	tid  [3]uint32  // thread id in the block
	bid  [3]uint32  // block id
	blk  *blockState
	run  *launch
	// yield, in a kernel with barriers, suspends the thread's coroutine at
	// a barrier (false) or at its end (true); false back means stop.
	yield func(bool) bool
	// The candidate in hand while a RayQuery's body runs (rayquery.go).
	cand *candidate
}

type flow uint8

const (
	next flow = iota
	brk
	cont
	ret
)

type sfn = func(*th) uint64    // a scalar expression
type vfn = func(*th, []uint64) // an expression of n leaves, written to dst
type stmtFn = func(*th) flow

// ex is a compiled expression: s for scalars, v for anything (n leaves).
type ex struct {
	s sfn
	v vfn
	n int
	// For the operand forms of fastOperands: reg is 1 + the register of an
	// expression that reads one register (0 otherwise), lit a constant's.
	reg   int
	isLit bool
	lit   uint64
}

func scalarEx(s sfn) ex { return ex{s: s, v: func(t *th, d []uint64) { d[0] = s(t) }, n: 1} }

// unsupported is an error for what the cpu backend does not compile.
func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: cpu backend: %s", device.ErrUnsupported, fmt.Sprintf(format, args...))
}

type compiler struct {
	kernel    *ir.Function
	checked   bool // the checked mode: bindless slots are checked (the rest always is)
	nslots    int
	slots     map[*ir.Var]int // locals and by-value parameters
	refs      map[*ir.Var]int // by-reference parameters: index into th.refs
	nrefs     int
	shared    map[*ir.Var]int // index into blockState.shared
	params    map[*ir.Var]int // kernel arguments: index into launch
	funcs     map[*ir.Function]*compiledFunc
	barrier   bool
	cur       *compiledFunc
	hoisted   map[ir.Expr]int // loop-invariant expressions: their registers (hoist.go)
	race      bool            // instrument accesses for the race detector (race.go)
	raceSites []raceSite
	pos       string          // the position of the statement being compiled (ir.StmtPos)
	uniSlot   map[*ir.Var]int // uniform arguments: their registers
}

type compiledFunc struct {
	f         *ir.Function
	body      stmtFn
	lo, hi    int // the slot range of its locals (zeroed at entry)
	params    []int
	res, nres int
}

// kernelFault is a checked error raised inside a thread (a panic): the
// fault, less the kernel and the thread, which the engine running the thread
// adds (program.fault). Both engines raise an index or division fault
// through site.fault.
type kernelFault struct{ f device.KernelFault }

// site is where a checked operation sits: what it indexes (an argument's
// label, a variable) and the position of its statement (ir.StmtPos).
type site struct{ what, pos string }

// fault raises a fault of kind at s: index i (a negative one as its two's
// complement) out of [0, n).
func (s site) fault(kind device.FaultKind, i, n uint64) {
	panic(kernelFault{device.KernelFault{Kind: kind, What: s.what, Index: i, Len: n, Pos: s.pos}})
}

// argSite is the site of an access to kernel argument v in the statement
// being compiled.
func (c *compiler) argSite(v *ir.Var) site {
	return site{device.Argument{Name: v.Name}.Label(c.params[v]), c.pos}
}

func (c *compiler) tmp(n int) int {
	o := c.nslots
	c.nslots += n
	return o
}

// compileKernel compiles kernel f; race instruments it for the race
// detector (race.go), on the per-thread engine only; checked is the
// checked mode (device.KernelOptions.Checked), in which its bindless slots
// are checked too.
func compileKernel(f *ir.Function, race, checked bool) (p *program, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(compileErr); ok {
				p, err = nil, e.err
				return
			}
			// A kernel shape the compiler did not foresee: refused, never a crash.
			p, err = nil, unsupported("kernel %s: %v", f.Name, r)
		}
	}()
	if f.Kind != ir.KernelFunc {
		return nil, fmt.Errorf("%w: %s is not a kernel", device.ErrInvalidArgument, f.Name)
	}
	c := &compiler{kernel: f, slots: map[*ir.Var]int{}, refs: map[*ir.Var]int{}, shared: map[*ir.Var]int{},
		params: map[*ir.Var]int{}, funcs: map[*ir.Function]*compiledFunc{}, barrier: f.UsesBarrier(), hoisted: map[ir.Expr]int{}, uniSlot: map[*ir.Var]int{}, race: race, checked: checked}
	for i, v := range f.Params {
		c.params[v] = i
	}
	p = &program{name: f.Name, pos: f.Pos, block: f.BlockSize, barrier: c.barrier, params: f.Params, race: race}
	// Uniforms live in registers too (copied in when a worker starts a
	// dispatch), so operations on them take the register forms.
	p.uniSlots = make([]int, len(f.Params))
	for i, v := range f.Params {
		p.uniSlots[i] = -1
		if !v.Type.IsResource() {
			p.uniSlots[i] = c.tmp(ir.Leaves(v.Type))
			c.uniSlot[v] = p.uniSlots[i]
		}
	}
	for i, v := range f.Shared {
		c.shared[v] = i
		p.shared = append(p.shared, ir.Leaves(v.Type))
	}
	kf := c.function(f)
	p.entry = kf
	if race {
		p.raceSites = c.raceSites
		for _, v := range f.Params {
			p.argWhat = append(p.argWhat, c.argLabel(v))
		}
		for _, v := range f.Shared {
			p.sharedWhat = append(p.sharedWhat, ir.PlaceName(&ir.Ref{Var: v}))
			el := ir.Leaves(v.Type)
			if v.Type.Kind() == ir.KindArray {
				el = ir.Leaves(v.Type.Elem())
			}
			p.sharedElem = append(p.sharedElem, max(el, 1))
		}
	}
	if laneEngine && !race {
		if why := usesF16(f); why != "" {
			p.laneWhy = why
		} else {
			p.lanes, p.laneWhy = compileLanes(c, f, f.BlockSize[0]*f.BlockSize[1]*f.BlockSize[2])
		}
	}
	p.nslots = c.nslots
	p.nrefs = c.nrefs
	return p, nil
}

type compileErr struct{ err error }

func refuse(err error) { panic(compileErr{err}) }

func (c *compiler) function(f *ir.Function) *compiledFunc {
	if cf, ok := c.funcs[f]; ok {
		return cf
	}
	cf := &compiledFunc{f: f}
	c.funcs[f] = cf
	if f.Kind == ir.CallableFunc {
		for _, p := range f.Params {
			if p.Kind == ir.VarRefParam {
				c.refs[p] = c.nrefs
				cf.params = append(cf.params, -1)
				c.nrefs++
				continue
			}
			o := c.tmp(ir.Leaves(p.Type))
			c.slots[p] = o
			cf.params = append(cf.params, o)
		}
		if f.Result != nil && f.Result != ir.TVoid {
			cf.nres = ir.Leaves(f.Result)
			cf.res = c.tmp(cf.nres)
		}
	}
	cf.lo = c.nslots
	for _, l := range f.Locals {
		c.slots[l] = c.tmp(ir.Leaves(l.Type))
	}
	cf.hi = c.nslots
	prev, hoisted := c.cur, c.hoisted
	c.cur, c.hoisted = cf, map[ir.Expr]int{} // a callee's loops hoist on their own
	cf.body = c.block(f.Body)
	c.cur, c.hoisted = prev, hoisted
	return cf
}

func (c *compiler) block(b *ir.Block) stmtFn {
	if b == nil || len(b.Stmts) == 0 {
		return func(*th) flow { return next }
	}
	var fns []stmtFn
	for _, s := range b.Stmts {
		if _, ok := s.(*ir.Comment); ok {
			continue
		}
		fns = append(fns, c.stmt(s))
	}
	switch len(fns) {
	case 0:
		return func(*th) flow { return next }
	case 1:
		return fns[0]
	}
	return func(t *th) flow {
		for _, f := range fns {
			if fl := f(t); fl != next {
				return fl
			}
		}
		return next
	}
}

func (c *compiler) cond(e ir.Expr) func(*th) bool {
	s := c.expr(e).s
	if b, ok := e.(*ir.Binary); ok && b.X.Type() == ir.TU32 && b.Y.Type() == ir.TU32 {
		x, y := c.expr(b.X).s, c.expr(b.Y).s
		switch b.Op {
		case ir.Lt:
			return func(t *th) bool { return x(t) < y(t) }
		case ir.Ge:
			return func(t *th) bool { return x(t) >= y(t) }
		}
	}
	return func(t *th) bool { return s(t) != 0 }
}

func (c *compiler) stmt(s ir.Stmt) stmtFn {
	if p := ir.StmtPos(s); p != "" {
		defer func(outer string) { c.pos = outer }(c.pos)
		c.pos = p // the position of the accesses compiled within it
	}
	switch s := s.(type) {
	case *ir.Block:
		return c.block(s)
	case *ir.If:
		cond, then, els := c.cond(s.Cond), c.block(s.Then), c.block(s.Else)
		return func(t *th) flow {
			if cond(t) {
				return then(t)
			}
			return els(t)
		}
	case *ir.Loop:
		pre, added := c.hoist(s.Body)
		body := c.block(s.Body)
		c.unhoist(added)
		loop := func(t *th) flow {
			for {
				if t.run.failed.Load() || t.run.stop.Load() {
					panic(errAbort) // a closing device, or a fault in another thread
				}
				switch body(t) {
				case brk:
					return next
				case ret:
					return ret
				}
			}
		}
		return withPre(pre, loop)
	case *ir.For:
		pre, added := c.hoist(s.Cond, s.Body, s.Update)
		cond, body, upd := c.cond(s.Cond), c.block(s.Body), c.block(s.Update)
		c.unhoist(added)
		loop := func(t *th) flow {
			for cond(t) {
				if t.run.failed.Load() || t.run.stop.Load() {
					panic(errAbort)
				}
				switch body(t) {
				case brk:
					return next
				case ret:
					return ret
				}
				upd(t)
			}
			return next
		}
		return withPre(pre, loop)
	case *ir.Switch:
		tag := c.expr(s.Tag).s
		tt := s.Tag.Type()
		idx := map[int64]int{}
		bodies := make([]stmtFn, len(s.Cases)+1)
		for i, cs := range s.Cases {
			bodies[i] = c.block(cs.Body)
			for _, v := range cs.Values {
				if _, dup := idx[v]; !dup {
					idx[v] = i
				}
			}
		}
		def := len(s.Cases)
		bodies[def] = c.block(s.Default)
		return func(t *th) flow {
			v := int64(ir.SignExtend(tag(t), tt))
			if tt == ir.TU32 {
				v = int64(uint32(v))
			}
			i, ok := idx[v]
			if !ok {
				i = def
			}
			if fl := bodies[i](t); fl == ret || fl == cont {
				return fl
			}
			return next
		}
	case *ir.Assert:
		cond, msg, pos := c.cond(s.Cond), s.Msg, c.pos
		return func(t *th) flow {
			if !cond(t) {
				panic(kernelFault{device.KernelFault{Kind: device.FaultAssert, Msg: msg, Pos: pos}})
			}
			return next
		}
	case *ir.Break:
		return func(*th) flow { return brk }
	case *ir.Continue:
		return func(*th) flow { return cont }
	case *ir.Return:
		cf := c.cur
		if s.Value == nil || cf.nres == 0 {
			return func(*th) flow { return ret }
		}
		v := c.expr(s.Value)
		res, n := cf.res, cf.nres
		if v.n == 1 {
			sv := v.s
			return func(t *th) flow { t.r[res] = sv(t); return ret }
		}
		vv := v.v
		return func(t *th) flow { vv(t, t.r[res:res+n]); return ret }
	case *ir.Assign:
		return c.assign(s)
	case *ir.Print:
		return c.print(s)
	case *ir.RayQuery:
		return c.rayQuery(s)
	case *ir.ExprStmt:
		x := c.expr(s.X)
		if x.n == 0 {
			vv := x.v
			return func(t *th) flow { vv(t, nil); return next }
		}
		tmp := c.tmp(x.n)
		vv, n := x.v, x.n
		return func(t *th) flow { vv(t, t.r[tmp:tmp+n]); return next }
	}
	refuse(unsupported("statement %T", s))
	return nil
}

// withPre runs pre (the loop's hoisted expressions), then the loop.
func withPre(pre func(*th), loop stmtFn) stmtFn {
	if pre == nil {
		return loop
	}
	return func(t *th) flow { pre(t); return loop(t) }
}

func (c *compiler) unhoist(added []ir.Expr) {
	for _, e := range added {
		delete(c.hoisted, e)
	}
}

func (c *compiler) assign(s *ir.Assign) stmtFn {
	src := c.expr(s.Src)
	if k, idx, label, ok := c.word32(s.Dst); ok && !c.race {
		sv := src.s
		return func(t *th) flow {
			v := sv(t)
			b := t.run.bufs[k]
			i := idx(t)
			if n := uint64(len(b)) / 4; i >= n {
				label.fault(device.FaultBufferIndex, i, n)
			}
			binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
			return next
		}
	}
	pl := c.place(s.Dst)
	n := src.n
	if pl.buf != nil {
		pl.buf = c.raceBuf(s.Dst, pl.buf, s.Dst.Type().Size(), true, false)
		st := pl.store(s.Dst.Type())
		if n == 1 {
			sv := src.s
			return func(t *th) flow { st(t, sv(t), nil); return next }
		}
		tmp := c.tmp(n)
		vv := src.v
		return func(t *th) flow {
			d := t.r[tmp : tmp+n]
			vv(t, d)
			st(t, 0, d)
			return next
		}
	}
	if pl.local >= 0 && n == 1 {
		o, sv := pl.local, src.s
		return func(t *th) flow { t.r[o] = sv(t); return next }
	}
	mem := c.raceMem(s.Dst, pl.mem, n, true, false)
	if n == 1 {
		sv := src.s
		return func(t *th) flow {
			v := sv(t)
			m, o := mem(t)
			m[o] = v
			return next
		}
	}
	tmp := c.tmp(n)
	vv := src.v
	return func(t *th) flow {
		d := t.r[tmp : tmp+n]
		vv(t, d)
		m, o := mem(t)
		copy(m[o:o+n], d)
		return next
	}
}

// checkFloat refuses float arithmetic the lane engine does not do (f16);
// compileKernel keeps f16 kernels off it before (usesF16).
func checkFloat(t *ir.Type, what string) {
	if s := t.Scalar(); s.Kind() == ir.KindFloat && s.Bits() != 32 && s.Bits() != 64 {
		refuse(unsupported("%s on %s (f16 arithmetic)", what, t))
	}
}

// toF widens a float leaf of type t (f16, f32 or f64) to float64, exactly.
func toF(v uint64, t *ir.Type) float64 {
	switch t.Bits() {
	case 32:
		return float64(math.Float32frombits(uint32(v)))
	case 16:
		return float64(ir.HalfToFloat32(uint16(v)))
	}
	return math.Float64frombits(v)
}

// fromF rounds x to a float leaf of type t, in one step (ties to even). For
// f16, an operation computed in float64 (or float32) on f16 operands and
// rounded so is correctly rounded: the wider format has at least 2·11+2
// bits, so the double rounding is innocuous for +, -, *, / and sqrt.
func fromF(x float64, t *ir.Type) uint64 {
	switch t.Bits() {
	case 32:
		return uint64(math.Float32bits(float32(x)))
	case 16:
		return uint64(ir.Float64ToHalf(x))
	}
	return math.Float64bits(x)
}

// f16 widens an f16 leaf to float32, exactly; uf16 rounds back.
func f16(v uint64) float32  { return ir.HalfToFloat32(uint16(v)) }
func uf16(x float32) uint64 { return uint64(ir.Float32ToHalf(x)) }

// usesF16 names the first f16 value of f or of a callable it reaches, or
// returns "": the lane engine (lanes.go) does no f16 arithmetic, so such
// a kernel runs on the per-thread engine.
func usesF16(f *ir.Function) string {
	why := ""
	visit := func(g *ir.Function) {
		ir.WalkExprs(g, func(e ir.Expr) {
			if why == "" && hasF16(e.Type()) {
				why = fmt.Sprintf("f16 arithmetic (a value of type %s in %s)", e.Type(), g.Name)
			}
		})
	}
	visit(f)
	for _, g := range f.Callees() {
		visit(g)
	}
	return why
}

// hasF16 reports whether value type t has an f16 leaf.
func hasF16(t *ir.Type) bool {
	if t == nil {
		return false
	}
	switch t.Kind() {
	case ir.KindFloat:
		return t.Bits() == 16
	case ir.KindVector, ir.KindMatrix, ir.KindArray:
		return hasF16(t.Elem())
	case ir.KindStruct:
		for _, f := range t.Fields() {
			if hasF16(f.Type) {
				return true
			}
		}
	}
	return false
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
