// Package bitops holds a kernel calling the functions of math/bits that
// kernels compile, at every width, on operands the tests pick for their
// edges (zero, one bit, all bits, the top bit); the tests run it on
// devices and compare with the same function run by kernel.Run.
package bitops

import (
	"math/bits"

	"github.com/lucent-gpu/lucent/kernel"
)

// Cols is the results each thread of Bits writes.
const Cols = 58

// Bits writes Cols results per thread, from x = xs[i], y = xs[j] (j
// another thread's) and a rotation k = ks[i].
//
//lucent:kernel block=32
func Bits(xs []uint32, ks []int32, out []uint32) {
	i := kernel.DispatchID().X
	n := uint32(len(xs))
	if i >= n {
		return
	}
	x := xs[i]
	y := xs[(i*7+3)%n]
	k := int(ks[i])
	w := uint64(y)<<32 | uint64(x)
	u := uint(x)<<32 | uint(y)
	o := out[i*Cols : (i+1)*Cols]

	o[0] = uint32(bits.OnesCount32(x))
	o[1] = uint32(bits.LeadingZeros32(x))
	o[2] = uint32(bits.TrailingZeros32(x))
	o[3] = uint32(bits.Len32(x))
	o[4] = bits.Reverse32(x)
	o[5] = bits.RotateLeft32(x, k)
	o[6] = bits.ReverseBytes32(x)

	o[7] = uint32(bits.OnesCount64(w))
	o[8] = uint32(bits.LeadingZeros64(w))
	o[9] = uint32(bits.TrailingZeros64(w))
	o[10] = uint32(bits.Len64(w))
	r := bits.Reverse64(w)
	o[11], o[12] = uint32(r), uint32(r>>32)
	r = bits.RotateLeft64(w, k)
	o[13], o[14] = uint32(r), uint32(r>>32)
	r = bits.ReverseBytes64(w)
	o[15], o[16] = uint32(r), uint32(r>>32)

	o[17] = uint32(bits.OnesCount(u))
	o[18] = uint32(bits.LeadingZeros(u))
	o[19] = uint32(bits.TrailingZeros(u))
	o[20] = uint32(bits.Len(u))
	v := bits.Reverse(u) ^ bits.RotateLeft(u, -k) ^ bits.ReverseBytes(u)<<1
	o[21], o[22] = uint32(v), uint32(v>>32)

	b := uint8(x >> 3)
	o[23] = uint32(bits.OnesCount8(b))
	o[24] = uint32(bits.LeadingZeros8(b))
	o[25] = uint32(bits.TrailingZeros8(b))
	o[26] = uint32(bits.Len8(b))
	o[27] = uint32(bits.Reverse8(b))
	o[28] = uint32(bits.RotateLeft8(b, k))

	h := uint16(x >> 7)
	o[29] = uint32(bits.OnesCount16(h))
	o[30] = uint32(bits.LeadingZeros16(h))
	o[31] = uint32(bits.TrailingZeros16(h))
	o[32] = uint32(bits.Len16(h))
	o[33] = uint32(bits.Reverse16(h))
	o[34] = uint32(bits.RotateLeft16(h, k))
	o[35] = uint32(bits.ReverseBytes16(h))

	// In expressions: a count as a shift, a loop over the set bits, a
	// rotation by a computed amount.
	m, c := x, uint32(0)
	for m != 0 {
		c += uint32(bits.TrailingZeros32(m))
		m &= m - 1
	}
	o[36] = c
	o[37] = 1 << (bits.Len32(x>>1) & 31)
	o[38] = bits.RotateLeft32(y, bits.OnesCount32(x)-16)
	o[39] = uint32(bits.LeadingZeros32(x) + bits.TrailingZeros64(w) - bits.Len16(h))

	// Carries, borrows and wide products.
	o[40], o[41] = bits.Add32(x, y, uint32(k)&1)
	o[42], o[43] = bits.Sub32(x, y, uint32(k>>1)&1)
	o[44], o[45] = bits.Mul32(x, y)
	s, carry := bits.Add64(w, uint64(u), uint64(k)&1)
	o[46], o[47], o[48] = uint32(s), uint32(s>>32), uint32(carry)
	d, borrow := bits.Sub64(w, uint64(u), 1)
	o[49], o[50], o[51] = uint32(d), uint32(d>>32), uint32(borrow)
	hi, lo := bits.Mul64(w, uint64(u))
	o[52], o[53], o[54], o[55] = uint32(hi), uint32(hi>>32), uint32(lo), uint32(lo>>32)
	hu, lu := bits.Mul(u, u^uint(k))
	su, cu := bits.Add(hu, lu, 1)
	o[56], o[57] = uint32(su^su>>32), uint32(cu)
}
