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
