package bad

import "github.com/lucent-gpu/lucent/kernel"

// Weights is more than a kernel's value parameters may hold.
type Weights struct {
	W [32]float32
}

//lucent:kernel block=64
func Uniforms(out []float32, scale float32, p Weights, bias float32) {
	out[kernel.DispatchID().X] = p.W[0]*scale + bias
}
