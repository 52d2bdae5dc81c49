package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Bindless(arr kernel.Bindless, y []float32) {
	i := kernel.DispatchID().X
	y[i] = kernel.BindlessBuffer[float32](arr, 0)[i]
}
