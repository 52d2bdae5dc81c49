package device_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// TestNewShaderFromKernel hands a kernel's AST to the backend through the
// contract (ShaderDesc.Kernel): the backend compiles it, reports what it
// did, and the shader runs.
func TestNewShaderFromKernel(t *testing.T) {
	d := openVulkan(t)
	f := scaleKernel(t, 3)
	sig, _, err := device.KernelSignature(f)
	require.NoError(t, err)
	var rep device.ShaderReport
	sh, err := d.NewShader(device.ShaderDesc{Kernel: f, Signature: &sig, Name: "scale", Report: &rep})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, sh.Close()) })
	require.False(t, rep.CacheHit, "no shader cache on this device")
	require.NotEmpty(t, rep.SPIRV)
	require.Equal(t, uint32(0x07230203), rep.SPIRV[0])
	require.Len(t, sh.Signature().Args, 3)

	const n = 100
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	bin := newBuffer[float32](t, d, n)
	bout := newBuffer[float32](t, d, n)
	got := make([]float32, n)
	s := newStream(t, d, device.StreamCompute)
	require.NoError(t, s.Submit(bin.Upload(in), sh.Dispatch([3]uint32{n}, float32(1), bin, bout), bout.Download(got)))
	require.NoError(t, s.Synchronize(context.Background()))
	for i := range in {
		require.InDelta(t, in[i]*3+1, got[i], 1e-5, "element %d", i)
	}
}

// TestNewShaderKernelDescRefused: a kernel with SPIR-V beside it, or without
// its signature, is an error naming the fault.
func TestNewShaderKernelDescRefused(t *testing.T) {
	d := openVulkan(t)
	f := scaleKernel(t, 3)
	sig, _, err := device.KernelSignature(f)
	require.NoError(t, err)
	words := []uint32{0x07230203, 0x00010000, 0, 1, 0}
	_, err = d.NewShader(device.ShaderDesc{Kernel: f, Signature: &sig, SPIRV: words})
	require.True(t, errors.Is(err, device.ErrInvalidArgument), "%v", err)
	require.ErrorContains(t, err, "both a kernel and SPIR-V")
	_, err = d.NewShader(device.ShaderDesc{Kernel: f, Name: "scale"})
	require.True(t, errors.Is(err, device.ErrInvalidArgument), "%v", err)
	require.ErrorContains(t, err, "signature")
}
