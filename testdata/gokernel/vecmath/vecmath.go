// Package vecmath is a helper package of the gokernel corpus: plain Go
// functions and methods that kernels in another package call.
package vecmath

import (
	"math"

	"github.com/lucent-gpu/lucent/kernel"
)

// Lerp interpolates between a and b.
func Lerp(a, b, t float32) float32 { return a + (b-a)*t }

// Clamp01 clamps v to [0, 1].
func Clamp01(v float32) float32 { return min(max(v, 0), 1) }

// Ray is a half-line.
type Ray struct {
	Origin, Dir kernel.Float3
}

// At is the point at distance t along the ray.
func (r Ray) At(t float32) kernel.Float3 { return r.Origin.Add(r.Dir.Scale(t)) }

// SphereHit returns the nearer hit distance of r with the sphere at c of
// radius rad, and whether there is one.
func SphereHit(r Ray, c kernel.Float3, rad float32) (float32, bool) {
	oc := r.Origin.Sub(c)
	b := oc.Dot(r.Dir)
	disc := b*b - (oc.Dot(oc) - rad*rad)
	if disc < 0 {
		return 0, false
	}
	return -b - float32(math.Sqrt(float64(disc))), true
}
