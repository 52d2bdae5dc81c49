package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Closure(y []float32) {
	i := kernel.DispatchID().X
	scale := float32(2)
	f := func(v float32) float32 { return v * scale }
	y[i] = f(y[i])
}
