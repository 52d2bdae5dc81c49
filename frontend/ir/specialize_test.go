package ir_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// bump is a template: bump(b buffer<u32>, i u32) { b[i] = b[i] + 1 }.
func bump() *ir.Function {
	g := ir.NewCallable("bump", ir.TVoid)
	b := g.AddParam("b", ir.Buffer(ir.TU32), ir.VarParam)
	i := g.AddParam("i", ir.TU32, ir.VarParam)
	at := &ir.Index{X: &ir.Ref{Var: b}, I: &ir.Ref{Var: i}, T: ir.TU32}
	g.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: at, Src: &ir.Binary{Op: ir.Add, X: at, Y: ir.LitInt(ir.TU32, 1), T: ir.TU32}}}
	return g
}

// twice is a template passing its buffer on: twice(b, i) { bump(b, i); bump(b, i) }.
func twice(inner *ir.Function) *ir.Function {
	g := ir.NewCallable("twice", ir.TVoid)
	b := g.AddParam("b", ir.Buffer(ir.TU32), ir.VarParam)
	i := g.AddParam("i", ir.TU32, ir.VarParam)
	call := func() ir.Stmt {
		return &ir.ExprStmt{X: &ir.Call{Func: inner, Args: []ir.Expr{&ir.Ref{Var: b}, &ir.Ref{Var: i}}, T: ir.TVoid}}
	}
	g.Body.Stmts = []ir.Stmt{call(), call()}
	return g
}

func callStmt(g *ir.Function, args ...ir.Expr) ir.Stmt {
	return &ir.ExprStmt{X: &ir.Call{Func: g, Args: args, T: ir.TVoid}}
}

func TestSpecializeClonesPerArgumentTuple(t *testing.T) {
	inner := bump()
	outer := twice(inner)
	k := ir.NewKernel("k", 1, [3]uint32{64, 1, 1})
	x := k.AddParam("x", ir.Buffer(ir.TU32), ir.VarArg)
	y := k.AddParam("y", ir.Buffer(ir.TU32), ir.VarArg)
	zero := ir.LitInt(ir.TU32, 0)
	k.Body.Stmts = []ir.Stmt{
		callStmt(outer, &ir.Ref{Var: x}, zero),
		callStmt(outer, &ir.Ref{Var: y}, zero),
		callStmt(outer, &ir.Ref{Var: x}, ir.LitInt(ir.TU32, 1)),
		callStmt(inner, &ir.Ref{Var: y}, zero),
	}
	// Unspecialised, the kernel reaches templates: Validate says so.
	err := k.Validate()
	require.ErrorIs(t, err, ir.ErrInvalid)
	require.ErrorContains(t, err, "takes parameter b of type buffer<u32>: a helper that takes resources reaches a kernel only specialised per call")

	require.NoError(t, ir.Specialize(k))
	require.NoError(t, k.Validate())
	var names []string
	for _, g := range k.Callees() {
		names = append(names, g.Name)
		require.False(t, g.TakesResources(), g.Name)
		require.Len(t, g.Params, 1, g.Name) // i only
	}
	require.ElementsMatch(t, []string{"bump<x>", "twice<x>", "bump<y>", "twice<y>"}, names)
	// The calls with the same buffer share one clone; the templates are untouched.
	c0 := k.Body.Stmts[0].(*ir.ExprStmt).X.(*ir.Call)
	c2 := k.Body.Stmts[2].(*ir.ExprStmt).X.(*ir.Call)
	require.Same(t, c0.Func, c2.Func)
	require.Len(t, c0.Args, 1)
	require.True(t, outer.TakesResources())
	require.Len(t, outer.Params, 2)
	// Access sees the writes the clones make.
	r, w := k.Access(x)
	require.True(t, r && w)

	// The serialised form keeps the clones' references to kernel arguments.
	data, err := ir.MarshalKernel(k)
	require.NoError(t, err)
	back, err := ir.UnmarshalKernel(data)
	require.NoError(t, err)
	require.Equal(t, k.Hash(), back.Hash())
	require.Equal(t, k.String(), back.String())
}

