package ir_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestAccessStoresAndSizes: a store to a buffer element (or a field of
// one) is a write, not also a read, and a buffer's length is no read of its
// elements; a read-modify-write (the place shared by both sides) and an
// index read inside a store's place still read.
func TestAccessStoresAndSizes(t *testing.T) {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, in, out, rmw dsl.Buf[dsl.F32], idx dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		k.If(i.Lt(out.Len()), func() {
			out.Write(idx.Read(i), in.Read(i))
		})
	})
	require.NoError(t, err)
	// Parameters in order: in, out, rmw (unused), idx.
	for i, want := range [][2]bool{{true, false}, {false, true}, {false, false}, {true, false}} {
		r, w := f.Access(f.Params[i])
		require.Equal(t, want, [2]bool{r, w}, "parameter %d", i)
	}

	// b[i] = b[i] + 1 with one node for both places reads and writes.
	k := ir.NewKernel("k", 1, [3]uint32{64, 1, 1})
	b := k.AddParam("b", ir.Buffer(ir.TU32), ir.VarArg)
	at := &ir.Index{X: &ir.Ref{Var: b}, I: ir.LitInt(ir.TU32, 0), T: ir.TU32}
	k.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: at, Src: &ir.Binary{Op: ir.Add, X: at, Y: ir.LitInt(ir.TU32, 1), T: ir.TU32}}}
	r, w := k.Access(b)
	require.True(t, r && w)
}
