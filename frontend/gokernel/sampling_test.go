package gokernel_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/kernel"
	kernels "github.com/lucent-gpu/lucent/testdata/gokernel"
)

// Texture sampling and bindless textures in Go kernels: SampleBlur and
// TextureGather run on the CPU runner against plain-Go references, and on
// the device against the CPU runner.

// sampleTol bounds the difference of a filtered sample between the CPU
// runner and a device (or reference): bilinear weights come from
// uv*size-0.5, whose rounding differs by a few ulps between implementations,
// and devices blend with mix (x+(y-x)a) or fused multiply-adds; texels are
// in [0, 1) or 8-bit unorm, and the sizes of TextureGather (up to 70) add
// no error.
const sampleTol = 1e-4

func sampleBlurInput(t *testing.T, w, h uint32) kernel.Texture2D[kernel.Float4] {
	src, err := kernel.NewTexture2D[kernel.Float4](w, h)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range src.Texels() {
		src.Texels()[i] = kernel.F4(r.Float32(), r.Float32(), r.Float32(), r.Float32())
	}
	return src
}

// sampleBlurRef is the 3×3 tent filter (1 2 1 / 2 4 2 / 1 2 1, over 16) with
// the edge clamped, written out on the texels.
func sampleBlurRef(src kernel.Texture2D[kernel.Float4]) []kernel.Float4 {
	size := src.Size()
	w, h := int(size.X), int(size.Y)
	out := make([]kernel.Float4, w*h)
	weight := [3]float32{1, 2, 1}
	for y := range h {
		for x := range w {
			var s kernel.Float4
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					c := src.Texels()[min(max(y+dy, 0), h-1)*w+min(max(x+dx, 0), w-1)]
					s = s.Add(c.Scale(weight[dx+1] * weight[dy+1] / 16))
				}
			}
			out[y*w+x] = s
		}
	}
	return out
}

func requireTexelsClose(t *testing.T, want, got []kernel.Float4, tol float64) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		w, g := want[i], got[i]
		requireClose(t, []float32{w.X, w.Y, w.Z, w.W}, []float32{g.X, g.Y, g.Z, g.W}, tol)
	}
}

func TestCPUSampleBlur(t *testing.T) {
	const w, h = 13, 9
	src := sampleBlurInput(t, w, h)
	dst, err := kernel.NewTexture2D[kernel.Float4](w, h)
	require.NoError(t, err)
	run(t, kernel.Grid2(8, 8, w, h), func() { kernels.SampleBlur(src, dst) })
	requireTexelsClose(t, sampleBlurRef(src), dst.Texels(), 1e-5)
}

// gatherTex is one slot of TextureGather's input: the texels as the device
// reads them (missing channels 0, alpha 1), its sampler, and the CPU mirror.
type gatherTex struct {
	w, h   int
	px     []kernel.Float4
	s      kernel.Sampler
	border kernel.Float4
	format device.Format
	raw    any // what is uploaded to the device image
	cpu    kernel.Texture2D[kernel.Float4]
}

