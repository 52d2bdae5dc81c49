// Package rayquery holds ray-query kernels: closest-hit and any-hit queries
// of rays from a buffer and of rays built in the kernel, against a
// kernel.Accel. The tests run them on the CPU (kernel.Run over accel.Host),
// the interpreter and every backend, and compare each ray's answer with
// internal/raytest's brute-force reference.
package rayquery

import "github.com/lucent-gpu/lucent/kernel"

// Closest writes the closest hit of rays[i] to hits[i].
//
//lucent:kernel block=64
func Closest(scene kernel.Accel, rays []kernel.Ray, hits []kernel.Hit) {
	i := kernel.DispatchID().X
	if i < uint32(len(rays)) {
		hits[i] = scene.TraceClosest(rays[i])
	}
}

// Shadow writes 1 to hit[i] when rays[i] hits anything, else 0, through a
// helper that takes the accel.
//
//lucent:kernel block=64
func Shadow(scene kernel.Accel, rays []kernel.Ray, hit []uint32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(rays)) {
		return
	}
	hit[i] = occluded(scene, rays[i])
}

// occluded is 1 when r hits anything in scene.
func occluded(scene kernel.Accel, r kernel.Ray) uint32 {
	if scene.TraceAny(r) {
		return 1
	}
	return 0
}

// Fields traces rays built field by field in the kernel (a ray value that
// is not a variable) and writes each hit's fields apart: kind, instance (on
// a miss, the ray's mask) and primitive to ids[3i:3i+3], t, u and v to
// ts[3i:3i+3].
//
//lucent:kernel block=64
func Fields(scene kernel.Accel, rays []kernel.Ray, ids []uint32, ts []float32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(rays)) {
		return
	}
	r := rays[i]
	h := scene.TraceClosest(kernel.Ray{Origin: r.Origin, TMin: r.TMin, Dir: r.Dir, TMax: r.TMax, Mask: r.Mask})
	ids[3*i] = h.Kind
	ids[3*i+1] = h.Instance
	ids[3*i+2] = h.Prim
	if h.Kind == kernel.HitMiss {
		ids[3*i+1] = r.Mask
	}
	ts[3*i] = h.T
	ts[3*i+1] = h.Bary.X
	ts[3*i+2] = h.Bary.Y
}
