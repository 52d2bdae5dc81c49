package ir_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// NewArray's elements are zero, as documented: SPIR-V locals start
// undefined, so the declaration stores the zero value (a loop for long
// arrays) before any read.
func TestNewArrayIsZeroed(t *testing.T) {
	for _, n := range []int{4, ir.ZeroLoopLen + 1} {
		f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
			a := dsl.NewArray[dsl.F32](k, n)
			out.Write(k.DispatchID().X(), a.At(dsl.Lit[uint32](1)))
		})
		require.NoError(t, err)
		require.NotEmpty(t, f.Body.Stmts)
		first := f.Body.Stmts[0]
		if n <= ir.ZeroLoopLen {
			as, ok := first.(*ir.Assign)
			require.True(t, ok, "first statement %T, want the zero store", first)
			_, ok = as.Src.(*ir.Construct)
			require.True(t, ok, "zero store of %T", as.Src)
		} else {
			_, ok := f.Body.Stmts[1].(*ir.For)
			require.True(t, ok, "a long array is zeroed by a loop, got %T", f.Body.Stmts[1])
		}
	}
}