// textureGatherInput makes slot 0 RGBA32Float 5×3 (linear, edge), slot 1
// RGBA8Unorm 4×4 (point, repeat), slot 2 R32Float 3×2 (linear, mirror),
// slot 3 RGBA32Float 7×5 (linear, zero), slot 4 R32Float 2×3 (point, zero);
// slot 5 stays empty.
func textureGatherInput(t *testing.T, n int) (texs []*gatherTex, pick []uint32, uv []kernel.Float2) {
	r := rand.New(rand.NewPCG(5, 6))
	mk := func(w, h int, s kernel.Sampler, format device.Format) *gatherTex {
		g := &gatherTex{w: w, h: h, s: s, format: format, px: make([]kernel.Float4, w*h)}
		cpu, err := kernel.NewTexture2D[kernel.Float4](uint32(w), uint32(h))
		require.NoError(t, err)
		switch format {
		case device.RGBA32Float:
			for i := range g.px {
				g.px[i] = kernel.F4(r.Float32(), r.Float32(), r.Float32(), r.Float32())
			}
			g.raw = g.px
			copy(cpu.Texels(), g.px)
		case device.RGBA8Unorm:
			raw := make([][4]uint8, w*h)
			for i := range raw {
				for c := range 4 {
					raw[i][c] = uint8(r.IntN(256))
				}
				g.px[i] = kernel.F4(float32(raw[i][0])/255, float32(raw[i][1])/255, float32(raw[i][2])/255, float32(raw[i][3])/255)
			}
			g.raw = raw
			copy(cpu.Texels(), g.px)
		case device.R32Float:
			raw := make([]float32, w*h)
			for i := range raw {
				raw[i] = r.Float32()
				g.px[i] = kernel.F4(raw[i], 0, 0, 1)
				// The mirror's other channels are not the texture's:
				// WithChannels(1) must hide them.
				cpu.Texels()[i] = kernel.F4(raw[i], 7, 7, 7)
			}
			g.raw = raw
			g.border = kernel.F4(0, 0, 0, 1)
			cpu, err = cpu.WithChannels(1)
			require.NoError(t, err)
		}
		g.cpu = cpu
		return g
	}
	texs = []*gatherTex{
		mk(5, 3, kernel.Sampler{Filter: kernel.FilterLinear, Address: kernel.AddressEdge}, device.RGBA32Float),
		mk(4, 4, kernel.Sampler{Filter: kernel.FilterPoint, Address: kernel.AddressRepeat}, device.RGBA8Unorm),
		mk(3, 2, kernel.Sampler{Filter: kernel.FilterLinear, Address: kernel.AddressMirror}, device.R32Float),
		mk(7, 5, kernel.Sampler{Filter: kernel.FilterLinear, Address: kernel.AddressZero}, device.RGBA32Float),
		mk(2, 3, kernel.Sampler{Filter: kernel.FilterPoint, Address: kernel.AddressZero}, device.R32Float),
		nil,
	}
	pick, uv = make([]uint32, n), make([]kernel.Float2, n)
	for i := range n {
		pick[i] = uint32(i % len(texs))
		uv[i] = kernel.F2(r.Float32()*4-1.5, r.Float32()*4-1.5)
	}
	return texs, pick, uv
}

// cpuBindless puts texs in a CPU bindless array.
func cpuBindless(t *testing.T, texs []*gatherTex) kernel.Bindless {
	b := kernel.NewBindless(len(texs))
	for i, g := range texs {
		if g != nil {
			require.NoError(t, kernel.SetBindlessTexture2D(b, i, g.cpu, g.s))
		}
	}
	return b
}

// sampleRef is Vulkan's filtering of level 0 written out: nearest texel for
// FilterPoint, else four blended bilinearly, each tap addressed.
func (g *gatherTex) sampleRef(uv kernel.Float2) kernel.Float4 {
	if g == nil {
		return kernel.Float4{}
	}
	px, py := float64(uv.X)*float64(g.w), float64(uv.Y)*float64(g.h)
	point := g.s.Filter == kernel.FilterPoint
	if !point {
		px, py = px-0.5, py-0.5
	}
	wrap := func(i, n int) (int, bool) {
		switch g.s.Address {
		case kernel.AddressRepeat:
			return ((i % n) + n) % n, true
		case kernel.AddressMirror:
			m := ((i % (2 * n)) + 2*n) % (2 * n)
			if m >= n {
				m = 2*n - 1 - m
			}
			return m, true
		case kernel.AddressZero:
			return i, i >= 0 && i < n
		}
		return min(max(i, 0), n-1), true
	}
	tap := func(i, j int) [4]float64 {
		x, okx := wrap(i, g.w)
		y, oky := wrap(j, g.h)
		c := g.border
		if okx && oky {
			c = g.px[y*g.w+x]
		}
		return [4]float64{float64(c.X), float64(c.Y), float64(c.Z), float64(c.W)}
	}
	i0, j0 := int(math.Floor(px)), int(math.Floor(py))
	var o [4]float64
	if point {
		o = tap(i0, j0)
	} else {
		ax, ay := px-math.Floor(px), py-math.Floor(py)
		a, b, c, d := tap(i0, j0), tap(i0+1, j0), tap(i0, j0+1), tap(i0+1, j0+1)
		for k := range o {
			o[k] = (a[k]*(1-ax)+b[k]*ax)*(1-ay) + (c[k]*(1-ax)+d[k]*ax)*ay
		}
	}
	return kernel.F4(float32(o[0]), float32(o[1]), float32(o[2]), float32(o[3]))
}

