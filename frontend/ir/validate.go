package ir

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalid is wrapped by Validate's errors.
var ErrInvalid = errors.New("frontend: invalid kernel")

// ErrLimit is wrapped by Validate's errors about a kernel beyond one of the
// compiler's input bounds (MaxValueSize, MaxNesting, MaxExprDepth,
// MaxStatements, MaxLocals).
var ErrLimit = errors.New("frontend: kernel beyond a compiler limit")

// WalkExprs calls fn for every expression of f, children after parents.
func WalkExprs(f *Function, fn func(Expr)) {
	var expr func(e Expr)
	expr = func(e Expr) {
		if e == nil {
			return
		}
		fn(e)
		switch e := e.(type) {
		case *Unary:
			expr(e.X)
		case *Binary:
			expr(e.X)
			expr(e.Y)
		case *Member:
			expr(e.X)
		case *Swizzle:
			expr(e.X)
		case *Index:
			expr(e.X)
			expr(e.I)
		case *Call:
			for _, a := range e.Args {
				expr(a)
			}
		case *Cast:
			expr(e.X)
		case *Construct:
			for _, a := range e.Args {
				expr(a)
			}
		}
	}
	var block func(b *Block)
	stmt := func(s Stmt) {
		switch s := s.(type) {
		case *Block:
			block(s)
		case *If:
			expr(s.Cond)
			block(s.Then)
			block(s.Else)
		case *Loop:
			block(s.Body)
		case *For:
			expr(s.Cond)
			block(s.Body)
			block(s.Update)
		case *Switch:
			expr(s.Tag)
			for _, c := range s.Cases {
				block(c.Body)
			}
			block(s.Default)
		case *Return:
			expr(s.Value)
		case *Assign:
			expr(s.Dst)
			expr(s.Src)
		case *ExprStmt:
			expr(s.X)
		case *Print:
			for _, a := range s.Args {
				expr(a)
			}
		case *RayQuery:
			for _, a := range s.Args {
				expr(a)
			}
			block(s.Body)
			expr(s.Result)
		case *Assert:
			expr(s.Cond)
		}
	}
	block = func(b *Block) {
		if b == nil {
			return
		}
		for _, s := range b.Stmts {
			stmt(s)
		}
	}
	block(f.Body)
}

