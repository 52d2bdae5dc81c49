// Package mandelbrot is the one-kernel package of bench/frontcold's
// mandelbrot rows (testdata/gokernel's Mandelbrot); mandelbrot.wgsl is its
// WGSL twin.
package mandelbrot

import "github.com/lucent-gpu/lucent/kernel"

// MaxIter bounds the escape iteration.
const MaxIter = 64

// Mandelbrot writes the escape iteration of each pixel of a w×h view of
// [-2,1]×[-1.5,1.5].
//
//lucent:kernel block=16,16
func Mandelbrot(w, h uint32, out []uint32) {
	id := kernel.DispatchID()
	if id.X >= w || id.Y >= h {
		return
	}
	cx := -2 + 3*float32(id.X)/float32(w)
	cy := -1.5 + 3*float32(id.Y)/float32(h)
	var x, y float32
	n := uint32(0)
	for ; n < MaxIter; n++ {
		if x*x+y*y > 4 {
			break
		}
		x, y = x*x-y*y+cx, 2*x*y+cy
	}
	out[id.Y*w+id.X] = n
}