// textureGatherRef is TextureGather written out on the texels.
func textureGatherRef(texs []*gatherTex, pick []uint32, uv []kernel.Float2) []kernel.Float4 {
	out := make([]kernel.Float4, len(pick))
	for i := range out {
		g := texs[pick[i]]
		r := g.sampleRef(uv[i])
		w := 0
		if g != nil {
			r = r.Add(g.px[i%g.h*g.w+i%g.w].Scale(0.001))
			w = g.w
		}
		r.W += float32(w*10 + texs[0].h)
		out[i] = r
	}
	return out
}

func TestCPUTextureGather(t *testing.T) {
	const n = 300
	texs, pick, uv := textureGatherInput(t, n)
	b := cpuBindless(t, texs)
	out := make([]kernel.Float4, n)
	run(t, kernel.Grid1(32, n), func() { kernels.TextureGather(b, pick, uv, out) })
	requireTexelsClose(t, textureGatherRef(texs, pick, uv), out, 1e-5)
}

func TestDeviceSampling(t *testing.T) {
	ks := corpus(t)
	d := openDevice(t)

	t.Run("SampleBlur", func(t *testing.T) {
		g := compileOn(t, d, ks["SampleBlur"])
		const w, h = 13, 9
		src := sampleBlurInput(t, w, h)
		si, err := device.NewImage[kernel.Float4](d, device.RGBA32Float, w, h, 1)
		require.NoError(t, err)
		defer si.Close()
		di, err := device.NewImage[kernel.Float4](d, device.RGBA32Float, w, h, 1)
		require.NoError(t, err)
		defer di.Close()
		got := make([]kernel.Float4, w*h)
		g.submit(si.Upload(src.Texels()), g.k.Dispatch([3]uint32{w, h}, si, di), di.Download(got))
		dst, err := kernel.NewTexture2D[kernel.Float4](w, h)
		require.NoError(t, err)
		cpu(t, kernel.Grid2(8, 8, w, h), func() { kernels.SampleBlur(src, dst) })
		requireTexelsClose(t, dst.Texels(), got, sampleTol)
	})
	t.Run("TextureGather", func(t *testing.T) {
		// Either path (native descriptor arrays or emulated mirrors) must
		// give the CPU runner's results.
		require.Contains(t, []device.Path{device.PathEmulated, device.PathNative}, d.Capabilities().Sampling)
		t.Logf("bindless texture slots: %v", d.Capabilities().Sampling)
		g := compileOn(t, d, ks["TextureGather"])
		const n = 300
		texs, pick, uv := textureGatherInput(t, n)
		arr, err := d.NewBindlessArray(len(texs))
		require.NoError(t, err)
		defer arr.Close()
		for i, x := range texs {
			if x == nil {
				continue
			}
			s := device.Sampler{Filter: device.Filter(x.s.Filter), Address: device.Address(x.s.Address)}
			switch raw := x.raw.(type) {
			case []kernel.Float4:
				img, err := device.NewImage[kernel.Float4](d, x.format, x.w, x.h, 1)
				require.NoError(t, err)
				defer img.Close()
				g.submit(img.Upload(raw))
				require.NoError(t, arr.EmplaceTexture(i, img, s))
			case [][4]uint8:
				img, err := device.NewImage[[4]uint8](d, x.format, x.w, x.h, 1)
				require.NoError(t, err)
				defer img.Close()
				g.submit(img.Upload(raw))
				require.NoError(t, arr.EmplaceTexture(i, img, s))
			case []float32:
				img, err := device.NewImage[float32](d, x.format, x.w, x.h, 1)
				require.NoError(t, err)
				defer img.Close()
				g.submit(img.Upload(raw))
				require.NoError(t, arr.EmplaceTexture(i, img, s))
			}
		}
		ob := upload(g, make([]kernel.Float4, n))
		g.submit(arr.Update(), g.k.Dispatch([3]uint32{n}, arr, upload(g, pick), upload(g, uv), ob))
		want := make([]kernel.Float4, n)
		b := cpuBindless(t, texs)
		cpu(t, kernel.Grid1(32, n), func() { kernels.TextureGather(b, pick, uv, want) })
		requireTexelsClose(t, want, download(g, ob), sampleTol)
	})
}
