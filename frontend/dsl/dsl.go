package dsl

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// K traces the body of a kernel or callable: the DSL's control flow and
// side effects (stores, atomics, barriers) are recorded into the current
// block as they are called, while arithmetic on values builds expression
// trees. A value read from mutable storage (a buffer, a variable) or made by
// a call is snapshotted into a fresh local where it is read, so later writes
// do not change it. Values share their parts (x.Add(x) holds x once); in a
// statement big as a tree, a part it reaches more than once is computed
// once, into a local, before the statement, so the IR grows with the values
// made, not with the paths through them.
//
// A DSL operation on operands of the wrong type yields a poisoned value; its
// error surfaces, naming the operation, the types and the kernel line of the
// operation, where the value is first used by a statement (a value never used generates no code and reports
// nothing).
//
// A K, and the buffers, variables and values it made, belong to one
// tracing: a statement made through them after that function's tracing has
// returned (a Buf kept in a Go variable and written in a later kernel) is
// refused, as an error of the kernel being traced where it is made.
type K struct {
	fn    *ir.Function
	cur   *ir.Block
	err   error
	n     int         // temporaries made
	inner *K          // the callable being traced from inside this function, if any
	outer *K          // for a callable's, the function whose tracing traces it
	def   *int        // for a callable's, its Callable's identity
	query *queryState // the ray query whose body is being traced, if any
	done  bool        // tracing has returned: k takes no more statements

	loops, breakable int // loops, and loops and switches, around the current block

	open  []*ir.Block           // the blocks being traced around the current one, outermost first
	named map[ir.Expr]namedPart // the shared parts untangle has named, by the node
}

// suspended reports (and records, in the callable being traced) a use of
// what, which belongs to k, while a callable traced from inside k is being
// traced: the callable must take it as a parameter.
func (k *K) suspended(what string) bool {
	if k.inner == nil {
		return false
	}
	in := k.inner
	for in.inner != nil {
		in = in.inner
	}
	in.failf("uses %s of %s, which it does not take: pass it to the callable as a parameter", what, k.fn.Name)
	k.fail(in.err)
	return true
}

// ErrDSL is wrapped by errors found while tracing a DSL kernel.
var ErrDSL = errors.New("frontend: kernel DSL")

// Err is the first error recorded while tracing.
func (k *K) Err() error { return k.err }

// Function is the function being traced.
func (k *K) Function() *ir.Function { return k.fn }

func (k *K) fail(err error) {
	if k.err == nil && err != nil {
		k.err = err
	}
}

func (k *K) failf(format string, args ...any) {
	k.fail(fmt.Errorf("%w: %s: %s: %s", ErrDSL, k.fn.Name, site(), fmt.Sprintf(format, args...)))
}

// poison is a poisoned value for err, which it prefixes with the kernel
// line making it (site): the error is reported where the value is first
// used by a statement, maybe lines later, and names where it went wrong.
func poison(err error) *ir.Poison {
	return &ir.Poison{Err: fmt.Errorf("%s: %w", site(), err)}
}

func poisoned(es ...ir.Expr) ir.Expr {
	for _, e := range es {
		if p, ok := e.(*ir.Poison); ok {
			return p
		}
		if e == nil {
			return poison(fmt.Errorf("%w: use of a zero (unset) value", ErrDSL))
		}
	}
	return nil
}

// check records the first poison inside e and reports whether e is sound.
// Each node is visited once: values share their parts (see untangle).
func (k *K) check(es ...ir.Expr) bool {
	var seen map[ir.Expr]bool
	for _, e := range es {
		if e == nil {
			k.failf("use of a zero (unset) value")
			return false
		}
		stack := []ir.Expr{e}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if p, ok := x.(*ir.Poison); ok {
				k.fail(fmt.Errorf("%s: %w", k.fn.Name, p.Err))
				return false
			}
			cs := children(x)
			if len(cs) == 0 {
				continue
			}
			if seen == nil {
				seen = map[ir.Expr]bool{}
			}
			if seen[x] {
				continue
			}
			seen[x] = true
			for i := len(cs) - 1; i >= 0; i-- {
				if cs[i] != nil {
					stack = append(stack, cs[i])
				}
			}
		}
	}
	return true
}

