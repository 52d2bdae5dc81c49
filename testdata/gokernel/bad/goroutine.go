package bad

import "github.com/lucent-gpu/lucent/kernel"

func work(y []float32, i uint32) {}

//lucent:kernel block=64
func Spawn(y []float32) {
	i := kernel.DispatchID().X
	go work(y, i)
	defer work(y, i)
}
