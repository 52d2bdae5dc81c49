package kernels

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

// Life computes one generation of Conway's game of life on a w×h torus.
//
//lucent:kernel block=8,8
func Life(w, h uint32, in, out []uint32) {
	id := kernel.DispatchID()
	x, y := id.X, id.Y
	if x >= w || y >= h {
		return
	}
	alive := uint32(0)
	for dy := uint32(0); dy < 3; dy++ {
		for dx := uint32(0); dx < 3; dx++ {
			if dx == 1 && dy == 1 {
				continue
			}
			nx := (x + w + dx - 1) % w
			ny := (y + h + dy - 1) % h
			alive += in[ny*w+nx]
		}
	}
	cell := in[y*w+x]
	next := uint32(0)
	switch alive {
	case 2:
		next = cell
	case 3:
		next = 1
	}
	out[y*w+x] = next
}
