package bvh

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Terrain is an n×n grid of quads (2n² triangles) over [-1, 1]², its height
// a sum of sine octaves: the ~1M-triangle benchmark mesh (n = 724), the same
// one bench/embree gives Embree.
func terrain(n int) []Triangle {
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
	tris := make([]Triangle, 0, 2*n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			tris = append(tris, Triangle{p(i, j), p(i+1, j), p(i+1, j+1)}, Triangle{p(i, j), p(i+1, j+1), p(i, j+1)})
		}
	}
	return tris
}

// camera is a w×h pinhole view of the terrain from above and aside, every
// ray on the terrain.
func camera(w, h int) []Ray {
	eye := [3]float64{0, -1.7, 1.5}
	look := [3]float64{0, 0, 0}
	fw := [3]float64{look[0] - eye[0], look[1] - eye[1], look[2] - eye[2]}
	norm := func(v [3]float64) [3]float64 {
		l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		return [3]float64{v[0] / l, v[1] / l, v[2] / l}
	}
	fw = norm(fw)
	right := norm([3]float64{fw[1], -fw[0], 0})
	up := [3]float64{right[1]*fw[2] - right[2]*fw[1], right[2]*fw[0] - right[0]*fw[2], right[0]*fw[1] - right[1]*fw[0]}
	rays := make([]Ray, 0, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			u := (2*(float64(x)+0.5)/float64(w) - 1) * 0.45
			v := (1 - 2*(float64(y)+0.5)/float64(h)) * 0.45 * float64(h) / float64(w)
			var d [3]float32
			for k := 0; k < 3; k++ {
				d[k] = float32(fw[k] + u*right[k] + v*up[k])
			}
			rays = append(rays, Ray{Origin: [3]float32{float32(eye[0]), float32(eye[1]), float32(eye[2])}, Dir: d, TMax: float32(math.Inf(1)), Mask: 0xff})
		}
	}
	return rays
}

// shadowRays are rays from each primary hit towards a light, started a
// little off the surface.
func shadowRays(s *Scene, primary []Ray, hits []Hit) []Ray {
	light := [3]float32{2, 1.5, 3}
	var out []Ray
	for i, h := range hits {
		if h.Kind == KindMiss {
			continue
		}
		r := primary[i]
		var p [3]float32
		for k := 0; k < 3; k++ {
			p[k] = r.Origin[k] + h.T*r.Dir[k]
		}
		out = append(out, Ray{Origin: p, TMin: 1e-4, Dir: [3]float32{light[0] - p[0], light[1] - p[1], light[2] - p[2]}, TMax: 1, Mask: 0xff})
	}
	return out
}

// parallel runs f over [0, n) in chunks on GOMAXPROCS goroutines.
func parallel(n int, f func(lo, hi int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	const chunk = 256
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n {
					return
				}
				f(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}

// meter times the iterations of a benchmark: it reports the mean rate, the
// rate of the fastest iteration (the machine is shared: the fastest is the
// one the neighbours disturbed least) and the rate per second of the
// process's CPU time.
type meter struct {
	b    *testing.B
	per  int
	unit string
	cpu0 float64
	last time.Time
	best time.Duration
}

func newMeter(b *testing.B, per int, unit string) *meter {
	runtime.GC()
	return &meter{b: b, per: per, unit: unit, cpu0: cpuSeconds(), last: time.Now(), best: time.Duration(math.MaxInt64)}
}

// lap ends one iteration.
func (m *meter) lap() {
	now := time.Now()
	m.best = min(m.best, now.Sub(m.last))
	m.last = now
}

func (m *meter) report() {
	n := float64(m.per) / 1e6
	m.b.ReportMetric(n*float64(m.b.N)/m.b.Elapsed().Seconds(), m.unit+"/s")
	m.b.ReportMetric(n/m.best.Seconds(), m.unit+"/s-best")
	if c := cpuSeconds() - m.cpu0; c > 0 {
		m.b.ReportMetric(n*float64(m.b.N)/c, m.unit+"/cpu-s")
	}
}

var benchTerrain []Triangle

func benchMesh() []Triangle {
	if benchTerrain == nil {
		benchTerrain = terrain(724)
	}
	return benchTerrain
}

func BenchmarkBuild(b *testing.B) {
	tris := benchMesh()
	for _, bc := range []struct {
		name string
		opt  Options
	}{{"SAH", Options{}}, {"FastBuild", Options{FastBuild: true}}} {
		b.Run(bc.name, func(b *testing.B) {
			m := newMeter(b, len(tris), "Mtris")
			for b.Loop() {
				if _, err := BuildTriangles(tris, bc.opt); err != nil {
					b.Fatal(err)
				}
				m.lap()
			}
			m.report()
		})
	}
}

func BenchmarkTrace(b *testing.B) {
	tris := benchMesh()
	for _, bc := range []struct {
		name string
		opt  Options
	}{{"SAH", Options{}}, {"FastBuild", Options{FastBuild: true}}} {
		m, err := BuildTriangles(tris, bc.opt)
		if err != nil {
			b.Fatal(err)
		}
		s, err := BuildScene([]Instance{{Mesh: m, Transform: Identity, Mask: 0xff, Opaque: true}}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		primary := camera(512, 512)
		hits := make([]Hit, len(primary))
		parallel(len(primary), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				hits[i] = s.Closest(primary[i])
			}
		})
		shadow := shadowRays(s, primary, hits)
		b.Run(bc.name+"/primary", func(b *testing.B) {
			m := newMeter(b, len(primary), "Mrays")
			for b.Loop() {
				parallel(len(primary), func(lo, hi int) {
					for i := lo; i < hi; i++ {
						hits[i] = s.Closest(primary[i])
					}
				})
				m.lap()
			}
			m.report()
		})
		b.Run(bc.name+"/shadow", func(b *testing.B) {
			var blocked atomic.Int64
			m := newMeter(b, len(shadow), "Mrays")
			for b.Loop() {
				parallel(len(shadow), func(lo, hi int) {
					n := 0
					for i := lo; i < hi; i++ {
						if s.Any(shadow[i]) {
							n++
						}
					}
					blocked.Add(int64(n))
				})
				m.lap()
			}
			m.report()
		})
	}
}
