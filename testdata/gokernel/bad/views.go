package bad

import "github.com/lucent-gpu/lucent/kernel"

// Views x[lo:hi] of buffers: each rejected form is reported once.
//
//lucent:kernel block=64
func Views(y []float32, n uint32) {
	i := kernel.DispatchID().X
	a := y[1:3:4]
	y[i] = a[0]
	b := y[2:]
	b = y[3:]
	y[i] += b[0]
	c := y[:n]
	d := c
	y[i] += d[0]
	var arr [4]float32
	e := arr[1:]
	y[i] += e[0]
}
