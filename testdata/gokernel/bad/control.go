package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Control(y []int32) {
	i := kernel.DispatchID().X
	if y[i] < 0 {
		panic("negative")
	}
again:
	y[i]--
	if y[i] > 100 {
		goto again
	}
}
