package ir_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestFloat64ToHalf: on every float32 of a sweep (every 509th bit pattern,
// both signs, NaNs, infinities, denormals of both formats) the one-step
// rounding from float64 agrees with Float32ToHalf, and where rounding
// through float32 would round twice it rounds once.
func TestFloat64ToHalf(t *testing.T) {
	for b := uint64(0); b < 1<<32; b += 509 {
		f := math.Float32frombits(uint32(b))
		require.Equal(t, ir.Float32ToHalf(f), ir.Float64ToHalf(float64(f)), "float32 bits %#x", b)
	}
	for _, tc := range []struct {
		x    float64
		want uint16
	}{
		{1 + 0x1p-11 + 0x1p-40, 0x3c01},    // just above the midpoint: float32 would make it the midpoint, then 1
		{1 + 0x1p-11, 0x3c00},              // the midpoint: to even
		{1 + 3*0x1p-11, 0x3c02},            // the midpoint: to even, upwards
		{65504, 0x7bff},                    // the largest half
		{65520, 0x7c00},                    // its midpoint with the next power: to even, infinity
		{65519.99999999, 0x7bff},           // below that midpoint
		{0x1p-24, 0x0001},                  // the smallest denormal
		{0x1p-25, 0x0000},                  // half of it: to even, zero
		{0x1p-25 + 0x1p-60, 0x0001},        // just above: the denormal
		{-0x1p-14 * (1 - 0x1p-11), 0x8400}, // the largest denormal's neighbourhood rounds up into the normals
		{math.Copysign(0, -1), 0x8000},
		{math.Inf(-1), 0xfc00},
		{5e-324, 0x0000}, // a float64 denormal
		{1e300, 0x7c00},
	} {
		require.Equal(t, tc.want, ir.Float64ToHalf(tc.x), "%v", tc.x)
	}
	h := ir.Float64ToHalf(math.NaN())
	require.Equal(t, uint16(0x7c00), h&0x7c00, "NaN keeps the exponent all ones")
	require.NotZero(t, h&0x3ff, "NaN keeps a mantissa bit")
}
