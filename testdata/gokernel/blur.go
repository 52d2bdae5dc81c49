package kernels

import "github.com/lucent-gpu/lucent/kernel"

// weights is a read-only package table: the compiler makes it a constant array.
var weights = [5]float32{1.0 / 16, 4.0 / 16, 6.0 / 16, 4.0 / 16, 1.0 / 16}

// radius is a read-only package scalar.
var radius = 2

// Blur convolves a row-major w×h image with weights along x, clamping at the edges.
//
//lucent:kernel block=64
func Blur(w, h uint32, in, out []float32) {
	i := kernel.DispatchID().X
	if i >= w*h {
		return
	}
	x, y := int(i%w), int(i/w)
	var acc float32
	for k := -radius; k <= radius; k++ {
		xx := min(max(x+k, 0), int(w)-1)
		acc += weights[k+radius] * in[y*int(w)+xx]
	}
	out[i] = acc
}
