package embree

import (
	"math"

	"github.com/lucent-gpu/lucent/accel/bvh"
)

// The benchmark scene, the same as accel/bvh's benchmarks: an n×n terrain of
// sine octaves (2n² triangles), a pinhole camera over it, shadow rays from
// each primary hit towards a point light.

func terrain(n int) []bvh.Triangle {
	h := func(x, y float64) float64 {
		z := 0.0
		for o, a := 0, 0.25; o < 5; o, a = o+1, a/2 {
			f := float64(int(1) << o)
			z += a * math.Sin(3.1*f*x+1.7*float64(o)) * math.Cos(2.3*f*y-0.9*float64(o))
		}
		return z
	}
	p := func(i, j int) [3]float32 {
		x, y := -1+2*float64(i)/float64(n), -1+2*float64(j)/float64(n)
		return [3]float32{float32(x), float32(y), float32(h(x, y))}
	}
	tris := make([]bvh.Triangle, 0, 2*n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			tris = append(tris, bvh.Triangle{A: p(i, j), B: p(i+1, j), C: p(i+1, j+1)}, bvh.Triangle{A: p(i, j), B: p(i+1, j+1), C: p(i, j+1)})
		}
	}
	return tris
}

func camera(w, h int) []bvh.Ray {
	eye := [3]float64{0, -1.7, 1.5}
	norm := func(v [3]float64) [3]float64 {
		l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		return [3]float64{v[0] / l, v[1] / l, v[2] / l}
	}
	fw := norm([3]float64{-eye[0], -eye[1], -eye[2]})
	right := norm([3]float64{fw[1], -fw[0], 0})
	up := [3]float64{right[1]*fw[2] - right[2]*fw[1], right[2]*fw[0] - right[0]*fw[2], right[0]*fw[1] - right[1]*fw[0]}
	rays := make([]bvh.Ray, 0, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			u := (2*(float64(x)+0.5)/float64(w) - 1) * 0.45
			v := (1 - 2*(float64(y)+0.5)/float64(h)) * 0.45 * float64(h) / float64(w)
			var d [3]float32
			for k := 0; k < 3; k++ {
				d[k] = float32(fw[k] + u*right[k] + v*up[k])
			}
			rays = append(rays, bvh.Ray{Origin: [3]float32{float32(eye[0]), float32(eye[1]), float32(eye[2])}, Dir: d, TMax: float32(math.Inf(1)), Mask: 0xff})
		}
	}
	return rays
}

func shadowRays(primary []bvh.Ray, hits []bvh.Hit) []bvh.Ray {
	light := [3]float32{2, 1.5, 3}
	var out []bvh.Ray
	for i, h := range hits {
		if h.Kind == bvh.KindMiss {
			continue
		}
		r := primary[i]
		var p [3]float32
		for k := 0; k < 3; k++ {
			p[k] = r.Origin[k] + h.T*r.Dir[k]
		}
		out = append(out, bvh.Ray{Origin: p, TMin: 1e-4, Dir: [3]float32{light[0] - p[0], light[1] - p[1], light[2] - p[2]}, TMax: 1, Mask: 0xff})
	}
	return out
}
