package ir_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

func TestArrayTypeBounds(t *testing.T) {
	_, err := ir.ArrayType(ir.TF32, 1<<40)
	require.ErrorIs(t, err, ir.ErrType)
	require.ErrorContains(t, err, "an array of 1099511627776 f32 is 4 TiB")
	// The product of nested lengths overflows int without the bound.
	inner, err := ir.ArrayType(ir.TU8, 1<<20)
	require.NoError(t, err)
	_, err = ir.ArrayType(inner, 1<<44)
	require.ErrorIs(t, err, ir.ErrType)
	_, err = ir.ArrayType(ir.TF32, 0)
	require.ErrorIs(t, err, ir.ErrType)
	a, err := ir.ArrayType(ir.TF32, ir.MaxTypeSize/4)
	require.NoError(t, err)
	require.Equal(t, ir.MaxTypeSize, a.Size())

	_, err = ir.TypeOf(reflect.TypeFor[[1 << 30]float32]())
	require.ErrorIs(t, err, ir.ErrType)
	require.ErrorContains(t, err, "more than the 1 MiB a type may take")
	_, err = ir.TypeOf(reflect.TypeFor[struct{ A, B [ir.MaxTypeSize/2 + 1]byte }]())
	require.ErrorContains(t, err, "more than the 1 MiB a type may take")
}

// nest wraps body in n ifs.
func nest(n int, body ir.Stmt) ir.Stmt {
	for range n {
		body = &ir.If{Cond: ir.LitBool(true), Then: &ir.Block{Stmts: []ir.Stmt{body}}}
	}
	return body
}

func TestValidateBounds(t *testing.T) {
	one := ir.LitInt(ir.TU32, 1)
	store := func(b *ir.Var, x ir.Expr) ir.Stmt {
		return &ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: b}, I: one, T: ir.TU32}, Src: x}
	}
	big := ir.Array(ir.TF32, ir.MaxValueSize/4+1)
	cases := map[string]struct {
		f    *ir.Function
		want string
	}{
		"local too large": {kernelWith(func(f *ir.Function, _ *ir.Var) []ir.Stmt {
			f.AddLocal("huge", big)
			return nil
		}), "local huge is 16388 bytes of [4097]f32, more than the 16 KiB a thread may hold"},
		"local with too many parts": {kernelWith(func(f *ir.Function, _ *ir.Var) []ir.Stmt {
			f.AddLocal("wide", ir.Array(ir.Array(ir.TU8, 64), 17))
			return nil
		}), "local wide has 1088 parts ([17][64]u8), more than the 1024 a thread's value may have (MaxValueParts)"},
		"table with too many parts": {kernelWith(func(_ *ir.Function, b *ir.Var) []ir.Stmt {
			vals := make([]*ir.Literal, 2048)
			for i := range vals {
				vals[i] = ir.LitInt(ir.TU32, int64(i))
			}
			tbl := &ir.ConstArray{T: ir.Array(ir.TU32, 2048), Values: vals}
			return []ir.Stmt{store(b, &ir.Index{X: tbl, I: one, T: ir.TU32})}
		}), "a constant table has 2048 parts"},
		"statements too deep": {kernelWith(func(_ *ir.Function, b *ir.Var) []ir.Stmt {
			return []ir.Stmt{nest(ir.MaxNesting+1, store(b, one))}
		}), "an if nested 65 deep, more than 64 (MaxNesting)"},
		"expression too deep": {kernelWith(func(_ *ir.Function, b *ir.Var) []ir.Stmt {
			var x ir.Expr = one
			for range ir.MaxExprDepth {
				x = &ir.Binary{Op: ir.Add, X: x, Y: one, T: ir.TU32}
			}
			return []ir.Stmt{store(b, x)}
		}), "expression nested more than 1024 deep"},
		"too many statements": {kernelWith(func(_ *ir.Function, b *ir.Var) []ir.Stmt {
			s := make([]ir.Stmt, ir.MaxStatements+1)
			for i := range s {
				s[i] = store(b, one)
			}
			return s
		}), "more than 65536 statements"},
		"too many locals": {kernelWith(func(f *ir.Function, _ *ir.Var) []ir.Stmt {
			for range ir.MaxLocals + 1 {
				f.AddLocal("x", ir.TU32)
			}
			return nil
		}), "65537 local variables"},
		"whole shared copy": {kernelWith(func(f *ir.Function, _ *ir.Var) []ir.Stmt {
			a, b := f.AddShared("a", big), f.AddShared("b", big)
			return []ir.Stmt{&ir.Assign{Dst: &ir.Ref{Var: a}, Src: &ir.Ref{Var: b}}}
		}), "the assignment to a copies a value that is 16388 bytes"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.f.Validate()
			require.ErrorIs(t, err, ir.ErrLimit)
			require.ErrorContains(t, err, c.want)
		})
	}
	t.Run("within bounds", func(t *testing.T) {
		f := kernelWith(func(f *ir.Function, b *ir.Var) []ir.Stmt {
			f.AddShared("tile", big)
			f.AddLocal("a", ir.Array(ir.Vector(ir.TF32, 4), ir.MaxValueParts))
			return []ir.Stmt{nest(ir.MaxNesting, store(b, one))}
		})
		require.NoError(t, f.Validate())
	})
}

