package kernels

import "github.com/lucent-gpu/lucent/kernel"

// Gradient reads each texel of src, blends it with its right neighbour
// (clamped at the edge) and writes the result, with alpha set to the
// position's parity, to dst. The format of dst is declared (rgba32f is also
// the default for Float4 texels).
//
//lucent:kernel block=8,8 format=dst:rgba32f
func Gradient(src, dst kernel.Texture2D[kernel.Float4]) {
	id := kernel.DispatchID()
	size := src.Size()
	if id.X >= size.X || id.Y >= size.Y {
		return
	}
	right := min(id.X+1, size.X-1)
	a := src.Read(id.X, id.Y)
	b := src.Read(right, id.Y)
	c := a.Add(b).Scale(0.5)
	c.W = float32((id.X + id.Y) % 2)
	dst.Write(id.X, id.Y, c)
}