func TestSpecializeRejectsWhatIsNotAKernelArgument(t *testing.T) {
	k := ir.NewKernel("k", 1, [3]uint32{64, 1, 1})
	other := ir.NewKernel("other", 1, [3]uint32{64, 1, 1})
	foreign := other.AddParam("z", ir.Buffer(ir.TU32), ir.VarArg)
	k.Body.Stmts = []ir.Stmt{callStmt(bump(), &ir.Ref{Var: foreign}, ir.LitInt(ir.TU32, 0))}
	err := ir.Specialize(k)
	require.ErrorIs(t, err, ir.ErrInvalid)
	require.ErrorContains(t, err, "the argument for parameter b of bump is argument z, not a resource argument of the kernel")

	// A clone-like callable that names another kernel's argument.
	g := ir.NewCallable("g", ir.TVoid)
	g.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: foreign}, I: ir.LitInt(ir.TU32, 0), T: ir.TU32}, Src: ir.LitInt(ir.TU32, 1)}}
	k2 := ir.NewKernel("k2", 1, [3]uint32{64, 1, 1})
	k2.AddParam("x", ir.Buffer(ir.TU32), ir.VarArg)
	k2.Body.Stmts = []ir.Stmt{callStmt(g)}
	require.ErrorContains(t, k2.Validate(), "callable g uses argument z, which is not an argument of kernel k2")

	// A resource of the wrong element type.
	k3 := ir.NewKernel("k3", 1, [3]uint32{64, 1, 1})
	f := k3.AddParam("f", ir.Buffer(ir.TF32), ir.VarArg)
	k3.Body.Stmts = []ir.Stmt{callStmt(bump(), &ir.Ref{Var: f}, ir.LitInt(ir.TU32, 0))}
	require.ErrorContains(t, ir.Specialize(k3), "parameter b of bump is buffer<u32>, but argument f is buffer<f32>")
}

func TestResourceFits(t *testing.T) {
	for _, c := range []struct {
		param, arg *ir.Type
		fits       bool
	}{
		{ir.Buffer(ir.TU32), ir.Buffer(ir.TU32), true},
		{ir.Buffer(ir.TU32), ir.BufferAddress(ir.TU32), true},
		{ir.Buffer(ir.TU32), ir.Buffer(ir.TI32), false},
		{ir.TextureOf(2, ir.FormatRGBA32F), ir.TextureOf(2, ir.FormatRGBA8), true},
		{ir.TextureOf(2, ir.FormatRGBA32F), ir.TextureOf(3, ir.FormatRGBA32F), false},
		{ir.TextureOf(2, ir.FormatRGBA32F), ir.TextureOf(2, ir.FormatRGBA32UI), false},
		{ir.Bindless, ir.Bindless, true},
		{ir.Buffer(ir.TU32), ir.Bindless, false},
		{ir.TU32, ir.TU32, true},
	} {
		require.Equal(t, c.fits, ir.ResourceFits(c.param, c.arg), "%s ← %s", c.param, c.arg)
	}
}

// nodeTypes lists the types of the ir package's source that implement Stmt
// or Expr (a method stmtNode or exprNode).
func nodeTypes(t *testing.T) []string {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	require.NoError(t, err)
	var names []string
	for _, f := range pkgs["ir"].Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || (fd.Name.Name != "stmtNode" && fd.Name.Name != "exprNode") {
				continue
			}
			names = append(names, fd.Recv.List[0].Type.(*ast.StarExpr).X.(*ast.Ident).Name)
		}
	}
	sort.Strings(names)
	return names
}

// fill sets every statement and expression field of node n (a pointer to a
// struct) to something that reads v.
func fill(n any, v *ir.Var) {
	read := func() ir.Expr { return &ir.Ref{Var: v} }
	block := func() *ir.Block { return &ir.Block{Stmts: []ir.Stmt{&ir.ExprStmt{X: read()}}} }
	s := reflect.ValueOf(n).Elem()
	for i := 0; i < s.NumField(); i++ {
		f := s.Field(i)
		switch reflect.New(f.Type()).Interface().(type) {
		case *ir.Expr:
			f.Set(reflect.ValueOf(read()))
		case *[]ir.Expr:
			f.Set(reflect.ValueOf([]ir.Expr{read(), read()}))
		case **ir.Block:
			f.Set(reflect.ValueOf(block()))
		case *[]ir.Stmt:
			f.Set(reflect.ValueOf([]ir.Stmt{&ir.ExprStmt{X: read()}}))
		case *[]ir.Case:
			f.Set(reflect.ValueOf([]ir.Case{{Values: []int64{1}, Body: block()}}))
		case **ir.Var:
			f.Set(reflect.ValueOf(v))
		}
	}
}

