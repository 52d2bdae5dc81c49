package bad

import "github.com/lucent-gpu/lucent/kernel"

// Params is more than a kernel's value parameters may hold.
type Params struct {
	Weights [32]float32
}

//lucent:kernel block=64
func Uniforms(out []float32, scale float32, p Params, bias float32) {
	out[kernel.DispatchID().X] = p.Weights[0]*scale + bias
}
