// Package geom is kernel helper code in a package of its own, in a module
// whose path has no dot.
package geom

import (
	"probe/geom/inner"

	"github.com/lucent-gpu/lucent/kernel"
)

// Vec is a 2D vector.
type Vec struct{ X, Y float32 }

// Len is the length of v.
func (v Vec) Len() float32 { return kernel.Sqrt(inner.Dot(v.X, v.Y, v.X, v.Y)) }

// Scale returns v times s, through the inner package.
func Scale(v Vec, s float32) Vec { return Vec{inner.Mul(v.X, s), inner.Mul(v.Y, s)} }
