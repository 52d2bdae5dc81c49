package cpu

import (
	"math"
	"math/rand/v2"
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

// TestDivU32: division and remainder through the divisor's multiplier give
// Go's / and % for divisors and dividends at the edges and at random.
func TestDivU32(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ds := []uint32{1, 2, 3, 5, 6, 7, 10, 11, 64, 100, 255, 256, 257, 1000, 65535, 65536, 65537, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<32 - 2, 1<<32 - 1}
	for range 200 {
		ds = append(ds, r.Uint32()|1, r.Uint32N(1000)+1, r.Uint32()>>r.UintN(31)|1)
	}
	ns := []uint32{0, 1, 2, 3, 63, 64, 65, 1<<31 - 1, 1 << 31, 1<<32 - 2, 1<<32 - 1}
	for range 500 {
		ns = append(ns, r.Uint32(), r.Uint32N(1<<16))
	}
	a := make([]uint64, len(ns))
	for i, n := range ns {
		a[i] = uint64(n) | 0xabcd<<32 // a register's high word is not read
	}
	q, m := make([]uint64, len(a)), make([]uint64, len(a))
	for _, d := range ds {
		for _, dn := range []uint32{d, d + 1, d - 1} {
			if dn == 0 {
				continue
			}
			divU32(q, a, dn)
			remU32(m, a, dn)
			for i, n := range ns {
				if q[i] != uint64(n/dn) || m[i] != uint64(n%dn) {
					t.Fatalf("%d / %d: %d rem %d, want %d rem %d", n, dn, q[i], m[i], n/dn, n%dn)
				}
			}
		}
	}
}
