package ir_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

func TestTypeOfStructLayout(t *testing.T) {
	ty, err := ir.TypeOf(reflect.TypeFor[programs.Particle]())
	require.NoError(t, err)
	rt := reflect.TypeFor[programs.Particle]()
	require.Equal(t, int(rt.Size()), ty.Size())
	for i, f := range ty.Fields() {
		require.Equal(t, int(rt.Field(i).Offset), f.Offset, "field %s", f.Name)
	}
	require.Equal(t, ir.Vector(ir.TF32, 3), ty.Fields()[0].Type)
	// Interning: the same Go type gives the same *Type.
	again, err := ir.TypeOf(rt)
	require.NoError(t, err)
	require.Same(t, ty, again)
}

func TestTypeOfRejects(t *testing.T) {
	for _, rt := range []reflect.Type{
		reflect.TypeFor[*int](), reflect.TypeFor[[]float32](), reflect.TypeFor[string](), reflect.TypeFor[map[int]int](),
		reflect.TypeFor[struct{ B bool }](), reflect.TypeFor[struct{ P *int }](), reflect.TypeFor[[0]int32](),
	} {
		_, err := ir.TypeOf(rt)
		require.ErrorIs(t, err, ir.ErrType, "%s", rt)
	}
}

// kernelWith builds a 1-D kernel with one u32 buffer and the given body.
func kernelWith(body func(f *ir.Function, buf *ir.Var) []ir.Stmt) *ir.Function {
	f := ir.NewKernel("k", 1, [3]uint32{64, 1, 1})
	buf := f.AddParam("out", ir.Buffer(ir.TU32), ir.VarArg)
	f.Body.Stmts = body(f, buf)
	return f
}

