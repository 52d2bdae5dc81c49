package ir

import (
	"fmt"
	"strings"
)

// Helpers that take resources.
//
// A frontend lowers a helper that takes buffers, textures or bindless arrays
// once, as a template: a callable whose resource parameters are VarParams of
// resource type. Specialize then gives each call its own clone per distinct
// tuple of kernel arguments, in which those parameters are the kernel's
// arguments themselves:
//
//	kernel k(nodes buffer<Node>, a buffer<Sphere>, b buffer<Sphere>)
//	    hit(nodes, a, r)   → hit<nodes,a>(r)
//	    hit(nodes, b, r)   → hit<nodes,b>(r)
//	    hit(nodes, a, r2)  → hit<nodes,a>(r2)   (the same clone)
//
// A clone refers to the kernel's resource arguments as a kernel does; no
// callable keeps a resource parameter, so a backend passes no resource by
// reference and the IR it receives stays first-order (Validate refuses a
// template reached from a kernel).

// TakesResources reports whether callable f is a template: it has a
// parameter of resource type.
func (f *Function) TakesResources() bool {
	for _, p := range f.Params {
		if p.Type != nil && p.Type.IsResource() {
			return true
		}
	}
	return false
}

// ResourceFits reports whether a resource argument of type arg may stand for
// a template's parameter of type param: the same kind of resource with the
// same elements (a buffer either bound or by address; a texture of the same
// dimension and texel type, in any storage format: the clone takes the
// argument's).
func ResourceFits(param, arg *Type) bool {
	if param == arg {
		return true
	}
	if param == nil || arg == nil || param.kind != arg.kind || !param.IsResource() {
		return false
	}
	switch param.kind {
	case KindBuffer:
		return param.elem == arg.elem
	case KindTexture:
		return param.n == arg.n && param.elem == arg.elem
	}
	return false
}

// Specialize rewrites kernel k in place so that no call it reaches goes to a
// template: each call of one becomes a call of the template's clone for the
// kernel arguments passed to its resource parameters (which the call no
// longer passes). Clones are made once per template and tuple of arguments,
// templates are left as they are (other kernels may call them). An argument
// for a resource parameter must be a resource argument of k (or, inside a
// template, one of its resource parameters); any other is an error naming
// the parameter, wrapping ErrInvalid.
func Specialize(k *Function) error {
	if k.Kind != KernelFunc {
		return fmt.Errorf("%w: Specialize: %s is not a kernel", ErrInvalid, k.Name)
	}
	s := &specializer{k: k, args: map[*Var]bool{}, clones: map[string]*Function{}, done: map[*Function]bool{}}
	for _, p := range k.Params {
		if p.Type.IsResource() {
			s.args[p] = true
		}
	}
	return s.rewrite(k)
}

type specializer struct {
	k      *Function
	args   map[*Var]bool        // k's resource arguments
	clones map[string]*Function // by template and argument tuple
	done   map[*Function]bool   // functions whose calls are rewritten
	err    error
}

func (s *specializer) errf(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("%w: kernel %s: %s", ErrInvalid, s.k.Name, fmt.Sprintf(format, args...))
	}
}

// rewrite redirects f's calls of templates to clones, and rewrites the
// callables f reaches.
func (s *specializer) rewrite(f *Function) error {
	if s.done[f] {
		return s.err
	}
	s.done[f] = true
	var calls []*Call
	WalkExprs(f, func(e Expr) {
		if c, ok := e.(*Call); ok && c.Func != nil {
			calls = append(calls, c)
		}
	})
	for _, c := range calls {
		if c.Func.TakesResources() {
			s.redirect(f, c)
		} else if err := s.rewrite(c.Func); err != nil {
			return err
		}
		if s.err != nil {
			return s.err
		}
	}
	return s.err
}

