package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// An accel parameter is an ArgAccel the kernel reads; a dispatch reading
// it says so in its usages, so hazards with its builds are derived.
func TestKernelSignatureAccel(t *testing.T) {
	k := ir.NewKernel("trace", 1, [3]uint32{64, 1, 1})
	acc := &ir.Ref{Var: k.AddParam("scene", ir.Accel, ir.VarArg)}
	out := &ir.Ref{Var: k.AddParam("out", ir.Buffer(ir.TU32), ir.VarArg)}
	v3 := &ir.Construct{T: ir.Vector(ir.TF32, 3), Args: []ir.Expr{ir.LitFloat(ir.TF32, 1)}}
	hit := &ir.Call{Op: ir.OpRayAny, T: ir.TBool, Args: []ir.Expr{acc, v3, ir.LitFloat(ir.TF32, 0), v3, ir.LitFloat(ir.TF32, 1), ir.LitInt(ir.TU32, 0xff)}}
	k.Body.Stmts = append(k.Body.Stmts, &ir.Assign{
		Dst: &ir.Index{X: out, I: ir.LitInt(ir.TU32, 0), T: ir.TU32},
		Src: &ir.Call{Op: ir.OpSelect, T: ir.TU32, Args: []ir.Expr{hit, ir.LitInt(ir.TU32, 1), ir.LitInt(ir.TU32, 0)}},
	})
	require.NoError(t, k.Validate())
	sig, _, err := device.KernelSignature(k)
	require.NoError(t, err)
	require.Equal(t, device.Argument{Name: "scene", Kind: device.ArgAccel, Access: device.Read}, sig.Args[0])

	c := &device.ShaderDispatch{Shader: 1, Size: [3]uint32{1, 1, 1}, Args: []device.Arg{
		{Kind: device.ArgAccel, Handle: 7, Access: device.Read},
		{Kind: device.ArgBuffer, Handle: 8, Size: device.WholeSize},
	}}
	require.Contains(t, c.Usages(), device.Usage{Handle: 7, Kind: device.KindAccel, Access: device.Read})
	require.NoError(t, device.CheckArg(sig.Args[0], c.Args[0], device.ArgResource{}))
	err = device.CheckArg(sig.Args[0], c.Args[1], device.ArgResource{})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "got a buffer")
}
