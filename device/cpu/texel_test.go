package cpu

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestTexelConversions: what a storage texel reads as and is stored as,
// per channel kind (Vulkan's conversions: unorm and snorm rounded to
// nearest and clamped, halves to nearest even, missing channels (0, 0, 0, 1)).
func TestTexelConversions(t *testing.T) {
	f := func(x float32) uint64 { return uint64(math.Float32bits(x)) }
	for _, c := range []struct {
		format device.Format
		in     [4]uint64
		bytes  []byte
		back   [4]uint64
	}{
		{device.RGBA8Unorm, [4]uint64{f(0), f(0.5), f(1.5), f(-1)}, []byte{0, 128, 255, 0}, [4]uint64{f(0), f(128.0 / 255), f(1), f(0)}},
		{device.RG8Snorm, [4]uint64{f(-1), f(0.5)}, []byte{0x81, 64}, [4]uint64{f(-1), f(64.0 / 127), 0, f(1)}},
		{device.R16Float, [4]uint64{f(1.5)}, []byte{0x00, 0x3e}, [4]uint64{f(1.5), 0, 0, f(1)}},
		{device.RG16Sint, [4]uint64{uint64(uint32(0xffff8000)), 7}, []byte{0x00, 0x80, 7, 0}, [4]uint64{uint64(uint32(0xffff8000)), 7, 0, 1}},
		{device.R8Uint, [4]uint64{300}, []byte{44}, [4]uint64{44, 0, 0, 1}},
		{device.RGBA32Float, [4]uint64{f(1), f(2), f(3), f(4)}, nil, [4]uint64{f(1), f(2), f(3), f(4)}},
	} {
		v := &texView{data: make([]byte, c.format.PixelSize()), ext: [3]uint32{1, 1, 1}, format: c.format}
		in := c.in
		v.writeTexel(0, in[:])
		if c.bytes != nil {
			require.Equal(t, c.bytes, v.data, "%v stored", c.format)
		}
		var out [4]uint64
		v.readTexel(0, out[:])
		require.Equal(t, c.back, out, "%v read back", c.format)
	}
	require.Equal(t, uint16(0x3c00), ir.Float32ToHalf(1))
	require.Equal(t, float32(-0.25), ir.HalfToFloat32(0xb400))
}
