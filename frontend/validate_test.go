package frontend_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	fe "github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/internal/programs"
)

func TestTypeOfStructLayout(t *testing.T) {
	ty, err := fe.TypeOf(reflect.TypeFor[programs.Particle]())
	require.NoError(t, err)
	rt := reflect.TypeFor[programs.Particle]()
	require.Equal(t, int(rt.Size()), ty.Size())
	for i, f := range ty.Fields() {
		require.Equal(t, int(rt.Field(i).Offset), f.Offset, "field %s", f.Name)
	}
	require.Equal(t, fe.Vector(fe.TF32, 3), ty.Fields()[0].Type)
	// Interning: the same Go type gives the same *Type.
	again, err := fe.TypeOf(rt)
	require.NoError(t, err)
	require.Same(t, ty, again)
}

func TestTypeOfRejects(t *testing.T) {
	for _, rt := range []reflect.Type{
		reflect.TypeFor[*int](), reflect.TypeFor[[]float32](), reflect.TypeFor[string](), reflect.TypeFor[map[int]int](),
		reflect.TypeFor[struct{ B bool }](), reflect.TypeFor[struct{ P *int }](), reflect.TypeFor[[0]int32](),
	} {
		_, err := fe.TypeOf(rt)
		require.ErrorIs(t, err, fe.ErrType, "%s", rt)
	}
}

// kernelWith builds a 1-D kernel with one u32 buffer and the given body.
func kernelWith(body func(f *fe.Function, buf *fe.Var) []fe.Stmt) *fe.Function {
	f := fe.NewKernel("k", 1, [3]uint32{64, 1, 1})
	buf := f.AddParam("out", fe.Buffer(fe.TU32), fe.VarArg)
	f.Body.Stmts = body(f, buf)
	return f
}

