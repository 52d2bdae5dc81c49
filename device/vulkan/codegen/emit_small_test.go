package codegen_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// smallKernel is out[i] = in[i] (elements of type e), plus a uniform u of
// type e when uniform.
func smallKernel(e *ir.Type, uniform bool) *ir.Function {
	f := ir.NewKernel("small", 1, [3]uint32{64, 1, 1})
	in := f.AddParam("in", ir.Buffer(e), ir.VarArg)
	out := f.AddParam("out", ir.Buffer(e), ir.VarArg)
	did := &ir.Var{Name: "dispatch_id", Type: ir.DispatchID.Type(), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}
	i := &ir.Swizzle{X: &ir.Ref{Var: did}, Comps: []uint8{0}, T: ir.TU32}
	var v ir.Expr = &ir.Index{X: &ir.Ref{Var: in}, I: i, T: e}
	if uniform {
		u := f.AddParam("u", e, ir.VarArg)
		v = &ir.Binary{Op: ir.Add, X: v, Y: &ir.Ref{Var: u}, T: e}
	}
	f.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: out}, I: i, T: e}, Src: v}}
	return f
}

// TestSmallPushConstantCapability: the 8- and 16-bit push-constant
// capabilities (device features storagePushConstant8/16, which devices with
// 8/16-bit storage buffers may lack) are declared only by kernels with an
// 8- or 16-bit uniform, not by every kernel with such buffers.
func TestSmallPushConstantCapability(t *testing.T) {
	for _, c := range []struct {
		e    *ir.Type
		push string
	}{{ir.TF16, "OpCapability StoragePushConstant16"}, {ir.TU8, "OpCapability StoragePushConstant8"}} {
		f := smallKernel(c.e, false)
		require.NoError(t, f.Validate())
		dis := disassemble(t, f, codegen.Options{})
		require.Contains(t, dis, "BitAccess", "%s buffers declare their storage capability", c.e)
		require.NotContains(t, dis, c.push, "%s buffers without a %s uniform", c.e, c.e)
		f = smallKernel(c.e, true)
		require.NoError(t, f.Validate())
		require.Contains(t, disassemble(t, f, codegen.Options{}), c.push, "a %s uniform", c.e)
	}
}