// redirect turns call c (in f) of a template into a call of its clone.
func (s *specializer) redirect(f *Function, c *Call) {
	t := c.Func
	if len(c.Args) != len(t.Params) {
		s.errf("call of %s with %d arguments, want %d", t.Name, len(c.Args), len(t.Params))
		return
	}
	bound := map[*Var]*Var{}
	var names []string
	key := fmt.Sprintf("%p", t)
	var rest []Expr
	for i, p := range t.Params {
		a := c.Args[i]
		if !p.Type.IsResource() {
			rest = append(rest, a)
			continue
		}
		r, ok := a.(*Ref)
		if !ok || !s.args[r.Var] {
			what := Describe(a)
			if ok {
				what = describeVar(r.Var)
			}
			s.errf("in %s, the argument for parameter %s of %s is %s, not a resource argument of the kernel: pass a kernel's buffer, texture or bindless array parameter (or a helper's, passed on)", f.Name, p.Name, t.Name, what)
			return
		}
		if !ResourceFits(p.Type, r.Var.Type) {
			s.errf("in %s, parameter %s of %s is %s, but argument %s is %s", f.Name, p.Name, t.Name, p.Type, r.Var.Name, r.Var.Type)
			return
		}
		bound[p] = r.Var
		names = append(names, r.Var.Name)
		key += fmt.Sprintf(",%p", r.Var)
	}
	g, ok := s.clones[key]
	if !ok {
		var err error
		g, err = cloneWith(t, bound, t.Name+"<"+strings.Join(names, ",")+">")
		if err != nil {
			s.errf("%v", err)
			return
		}
		s.clones[key] = g
		if err := s.rewrite(g); err != nil {
			return
		}
	}
	c.Func, c.Args = g, rest
}

// cloneWith copies callable t with its parameters in bound replaced by the
// variables they are bound to (and dropped from the parameter list), every
// other variable and every expression and statement fresh. A node the
// cloner does not know is an error (a compiler bug): sharing it would leave
// the clone using the template's variables.
func cloneWith(t *Function, bound map[*Var]*Var, name string) (*Function, error) {
	g := &Function{Name: name, Kind: t.Kind, Dim: t.Dim, BlockSize: t.BlockSize, Result: t.Result, Pos: t.Pos}
	m := &cloner{vars: map[*Var]*Var{}}
	for p, v := range bound {
		m.vars[p] = v
	}
	fresh := func(v *Var) *Var {
		n := *v
		m.vars[v] = &n
		return &n
	}
	for _, p := range t.Params {
		if _, ok := bound[p]; !ok {
			g.Params = append(g.Params, fresh(p))
		}
	}
	for _, l := range t.Locals {
		g.Locals = append(g.Locals, fresh(l))
	}
	for _, sh := range t.Shared {
		g.Shared = append(g.Shared, fresh(sh))
	}
	g.Body = m.block(t.Body)
	if m.unknown != "" {
		return nil, fmt.Errorf("cannot clone %s for %s (a compiler bug, please report it)", m.unknown, t.Name)
	}
	return g, nil
}

type cloner struct {
	vars    map[*Var]*Var
	unknown string // the first node type the cloner does not know
}

func (m *cloner) unknownNode(n any) {
	if m.unknown == "" {
		m.unknown = fmt.Sprintf("%T", n)
	}
}

func (m *cloner) block(b *Block) *Block {
	if b == nil {
		return nil
	}
	out := &Block{Stmts: make([]Stmt, len(b.Stmts))}
	for i, s := range b.Stmts {
		out.Stmts[i] = m.stmt(s)
		SetStmtPos(out.Stmts[i], StmtPos(s))
	}
	return out
}