func TestValidateRejects(t *testing.T) {
	one := fe.LitInt(fe.TU32, 1)
	cases := map[string]struct {
		f    *fe.Function
		want string
	}{
		"break outside loop": {kernelWith(func(*fe.Function, *fe.Var) []fe.Stmt { return []fe.Stmt{&fe.Break{}} }), "break outside"},
		"continue in switch": {kernelWith(func(*fe.Function, *fe.Var) []fe.Stmt {
			return []fe.Stmt{&fe.Switch{Tag: fe.LitInt(fe.TI32, 0), Cases: []fe.Case{{Values: []int64{0}, Body: &fe.Block{Stmts: []fe.Stmt{&fe.Continue{}}}}}}}
		}), "continue outside"},
		"mistyped binary": {kernelWith(func(*fe.Function, *fe.Var) []fe.Stmt {
			return []fe.Stmt{&fe.ExprStmt{X: &fe.Binary{Op: fe.Add, X: one, Y: fe.LitFloat(fe.TF32, 1), T: fe.TU32}}}
		}), "operands are u32 and f32"},
		"store of wrong type": {kernelWith(func(_ *fe.Function, b *fe.Var) []fe.Stmt {
			return []fe.Stmt{&fe.Assign{Dst: &fe.Index{X: &fe.Ref{Var: b}, I: one, T: fe.TU32}, Src: fe.LitFloat(fe.TF32, 2)}}
		}), "assignment of f32"},
		"assign to literal": {kernelWith(func(*fe.Function, *fe.Var) []fe.Stmt {
			return []fe.Stmt{&fe.Assign{Dst: one, Src: one}}
		}), "cannot assign"},
		"foreign variable": {kernelWith(func(*fe.Function, *fe.Var) []fe.Stmt {
			v := &fe.Var{Name: "ghost", Type: fe.TU32, Kind: fe.VarLocal}
			return []fe.Stmt{&fe.Assign{Dst: &fe.Ref{Var: v}, Src: one}}
		}), "ghost does not belong"},
		"non-bool condition": {kernelWith(func(*fe.Function, *fe.Var) []fe.Stmt {
			return []fe.Stmt{&fe.If{Cond: one, Then: &fe.Block{}}}
		}), "if condition is u32"},
		"duplicate case": {kernelWith(func(*fe.Function, *fe.Var) []fe.Stmt {
			return []fe.Stmt{&fe.Switch{Tag: fe.LitInt(fe.TI32, 0), Cases: []fe.Case{{Values: []int64{1}, Body: &fe.Block{}}, {Values: []int64{1}, Body: &fe.Block{}}}}}
		}), "case 1 repeats"},
		"block too large": {fe.NewKernel("big", 1, [3]uint32{2048, 1, 1}), "more than 1024"},
		"case out of range": {kernelWith(func(*fe.Function, *fe.Var) []fe.Stmt {
			return []fe.Stmt{&fe.Switch{Tag: one, Cases: []fe.Case{{Values: []int64{-1}, Body: &fe.Block{}}}}}
		}), "case -1 does not fit the u32 tag"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.f.Validate()
			require.ErrorIs(t, err, fe.ErrInvalid)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestValidateRejectsRecursion(t *testing.T) {
	g := fe.NewCallable("self", fe.TVoid)
	g.Body.Stmts = []fe.Stmt{&fe.ExprStmt{X: &fe.Call{Func: g, T: fe.TVoid}}}
	f := kernelWith(func(*fe.Function, *fe.Var) []fe.Stmt {
		return []fe.Stmt{&fe.ExprStmt{X: &fe.Call{Func: g, T: fe.TVoid}}}
	})
	require.ErrorContains(t, f.Validate(), "self calls itself")
}

func TestDSLErrorsNameTheCulprit(t *testing.T) {
	cases := map[string]struct {
		fn   any
		want string
	}{
		"bool arithmetic": {func(k *fe.K, out fe.Buf[fe.U32]) { out.Write(fe.U(0), fe.Convert[uint32](fe.B(true).Add(fe.B(false)))) }, "+: operands are bool and bool"},
		"sqrt of int":     {func(k *fe.K, out fe.Buf[fe.I32]) { out.Write(fe.U(0), fe.Sqrt(fe.I(4))) }, "sqrt: operand is i32"},
		"zero value":      {func(k *fe.K, out fe.Buf[fe.U32]) { var v fe.U32; out.Write(fe.U(0), v) }, "zero (unset) value"},
		"missing field": {func(k *fe.K, ps fe.Buf[fe.Struct[programs.Particle]], out fe.Buf[fe.F32]) {
			out.Write(fe.U(0), fe.Get[fe.F32](ps.Read(fe.U(0)), "Nope"))
		}, "no field Nope"},
		"wrong field type": {func(k *fe.K, ps fe.Buf[fe.Struct[programs.Particle]]) {
			ps.Write(fe.U(0), fe.Make[programs.Particle](fe.Get[fe.F32](ps.Read(fe.U(0)), "Pos")))
		}, "field Pos of Particle is vec3<f32>"},
		"not a kernel func": {func(x int) {}, "a kernel is a func(*frontend.K"},
		"non-DSL argument":  {func(k *fe.K, x int) {}, "argument 1 has type int"},
		"panicking body":    {func(k *fe.K) { var p *fe.LocalArray[fe.F32]; p.Set(fe.U(0), fe.F(1)) }, "panic while tracing"},
		"break outside":     {func(k *fe.K) { k.Break() }, "break outside"},
		"float atomic and":  {func(k *fe.K, b fe.Buf[fe.F32]) { b.Atomic(fe.OpAtomicAnd, fe.U(0), fe.F(1)) }, "bitwise atomics do not apply to f32"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := fe.Kernel1D(64, c.fn)
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
		f, err := fe.Kernel1D(64, func(k *fe.K, b fe.Buf[fe.F32]) { b.Write(fe.U(0), fe.F(c)) })
		require.NoError(t, err)
		return f.Hash()
	}
	require.NotEqual(t, k(1), k(2))
	require.Equal(t, k(3), k(3))
}
