package codegen_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	fe "github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/internal/programs"
)

func TestEmitUnsupportedNamesTheOp(t *testing.T) {
	// A float atomic on a struct member in shared memory has no u32 form.
	type pair struct{ A, B float32 }
	f, err := fe.Kernel1D(64, func(k *fe.K) {
		s := fe.NewShared[fe.Struct[pair]](k, 4)
		_ = s
	})
	require.NoError(t, err)
	v := f.Shared[0]
	elem := &fe.Index{X: &fe.Ref{Var: v}, I: fe.LitInt(fe.TU32, 0), T: v.Type.Elem()}
	place := &fe.Member{X: elem, Field: 1, T: fe.TF32}
	f.Body.Stmts = append(f.Body.Stmts, &fe.ExprStmt{X: &fe.Call{Op: fe.OpAtomicMax, Args: []fe.Expr{place, fe.LitFloat(fe.TF32, 1)}, T: fe.TF32}})
	require.NoError(t, f.Validate())
	_, err = codegen.Emit(f, codegen.Options{})
	require.True(t, errors.Is(err, fe.ErrUnsupported))
	require.ErrorContains(t, err, "atomic_max")
}

// TestTraceConcurrently traces kernels sharing callables from several
// goroutines (run with -race).
func TestTraceConcurrently(t *testing.T) {
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			f, err := programs.Callables()
			if err == nil {
				_, err = codegen.Emit(f, codegen.Options{})
			}
			errs <- err
		}()
	}
	for range 8 {
		require.NoError(t, <-errs)
	}
}

// TestEmitArraySplatConstruct emits a one-value construct of a 1024-element
// array (a splat) and has spirv-val check the module.
func TestEmitArraySplatConstruct(t *testing.T) {
	f := fe.NewKernel("k", 1, [3]uint32{64, 1, 1})
	b := f.AddParam("out", fe.Buffer(fe.TU32), fe.VarArg)
	a := f.AddLocal("a", fe.Array(fe.TU32, 1024))
	f.Body.Stmts = []fe.Stmt{
		&fe.Assign{Dst: &fe.Ref{Var: a}, Src: &fe.Construct{T: a.Type, Args: []fe.Expr{fe.LitInt(fe.TU32, 7)}}},
		&fe.Assign{Dst: &fe.Index{X: &fe.Ref{Var: b}, I: fe.LitInt(fe.TU32, 0), T: fe.TU32},
			Src: &fe.Index{X: &fe.Ref{Var: a}, I: fe.LitInt(fe.TU32, 1023), T: fe.TU32}},
	}
	require.NoError(t, f.Validate())
	emitValid(t, f, codegen.Options{})
}
