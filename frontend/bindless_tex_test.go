package frontend_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend"
)

// TestBindlessTextureTypeErrors checks that ill-typed bindless texture calls
// are errors naming the operation, not panics.
func TestBindlessTextureTypeErrors(t *testing.T) {
	arr := frontend.NewKernel("k", 1, [3]uint32{1, 1, 1}).AddParam("arr", frontend.Bindless, frontend.VarParam)
	ref := &frontend.Ref{Var: arr}
	u := frontend.LitInt(frontend.TU32, 1)
	for _, c := range []struct {
		name string
		op   frontend.Op
		args []frontend.Expr
		want string
	}{
		{"size with a coordinate", frontend.OpBindlessTexSize, []frontend.Expr{ref, u, u}, "takes 2 operands"},
		{"read of a float coordinate", frontend.OpBindlessTexRead, []frontend.Expr{ref, u, frontend.LitFloat(frontend.TF32, 1)}, "coordinate"},
		{"sample at integer coordinates", frontend.OpBindlessTexSample, []frontend.Expr{ref, u, &frontend.Construct{T: frontend.Vector(frontend.TU32, 2), Args: []frontend.Expr{u, u}}}, "coordinate"},
		{"slot that is not u32", frontend.OpBindlessTexSize, []frontend.Expr{ref, frontend.LitFloat(frontend.TF32, 1)}, "want bindless, u32"},
		{"array that is not bindless", frontend.OpBindlessTexSize, []frontend.Expr{u, u}, "want bindless, u32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := frontend.CallType(c.op, c.args)
			require.Error(t, err)
			require.True(t, strings.Contains(err.Error(), c.want), "%v", err)
			require.Contains(t, err.Error(), c.op.String())
		})
	}
	ty, err := frontend.CallType(frontend.OpBindlessTexSize, []frontend.Expr{ref, u})
	require.NoError(t, err)
	require.Equal(t, frontend.Vector(frontend.TU32, 2), ty)
}
