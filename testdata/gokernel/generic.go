package kernels

import "github.com/lucent-gpu/lucent/kernel"

// Generic helpers, instantiated per use.

func lerp[T float32 | float64](a, b, t T) T { return a + (b-a)*t }

type number interface {
	~int32 | ~uint32 | ~float32
}

func sumOf[T number](xs [4]T) T {
	var s T
	for k := 0; k < len(xs); k++ {
		s += xs[k]
	}
	return s
}

func clampTo[T number](x, lo, hi T) T { return max(lo, min(x, hi)) }

// sumClamped calls the other generic helpers with its own type parameter.
func sumClamped[T number](xs [4]T, lo, hi T) T {
	for k := range xs {
		xs[k] = clampTo(xs[k], lo, hi)
	}
	return sumOf(xs)
}

func swap[T any](a, b *T) { *a, *b = *b, *a }

// Generics calls generic helpers on float32, int32 and uint32.
//
//lucent:kernel block=64
func Generics(in []float32, ints []int32, out []float32, iout []int32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	x, n := in[i], ints[i]
	a := lerp(x, 1, 0.25)
	b := lerp[float32](x, -1, 0.5)
	swap(&a, &b)
	f := sumOf([4]float32{x, a, b, 1})
	fc := sumClamped([4]float32{x, a, -x, 2}, -0.5, 0.5)
	out[i*3], out[i*3+1], out[i*3+2] = a-b, f, fc
	m := sumOf([4]int32{n, 2, 3, -n * 2})
	u := sumOf([4]uint32{uint32(n) & 7, 1, 2, 3})
	c := clampTo(n, -3, 3)
	iout[i*3], iout[i*3+1], iout[i*3+2] = m, int32(u), sumClamped([4]int32{n, c, 5, -5}, -4, 4)
}
