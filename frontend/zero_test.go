package frontend_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	fe "github.com/lucent-gpu/lucent/frontend"
)

// NewArray's elements are zero, as documented: SPIR-V locals start
// undefined, so the declaration stores the zero value (a loop for long
// arrays) before any read.
func TestNewArrayIsZeroed(t *testing.T) {
	for _, n := range []int{4, fe.ZeroLoopLen + 1} {
		f, err := fe.Kernel1D(64, func(k *fe.K, out fe.Buf[fe.F32]) {
			a := fe.NewArray[fe.F32](k, n)
			out.Write(k.DispatchID().X(), a.At(fe.Lit[uint32](1)))
		})
		require.NoError(t, err)
		require.NotEmpty(t, f.Body.Stmts)
		first := f.Body.Stmts[0]
		if n <= fe.ZeroLoopLen {
			as, ok := first.(*fe.Assign)
			require.True(t, ok, "first statement %T, want the zero store", first)
			_, ok = as.Src.(*fe.Construct)
			require.True(t, ok, "zero store of %T", as.Src)
		} else {
			_, ok := f.Body.Stmts[1].(*fe.For)
			require.True(t, ok, "a long array is zeroed by a loop, got %T", f.Body.Stmts[1])
		}
	}
}
