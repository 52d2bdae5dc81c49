package dsl_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestBindlessTextureTypeErrors checks that ill-typed bindless texture calls
// are errors naming the operation, not panics.
func TestBindlessTextureTypeErrors(t *testing.T) {
	arr := ir.NewKernel("k", 1, [3]uint32{1, 1, 1}).AddParam("arr", ir.Bindless, ir.VarParam)
	ref := &ir.Ref{Var: arr}
	u := ir.LitInt(ir.TU32, 1)
	for _, c := range []struct {
		name string
		op   ir.Op
		args []ir.Expr
		want string
	}{
		{"size with a coordinate", ir.OpBindlessTexSize, []ir.Expr{ref, u, u}, "takes 2 operands"},
		{"read of a float coordinate", ir.OpBindlessTexRead, []ir.Expr{ref, u, ir.LitFloat(ir.TF32, 1)}, "coordinate"},
		{"sample at integer coordinates", ir.OpBindlessTexSample, []ir.Expr{ref, u, &ir.Construct{T: ir.Vector(ir.TU32, 2), Args: []ir.Expr{u, u}}}, "coordinate"},
		{"slot that is not u32", ir.OpBindlessTexSize, []ir.Expr{ref, ir.LitFloat(ir.TF32, 1)}, "want bindless, u32"},
		{"array that is not bindless", ir.OpBindlessTexSize, []ir.Expr{u, u}, "want bindless, u32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ir.CallType(c.op, c.args)
			require.Error(t, err)
			require.True(t, strings.Contains(err.Error(), c.want), "%v", err)
			require.Contains(t, err.Error(), c.op.String())
		})
	}
	ty, err := ir.CallType(ir.OpBindlessTexSize, []ir.Expr{ref, u})
	require.NoError(t, err)
	require.Equal(t, ir.Vector(ir.TU32, 2), ty)
}
