// Package nbody is the one-kernel package of bench/frontcold's n-body rows
// (testdata/gokernel's NBody); nbody.wgsl is its WGSL twin.
package nbody

import (
	"math"

	"github.com/lucent-gpu/lucent/kernel"
)

// Body is one n-body particle (host and device share this layout).
type Body struct {
	Pos  kernel.Float3
	Mass float32
	Vel  kernel.Float3
	_    float32
}

// Softening keeps close encounters finite.
const Softening = 0.01

// accel is the acceleration on a body at p from a body b.
func accel(p kernel.Float3, b Body) kernel.Float3 {
	d := b.Pos.Sub(p)
	r2 := d.Dot(d) + Softening
	inv := 1 / float32(math.Sqrt(float64(r2)))
	return d.Scale(b.Mass * inv * inv * inv)
}

// NBody advances every body by one step of dt (all-pairs gravity).
//
//lucent:kernel block=64
func NBody(dt float32, in, out []Body) {
	i := kernel.DispatchID().X
	n := uint32(len(in))
	if i >= n {
		return
	}
	me := in[i]
	var a kernel.Float3
	for j := uint32(0); j < n; j++ {
		if j == i {
			continue
		}
		a = a.Add(accel(me.Pos, in[j]))
	}
	me.Vel = me.Vel.Add(a.Scale(dt))
	me.Pos = me.Pos.Add(me.Vel.Scale(dt))
	out[i] = me
}