// Validate checks f and every callable it reaches: types agree, variables
// belong to the function that uses them, breaks and continues sit inside
// loops, returns match the result type, the kernel's arguments fit ABI v1,
// no callable recurses, and each function keeps within the compiler's
// bounds (limits.go; those errors wrap ErrLimit).
func (f *Function) Validate() error {
	if err := f.ValidateOne(); err != nil {
		return err
	}
	if err := f.checkRecursion(nil); err != nil {
		return err
	}
	args := map[*Var]bool{}
	for _, p := range f.Params {
		args[p] = true
	}
	for _, g := range f.Callees() {
		if err := g.ValidateOne(); err != nil {
			return err
		}
		if f.Kind != KernelFunc {
			continue
		}
		for _, p := range g.Params {
			if p.Type.IsResource() {
				return fmt.Errorf("%w: %s: callable %s takes %s of type %s: a helper that takes resources reaches a kernel only specialised per call (Specialize)", ErrInvalid, f.Name, g.Name, describeVar(p), p.Type)
			}
		}
		var err error
		WalkExprs(g, func(e Expr) {
			if r, ok := e.(*Ref); ok && r.Var.Kind == VarArg && !args[r.Var] && err == nil {
				err = fmt.Errorf("%w: %s: callable %s uses argument %s, which is not an argument of kernel %s", ErrInvalid, f.Name, g.Name, r.Var.Name, f.Name)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (f *Function) checkRecursion(stack []*Function) error {
	for _, s := range stack {
		if s == f {
			return fmt.Errorf("%w: callable %s calls itself (recursion is not supported)", ErrInvalid, f.Name)
		}
	}
	stack = append(stack, f)
	seen := map[*Function]bool{}
	var err error
	WalkExprs(f, func(e Expr) {
		if c, ok := e.(*Call); ok && c.Func != nil && !seen[c.Func] && err == nil {
			seen[c.Func] = true
			err = c.Func.checkRecursion(stack)
		}
	})
	return err
}

type validator struct {
	f      *Function
	vars   map[*Var]bool
	loops  int    // enclosing loops
	brk    int    // enclosing loops and switches
	depth  int    // enclosing statements
	edepth int    // enclosing expressions
	stmts  int    // statements seen
	query  bool   // inside a RayQuery's body
	pos    string // StmtPos of the innermost statement being checked that has one
}

func (v *validator) errf(format string, args ...any) error {
	return fmt.Errorf("%w: %s%s: %s", ErrInvalid, v.at(), v.f.Name, fmt.Sprintf(format, args...))
}

func (v *validator) limitf(format string, args ...any) error {
	return fmt.Errorf("%w: %s%s: %s", ErrLimit, v.at(), v.f.Name, fmt.Sprintf(format, args...))
}

// at is "pos: " for an error inside a statement with a position, else "".
func (v *validator) at() string {
	if v.pos == "" {
		return ""
	}
	return v.pos + ": "
}

// valueFits reports a value of type t (held by one thread) beyond
// MaxValueSize or MaxValueParts.
func (v *validator) valueFits(t *Type, what string) error {
	if t.size > MaxValueSize {
		return v.limitf("%s is %s of %s, more than the %s a thread may hold (MaxValueSize): keep it in shared memory or a buffer", what, SizeText(uint64(t.size)), t, SizeText(MaxValueSize))
	}
	if n := Parts(t); n > MaxValueParts {
		return v.limitf("%s has %d parts (%s), more than the %d a thread's value may have (MaxValueParts): keep it in shared memory or a buffer", what, n, t, MaxValueParts)
	}
	return nil
}

// stmtName names a statement for a nesting error.
func stmtName(s Stmt) string {
	switch s.(type) {
	case *If:
		return "an if"
	case *Loop:
		return "a loop"
	case *For:
		return "a for loop"
	case *Switch:
		return "a switch"
	case *RayQuery:
		return "a ray query"
	}
	return "a block"
}

// ValidateOne checks f alone, not the callables it calls (Validate checks
// those too); builders check a callable with it once its body is done.
func (f *Function) ValidateOne() error {
	v := &validator{f: f, vars: map[*Var]bool{}}
	switch f.Kind {
	case KernelFunc:
		if f.Dim < 1 || f.Dim > 3 {
			return v.errf("kernel dimension %d is not 1, 2 or 3", f.Dim)
		}
		n := uint64(1)
		for i, b := range f.BlockSize {
			if b == 0 || i >= f.Dim && b != 1 {
				return v.errf("block size %v does not fit a %d-D kernel", f.BlockSize, f.Dim)
			}
			n *= uint64(b)
		}
		if n > 1024 {
			return v.errf("block size %v has %d threads, more than 1024", f.BlockSize, n)
		}
		if f.Result != TVoid {
			return v.errf("a kernel returns no value")
		}
		for _, p := range f.Params {
			if p.Kind != VarArg {
				return v.errf("kernel parameter %s is not an argument", p.Name)
			}
			if p.Type != TBool && p.Type.HoldsBool() {
				return v.errf("kernel argument %s of type %s holds bools, which have no layout in the argument block (a bool argument travels as a uint32): use uint32s", p.Name, p.Type)
			}
		}
	case CallableFunc:
		if f.Result == nil || f.Result.IsResource() {
			return v.errf("callable result type %v is not a value type", f.Result)
		}
		if len(f.Shared) > 0 {
			return v.errf("shared variables belong to kernels")
		}
		for _, p := range f.Params {
			if p.Kind != VarParam && p.Kind != VarRefParam {
				return v.errf("callable parameter %s is neither by value nor by reference", p.Name)
			}
		}
	default:
		return v.errf("unknown function kind %d", f.Kind)
	}
	if len(f.Locals) > MaxLocals {
		return v.limitf("%d local variables, more than %d (MaxLocals)", len(f.Locals), MaxLocals)
	}
	if f.Kind == CallableFunc {
		if err := v.valueFits(f.Result, "the result"); err != nil {
			return err
		}
	}
	for _, list := range [][]*Var{f.Params, f.Locals, f.Shared} {
		for _, x := range list {
			if x.Type == nil || x.Type == TVoid {
				return v.errf("variable %s has no type", x.Name)
			}
			// A callable's resource parameter makes it a template
			// (specialize.go), which Validate refuses at a kernel.
			if x.Type.IsResource() && x.Kind != VarArg && (f.Kind != CallableFunc || x.Kind != VarParam) {
				return v.errf("variable %s of type %s must be a kernel argument", x.Name, x.Type)
			}
			if x.Kind == VarLocal || x.Kind == VarParam {
				if err := v.valueFits(x.Type, describeVar(x)); err != nil {
					return err
				}
			}
			v.vars[x] = true
		}
	}
	if f.Body == nil {
		return v.errf("no body")
	}
	return v.block(f.Body)
}

func (v *validator) block(b *Block) error {
	if b == nil {
		return nil
	}
	for _, s := range b.Stmts {
		if err := v.stmt(s); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) cond(e Expr, what string) error {
	if err := v.expr(e); err != nil {
		return err
	}
	if e.Type() != TBool {
		return v.errf("%s condition is %s, want bool", what, e.Type())
	}
	return nil
}

// describeVar names a variable for an error: "local a", "parameter p".
func describeVar(x *Var) string {
	w := "variable"
	switch x.Kind {
	case VarLocal:
		w = "local"
	case VarParam, VarRefParam:
		w = "parameter"
	case VarShared:
		w = "shared variable"
	case VarArg:
		w = "argument"
	}
	if x.Pos != "" {
		return fmt.Sprintf("%s %s (%s)", w, x.Name, x.Pos)
	}
	return w + " " + x.Name
}

func (v *validator) stmt(s Stmt) error {
	if p := StmtPos(s); p != "" {
		outer := v.pos
		v.pos = p
		defer func() { v.pos = outer }()
	}
	v.stmts++
	if v.stmts > MaxStatements {
		return v.limitf("more than %d statements (MaxStatements): split the kernel", MaxStatements)
	}
	switch s.(type) {
	case *If, *Loop, *For, *Switch, *Block, *RayQuery:
		v.depth++
		defer func() { v.depth-- }()
		if v.depth > MaxNesting {
			return v.limitf("%s nested %d deep, more than %d (MaxNesting): flatten the control flow or move the inner part into a callable", stmtName(s), v.depth, MaxNesting)
		}
	}
	switch s := s.(type) {
	case *Block:
		return v.block(s)
	case *If:
		if err := v.cond(s.Cond, "if"); err != nil {
			return err
		}
		if err := v.block(s.Then); err != nil {
			return err
		}
		return v.block(s.Else)
	case *Loop:
		v.loops++
		v.brk++
		defer func() { v.loops--; v.brk-- }()
		return v.block(s.Body)
	case *For:
		if err := v.cond(s.Cond, "for"); err != nil {
			return err
		}
		v.loops++
		v.brk++
		err := v.block(s.Body)
		v.loops--
		v.brk--
		if err != nil {
			return err
		}
		// Update runs as the continue target: no break or continue there.
		l, b := v.loops, v.brk
		v.loops, v.brk = 0, 0
		defer func() { v.loops, v.brk = l, b }()
		return v.block(s.Update)
	case *Switch:
		if err := v.expr(s.Tag); err != nil {
			return err
		}
		if t := s.Tag.Type(); t != TI32 && t != TU32 {
			return v.errf("switch tag is %s, want i32 or u32", t)
		}
		seen := map[int64]bool{}
		v.brk++
		defer func() { v.brk-- }()
		for _, c := range s.Cases {
			if len(c.Values) == 0 {
				return v.errf("switch case without values")
			}
			for _, x := range c.Values {
				if s.Tag.Type() == TU32 && (x < 0 || x > math.MaxUint32) || s.Tag.Type() == TI32 && (x < math.MinInt32 || x > math.MaxInt32) {
					return v.errf("switch case %d does not fit the %s tag", x, s.Tag.Type())
				}
				if seen[x] {
					return v.errf("switch case %d repeats", x)
				}
				seen[x] = true
			}
			if err := v.block(c.Body); err != nil {
				return err
			}
		}
		return v.block(s.Default)
	case *RayQuery:
		return v.rayQuery(s)
	case *Break:
		if v.brk == 0 {
			if v.query {
				return v.errf("break out of a ray query's candidate loop: end the traversal with a terminate (OpRayTerminate) instead")
			}
			return v.errf("break outside a loop or switch")
		}
	case *Continue:
		if v.loops == 0 {
			if v.query {
				return v.errf("continue in a ray query's candidate loop: the next candidate comes when the body ends; put the rest in an if")
			}
			return v.errf("continue outside a loop")
		}
	case *Return:
		if v.query {
			return v.errf("return inside a ray query's candidate loop: set a flag, terminate the traversal (OpRayTerminate) and return after it")
		}
		if s.Value == nil {
			if v.f.Result != TVoid {
				return v.errf("return without a value in a callable returning %s", v.f.Result)
			}
			return nil
		}
		if err := v.expr(s.Value); err != nil {
			return err
		}
		if s.Value.Type() != v.f.Result {
			return v.errf("return of %s in a function returning %s", s.Value.Type(), v.f.Result)
		}
	case *Assign:
		if err := v.expr(s.Dst); err != nil {
			return err
		}
		if err := v.expr(s.Src); err != nil {
			return err
		}
		if !IsPlace(s.Dst) {
			return v.errf("cannot assign to %s", Describe(s.Dst))
		}
		if err := v.valueFits(s.Dst.Type(), "the assignment to "+Describe(s.Dst)+" copies a value that"); err != nil {
			return err
		}
		if s.Dst.Type() != s.Src.Type() {
			return v.errf("assignment of %s to %s of type %s", s.Src.Type(), Describe(s.Dst), s.Dst.Type())
		}
	case *ExprStmt:
		return v.expr(s.X)
	case *Print:
		for _, a := range s.Args {
			if a == nil {
				return v.errf("print %q: nil argument", s.Format)
			}
			if err := v.expr(a); err != nil {
				return err
			}
		}
		if err := CheckPrint(s); err != nil {
			return v.errf("%s", err)
		}
	case *Assert:
		if s.Cond == nil {
			return v.errf("assert %q: nil condition", s.Msg)
		}
		if err := v.expr(s.Cond); err != nil {
			return err
		}
		if s.Cond.Type() != TBool {
			return v.errf("assert %q: condition of type %s, not bool", s.Msg, s.Cond.Type())
		}
		if len(s.Msg) > MaxAssertMsg {
			return v.errf("assert: a message of %d bytes, more than %d", len(s.Msg), MaxAssertMsg)
		}
	case *Comment:
	case nil:
		return v.errf("nil statement")
	default:
		return v.errf("unknown statement %T", s)
	}
	return nil
}

// Describe names expression e for error messages: the variable, member or
// call it is, else its Go type.
func Describe(e Expr) string {
	switch e := e.(type) {
	case *Ref:
		return e.Var.Name
	case *Index:
		return Describe(e.X) + "[…]"
	case *Member:
		if e.X.Type().kind == KindStruct {
			return Describe(e.X) + "." + e.X.Type().fields[e.Field].Name
		}
	case *Call:
		if e.Func != nil {
			return e.Func.Name + "(…)"
		}
		return e.Op.String() + "(…)"
	}
	return fmt.Sprintf("%T", e)
}

func (v *validator) expr(e Expr) error {
	if e == nil {
		return v.errf("missing expression")
	}
	if e.Type() == nil {
		return v.errf("%s has no type", Describe(e))
	}
	v.edepth++
	defer func() { v.edepth-- }()
	if v.edepth > MaxExprDepth {
		return v.limitf("an expression nested more than %d deep (MaxExprDepth): split it with local variables", MaxExprDepth)
	}
	want := func(t *Type, err error) error {
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalid, v.f.Name, err)
		}
		if t != e.Type() {
			return v.errf("%s has type %s, its operands give %s", Describe(e), e.Type(), t)
		}
		return nil
	}
	switch e := e.(type) {
	case *Ref:
		if e.Var.Kind == VarBuiltin {
			if e.Var.Builtin == 0 || e.Var.Builtin > lastBuiltin || e.Var.Type != e.Var.Builtin.Type() {
				return v.errf("bad built-in variable %s", e.Var.Name)
			}
			if v.f.Kind != KernelFunc {
				return v.errf("built-in %s used in callable (pass it as a parameter)", e.Var.Builtin)
			}
			return nil
		}
		if !v.vars[e.Var] && (v.f.Kind != CallableFunc || e.Var.Kind != VarArg || !e.Var.Type.IsResource()) {
			// A callable may name a kernel's resource argument: a clone
			// of a template does (Validate checks it is the kernel's).
			if v.f.Kind == CallableFunc {
				return v.errf("variable %s does not belong to this function: a callable uses only its parameters and its own variables; pass the value as a parameter", e.Var.Name)
			}
			return v.errf("variable %s does not belong to this function", e.Var.Name)
		}
	case *Literal:
		if !e.T.IsScalar() {
			return v.errf("literal of non-scalar type %s", e.T)
		}
	case *ConstArray:
		if err := v.valueFits(e.T, "a constant table"); err != nil {
			return err
		}
		if e.T.kind != KindArray || len(e.Values) != e.T.n {
			return v.errf("constant array of %d values has type %s", len(e.Values), e.T)
		}
		for _, x := range e.Values {
			if x.T != e.T.elem {
				return v.errf("constant array element of %s in %s", x.T, e.T)
			}
		}
	case *Unary:
		if err := v.expr(e.X); err != nil {
			return err
		}
		return want(UnaryType(e.Op, e.X.Type()))
	case *Binary:
		if err := v.expr(e.X); err != nil {
			return err
		}
		if err := v.expr(e.Y); err != nil {
			return err
		}
		return want(BinaryType(e.Op, e.X.Type(), e.Y.Type()))
	case *Member:
		if err := v.expr(e.X); err != nil {
			return err
		}
		t := e.X.Type()
		if t.kind != KindStruct || e.Field < 0 || e.Field >= len(t.fields) {
			return v.errf("member %d of %s", e.Field, t)
		}
		return want(t.fields[e.Field].Type, nil)
	case *Swizzle:
		if err := v.expr(e.X); err != nil {
			return err
		}
		t := e.X.Type()
		if t.kind != KindVector || len(e.Comps) == 0 || len(e.Comps) > 4 {
			return v.errf("swizzle of %d components on %s", len(e.Comps), t)
		}
		for _, c := range e.Comps {
			if int(c) >= t.n {
				return v.errf("swizzle component %d of %s", c, t)
			}
		}
		r := t.elem
		if len(e.Comps) > 1 {
			r = Vector(t.elem, len(e.Comps))
		}
		return want(r, nil)
	case *Index:
		if err := v.expr(e.X); err != nil {
			return err
		}
		if err := v.expr(e.I); err != nil {
			return err
		}
		if !e.I.Type().IsInteger() {
			return v.errf("index of type %s", e.I.Type())
		}
		t := e.X.Type()
		switch t.kind {
		case KindArray, KindVector, KindMatrix, KindBuffer:
			return want(t.elem, nil)
		}
		return v.errf("cannot index %s", t)
	case *Call:
		for _, a := range e.Args {
			if err := v.expr(a); err != nil {
				return err
			}
		}
		if e.Func == nil {
			if CandidateOp(e.Op) && !v.query {
				return v.errf("%s outside a ray query's candidate loop: the candidate exists only in the loop's body", e.Op)
			}
			return want(CallResult(e))
		}
		g := e.Func
		if g.Kind != CallableFunc {
			return v.errf("call of kernel %s", g.Name)
		}
		if len(e.Args) != len(g.Params) {
			return v.errf("call of %s with %d arguments, want %d", g.Name, len(e.Args), len(g.Params))
		}
		for i, a := range e.Args {
			p := g.Params[i]
			if a.Type() != p.Type && !(p.Type.IsResource() && ResourceFits(p.Type, a.Type())) {
				return v.errf("argument %d (%s) of %s is %s, want %s", i, p.Name, g.Name, a.Type(), p.Type)
			}
			if p.Kind == VarRefParam && !IsPlace(a) {
				return v.errf("argument %d (%s) of %s is passed by reference and must be a variable", i, p.Name, g.Name)
			}
			if p.Kind == VarRefParam {
				if r := PlaceRoot(a); r == nil || r.Kind != VarLocal && r.Kind != VarRefParam {
					return v.errf("argument %d (%s) of %s: only local variables pass by reference", i, p.Name, g.Name)
				}
			}
		}
		return want(g.Result, nil)
	case *Cast:
		if err := v.expr(e.X); err != nil {
			return err
		}
		if err := CastOK(e.X.Type(), e.T, e.Bit); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalid, v.f.Name, err)
		}
	case *Construct:
		if err := v.valueFits(e.T, "a constructed value"); err != nil {
			return err
		}
		for _, a := range e.Args {
			if err := v.expr(a); err != nil {
				return err
			}
		}
		return ConstructOK(e.T, e.Args)
	case *Poison:
		return fmt.Errorf("%w: %s: %w", ErrInvalid, v.f.Name, e.Err)
	default:
		return v.errf("unknown expression %T", e)
	}
	return nil
}

// ConstructOK checks the parts of a Construct of t.
func ConstructOK(t *Type, args []Expr) error {
	switch t.kind {
	case KindVector:
		if len(args) == 1 && args[0].Type() == t.elem {
			return nil
		}
		n := 0
		for _, a := range args {
			at := a.Type()
			if at == t.elem {
				n++
			} else if at.kind == KindVector && at.elem == t.elem {
				n += at.n
			} else {
				return mismatch(stringer("construct "+t.String()), "part of type %s", at)
			}
		}
		if n != t.n {
			return mismatch(stringer("construct "+t.String()), "%d components, want %d", n, t.n)
		}
		return nil
	case KindArray:
		if len(args) == 1 && args[0].Type() == t.elem {
			return nil // every element the same (a zero value)
		}
		fallthrough
	case KindMatrix:
		if len(args) != t.n {
			return mismatch(stringer("construct "+t.String()), "%d parts, want %d", len(args), t.n)
		}
		for _, a := range args {
			if a.Type() != t.elem {
				return mismatch(stringer("construct "+t.String()), "part of type %s, want %s", a.Type(), t.elem)
			}
		}
		return nil
	case KindStruct:
		if len(args) != len(t.fields) {
			return mismatch(stringer("construct "+t.String()), "%d parts, want %d", len(args), len(t.fields))
		}
		for i, a := range args {
			if a.Type() != t.fields[i].Type {
				return mismatch(stringer("construct "+t.name), "field %s is %s, want %s", t.fields[i].Name, a.Type(), t.fields[i].Type)
			}
		}
		return nil
	}
	return mismatch(stringer("construct"), "cannot construct %s", t)
}
