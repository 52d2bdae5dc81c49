package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestClosedShaderDispatchNamesKernel: a dispatch built before its kernel
// was closed is refused naming the kernel, on every backend and through the
// validation wrapper; the error said "shader #N: closed" alone.
func TestClosedShaderDispatchNamesKernel(t *testing.T) {
	t.Run("backend", func(t *testing.T) { closedShaderDispatch(t, openDevice(t)) })
	t.Run("validated", func(t *testing.T) {
		d, err := device.Open(t.Context(), testBackend(), device.WithValidation())
		testenv.Need(t, "Vulkan device", err)
		t.Cleanup(func() { require.NoError(t, d.Close()) })
		closedShaderDispatch(t, d)
	})
}

func closedShaderDispatch(t *testing.T, d *device.Device) {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		out.Write(k.DispatchID().X(), dsl.F(1))
	}, "out")
	require.NoError(t, err)
	f.Name = "fillOnes"
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	buf, err := device.NewBuffer[float32](d, 64)
	require.NoError(t, err)
	defer buf.Close()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	cmd := k.Dispatch([3]uint32{64}, buf)
	require.NoError(t, k.Close())
	err = s.Submit(cmd)
	if err == nil {
		err = s.Synchronize(t.Context())
	}
	require.ErrorIs(t, err, device.ErrClosed)
	require.ErrorContains(t, err, "kernel fillOnes")
	t.Log(err)
}