func TestArraySplatConstruct(t *testing.T) {
	f := kernelWith(func(f *ir.Function, b *ir.Var) []ir.Stmt {
		a := f.AddLocal("a", ir.Array(ir.TU32, 1024))
		return []ir.Stmt{
			&ir.Assign{Dst: &ir.Ref{Var: a}, Src: &ir.Construct{T: a.Type, Args: []ir.Expr{ir.LitInt(ir.TU32, 7)}}},
			&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: b}, I: ir.LitInt(ir.TU32, 0), T: ir.TU32},
				Src: &ir.Index{X: &ir.Ref{Var: a}, I: ir.LitInt(ir.TU32, 1023), T: ir.TU32}},
		}
	})
	require.NoError(t, f.Validate())
	out := interp.NewBuffer(ir.TU32, 1)
	require.NoError(t, interp.Run(f, [3]uint32{1, 1, 1}, out))
	require.Equal(t, []byte{7, 0, 0, 0}, out.Data)
	// A construct of a different count is still refused.
	bad := kernelWith(func(f *ir.Function, b *ir.Var) []ir.Stmt {
		a := f.AddLocal("a", ir.Array(ir.TU32, 4))
		return []ir.Stmt{&ir.Assign{Dst: &ir.Ref{Var: a}, Src: &ir.Construct{T: a.Type, Args: []ir.Expr{one(), one()}}}}
	})
	require.ErrorContains(t, bad.Validate(), "2 parts, want 4")
}

func one() ir.Expr { return ir.LitInt(ir.TU32, 1) }

func TestDSLArrayBounds(t *testing.T) {
	_, err := dsl.Kernel1D(64, func(k *dsl.K) { dsl.NewArray[dsl.F32](k, 1<<40) })
	require.ErrorIs(t, err, dsl.ErrDSL)
	require.ErrorContains(t, err, "NewArray: frontend: unsupported type: an array of 1099511627776 f32 is 4 TiB")
	_, err = dsl.Kernel1D(64, func(k *dsl.K) { dsl.NewArray[dsl.F32](k, 8192) })
	require.ErrorContains(t, err, "NewArray: a local array of 8192 f32 is 32 KiB, more than the 16 KiB a thread may hold")
	_, err = dsl.Kernel1D(64, func(k *dsl.K) { dsl.NewArray[dsl.U32](k, 2048) })
	require.ErrorContains(t, err, "NewArray: a local array of 2048 u32 has 2048 parts, more than the 1024 a thread's value may have (MaxValueParts)")
	_, err = dsl.Kernel1D(64, func(k *dsl.K) { dsl.NewShared[dsl.F32](k, 1<<24) })
	require.ErrorContains(t, err, "NewShared in kernel: frontend: unsupported type: an array of 16777216 f32 is 64 MiB, more than the 1 MiB")
}
