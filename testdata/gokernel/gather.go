package kernels

import "github.com/lucent-gpu/lucent/kernel"

// Gather reads from the bindless buffer slot chosen per thread (0 or 1),
// wrapping the index by the slot's length, and counts into slot 2; thread 0
// also adds the sum of slot 1 and of its own slot's indices (range loops).
//
//lucent:kernel block=64
func Gather(arr kernel.Bindless, pick []uint32, out []float32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(out)) {
		return
	}
	src := kernel.BindlessBuffer[float32](arr, pick[i]%2)
	out[i] = src[i%uint32(len(src))] * 2
	kernel.BindlessBuffer[float32](arr, 2)[i] += float32(len(src))
	if i == 0 {
		total := float32(0)
		for _, v := range kernel.BindlessBuffer[float32](arr, 1) {
			total += v
		}
		for k := range src {
			total += float32(k)
		}
		out[0] += total
	}
}
