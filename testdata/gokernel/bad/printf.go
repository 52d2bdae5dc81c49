package bad

import "github.com/lucent-gpu/lucent/kernel"

var format = "%d"

//lucent:kernel block=64
func Printf(y []float32) {
	i := kernel.DispatchID().X
	kernel.Printf(format, i)
	kernel.Printf("%d", y[i])
	kernel.Printf("%d %d", i)
	kernel.Printf("%s", i)
	args := []any{i}
	kernel.Printf("%d", args...)
}
