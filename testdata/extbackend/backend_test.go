package interpbackend_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"

	_ "example.com/lucentinterp"
)

// A backend from outside lucent's module opens through a Context by name and
// runs a kernel it received as IR: the typed API, Compile and the validation
// wrapper work on it unchanged.
func TestOutsideBackendRunsAKernel(t *testing.T) {
	ctx := context.Background()
	require.Contains(t, device.Backends(), "interp")
	dev, err := device.NewContext(device.WithValidation()).Open(ctx, "interp")
	require.NoError(t, err)
	defer func() { require.NoError(t, dev.Close()) }()

	saxpy, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		k.If(i.Lt(y.Len()), func() { y.Write(i, a.Mul(x.Read(i)).Add(y.Read(i))) })
	}, "a", "x", "y")
	require.NoError(t, err)
	k, err := device.Compile(dev, saxpy)
	require.NoError(t, err)
	defer k.Close()

	const n = 1000
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), float32(n-i)
	}
	xb, err := device.NewBuffer[float32](dev, n)
	require.NoError(t, err)
	defer xb.Close()
	yb, err := device.NewBuffer[float32](dev, n)
	require.NoError(t, err)
	defer yb.Close()
	s, err := dev.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()

	got := make([]float32, n)
	require.NoError(t, s.Submit(xb.Upload(x), yb.Upload(y), k.Dispatch([3]uint32{n}, float32(2), xb, yb), yb.Download(got)))
	require.NoError(t, s.Synchronize(ctx))
	for i := range got {
		require.Equal(t, 2*x[i]+y[i], got[i], "element %d", i)
	}

	// SPIR-V is the Vulkan backend's: this one refuses it.
	_, err = dev.NewShader(device.ShaderDesc{SPIRV: []uint32{0x07230203, 0x00010500, 0, 8, 0}})
	require.ErrorIs(t, err, device.ErrUnsupported)
}
