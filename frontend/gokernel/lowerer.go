package gokernel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// lowerer lowers one function body.
type lowerer struct {
	c        *compiler
	info     *types.Info
	fn       *ir.Function
	kernel   bool
	vars     map[types.Object]*ir.Var
	refs     map[types.Object]bool    // pointer parameters (by-reference vars)
	aliases  map[types.Object]ir.Expr // pointer locals: the place each is bound to (pointer.go)
	asg      map[types.Object]bool    // objects the body assigns to or takes the address of
	views    map[types.Object]*view   // view locals and parameters (view.go)
	bad      map[types.Object]bool    // objects already reported: uses stay quiet
	bviews   map[types.Object]*bindlessView
	btviews  map[types.Object]*bindlessTexView
	queries  map[types.Object]*rayQueryDecl // declared ray queries (rayquery.go)
	query    *rayQueryDecl                  // the query whose loop body is being lowered
	shared   map[types.Object]*ir.Var
	builtins map[ir.BuiltinVar]*ir.Var
	results  []*ir.Var // named results or out-parameters
	outs     bool
	block    *ir.Block
	scopes   []*jumpScope              // the enclosing loops and switches (jump.go)
	labels   map[ast.Stmt]*types.Label // the labelled loops and switches
	tmp      int
	nerrs    int
	elems    int                             // array elements the function's literals have built
	bounded  map[string]bool                 // line:type of values reported past the bounds
	subst    map[*types.TypeParam]types.Type // the type arguments of a generic helper's instance
	pos      token.Pos                       // the Go statement being lowered: the position of what it emits
}

func (c *compiler) newLowerer(info *types.Info, fn *ir.Function, kernel bool) *lowerer {
	return &lowerer{c: c, info: info, fn: fn, kernel: kernel,
		vars: map[types.Object]*ir.Var{}, refs: map[types.Object]bool{}, bad: map[types.Object]bool{}, aliases: map[types.Object]ir.Expr{}, views: map[types.Object]*view{},
		shared: map[types.Object]*ir.Var{}, bviews: map[types.Object]*bindlessView{}, btviews: map[types.Object]*bindlessTexView{}, queries: map[types.Object]*rayQueryDecl{}, builtins: map[ir.BuiltinVar]*ir.Var{}, labels: map[ast.Stmt]*types.Label{},
		block: fn.Body}
}

func (l *lowerer) errorf(pos token.Pos, format string, args ...any) {
	l.nerrs++
	l.c.errorf(pos, format, args...)
}

// emit appends s to the current block, at the position of the Go statement
// being lowered (ir.StmtPos), unless s has one.
func (l *lowerer) emit(s ir.Stmt) {
	if l.pos.IsValid() {
		ir.SetStmtPos(s, l.c.fset.Position(l.pos).String())
	}
	l.block.Stmts = append(l.block.Stmts, s)
}

// typeOf maps the type of e, reporting at e when it has no device type.
func (l *lowerer) typeOf(e ast.Expr) *ir.Type {
	return l.typeAt(l.info.TypeOf(e), e.Pos())
}

// userNamed returns the named type of the user's (not package kernel's)
// that t is or holds as array, slice or pointer elements.
func userNamed(t types.Type) (*types.Named, bool) {
	for {
		switch x := types.Unalias(t).(type) {
		case *types.Array:
			t = x.Elem()
		case *types.Slice:
			t = x.Elem()
		case *types.Pointer:
			t = x.Elem()
		case *types.Named:
			return x, x.Obj().Pkg() != nil && x.Obj().Pkg().Path() != kernelPath
		default:
			return nil, false
		}
	}
}

func (l *lowerer) typeAt(t types.Type, pos token.Pos) *ir.Type {
	t = l.substType(t)
	if t == nil {
		l.errorf(pos, "expression has no type")
		return ir.TI32
	}
	ft, err := l.c.valueType(t)
	if err != nil {
		l.typeErrorf(t, pos, "%s", err.msg)
		return ir.TI32
	}
	return ft
}

// typeErrorf reports that Go type t has no device type. One error per
// cause: a user's named type whose declaration has no device type is
// reported where it (or an array, slice or buffer of it) is first met; its
// other uses stay quiet (but count as errors).
func (l *lowerer) typeErrorf(t types.Type, pos token.Pos, format string, args ...any) {
	if n, ok := userNamed(t); ok {
		key := types.TypeString(n, nil)
		if l.c.badTypes[key] {
			l.nerrs++
			return
		}
		l.c.badTypes[key] = true
	}
	l.errorf(pos, format, args...)
}

// zero is the zero value of t.
func zero(t *ir.Type) ir.Expr { return ir.Zero(t) }

// zeroInit stores the zero value of t in the place dst (ir.ZeroInit).
func (l *lowerer) zeroInit(dst ir.Expr, t *ir.Type) {
	for _, s := range ir.ZeroInit(l.fn, dst, t) {
		l.emit(s)
	}
}

// newTemp declares a compiler temporary.
func (l *lowerer) newTemp(t *ir.Type) *ir.Var {
	l.tmp++
	return l.fn.AddLocal(fmt.Sprintf("tmp%d", l.tmp), t)
}

// local returns (declaring on first use) the frontend variable of a Go local.
func (l *lowerer) local(obj types.Object, pos token.Pos) *ir.Var {
	if v, ok := l.vars[obj]; ok {
		return v
	}
	if rt, ok := l.resourceOf(obj.Type(), pos); ok {
		if rt != nil {
			l.errorf(pos, "%s", ir.ResourceLocalMsg("local "+obj.Name(), rt))
		}
		v := l.fn.AddLocal(obj.Name(), ir.TI32)
		l.vars[obj], l.bad[obj] = v, true
		return v
	}
	before := l.nerrs
	t := l.typeAt(obj.Type(), pos)
	if !l.fitsThread(t, pos, "local "+obj.Name()+" of type "+goType(obj.Type())) {
		t = ir.TI32
	}
	v := l.fn.AddLocal(obj.Name(), t)
	v.Pos = l.c.fset.Position(pos).String()
	l.vars[obj] = v
	if l.nerrs > before {
		l.bad[obj] = true
	}
	return v
}

// builtin returns the kernel's variable for a built-in id.
func (l *lowerer) builtin(b ir.BuiltinVar) *ir.Var {
	if v, ok := l.builtins[b]; ok {
		return v
	}
	v := &ir.Var{Name: b.String(), Type: b.Type(), Kind: ir.VarBuiltin, Builtin: b}
	l.builtins[b] = v
	return v
}
