package bad

import "github.com/lucent-gpu/lucent/kernel"

// Helpers take resources as parameters, read and written in place; these
// are the uses that stay unsupported.

func pick(a, b []float32) []float32 { return a }

func grow(buf *[]float32) { (*buf)[0] = 1 }

func swap(a, b []float32) {
	a = b
	a[0] = 1
}

func first(buf []float32) float32 { return buf[0] }

func size(img *kernel.Texture2D[kernel.Float4]) uint32 { return img.Size().X }

//lucent:kernel block=64
func Resources(x, y []float32, arr kernel.Bindless, img kernel.Texture2D[kernel.Float4]) {
	i := kernel.DispatchID().X
	keep := x
	keep[i] = 1
	y[i] = pick(x, y)[0]
	grow(&y)
	swap(x, y)
	view := kernel.BindlessBuffer[float32](arr, 0)
	y[i] = first(view)
	y[i] = float32(size(&img))
}
