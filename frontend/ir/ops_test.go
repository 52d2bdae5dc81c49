package ir_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// ops lists every built-in op of the table.
func ops() []ir.Op {
	var out []ir.Op
	for op := ir.Op(1); !strings.HasPrefix(op.String(), "Op("); op++ {
		out = append(out, op)
	}
	return out
}

func TestOpsTableNamesAndArity(t *testing.T) {
	all := ops()
	require.GreaterOrEqual(t, len(all), int(ir.OpBindlessTexSize), "the table lists every op")
	seen := map[string]ir.Op{}
	one := ir.LitFloat(ir.TF32, 1)
	for _, op := range all {
		in := op.Info()
		require.NotEmpty(t, in.Name)
		require.NotContains(t, seen, in.Name, "op %d and %d share a name", seen[in.Name], op)
		seen[in.Name] = op
		if in.Arity < 0 {
			continue
		}
		args := make([]ir.Expr, in.Arity+1)
		for i := range args {
			args[i] = one
		}
		_, err := ir.CallType(op, args)
		require.ErrorIs(t, err, ir.ErrTypeMismatch, op.String())
		require.ErrorContains(t, err, "operands, got", op.String())
	}
	beyond := all[len(all)-1] + 1
	_, err := ir.CallType(beyond, nil)
	require.ErrorIs(t, err, ir.ErrUnsupported)
	require.Equal(t, "none", ir.OpNone.String())
}

func TestOpsTableReferences(t *testing.T) {
	r, ok := ir.RefFloat32(ir.OpFma, 2, 3, 4)
	require.True(t, ok)
	require.Equal(t, float32(10), r)
	r, ok = ir.RefFloat32(ir.OpSmoothStep, 0, 1, 0.5)
	require.True(t, ok)
	require.Equal(t, float32(0.5), r)
	m5 := uint32(0xFFFFFFFB) // -5
	u, ok := ir.RefInt(ir.OpClamp, true, m5, 0, 10)
	require.True(t, ok)
	require.Equal(t, uint32(0), u, "signed clamp of -5 to [0, 10]")
	u, _ = ir.RefInt(ir.OpClamp, false, m5, 0, 10)
	require.Equal(t, uint32(10), u, "unsigned clamp of 2^32-5 to [0, 10]")
	_, ok = ir.RefFloat32(ir.OpDot, 1, 2)
	require.False(t, ok, "dot has no scalar reference")
	_, ok = ir.RefInt(ir.OpSqrt, false, 4)
	require.False(t, ok, "sqrt has no integer reference")
	// Every op with a float reference takes floats by its type rule.
	for _, op := range ops() {
		in := op.Info()
		if in.F32 == nil || in.Arity < 0 {
			continue
		}
		args := make([]ir.Expr, in.Arity)
		for i := range args {
			args[i] = ir.LitFloat(ir.TF32, 0.5)
		}
		typ, err := ir.CallType(op, args)
		require.NoError(t, err, op.String())
		require.Equal(t, ir.TF32, typ, op.String())
	}
}

func TestRayOpsTypes(t *testing.T) {
	k := ir.NewKernel("trace", 1, [3]uint32{64, 1, 1})
	acc := &ir.Ref{Var: k.AddParam("scene", ir.Accel, ir.VarArg)}
	v3 := &ir.Construct{T: ir.Vector(ir.TF32, 3), Args: []ir.Expr{ir.LitFloat(ir.TF32, 0)}}
	f := ir.LitFloat(ir.TF32, 1)
	mask := ir.LitInt(ir.TU32, 0xff)
	typ, err := ir.CallType(ir.OpRayClosest, []ir.Expr{acc, v3, f, v3, f, mask})
	require.NoError(t, err)
	require.Equal(t, ir.RayHit, typ)
	require.Equal(t, 24, ir.RayHit.Size())
	typ, err = ir.CallType(ir.OpRayAny, []ir.Expr{acc, v3, f, v3, f, mask})
	require.NoError(t, err)
	require.Equal(t, ir.TBool, typ)
	_, err = ir.CallType(ir.OpRayAny, []ir.Expr{acc, v3, f, v3, f, f})
	require.ErrorIs(t, err, ir.ErrTypeMismatch)
	require.ErrorContains(t, err, "operand 5 (the mask) is f32, want u32")
}