// emit appends s to the current block, at the position of the kernel code
// that called the DSL (ir.StmtPos: the first caller outside this package).
func (k *K) emit(s ir.Stmt) {
	site := userSite()
	if k.done {
		// A statement on a value, buffer or variable kept from a function
		// whose tracing has ended would be lost: refuse it where it is made
		// (inside another kernel's tracing this becomes that kernel's error).
		panic(fmt.Sprintf("%s: a statement on a DSL value, buffer or variable of %s, whose tracing has ended: use only the values of the function being traced", site, k.fn.Name))
	}
	k.untangle(s, site)
	ir.SetStmtPos(s, site)
	k.cur.Stmts = append(k.cur.Stmts, s)
}

// dslPrefix is the function-name prefix of this package's code.
const dslPrefix = "github.com/lucent-gpu/lucent/frontend/dsl."

// userSite is "file:line" of the innermost caller outside this package:
// the line of the kernel builder that made the statement being emitted.
func userSite() string {
	var pcs [32]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		fr, more := frames.Next()
		if fr.Function != "" && !strings.HasPrefix(fr.Function, dslPrefix) && !strings.HasPrefix(fr.Function, "runtime.") &&
			!strings.HasPrefix(fr.Function, "sync.") && !strings.HasPrefix(fr.Function, "reflect.") {
			return fmt.Sprintf("%s:%d", fr.File, fr.Line)
		}
		if !more {
			return ""
		}
	}
}

// let evaluates e here, into a fresh local, and returns a reference to it.
func (k *K) let(e ir.Expr) ir.Expr {
	if !k.check(e) {
		return &ir.Poison{Err: k.err}
	}
	k.n++
	v := k.fn.AddLocal(fmt.Sprintf("t%d", k.n), e.Type())
	k.emit(&ir.Assign{Dst: &ir.Ref{Var: v}, Src: e})
	return &ir.Ref{Var: v}
}

// nested traces body into a new block.
func (k *K) nested(body func()) *ir.Block {
	b := &ir.Block{}
	saved := k.cur
	k.cur = b
	k.open = append(k.open, saved)
	defer func() { k.cur = saved; k.open = k.open[:len(k.open)-1] }()
	if body != nil {
		body()
	}
	return b
}

func (k *K) builtin(b ir.BuiltinVar) ir.Expr {
	if k.fn.Kind != ir.KernelFunc {
		k.failf("built-in %s is only available in kernels (pass it to the callable)", b)
	}
	return &ir.Ref{Var: &ir.Var{Name: b.String(), Type: b.Type(), Kind: ir.VarBuiltin, Builtin: b}}
}

// DispatchID is the thread's id in the whole dispatch.
func (k *K) DispatchID() U32x3 { return U32x3{k.builtin(ir.DispatchID)} }

// ThreadID is the thread's id inside its block.
func (k *K) ThreadID() U32x3 { return U32x3{k.builtin(ir.ThreadID)} }

// BlockID is the id of the thread's block.
func (k *K) BlockID() U32x3 { return U32x3{k.builtin(ir.BlockID)} }

// DispatchSize is the number of threads asked for; in an indirect dispatch
// (Shader.DispatchIndirect), where the group count is read on the device,
// the number of threads launched: DispatchGroups × BlockSize.
func (k *K) DispatchSize() U32x3 { return U32x3{k.builtin(ir.DispatchSize)} }

// DispatchGroups is the number of blocks launched: DispatchSize divided by
// BlockSize, rounded up, or the group count of an indirect dispatch.
func (k *K) DispatchGroups() U32x3 { return U32x3{k.builtin(ir.DispatchGroups)} }

// BlockSize is the kernel's block size.
func (k *K) BlockSize() U32x3 { return U32x3{k.builtin(ir.BlockSize)} }

