package vulkan

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// halfCopyKernel is out[i] = in[i] + u on f16 (with a uniform u when
// uniform), or out[i] = in[i] without.
func halfCopyKernel(uniform bool) *ir.Function {
	h := ir.TF16
	f := ir.NewKernel("half_copy", 1, [3]uint32{64, 1, 1})
	in := f.AddParam("in", ir.Buffer(h), ir.VarArg)
	out := f.AddParam("out", ir.Buffer(h), ir.VarArg)
	did := &ir.Var{Name: "dispatch_id", Type: ir.DispatchID.Type(), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}
	i := &ir.Swizzle{X: &ir.Ref{Var: did}, Comps: []uint8{0}, T: ir.TU32}
	var v ir.Expr = &ir.Index{X: &ir.Ref{Var: in}, I: i, T: h}
	if uniform {
		u := f.AddParam("u", h, ir.VarArg)
		v = &ir.Binary{Op: ir.Add, X: v, Y: &ir.Ref{Var: u}, T: h}
	}
	f.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: out}, I: i, T: h}, Src: v}}
	return f
}

// TestShaderNeedsDeviceFeatures: a module declaring a SPIR-V capability
// whose Vulkan feature the device lacks is refused (ErrUnsupported, naming
// the capability, the feature and the device) before the driver sees it.
// The device's features are taken away after it was created, as a device
// without them would report.
func TestShaderNeedsDeviceFeatures(t *testing.T) {
	d, _ := openDevice(t)
	if d.phys.f12.ShaderFloat16 == 0 || d.phys.f11.StorageBuffer16BitAccess == 0 || d.phys.f11.StoragePushConstant16 == 0 {
		t.Skip("the device lacks shaderFloat16, storageBuffer16BitAccess or storagePushConstant16")
	}
	saved := *d.phys
	t.Cleanup(func() { *d.phys = saved })
	create := func(f *ir.Function) error {
		require.NoError(t, f.Validate())
		sig, _, err := device.KernelSignature(f)
		require.NoError(t, err)
		h, _, err := d.CreateShader(device.ShaderDesc{Kernel: f, Signature: &sig, Name: f.Name})
		if err == nil {
			require.NoError(t, d.DestroyShader(h))
		}
		return err
	}

	// Without storagePushConstant16: an f16 uniform is refused, f16
	// buffers alone still compile.
	d.phys.f11.StoragePushConstant16 = 0
	err := create(halfCopyKernel(true))
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "StoragePushConstant16")
	require.ErrorContains(t, err, "storagePushConstant16")
	require.ErrorContains(t, err, `"half_copy"`)
	require.NoError(t, create(halfCopyKernel(false)))

	// Without shaderFloat16: f16 arithmetic is refused.
	*d.phys = saved
	d.phys.f12.ShaderFloat16 = 0
	err = create(halfCopyKernel(true))
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "shaderFloat16")
}
