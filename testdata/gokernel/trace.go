package kernels

import (
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/vecmath"
)

// Trace casts one ray per pixel at a unit sphere and shades the hit by its
// normal, calling helpers of another package (vecmath).
//
//lucent:kernel block=8,8
func Trace(w, h uint32, out []float32) {
	id := kernel.DispatchID()
	if id.X >= w || id.Y >= h {
		return
	}
	u := vecmath.Lerp(-1.5, 1.5, (float32(id.X)+0.5)/float32(w))
	v := vecmath.Lerp(-1.5, 1.5, (float32(id.Y)+0.5)/float32(h))
	r := vecmath.Ray{Origin: kernel.F3(u, v, -3), Dir: kernel.F3(0, 0, 1)}
	t, hit := vecmath.SphereHit(r, kernel.F3(0, 0, 0), 1)
	shade := float32(0)
	if hit {
		n := r.At(t).Normalize()
		shade = vecmath.Clamp01(-n.Z)
	}
	out[id.Y*w+id.X] = shade
}
