package bad

import (
	"math/bits"

	"github.com/lucent-gpu/lucent/kernel"
)

//lucent:kernel block=64
func Carries(x []uint32, w []uint64) {
	i := kernel.DispatchID().X
	s, c := bits.Add32(x[i], x[i+1], 0)
	hi, lo := bits.Mul64(w[i], w[i+1])
	q, r := bits.Div32(0, x[i], 7)
	x[i] = s + c + q + r + uint32(hi^lo) + uint32(bits.Rem64(1, 2, 3))
}
