package bad

import "github.com/lucent-gpu/lucent/kernel"

func sumAll(xs ...float32) float32 {
	s := float32(0)
	for _, x := range xs {
		s += x
	}
	return s
}

//lucent:kernel block=64
func Variadic(y []float32) {
	i := kernel.DispatchID().X
	y[i] = sumAll(y[i], 1, 2)
}
