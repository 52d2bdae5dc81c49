package codegen_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

func TestEmitUnsupportedNamesTheOp(t *testing.T) {
	// A float atomic on a struct member in shared memory has no u32 form.
	type pair struct{ A, B float32 }
	f, err := dsl.Kernel1D(64, func(k *dsl.K) {
		s := dsl.NewShared[dsl.Struct[pair]](k, 4)
		_ = s
	})
	require.NoError(t, err)
	v := f.Shared[0]
	elem := &ir.Index{X: &ir.Ref{Var: v}, I: ir.LitInt(ir.TU32, 0), T: v.Type.Elem()}
	place := &ir.Member{X: elem, Field: 1, T: ir.TF32}
	f.Body.Stmts = append(f.Body.Stmts, &ir.ExprStmt{X: &ir.Call{Op: ir.OpAtomicMax, Args: []ir.Expr{place, ir.LitFloat(ir.TF32, 1)}, T: ir.TF32}})
	require.NoError(t, f.Validate())
	_, err = codegen.Emit(f, codegen.Options{})
	require.True(t, errors.Is(err, ir.ErrUnsupported))
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
	f := ir.NewKernel("k", 1, [3]uint32{64, 1, 1})
	b := f.AddParam("out", ir.Buffer(ir.TU32), ir.VarArg)
	a := f.AddLocal("a", ir.Array(ir.TU32, 1024))
	f.Body.Stmts = []ir.Stmt{
		&ir.Assign{Dst: &ir.Ref{Var: a}, Src: &ir.Construct{T: a.Type, Args: []ir.Expr{ir.LitInt(ir.TU32, 7)}}},
		&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: b}, I: ir.LitInt(ir.TU32, 0), T: ir.TU32},
			Src: &ir.Index{X: &ir.Ref{Var: a}, I: ir.LitInt(ir.TU32, 1023), T: ir.TU32}},
	}
	require.NoError(t, f.Validate())
	emitValid(t, f, codegen.Options{})
}
