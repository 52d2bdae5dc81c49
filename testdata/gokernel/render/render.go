// Package render holds a path tracer written as a user writes one: a
// Cornell box of triangle-mesh instances traced through a kernel.Accel,
// closest-hit queries for the camera and bounce rays, any-hit shadow rays
// towards the area light, a few diffuse bounces and a deterministic
// per-pixel random sequence, so that a device's render and kernel.Run's
// render of the same kernel can be compared pixel by pixel.
package render

import "github.com/lucent-gpu/lucent/kernel"

// Material is the surface of one instance (indexed by the hit's instance
// id): its diffuse albedo, its emitted radiance and where its triangles'
// world-space normals start in the normals buffer (three floats each).
type Material struct {
	R, G, B float32
	Emit    float32
	First   uint32
}

// The instance masks: shadow rays look for occluders only (MaskSolid), so
// they pass through the light they aim at.
const (
	MaskSolid = 1
	MaskLight = 2
)

// The area light: a square on the ceiling facing down, LightCorner +
// s·LightEdge1 + t·LightEdge2 for s, t in [0, 1].
const (
	LightX, LightY, LightZ = -0.25, 1.98, -0.25
	LightSize              = 0.5
	LightEmit              = 15.0
)

const pi = 3.14159265

// pcg is the PCG hash of Jarzynski and Olano ("Hash Functions for GPU
// Rendering", JCGT 2020): the per-pixel random sequence.
func pcg(v uint32) uint32 {
	s := v*747796405 + 2891336453
	w := ((s >> ((s >> 28) + 4)) ^ s) * 277803737
	return (w >> 22) ^ w
}

// random advances *seed and returns a float in [0, 1).
func random(seed *uint32) float32 {
	*seed = pcg(*seed)
	return float32(*seed>>8) * (1.0 / 16777216.0)
}

// normal is the world-space normal of a hit's triangle, turned to face the
// ray.
func normal(normals []float32, m Material, prim uint32, dir kernel.Float3) kernel.Float3 {
	i := 3 * (m.First + prim)
	n := kernel.F3(normals[i], normals[i+1], normals[i+2])
	if n.Dot(dir) > 0 {
		n = n.Neg()
	}
	return n
}

// cosineDir is a cosine-weighted direction about n.
func cosineDir(n kernel.Float3, r1, r2 float32) kernel.Float3 {
	a := kernel.F3(1, 0, 0)
	if kernel.Abs(n.X) > 0.9 {
		a = kernel.F3(0, 1, 0)
	}
	t := a.Cross(n).Normalize()
	b := n.Cross(t)
	phi := 2 * pi * r1
	rr := kernel.Sqrt(r2)
	return t.Scale(kernel.Cos(phi) * rr).Add(b.Scale(kernel.Sin(phi) * rr)).Add(n.Scale(kernel.Sqrt(1 - r2)))
}

// direct is the light the area light sends to p (normal n) towards the
// viewer, per unit albedo, estimated from one point on the light and a
// shadow ray.
func direct(scene kernel.Accel, p, n kernel.Float3, seed *uint32) float32 {
	lp := kernel.F3(LightX+LightSize*random(seed), LightY, LightZ+LightSize*random(seed))
	d := lp.Sub(p)
	dist2 := d.Dot(d)
	l := d.Scale(1 / kernel.Sqrt(dist2))
	cosS := n.Dot(l)
	cosL := l.Y // the light faces -y
	if cosS <= 0 || cosL <= 0 {
		return 0
	}
	if scene.TraceAny(kernel.Ray{Origin: p, TMin: 1e-3, Dir: d, TMax: 1, Mask: MaskSolid}) {
		return 0
	}
	return LightEmit * cosS * cosL * (LightSize * LightSize) / (pi * dist2)
}

// Render writes the linear RGB radiance of each pixel of a w×h view of the
// scene, the mean of spp paths of up to bounces diffuse bounces each, to
// out[3(y·w+x) : 3(y·w+x)+3].
//
//lucent:kernel block=8,8
func Render(scene kernel.Accel, mats []Material, normals []float32, w, h, spp, bounces uint32, out []float32) {
	id := kernel.DispatchID()
	if id.X >= w || id.Y >= h {
		return
	}
	seed := pcg(id.Y*w + id.X + 1)
	eye := kernel.F3(0, 1, 3.4)
	col := kernel.F3(0, 0, 0)
	for s := uint32(0); s < spp; s++ {
		u := (float32(id.X)+random(&seed))/float32(w)*2 - 1
		v := 1 - (float32(id.Y)+random(&seed))/float32(h)*2
		o := eye
		d := kernel.F3(u*0.42, v*0.42, -1)
		tp := kernel.F3(1, 1, 1)
		tmin := float32(0)
		for b := uint32(0); b <= bounces; b++ {
			hit := scene.TraceClosest(kernel.Ray{Origin: o, TMin: tmin, Dir: d, TMax: 1e30, Mask: 0xff})
			if hit.Kind == kernel.HitMiss {
				break
			}
			m := mats[hit.Instance]
			if m.Emit > 0 {
				// The light: seen directly, or by a bounce whose light
				// the shadow rays have already counted.
				if b == 0 {
					col = col.Add(kernel.F3(m.Emit, m.Emit, m.Emit))
				}
				break
			}
			p := o.Add(d.Scale(hit.T))
			n := normal(normals, m, hit.Prim, d)
			tp = tp.Mul(kernel.F3(m.R, m.G, m.B))
			col = col.Add(tp.Scale(direct(scene, p, n, &seed)))
			o = p
			d = cosineDir(n, random(&seed), random(&seed))
			tmin = 1e-3
		}
	}
	i := 3 * (id.Y*w + id.X)
	inv := 1 / float32(spp)
	out[i] = col.X * inv
	out[i+1] = col.Y * inv
	out[i+2] = col.Z * inv
}