// SubgroupLane is the thread's lane in its subgroup.
func (k *K) SubgroupLane() U32 { return U32{k.builtin(ir.SubgroupLane)} }

// SubgroupSize is the number of lanes of a subgroup.
func (k *K) SubgroupSize() U32 { return U32{k.builtin(ir.SubgroupSize)} }

// IfChain continues an If with Else or ElseIf.
type IfChain struct {
	k    *K
	last *ir.If
}

// If runs then when cond holds.
func (k *K) If(cond Bool, then func()) *IfChain {
	if !k.check(cond.e) {
		return &IfChain{k: k, last: &ir.If{}}
	}
	s := &ir.If{Cond: cond.e, Then: k.nested(then)}
	k.emit(s)
	return &IfChain{k: k, last: s}
}

// ElseIf adds an else-if arm.
func (c *IfChain) ElseIf(cond Bool, then func()) *IfChain {
	if c.last.Else != nil {
		c.k.failf("ElseIf after Else")
		return c
	}
	var inner *ir.If
	c.last.Else = c.k.nested(func() {
		if c.k.check(cond.e) {
			inner = &ir.If{Cond: cond.e, Then: c.k.nested(then)}
			c.k.emit(inner)
		}
	})
	if inner == nil {
		inner = &ir.If{}
	}
	return &IfChain{k: c.k, last: inner}
}

// Else adds the else arm.
func (c *IfChain) Else(body func()) {
	if c.last.Else != nil {
		c.k.failf("second Else")
		return
	}
	c.last.Else = c.k.nested(body)
}

// Loop repeats body until Break or Return.
func (k *K) Loop(body func()) { k.emit(&ir.Loop{Body: k.loopBody(body)}) }

// loopBody traces body as a loop's.
func (k *K) loopBody(body func()) *ir.Block {
	k.loops++
	k.breakable++
	defer func() { k.loops--; k.breakable-- }()
	return k.nested(body)
}

// While repeats body while cond holds; cond is traced once and evaluated
// before each iteration.
func (k *K) While(cond func() Bool, body func()) {
	k.Loop(func() {
		c := cond()
		k.If(c.Not(), k.Break)
		body()
	})
}

// Break leaves the innermost loop or switch.
func (k *K) Break() {
	if k.breakable == 0 {
		k.failf("break outside a loop or switch")
		return
	}
	k.emit(&ir.Break{})
}

// Continue starts the next iteration of the innermost loop.
func (k *K) Continue() {
	if k.loops == 0 {
		k.failf("continue outside a loop")
		return
	}
	k.emit(&ir.Continue{})
}

// Return leaves a kernel or a callable without a result.
func (k *K) Return() { k.emit(&ir.Return{}) }

// ReturnValue leaves a callable with result v.
func (k *K) ReturnValue(v Value) {
	if k.check(v.Expr()) {
		k.emit(&ir.Return{Value: v.Expr()})
	}
}

// Barrier is a workgroup execution and memory barrier.
func (k *K) Barrier() { k.emit(&ir.ExprStmt{X: &ir.Call{Op: ir.OpBarrier, T: ir.TVoid}}) }

// Comment records a note in the AST.
func (k *K) Comment(text string) { k.emit(&ir.Comment{Text: text}) }

// Assert states that cond holds (ir.Assert): a kernel compiled in the
// checked mode (device.WithChecked; always on the cpu backend) records a
// fault with msg and this line where it does not; elsewhere it costs
// nothing. cond must have no effects.
func (k *K) Assert(cond Bool, msg string) {
	if !k.check(cond.e) {
		return
	}
	if len(msg) > ir.MaxAssertMsg {
		k.failf("Assert: a message of %d bytes, more than %d", len(msg), ir.MaxAssertMsg)
		return
	}
	k.emit(&ir.Assert{Cond: cond.e, Msg: msg})
}

