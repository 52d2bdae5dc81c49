// Package saxpy is the one-kernel file the cold front-end benchmark
// compiles: the Go twin of testdata/frontend/saxpy.comp and saxpy.wgsl.
package saxpy

import "github.com/lucent-gpu/lucent/kernel"

// Saxpy computes y = a*x + y.
//
//lucent:kernel block=256
func Saxpy(a float32, x, y []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(y)) {
		y[i] = a*x[i] + y[i]
	}
}
