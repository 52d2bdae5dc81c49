// Package printing holds a kernel that prints, on the CPU runner and on a
// device: scalars, vectors, a loop, a helper function that prints, and one
// that takes the kernel's buffer and prints (specialised per call).
package printing

import "github.com/lucent-gpu/lucent/kernel"

// Show prints three lines per thread from the kernel and two from helpers,
// and writes i*scale to out[i].
//
//lucent:kernel block=64
func Show(scale float32, out []float32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(out)) {
		return
	}
	x := float32(i) * scale
	for j := uint32(0); j < 2; j++ {
		kernel.Printf("i=%d j=%u x=%.2f %g\n", i, j, x, x)
	}
	kernel.Printf("v=%v h=%#x n=%d ok=%t", kernel.F3(x, x+1, -x), i*4096, int32(i)-5, i%2 == 0)
	note(x, uint64(i)<<40)
	out[i] = x
	noteAt(out, i)
}

func note(x float32, big uint64) {
	kernel.Printf("helper %e %d %v", x, big, float64(x)/3)
}

func noteAt(out []float32, i uint32) {
	y := out[i] * 2
	kernel.Printf("at %d of %d: %g", i, len(out), y)
}
