package vulkan

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// Group counts are computed in 64 bits: (size + block - 1) / block in uint32
// wrapped for sizes near 2^32 and launched a handful of groups.
func TestGroupCounts(t *testing.T) {
	limit := [3]uint32{65535, 65535, 65535}
	for _, c := range []struct {
		size, block, want [3]uint32
	}{
		{[3]uint32{1000, 1, 1}, [3]uint32{64, 1, 1}, [3]uint32{16, 1, 1}},
		{[3]uint32{0xFFFFFFF0, 1, 1}, [3]uint32{256, 1, 1}, [3]uint32{0x1000000, 1, 1}},
		{[3]uint32{0xFFFFFFFF, 1, 1}, [3]uint32{256, 1, 1}, [3]uint32{0x1000000, 1, 1}},
		{[3]uint32{0xFFFFFFFF, 1, 1}, [3]uint32{1, 1, 1}, [3]uint32{0xFFFFFFFF, 1, 1}},
		{[3]uint32{0xFFFFFF01, 3, 1}, [3]uint32{16, 4, 1}, [3]uint32{0xFFFFFF1, 1, 1}},
	} {
		got, err := groupCounts(c.size, c.block, limit)
		require.NoError(t, err, "%v / %v", c.size, c.block)
		require.Equal(t, c.want, got, "%v / %v", c.size, c.block)
	}
	// Too many pieces to split into is refused with the size named.
	_, err := groupCounts([3]uint32{0xFFFFFFFF, 0xFFFFFFFF, 1}, [3]uint32{1, 1, 1}, limit)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "4294967295")
	require.ErrorContains(t, err, "maxComputeWorkGroupCount")
	got, err := groupCounts([3]uint32{0xFFFFFFFF, 1, 1}, [3]uint32{7, 1, 1}, limit)
	require.NoError(t, err)
	require.Equal(t, [3]uint32{613566757, 1, 1}, got, "the last block's wrapped ids return early in the kernel")
}
