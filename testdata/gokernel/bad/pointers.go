package bad

import "github.com/lucent-gpu/lucent/kernel"

var Gain float32 = 2

type Params struct {
	Scale float32
	On    bool
}

//lucent:kernel block=64
func Host(y []float32, p *float32, q Params) {
	i := kernel.DispatchID().X
	v := y[i]
	ptr := &v
	y[i] = *ptr * Gain * *p
}

var counter int32 = 1

func bump() { counter++ }

//lucent:kernel block=64
func Tables(y []float32) {
	i := kernel.DispatchID().X
	y[i] = float32(counter)
}
