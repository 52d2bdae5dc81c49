package cpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/bitops"
)

// TestMathBitsBothEngines: the math/bits functions of every width, lowered
// to popcount, clz, ctz, bit_reverse, shifts and masks, give on the lane
// engine and on the per-thread engine what Go gives under kernel.Run.
func TestMathBitsBothEngines(t *testing.T) {
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/bitops")
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	xs := []uint32{0, 1, 0x80000000, 0xffffffff, 0x10000, 0x8000, 0x80, 0xff, 0x12345678, 0xdeadbeef, 6, 0x400}
	rots := []int32{0, -1, 1, 31, 32, -33, 64, 100, -100, 7, 8, 16}
	want := make([]uint32, len(xs)*bitops.Cols)
	require.NoError(t, kernel.Run(context.Background(), kernel.Grid1(32, uint32(len(xs))), func() { bitops.Bits(xs, rots, want) }))
	d := open(t)
	on, why, err := cpu.LaneEngine(ks[0].Func)
	require.NoError(t, err)
	require.True(t, on, why)
	for _, lanes := range []bool{true, false} {
		old := cpu.SetLaneEngine(lanes)
		dk, err := device.Compile(d, ks[0].Func)
		cpu.SetLaneEngine(old)
		require.NoError(t, err)
		out := upload(t, d, make([]uint32, len(want)))
		run(t, d, dk.Dispatch([3]uint32{uint32(len(xs))}, upload(t, d, xs), upload(t, d, rots), out))
		require.Equal(t, want, download(t, d, out), "lane engine %v", lanes)
		require.NoError(t, dk.Close())
	}
}
