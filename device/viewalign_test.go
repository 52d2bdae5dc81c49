package device_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestKernelViewsAligned binds views of a buffer to a kernel: one starting
// at a multiple of Capabilities().MemoryGranularity bytes runs, one starting
// off it is refused naming the argument and the offset, on every backend.
// The cpu backend used to run the second, which the Vulkan backend refuses
// (minStorageBufferOffsetAlignment): a program tried on cpu failed on a GPU.
// The error names the kernel, not the shader's handle, on every backend.
func TestKernelViewsAligned(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, func() (*ir.Function, error) {
		f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
			i := k.DispatchID().X()
			k.If(i.Lt(out.Len()), func() { out.Write(i, dsl.F(1)) })
		}, "out")
		if f != nil {
			f.Name = "fillView"
		}
		return f, err
	})
	g := int(d.Capabilities().MemoryGranularity)
	buf := upload(t, d, make([]float32, 64))
	aligned := g / 4
	run(t, d, k.Dispatch([3]uint32{8}, buf.View(aligned, 8)))
	got := download(t, d, buf)
	for i, v := range got {
		require.Equal(t, i >= aligned && i < aligned+8, v == 1, "element %d is %v", i, v)
	}
	if g == 4 {
		return // every float32 view is aligned
	}
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	err = s.Submit(k.Dispatch([3]uint32{8}, buf.View(1, 8)))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "argument 0 (out)")
	require.NotRegexp(t, `shader \d`, err.Error(), "the kernel is named, not its shader's handle")
	require.ErrorContains(t, err, "kernel fillView argument 0 (out)")
	require.ErrorContains(t, err, fmt.Sprintf("offset 4 is not a multiple of %d", g))
}
