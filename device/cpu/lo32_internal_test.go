package cpu

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLo32s: a register row viewed through lo32s reads each lane's low
// word as the float32 f32 reads, whatever the high word holds.
func TestLo32s(t *testing.T) {
	row := []uint64{uf32(1.5), uf32(-2), 0xdeadbeef<<32 | uf32(3.25), uf32(float32(math.Inf(-1))), 0xffffffff << 32}
	v := lo32s(row)
	require.Len(t, v, len(row))
	for i, r := range row {
		require.Equal(t, math.Float32bits(f32(r)), math.Float32bits(v[i].f), "lane %d", i)
	}
	require.Empty(t, lo32s(nil))
}