// refs lists the variables every Ref reachable from x reads, not looking
// into types or called functions.
func refs(x reflect.Value, out map[*ir.Var]bool) {
	switch x.Kind() {
	case reflect.Interface:
		if !x.IsNil() {
			refs(x.Elem(), out)
		}
	case reflect.Pointer:
		if x.IsNil() {
			return
		}
		switch p := x.Interface().(type) {
		case *ir.Type, *ir.Function:
			return
		case *ir.Var:
			out[p] = true
			return
		}
		refs(x.Elem(), out)
	case reflect.Struct:
		for i := 0; i < x.NumField(); i++ {
			if x.Type().Field(i).IsExported() {
				refs(x.Field(i), out)
			}
		}
	case reflect.Slice:
		for i := 0; i < x.Len(); i++ {
			refs(x.Index(i), out)
		}
	}
}

// Specialize clones every kind of statement and expression a template may
// hold: a clone reads only its own variables, never the template's (a
// statement the cloner shared left kernel.Printf in a helper that takes a
// buffer reading the template's variables).
func TestSpecializeClonesEveryNode(t *testing.T) {
	nodes := map[string]any{}
	for _, n := range []any{
		&ir.Block{}, &ir.If{}, &ir.Loop{}, &ir.For{}, &ir.Switch{}, &ir.Break{}, &ir.Continue{}, &ir.Return{},
		&ir.Assign{}, &ir.ExprStmt{}, &ir.Comment{}, &ir.Print{Format: "%d %d"}, &ir.RayQuery{}, &ir.Assert{Msg: "m"},
		&ir.Unary{}, &ir.Binary{}, &ir.Member{}, &ir.Swizzle{}, &ir.Index{}, &ir.Literal{}, &ir.ConstArray{},
		&ir.Ref{}, &ir.Call{}, &ir.Cast{}, &ir.Construct{}, &ir.Poison{},
	} {
		nodes[reflect.TypeOf(n).Elem().Name()] = n
	}
	var have []string
	for name := range nodes {
		have = append(have, name)
	}
	sort.Strings(have)
	require.Equal(t, nodeTypes(t), have, "a node type the test does not build")

	for name, n := range nodes {
		if name == "Poison" {
			continue // Validate refuses it; there is nothing to clone
		}
		t.Run(name, func(t *testing.T) {
			g := ir.NewCallable("h", ir.TVoid)
			g.AddParam("b", ir.Buffer(ir.TU32), ir.VarParam)
			v := g.AddLocal("v", ir.TU32)
			fill(n, v)
			var s ir.Stmt
			if st, ok := n.(ir.Stmt); ok {
				s = st
			} else {
				s = &ir.ExprStmt{X: n.(ir.Expr)}
			}
			g.Body.Stmts = []ir.Stmt{s}
			k := ir.NewKernel("k", 1, [3]uint32{64, 1, 1})
			x := k.AddParam("x", ir.Buffer(ir.TU32), ir.VarArg)
			k.Body.Stmts = []ir.Stmt{callStmt(g, &ir.Ref{Var: x})}
			require.NoError(t, ir.Specialize(k))
			c := k.Body.Stmts[0].(*ir.ExprStmt).X.(*ir.Call).Func
			require.NotSame(t, g, c)
			read := map[*ir.Var]bool{}
			refs(reflect.ValueOf(c.Body), read)
			require.False(t, read[v], "the clone reads the template's variable")
			if name != "Break" && name != "Continue" && name != "Comment" && name != "Literal" && name != "ConstArray" {
				require.Len(t, read, 1, "the clone reads its own copy of v")
				for w := range read {
					require.Contains(t, c.Locals, w)
				}
			}
		})
	}
}