// Printf prints values formatted by format (Go's fmt verbs %d %x %f %e %g
// %t %v, with flags, width and precision, and %u for unsigned integers) to
// the log of the stream running the kernel, with the kernel's name and the
// thread's dispatch id: the default logger, or the device's print handler
// (device.WithPrint). Each value is a scalar or a vector; a vector prints
// as the kernel package's struct does ({1 2 3}). A format the values do not
// fit is an error naming the call site.
func (k *K) Printf(format string, values ...Value) {
	p := &ir.Print{Format: format, Args: make([]ir.Expr, len(values))}
	for i, v := range values {
		if v == nil {
			k.failf("Printf %q: value %d is nil", format, i)
			return
		}
		p.Args[i] = v.Expr()
	}
	if !k.check(p.Args...) {
		return
	}
	if err := ir.CheckPrint(p); err != nil {
		k.failf("Printf: %v", err)
		return
	}
	k.emit(p)
}

// site is "file:line" (the file's base name) of the innermost caller
// outside this package, for error messages.
func site() string {
	if s := userSite(); s != "" {
		return filepath.Base(s)
	}
	return "?"
}

// Range runs body(i) for i = lo, lo+1, … while i < hi.
func Range[E Integer](k *K, lo, hi Val[E], body func(i Val[E])) {
	if !k.check(lo.e, hi.e) {
		return
	}
	k.n++
	v := k.fn.AddLocal(fmt.Sprintf("i%d", k.n), lo.e.Type())
	k.emit(&ir.Assign{Dst: &ir.Ref{Var: v}, Src: lo.e})
	i := &ir.Ref{Var: v}
	one := ir.LitInt(lo.e.Type(), 1)
	k.emit(&ir.For{
		Cond:   &ir.Binary{Op: ir.Lt, X: i, Y: hi.e, T: ir.TBool},
		Update: &ir.Block{Stmts: []ir.Stmt{&ir.Assign{Dst: i, Src: &ir.Binary{Op: ir.Add, X: i, Y: one, T: i.Type()}}}},
		Body:   k.loopBody(func() { body(Val[E]{k.let(i)}) }),
	})
}

// caseBody traces body as a switch arm's.
func (k *K) caseBody(body func()) *ir.Block {
	k.breakable++
	defer func() { k.breakable-- }()
	return k.nested(body)
}

// SwitchB builds a switch.
type SwitchB struct {
	k *K
	s *ir.Switch
}

// Switch branches on an i32 or u32 tag; add arms with Case and Default.
func (k *K) Switch(tag Value) *SwitchB {
	s := &ir.Switch{Tag: tag.Expr()}
	if k.check(tag.Expr()) {
		k.emit(s)
	}
	return &SwitchB{k: k, s: s}
}

// Case adds an arm for values.
func (b *SwitchB) Case(body func(), values ...int64) *SwitchB {
	b.s.Cases = append(b.s.Cases, ir.Case{Values: values, Body: b.k.caseBody(body)})
	return b
}

// Default adds the default arm.
func (b *SwitchB) Default(body func()) *SwitchB {
	b.s.Default = b.k.caseBody(body)
	return b
}

// kernelParam is implemented by the DSL types a kernel takes as arguments.
type kernelParam interface {
	paramType() (*ir.Type, error)
	bind(k *K, v *ir.Var) any
}

// Kernel1D traces fn, a func(*K, args…) whose arguments are DSL values
// (uniforms), Buf[…], Tex2D, Tex3D, BindlessArray or Accel (resources), into a 1-D
// kernel whose blocks have block threads. names, optional, name the
// arguments in order (Go cannot tell a func's parameter names), for errors
// at dispatch such as "argument 1 (x): …".
func Kernel1D(block int, fn any, names ...string) (*ir.Function, error) {
	return trace("kernel", 1, [3]int{block, 1, 1}, fn, names)
}

// Kernel2D is Kernel1D over a 2-D grid with bx×by blocks.
func Kernel2D(bx, by int, fn any, names ...string) (*ir.Function, error) {
	return trace("kernel", 2, [3]int{bx, by, 1}, fn, names)
}