func TestValidateRejects(t *testing.T) {
	one := ir.LitInt(ir.TU32, 1)
	cases := map[string]struct {
		f    *ir.Function
		want string
	}{
		"break outside loop": {kernelWith(func(*ir.Function, *ir.Var) []ir.Stmt { return []ir.Stmt{&ir.Break{}} }), "break outside"},
		"continue in switch": {kernelWith(func(*ir.Function, *ir.Var) []ir.Stmt {
			return []ir.Stmt{&ir.Switch{Tag: ir.LitInt(ir.TI32, 0), Cases: []ir.Case{{Values: []int64{0}, Body: &ir.Block{Stmts: []ir.Stmt{&ir.Continue{}}}}}}}
		}), "continue outside"},
		"mistyped binary": {kernelWith(func(*ir.Function, *ir.Var) []ir.Stmt {
			return []ir.Stmt{&ir.ExprStmt{X: &ir.Binary{Op: ir.Add, X: one, Y: ir.LitFloat(ir.TF32, 1), T: ir.TU32}}}
		}), "operands are u32 and f32"},
		"store of wrong type": {kernelWith(func(_ *ir.Function, b *ir.Var) []ir.Stmt {
			return []ir.Stmt{&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: b}, I: one, T: ir.TU32}, Src: ir.LitFloat(ir.TF32, 2)}}
		}), "assignment of f32"},
		"assign to literal": {kernelWith(func(*ir.Function, *ir.Var) []ir.Stmt {
			return []ir.Stmt{&ir.Assign{Dst: one, Src: one}}
		}), "cannot assign"},
		"foreign variable": {kernelWith(func(*ir.Function, *ir.Var) []ir.Stmt {
			v := &ir.Var{Name: "ghost", Type: ir.TU32, Kind: ir.VarLocal}
			return []ir.Stmt{&ir.Assign{Dst: &ir.Ref{Var: v}, Src: one}}
		}), "ghost does not belong"},
		"non-bool condition": {kernelWith(func(*ir.Function, *ir.Var) []ir.Stmt {
			return []ir.Stmt{&ir.If{Cond: one, Then: &ir.Block{}}}
		}), "if condition is u32"},
		"duplicate case": {kernelWith(func(*ir.Function, *ir.Var) []ir.Stmt {
			return []ir.Stmt{&ir.Switch{Tag: ir.LitInt(ir.TI32, 0), Cases: []ir.Case{{Values: []int64{1}, Body: &ir.Block{}}, {Values: []int64{1}, Body: &ir.Block{}}}}}
		}), "case 1 repeats"},
		"block too large": {ir.NewKernel("big", 1, [3]uint32{2048, 1, 1}), "more than 1024"},
		"case out of range": {kernelWith(func(*ir.Function, *ir.Var) []ir.Stmt {
			return []ir.Stmt{&ir.Switch{Tag: one, Cases: []ir.Case{{Values: []int64{-1}, Body: &ir.Block{}}}}}
		}), "case -1 does not fit the u32 tag"},
		"array of bools argument": {kernelWith(func(f *ir.Function, _ *ir.Var) []ir.Stmt {
			f.AddParam("flags", ir.Array(ir.TBool, 4), ir.VarArg)
			return nil
		}), "kernel argument flags of type [4]bool holds bools"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.f.Validate()
			require.ErrorIs(t, err, ir.ErrInvalid)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestValidateRejectsRecursion(t *testing.T) {
	g := ir.NewCallable("self", ir.TVoid)
	g.Body.Stmts = []ir.Stmt{&ir.ExprStmt{X: &ir.Call{Func: g, T: ir.TVoid}}}
	f := kernelWith(func(*ir.Function, *ir.Var) []ir.Stmt {
		return []ir.Stmt{&ir.ExprStmt{X: &ir.Call{Func: g, T: ir.TVoid}}}
	})
	require.ErrorContains(t, f.Validate(), "self calls itself")
}

func TestDSLErrorsNameTheCulprit(t *testing.T) {
	cases := map[string]struct {
		fn   any
		want string
	}{
		"bool arithmetic": {func(k *dsl.K, out dsl.Buf[dsl.U32]) {
			out.Write(dsl.U(0), dsl.Convert[uint32](dsl.B(true).Add(dsl.B(false))))
		}, "+: operands are bool and bool"},
		"sqrt of int": {func(k *dsl.K, out dsl.Buf[dsl.I32]) { out.Write(dsl.U(0), dsl.Sqrt(dsl.I(4))) }, "sqrt: operand is i32"},
		"zero value":  {func(k *dsl.K, out dsl.Buf[dsl.U32]) { var v dsl.U32; out.Write(dsl.U(0), v) }, "zero (unset) value"},
		"missing field": {func(k *dsl.K, ps dsl.Buf[dsl.Struct[programs.Particle]], out dsl.Buf[dsl.F32]) {
			out.Write(dsl.U(0), dsl.Get[dsl.F32](ps.Read(dsl.U(0)), "Nope"))
		}, "no field Nope"},
		"wrong field type": {func(k *dsl.K, ps dsl.Buf[dsl.Struct[programs.Particle]]) {
			ps.Write(dsl.U(0), dsl.Make[programs.Particle](dsl.Get[dsl.F32](ps.Read(dsl.U(0)), "Pos")))
		}, "field Pos of Particle is vec3<f32>"},
		"not a kernel func": {func(x int) {}, "a kernel is a func(*dsl.K"},
		"non-DSL argument":  {func(k *dsl.K, x int) {}, "argument 1 has type int"},
		"panicking body":    {func(k *dsl.K) { var p *dsl.LocalArray[dsl.F32]; p.Set(dsl.U(0), dsl.F(1)) }, "panic while tracing"},
		"break outside":     {func(k *dsl.K) { k.Break() }, "break outside"},
		"float atomic and":  {func(k *dsl.K, b dsl.Buf[dsl.F32]) { b.Atomic(ir.OpAtomicAnd, dsl.U(0), dsl.F(1)) }, "bitwise atomics do not apply to f32"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := dsl.Kernel1D(64, c.fn)
			require.Nil(t, f)
			require.Error(t, err)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestHashStable(t *testing.T) {
	all := programs.All()
	seen := map[[32]byte]string{}
	for name, build := range all {
		a, err := build()
		require.NoError(t, err)
		b, err := build()
		require.NoError(t, err)
		require.Equal(t, a.Hash(), b.Hash(), "%s: two traces hash alike", name)
		prev, dup := seen[a.Hash()]
		require.False(t, dup, "%s and %s collide", name, prev)
		seen[a.Hash()] = name
	}
	// A changed constant changes the hash.
	k := func(c float32) [32]byte {
		f, err := dsl.Kernel1D(64, func(k *dsl.K, b dsl.Buf[dsl.F32]) { b.Write(dsl.U(0), dsl.F(c)) })
		require.NoError(t, err)
		return f.Hash()
	}
	require.NotEqual(t, k(1), k(2))
	require.Equal(t, k(3), k(3))
}
