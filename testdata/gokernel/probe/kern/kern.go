// Package kern holds a kernel that calls helpers of other packages of its
// module.
package kern

import (
	"probe/geom"

	"github.com/lucent-gpu/lucent/kernel"
)

// Lengths writes the length of 2·(xs[i], ys[i]).
//
//lucent:kernel block=64
func Lengths(xs, ys, out []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(out)) {
		out[i] = geom.Scale(geom.Vec{X: xs[i], Y: ys[i]}, 2).Len()
	}
}