func (m *cloner) stmt(s Stmt) Stmt {
	switch s := s.(type) {
	case *Block:
		return m.block(s)
	case *If:
		return &If{Cond: m.expr(s.Cond), Then: m.block(s.Then), Else: m.block(s.Else)}
	case *Loop:
		return &Loop{Body: m.block(s.Body)}
	case *RayQuery:
		return &RayQuery{Args: m.exprs(s.Args), Body: m.block(s.Body), Result: m.expr(s.Result)}
	case *For:
		return &For{Cond: m.expr(s.Cond), Update: m.block(s.Update), Body: m.block(s.Body)}
	case *Switch:
		n := &Switch{Tag: m.expr(s.Tag), Default: m.block(s.Default)}
		for _, c := range s.Cases {
			n.Cases = append(n.Cases, Case{Values: append([]int64(nil), c.Values...), Body: m.block(c.Body)})
		}
		return n
	case *Return:
		if s.Value == nil {
			return &Return{}
		}
		return &Return{Value: m.expr(s.Value)}
	case *Assign:
		return &Assign{Dst: m.expr(s.Dst), Src: m.expr(s.Src)}
	case *ExprStmt:
		return &ExprStmt{X: m.expr(s.X)}
	case *Break:
		return &Break{}
	case *Continue:
		return &Continue{}
	case *Comment:
		return &Comment{Text: s.Text}
	case *Assert:
		return &Assert{Cond: m.expr(s.Cond), Msg: s.Msg}
	case *Print:
		return &Print{Format: s.Format, Args: m.exprs(s.Args)}
	case nil:
		return nil // Validate reports it
	}
	m.unknownNode(s)
	return s
}

func (m *cloner) exprs(es []Expr) []Expr {
	if es == nil {
		return nil
	}
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = m.expr(e)
	}
	return out
}

func (m *cloner) expr(e Expr) Expr {
	switch e := e.(type) {
	case *Ref:
		if v, ok := m.vars[e.Var]; ok {
			return &Ref{Var: v}
		}
		return &Ref{Var: e.Var} // built-ins, kernel arguments
	case *Unary:
		return &Unary{Op: e.Op, X: m.expr(e.X), T: e.T}
	case *Binary:
		return &Binary{Op: e.Op, X: m.expr(e.X), Y: m.expr(e.Y), T: e.T}
	case *Member:
		return &Member{X: m.expr(e.X), Field: e.Field, T: e.T}
	case *Swizzle:
		return &Swizzle{X: m.expr(e.X), Comps: append([]uint8(nil), e.Comps...), T: e.T}
	case *Index:
		return &Index{X: m.expr(e.X), I: m.expr(e.I), T: e.T}
	case *Literal:
		return &Literal{T: e.T, Bits: e.Bits}
	case *ConstArray:
		vals := make([]*Literal, len(e.Values))
		for i, l := range e.Values {
			vals[i] = &Literal{T: l.T, Bits: l.Bits}
		}
		return &ConstArray{T: e.T, Values: vals}
	case *Call:
		return &Call{Op: e.Op, Func: e.Func, Args: m.exprs(e.Args), T: e.T}
	case *Cast:
		return &Cast{X: m.expr(e.X), T: e.T, Bit: e.Bit}
	case *Construct:
		return &Construct{T: e.T, Args: m.exprs(e.Args)}
	case *Poison, nil:
		return e // Validate reports them
	}
	m.unknownNode(e)
	return e
}

// The uses of resources that helpers do not support, worded once for every
// frontend (a frontend from source puts file:line:col before them).

// ResourceResultMsg says that helper returns a resource of type t.
func ResourceResultMsg(helper string, t *Type) string {
	return fmt.Sprintf("%s returns a %s: a helper cannot return a resource; take the resource as a parameter instead", helper, t)
}

// ResourcePointerMsg says that parameter param of helper points to a
// resource of type t.
func ResourcePointerMsg(param, helper string, t *Type) string {
	return fmt.Sprintf("parameter %s of %s is a pointer to a %s: a helper takes the resource itself (it reads and writes it in place); drop the pointer", param, helper, t)
}

// ResourceLocalMsg says that local variable name would hold a resource of
// type t.
func ResourceLocalMsg(name string, t *Type) string {
	a := "a"
	if k := t.String(); k != "" && strings.ContainsRune("aeiou", rune(k[0])) {
		a = "an"
	}
	return fmt.Sprintf("%s would hold %s %s: a resource cannot be kept in a local variable; use the kernel's or the helper's parameter directly", name, a, t)
}
