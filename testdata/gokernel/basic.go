package kernels

import (
	"math"

	"github.com/lucent-gpu/lucent/kernel"
)

// Saxpy computes y = a*x + y.
//
//lucent:kernel block=256
func Saxpy(a float32, x, y []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(y)) {
		y[i] = a*x[i] + y[i]
	}
}

// MaxIter bounds the Mandelbrot iteration.
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

// Waves exercises the math package mapping: float32 math through float64.
//
//lucent:kernel block=64
func Waves(in, out []float32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	x := in[i]
	s := float32(math.Sin(float64(x)))
	c := float32(math.Cos(float64(x)))
	r := float32(math.Sqrt(float64(x*x + 1)))
	e := float32(math.Exp(float64(-x * x)))
	p := float32(math.Pow(float64(r), 1.5))
	f := float32(math.Floor(float64(x * 3)))
	out[i] = s*c + r - e + p + f + float32(math.Abs(float64(x))) + min(x, 0.25) + max(x, -0.25)
}
