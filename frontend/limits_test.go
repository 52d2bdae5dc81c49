package frontend_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	fe "github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/frontend/interp"
)

func TestArrayTypeBounds(t *testing.T) {
	_, err := fe.ArrayType(fe.TF32, 1<<40)
	require.ErrorIs(t, err, fe.ErrType)
	require.ErrorContains(t, err, "an array of 1099511627776 f32 is 4 TiB")
	// The product of nested lengths overflows int without the bound.
	inner, err := fe.ArrayType(fe.TU8, 1<<20)
	require.NoError(t, err)
	_, err = fe.ArrayType(inner, 1<<44)
	require.ErrorIs(t, err, fe.ErrType)
	_, err = fe.ArrayType(fe.TF32, 0)
	require.ErrorIs(t, err, fe.ErrType)
	a, err := fe.ArrayType(fe.TF32, fe.MaxTypeSize/4)
	require.NoError(t, err)
	require.Equal(t, fe.MaxTypeSize, a.Size())

	_, err = fe.TypeOf(reflect.TypeFor[[1 << 30]float32]())
	require.ErrorIs(t, err, fe.ErrType)
	require.ErrorContains(t, err, "more than the 1 MiB a type may take")
	_, err = fe.TypeOf(reflect.TypeFor[struct{ A, B [fe.MaxTypeSize/2 + 1]byte }]())
	require.ErrorContains(t, err, "more than the 1 MiB a type may take")
}

// nest wraps body in n ifs.
func nest(n int, body fe.Stmt) fe.Stmt {
	for range n {
		body = &fe.If{Cond: fe.LitBool(true), Then: &fe.Block{Stmts: []fe.Stmt{body}}}
	}
	return body
}

func TestValidateBounds(t *testing.T) {
	one := fe.LitInt(fe.TU32, 1)
	store := func(b *fe.Var, x fe.Expr) fe.Stmt {
		return &fe.Assign{Dst: &fe.Index{X: &fe.Ref{Var: b}, I: one, T: fe.TU32}, Src: x}
	}
	big := fe.Array(fe.TF32, fe.MaxValueSize/4+1)
	cases := map[string]struct {
		f    *fe.Function
		want string
	}{
		"local too large": {kernelWith(func(f *fe.Function, _ *fe.Var) []fe.Stmt {
			f.AddLocal("huge", big)
			return nil
		}), "local huge is 16388 bytes of [4097]f32, more than the 16 KiB a thread may hold"},
		"local with too many parts": {kernelWith(func(f *fe.Function, _ *fe.Var) []fe.Stmt {
			f.AddLocal("wide", fe.Array(fe.Array(fe.TU8, 64), 17))
			return nil
		}), "local wide has 1088 parts ([17][64]u8), more than the 1024 a thread's value may have (MaxValueParts)"},
		"table with too many parts": {kernelWith(func(_ *fe.Function, b *fe.Var) []fe.Stmt {
			vals := make([]*fe.Literal, 2048)
			for i := range vals {
				vals[i] = fe.LitInt(fe.TU32, int64(i))
			}
			tbl := &fe.ConstArray{T: fe.Array(fe.TU32, 2048), Values: vals}
			return []fe.Stmt{store(b, &fe.Index{X: tbl, I: one, T: fe.TU32})}
		}), "a constant table has 2048 parts"},
		"statements too deep": {kernelWith(func(_ *fe.Function, b *fe.Var) []fe.Stmt {
			return []fe.Stmt{nest(fe.MaxNesting+1, store(b, one))}
		}), "an if nested 65 deep, more than 64 (MaxNesting)"},
		"expression too deep": {kernelWith(func(_ *fe.Function, b *fe.Var) []fe.Stmt {
			var x fe.Expr = one
			for range fe.MaxExprDepth {
				x = &fe.Binary{Op: fe.Add, X: x, Y: one, T: fe.TU32}
			}
			return []fe.Stmt{store(b, x)}
		}), "expression nested more than 1024 deep"},
		"too many statements": {kernelWith(func(_ *fe.Function, b *fe.Var) []fe.Stmt {
			s := make([]fe.Stmt, fe.MaxStatements+1)
			for i := range s {
				s[i] = store(b, one)
			}
			return s
		}), "more than 65536 statements"},
		"too many locals": {kernelWith(func(f *fe.Function, _ *fe.Var) []fe.Stmt {
			for range fe.MaxLocals + 1 {
				f.AddLocal("x", fe.TU32)
			}
			return nil
		}), "65537 local variables"},
		"whole shared copy": {kernelWith(func(f *fe.Function, _ *fe.Var) []fe.Stmt {
			a, b := f.AddShared("a", big), f.AddShared("b", big)
			return []fe.Stmt{&fe.Assign{Dst: &fe.Ref{Var: a}, Src: &fe.Ref{Var: b}}}
		}), "the assignment to a copies a value that is 16388 bytes"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.f.Validate()
			require.ErrorIs(t, err, fe.ErrLimit)
			require.ErrorContains(t, err, c.want)
		})
	}
	t.Run("within bounds", func(t *testing.T) {
		f := kernelWith(func(f *fe.Function, b *fe.Var) []fe.Stmt {
			f.AddShared("tile", big)
			f.AddLocal("a", fe.Array(fe.Vector(fe.TF32, 4), fe.MaxValueParts))
			return []fe.Stmt{nest(fe.MaxNesting, store(b, one))}
		})
		require.NoError(t, f.Validate())
	})
}

