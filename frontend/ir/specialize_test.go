package ir_test

import (
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
