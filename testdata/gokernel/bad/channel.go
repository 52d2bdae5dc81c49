package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Chan(y []float32, c chan float32) {
	i := kernel.DispatchID().X
	c <- y[i]
	y[i] = <-c
	select {}
}