// Kernel3D is Kernel1D over a 3-D grid.
func Kernel3D(bx, by, bz int, fn any, names ...string) (*ir.Function, error) {
	return trace("kernel", 3, [3]int{bx, by, bz}, fn, names)
}

var kType = reflect.TypeFor[*K]()

func trace(name string, dim int, size [3]int, fn any, names []string) (f *ir.Function, err error) {
	// Each dimension is checked as the int the caller gave: converted first,
	// -5 would be reported as 4294967291 and 1<<32+64 taken as 64.
	var block [3]uint32
	threads := 1
	for i, b := range size[:dim] {
		if b < 1 || b > 1024 {
			return nil, fmt.Errorf("%w: block size %v: dimension %d is %d, want 1 to 1024 threads", ErrDSL, size[:dim], i, b)
		}
		block[i] = uint32(b)
		threads *= b
	}
	for i := dim; i < 3; i++ {
		block[i] = 1
	}
	if threads > 1024 {
		return nil, fmt.Errorf("%w: block size %v has %d threads, more than 1024", ErrDSL, size[:dim], threads)
	}
	fv := reflect.ValueOf(fn)
	if fv.Kind() != reflect.Func || fv.Type().NumIn() == 0 || fv.Type().In(0) != kType || fv.Type().NumOut() != 0 {
		return nil, fmt.Errorf("%w: a kernel is a func(*dsl.K, args…) without results, got %T", ErrDSL, fn)
	}
	if fv.IsNil() {
		return nil, fmt.Errorf("%w: nil kernel function", ErrDSL)
	}
	ft := fv.Type()
	if len(names) > ft.NumIn()-1 {
		return nil, fmt.Errorf("%w: %d argument names for %d arguments", ErrDSL, len(names), ft.NumIn()-1)
	}
	f = ir.NewKernel(name, dim, block)
	k := &K{fn: f, cur: f.Body}
	args := []reflect.Value{reflect.ValueOf(k)}
	for i := 1; i < ft.NumIn(); i++ {
		p, ok := reflect.New(ft.In(i)).Elem().Interface().(kernelParam)
		if !ok {
			return nil, fmt.Errorf("%w: kernel argument %d has type %s, which is not a DSL type", ErrDSL, i, ft.In(i))
		}
		t, err := p.paramType()
		if err != nil {
			return nil, fmt.Errorf("%w: kernel argument %d: %w", ErrDSL, i, err)
		}
		argName := fmt.Sprintf("arg%d", i-1)
		if i-1 < len(names) && names[i-1] != "" {
			argName = names[i-1]
		}
		v := f.AddParam(argName, t, ir.VarArg)
		args = append(args, reflect.ValueOf(p.bind(k, v)))
	}
	if err := k.run(func() { fv.Call(args) }); err != nil {
		return nil, err
	}
	if err := ir.Specialize(f); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDSL, err)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// run calls body, turning a panic inside it into an error.
func (k *K) run(body func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s: panic while tracing: %v", ErrDSL, k.fn.Name, r)
		}
	}()
	defer func() { k.done = true }()
	body()
	return k.err
}

// Capture makes a host resource (a buffer or texture of the runtime) a
// hidden argument of the kernel: the returned DSL value stands for it in the
// body, and the runtime passes the resource without being given it at
// dispatch. P is the DSL type, e.g. Buf[F32].
func Capture[P kernelParam](k *K, host any) P {
	var p P
	t, err := p.paramType()
	if err != nil || k.fn.Kind != ir.KernelFunc || host == nil {
		switch {
		case err != nil:
		case host == nil:
			err = fmt.Errorf("nil host resource")
		default:
			err = fmt.Errorf("only kernels capture resources: capture it in the kernel and pass it to the callable as a parameter")
		}
		k.failf("capture: %v", err)
		return p
	}
	v := k.fn.AddParam(fmt.Sprintf("capture%d", len(k.fn.Params)), t, ir.VarArg)
	v.Capture = host
	return p.bind(k, v).(P)
}
