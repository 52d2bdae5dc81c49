package kernels

import "github.com/lucent-gpu/lucent/kernel"

// SampleBlur blurs src into dst with four bilinear samples, each half a
// texel off the centre diagonally: every sample averages a 2×2 quad, so the
// result is a 3×3 tent filter (weights 1 2 1 / 2 4 2 / 1 2 1, over 16),
// clamped to the edge.
//
//lucent:kernel block=8,8
func SampleBlur(src, dst kernel.Texture2D[kernel.Float4]) {
	id := kernel.DispatchID()
	size := dst.Size()
	if id.X >= size.X || id.Y >= size.Y {
		return
	}
	texel := kernel.F2(1/float32(size.X), 1/float32(size.Y))
	centre := kernel.F2((float32(id.X)+0.5)*texel.X, (float32(id.Y)+0.5)*texel.Y)
	var sum kernel.Float4
	for _, d := range [4]kernel.Float2{{X: -0.5, Y: -0.5}, {X: 0.5, Y: -0.5}, {X: -0.5, Y: 0.5}, {X: 0.5, Y: 0.5}} {
		sum = sum.Add(src.Sample(kernel.F2(centre.X+d.X*texel.X, centre.Y+d.Y*texel.Y)))
	}
	dst.Write(id.X, id.Y, sum.Scale(0.25))
}

// TextureGather gathers, for each i, from the bindless texture in slot
// pick[i] (each slot with its own sampler): a sample at uv[i], plus the texel
// at (i mod width, i mod height) scaled by a thousandth, plus in W the
// texture's width times 10 and the height of slot 0 (direct, unnamed use).
//
//lucent:kernel block=32
func TextureGather(arr kernel.Bindless, pick []uint32, uv []kernel.Float2, out []kernel.Float4) {
	i := kernel.DispatchID().X
	if i >= uint32(len(out)) {
		return
	}
	tex := arr.Texture2D(pick[i])
	size := tex.Size()
	r := tex.Sample(uv[i])
	if size.X > 0 {
		r = r.Add(tex.Read(i%size.X, i%size.Y).Scale(0.001))
	}
	r.W += float32(size.X*10 + arr.Texture2D(0).Size().Y)
	out[i] = r
}
