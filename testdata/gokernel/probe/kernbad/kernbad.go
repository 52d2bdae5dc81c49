// Package kernbad calls a helper of another package that breaks the rules.
package kernbad

import (
	"probe/geom"

	"github.com/lucent-gpu/lucent/kernel"
)

// Total calls geom.Sum.
//
//lucent:kernel block=64
func Total(xs, out []float32) {
	out[kernel.DispatchID().X] = geom.Sum(xs)
}