func TestArraySplatConstruct(t *testing.T) {
	f := kernelWith(func(f *fe.Function, b *fe.Var) []fe.Stmt {
		a := f.AddLocal("a", fe.Array(fe.TU32, 1024))
		return []fe.Stmt{
			&fe.Assign{Dst: &fe.Ref{Var: a}, Src: &fe.Construct{T: a.Type, Args: []fe.Expr{fe.LitInt(fe.TU32, 7)}}},
			&fe.Assign{Dst: &fe.Index{X: &fe.Ref{Var: b}, I: fe.LitInt(fe.TU32, 0), T: fe.TU32},
				Src: &fe.Index{X: &fe.Ref{Var: a}, I: fe.LitInt(fe.TU32, 1023), T: fe.TU32}},
		}
	})
	require.NoError(t, f.Validate())
	out := interp.NewBuffer(fe.TU32, 1)
	require.NoError(t, interp.Run(f, [3]uint32{1, 1, 1}, out))
	require.Equal(t, []byte{7, 0, 0, 0}, out.Data)
	// A construct of a different count is still refused.
	bad := kernelWith(func(f *fe.Function, b *fe.Var) []fe.Stmt {
		a := f.AddLocal("a", fe.Array(fe.TU32, 4))
		return []fe.Stmt{&fe.Assign{Dst: &fe.Ref{Var: a}, Src: &fe.Construct{T: a.Type, Args: []fe.Expr{one(), one()}}}}
	})
	require.ErrorContains(t, bad.Validate(), "2 parts, want 4")
}

func one() fe.Expr { return fe.LitInt(fe.TU32, 1) }

func TestDSLArrayBounds(t *testing.T) {
	_, err := fe.Kernel1D(64, func(k *fe.K) { fe.NewArray[fe.F32](k, 1<<40) })
	require.ErrorIs(t, err, fe.ErrDSL)
	require.ErrorContains(t, err, "NewArray: frontend: unsupported type: an array of 1099511627776 f32 is 4 TiB")
	_, err = fe.Kernel1D(64, func(k *fe.K) { fe.NewArray[fe.F32](k, 8192) })
	require.ErrorContains(t, err, "NewArray: a local array of 8192 f32 is 32 KiB, more than the 16 KiB a thread may hold")
	_, err = fe.Kernel1D(64, func(k *fe.K) { fe.NewArray[fe.U32](k, 2048) })
	require.ErrorContains(t, err, "NewArray: a local array of 2048 u32 has 2048 parts, more than the 1024 a thread's value may have (MaxValueParts)")
	_, err = fe.Kernel1D(64, func(k *fe.K) { fe.NewShared[fe.F32](k, 1<<24) })
	require.ErrorContains(t, err, "NewShared in kernel: frontend: unsupported type: an array of 16777216 f32 is 64 MiB, more than the 1 MiB")
}
