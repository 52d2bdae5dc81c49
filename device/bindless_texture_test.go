package device_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/stretchr/testify/require"
)

// bindlessTexKernel reads, samples and sizes, for each i, the texture in slot
// slots[i] of a bindless array.
func bindlessTexKernel() (*ir.Function, error) {
	return dsl.Kernel1D(32, func(k *dsl.K, arr dsl.BindlessArray, slots dsl.Buf[dsl.U32], xy dsl.Buf[dsl.U32x2], uv dsl.Buf[dsl.F32x2],
		read, sampled dsl.Buf[dsl.F32x4], sizes dsl.Buf[dsl.U32x2]) {
		i := k.DispatchID().X()
		tex := arr.Texture2D(slots.Read(i))
		read.Write(i, tex.Read(xy.Read(i)))
		sampled.Write(i, tex.Sample(uv.Read(i)))
		sizes.Write(i, tex.Size())
	}, "arr", "slots", "xy", "uv", "read", "sampled", "sizes")
}

// refTex is a texture on the CPU: RGBA texels (missing channels 0, alpha 1)
// and its sampler; w == 0 is an empty slot.
type refTex struct {
	w, h   int
	px     [][4]float32
	s      device.Sampler
	border [4]float32 // transparent black; alpha 1 for formats without alpha
}

func (r refTex) read(x, y uint32) [4]float32 {
	if r.w == 0 || int(x) >= r.w || int(y) >= r.h {
		return [4]float32{}
	}
	return r.px[int(y)*r.w+int(x)]
}

// wrap applies an address mode to texel coordinate i of an n-texel axis.
func wrap(a device.Address, i, n int) (int, bool) {
	switch a {
	case device.AddressRepeat:
		return ((i % n) + n) % n, true
	case device.AddressMirror:
		m := ((i % (2 * n)) + 2*n) % (2 * n)
		if m >= n {
			m = 2*n - 1 - m
		}
		return m, true
	case device.AddressZero:
		return min(max(i, 0), n-1), i >= 0 && i < n
	}
	return min(max(i, 0), n-1), true
}

// sample is Vulkan's sampling of level 0: nearest for FilterPoint, bilinear
// otherwise, addressing each tap's texel coordinates.
func (r refTex) sample(u, v float32) [4]float32 {
	if r.w == 0 {
		return [4]float32{}
	}
	point := r.s.Filter == device.FilterPoint
	px, py := u*float32(r.w), v*float32(r.h)
	if !point {
		px, py = px-0.5, py-0.5
	}
	fx, fy := float32(math.Floor(float64(px))), float32(math.Floor(float64(py)))
	ax, ay := px-fx, py-fy
	tap := func(i, j int) [4]float32 {
		x, okx := wrap(r.s.Address, i, r.w)
		y, oky := wrap(r.s.Address, j, r.h)
		if !okx || !oky {
			return r.border
		}
		return r.px[y*r.w+x]
	}
	i0, j0 := int(fx), int(fy)
	if point {
		return tap(i0, j0)
	}
	var out [4]float32
	a, b, c, d := tap(i0, j0), tap(i0+1, j0), tap(i0, j0+1), tap(i0+1, j0+1)
	for k := range out {
		top := a[k]*(1-ax) + b[k]*ax
		bot := c[k]*(1-ax) + d[k]*ax
		out[k] = top*(1-ay) + bot*ay
	}
	return out
}

// half encodes f, a multiple of 1/16 in (-8, 8), as an IEEE binary16.
func half(f float32) uint16 {
	if f == 0 {
		return 0
	}
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	return sign | uint16(exp)<<10 | uint16(b>>13&0x3ff)
}

// samplingPaths runs f on the device's own bindless texture path and, where
// that is native (descriptor indexing), again on a device opened with the
// emulated path forced: both are tested wherever both exist.
func samplingPaths(t *testing.T, open func(*testing.T) *device.Device, f func(t *testing.T, d *device.Device)) {
	d := open(t)
	p := d.Capabilities().Sampling
	if p == device.PathNone {
		t.Skipf("the %s backend has no textures (Capabilities.Sampling is none)", d.Backend())
	}
	require.Contains(t, []device.Path{device.PathEmulated, device.PathNative}, p)
	t.Run(p.String(), func(t *testing.T) { f(t, d) })
	if p == device.PathNative {
		t.Run("emulated", func(t *testing.T) {
			t.Setenv(vulkan.EnvEmulateBindlessTextures, "1")
			d := open(t)
			require.Equal(t, device.PathEmulated, d.Capabilities().Sampling)
			f(t, d)
		})
	}
}

func TestBindlessTextures(t *testing.T) {
	samplingPaths(t, openDevice, testBindlessTextures)
}

func testBindlessTextures(t *testing.T, d *device.Device) {
	k := compile(t, d, bindlessTexKernel)
	rng := rand.New(rand.NewPCG(7, 13))
	sixteenth := func() float32 { return float32(rng.IntN(128)-64) / 16 }

	const slotsN = 6
	arr, err := d.NewBindlessArray(slotsN)
	require.NoError(t, err)
	defer arr.Close()
	refs := make([]refTex, slotsN)

	// slot 0: RGBA32Float 5×3, bilinear, clamp to edge
	{
		w, h := 5, 3
		px := make([][4]float32, w*h)
		for i := range px {
			px[i] = [4]float32{rng.Float32(), rng.Float32()*10 - 5, float32(i), rng.Float32()}
		}
		img, err := device.NewImage[[4]float32](d, device.RGBA32Float, w, h, 1)
		require.NoError(t, err)
		defer img.Close()
		run(t, d, img.Upload(px))
		refs[0] = refTex{w, h, px, device.Sampler{Filter: device.FilterLinear, Address: device.AddressEdge}, [4]float32{}}
		require.NoError(t, arr.EmplaceTexture(0, img, refs[0].s))
	}
	// slot 1: RGBA8Unorm 4×4, nearest, repeat
	{
		w, h := 4, 4
		raw := make([][4]uint8, w*h)
		px := make([][4]float32, w*h)
		for i := range raw {
			for c := range 4 {
				raw[i][c] = uint8(rng.IntN(256))
				px[i][c] = float32(raw[i][c]) / 255
			}
		}
		img, err := device.NewImage[[4]uint8](d, device.RGBA8Unorm, w, h, 1)
		require.NoError(t, err)
		defer img.Close()
		run(t, d, img.Upload(raw))
		refs[1] = refTex{w, h, px, device.Sampler{Filter: device.FilterPoint, Address: device.AddressRepeat}, [4]float32{}}
		require.NoError(t, arr.EmplaceTexture(1, img, refs[1].s))
	}
	// slot 2: R32Float 3×2, bilinear, mirrored repeat
	{
		w, h := 3, 2
		raw := make([]float32, w*h)
		px := make([][4]float32, w*h)
		for i := range raw {
			raw[i] = rng.Float32()*4 - 2
			px[i] = [4]float32{raw[i], 0, 0, 1}
		}
		img, err := device.NewImage[float32](d, device.R32Float, w, h, 1)
		require.NoError(t, err)
		defer img.Close()
		run(t, d, img.Upload(raw))
		refs[2] = refTex{w, h, px, device.Sampler{Filter: device.FilterLinearPoint, Address: device.AddressMirror}, [4]float32{3: 1}}
		require.NoError(t, arr.EmplaceTexture(2, img, refs[2].s))
	}
	// slot 3: R8Unorm 7×3 (texels at every byte offset of a word), bilinear, zero outside
	{
		w, h := 7, 3
		raw := make([]uint8, w*h)
		px := make([][4]float32, w*h)
		for i := range raw {
			raw[i] = uint8(rng.IntN(256))
			px[i] = [4]float32{float32(raw[i]) / 255, 0, 0, 1}
		}
		img, err := device.NewImage[uint8](d, device.R8Unorm, w, h, 1)
		require.NoError(t, err)
		defer img.Close()
		run(t, d, img.Upload(raw))
		refs[3] = refTex{w, h, px, device.Sampler{Filter: device.FilterLinear, Address: device.AddressZero}, [4]float32{3: 1}}
		require.NoError(t, arr.EmplaceTexture(3, img, refs[3].s))
	}
	// slot 4: RG16Float 3×3 (texels at both halves of a word), nearest, zero outside
	{
		w, h := 3, 3
		raw := make([][2]uint16, w*h)
		px := make([][4]float32, w*h)
		for i := range raw {
			a, b := sixteenth(), sixteenth()
			raw[i] = [2]uint16{half(a), half(b)}
			px[i] = [4]float32{a, b, 0, 1}
		}
		img, err := device.NewImage[[2]uint16](d, device.RG16Float, w, h, 1)
		require.NoError(t, err)
		defer img.Close()
		run(t, d, img.Upload(raw))
		refs[4] = refTex{w, h, px, device.Sampler{Filter: device.FilterPoint, Address: device.AddressZero}, [4]float32{3: 1}}
		require.NoError(t, arr.EmplaceTexture(4, img, refs[4].s))
	}
	// slot 5 stays empty

	const n = 512
	slots, xys, uvs := make([]uint32, n), make([][2]uint32, n), make([][2]float32, n)
	for i := range n {
		slots[i] = uint32(i % slotsN)
		xys[i] = [2]uint32{uint32(rng.IntN(9)), uint32(rng.IntN(6))}
		uvs[i] = [2]float32{rng.Float32()*4 - 1.5, rng.Float32()*4 - 1.5}
	}
	bs, bxy, buv := upload(t, d, slots), upload(t, d, xys), upload(t, d, uvs)
	read, sampled := upload(t, d, make([][4]float32, n)), upload(t, d, make([][4]float32, n))
	sizes := upload(t, d, make([][2]uint32, n))
	dispatch := k.Dispatch([3]uint32{n}, arr, bs, bxy, buv, read, sampled, sizes)
	check := func(refs []refTex) {
		t.Helper()
		gotRead, gotSampled, gotSizes := download(t, d, read), download(t, d, sampled), download(t, d, sizes)
		for i := range n {
			r := refs[slots[i]]
			require.Equal(t, [2]uint32{uint32(r.w), uint32(r.h)}, gotSizes[i], "size of slot %d", slots[i])
			// Unorm texels convert to float within a few ULP (Vulkan's
			// precision rules): the device's own conversion may differ from x/255.
			wantRead := r.read(xys[i][0], xys[i][1])
			for c := range 4 {
				require.InDelta(t, wantRead[c], gotRead[i][c], 1e-6, "slot %d read at %v, channel %d", slots[i], xys[i], c)
			}
			want := r.sample(uvs[i][0], uvs[i][1])
			for c := range 4 {
				require.InDelta(t, want[c], gotSampled[i][c], 1e-4, "slot %d (%v) sampled at %v, channel %d", slots[i], r.s, uvs[i], c)
			}
		}
	}
	run(t, d, arr.Update(), dispatch)
	check(refs)

	t.Run("coordinates far outside", func(t *testing.T) {
		// Infinite, NaN and huge coordinates must not fetch off a mirror:
		// with clamp to edge, every result is NaN (a NaN weight) or inside
		// the range of the slot's texels.
		odd := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e20, -1e20, 3e9}
		slots, xys, uvs := make([]uint32, 0, 64), make([][2]uint32, 0, 64), make([][2]float32, 0, 64)
		for _, u := range odd {
			for _, v := range odd {
				slots, xys, uvs = append(slots, 0), append(xys, [2]uint32{math.MaxUint32, 1 << 31}), append(uvs, [2]float32{u, v})
			}
		}
		m := len(slots)
		bs, bxy, buv := upload(t, d, slots), upload(t, d, xys), upload(t, d, uvs)
		read, sampled, sizes := upload(t, d, make([][4]float32, m)), upload(t, d, make([][4]float32, m)), upload(t, d, make([][2]uint32, m))
		run(t, d, k.Dispatch([3]uint32{uint32(m)}, arr, bs, bxy, buv, read, sampled, sizes))
		lo, hi := [4]float32{}, [4]float32{}
		for c := range 4 {
			lo[c], hi[c] = float32(math.Inf(1)), float32(math.Inf(-1))
			for _, p := range refs[0].px {
				lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
			}
		}
		gotRead, gotSampled := download(t, d, read), download(t, d, sampled)
		for i := range m {
			require.Equal(t, [4]float32{}, gotRead[i], "read at %v", xys[i])
			for c := range 4 {
				x := gotSampled[i][c]
				if x != x {
					continue
				}
				require.True(t, x >= lo[c]-1e-4 && x <= hi[c]+1e-4, "sample at %v: channel %d is %v, outside [%v, %v]", uvs[i], c, x, lo[c], hi[c])
			}
		}
	})

	t.Run("texture changed after Update", func(t *testing.T) {
		// The kernel sees a slot's texture as the commands before it left it,
		// without another Update.
		w, h := 2, 2
		px := [][4]float32{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}}
		img, err := device.NewImage[[4]float32](d, device.RGBA32Float, w, h, 1)
		require.NoError(t, err)
		defer img.Close()
		run(t, d, img.Upload(px))
		refs[5] = refTex{w, h, px, device.Sampler{Filter: device.FilterLinear, Address: device.AddressRepeat}, [4]float32{}}
		require.NoError(t, arr.EmplaceTexture(5, img, refs[5].s))
		run(t, d, arr.Update(), dispatch)
		check(refs)
		for i := range px {
			px[i][0] *= -2
		}
		run(t, d, img.Upload(px), dispatch)
		check(refs)
	})

	t.Run("removed and replaced slots", func(t *testing.T) {
		require.NoError(t, arr.Remove(5))
		refs[5] = refTex{}
		// A larger texture than the slot's mirror holds, in a slot that held one.
		w, h := 6, 5
		px := make([][4]float32, w*h)
		for i := range px {
			px[i] = [4]float32{float32(i), -float32(i), 0.5, 1}
		}
		img, err := device.NewImage[[4]float32](d, device.RGBA32Float, w, h, 1)
		require.NoError(t, err)
		defer img.Close()
		refs[1] = refTex{w, h, px, device.Sampler{Filter: device.FilterPoint, Address: device.AddressMirror}, [4]float32{}}
		require.NoError(t, arr.EmplaceTexture(1, img, refs[1].s))
		run(t, d, img.Upload(px), arr.Update(), dispatch)
		check(refs)
	})
}

func TestBindlessTextureErrors(t *testing.T) {
	samplingPaths(t, openDevice, testBindlessTextureErrors)
}

func testBindlessTextureErrors(t *testing.T, d *device.Device) {
	k := compile(t, d, bindlessTexKernel)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	arr, err := d.NewBindlessArray(2)
	require.NoError(t, err)
	defer arr.Close()

	t.Run("format without decoding", func(t *testing.T) {
		img, err := device.NewImage[[4]uint8](d, device.RGBA8Uint, 2, 2, 1)
		require.NoError(t, err)
		defer img.Close()
		require.NoError(t, arr.EmplaceTexture(0, img, device.Sampler{}))
		err = s.Submit(arr.Update())
		require.ErrorIs(t, err, device.ErrUnsupported)
		require.ErrorContains(t, err, "RGBA8Uint")
		err = s.Submit(arr.Update())
		require.ErrorIs(t, err, device.ErrUnsupported, "a refused slot stays pending until it is replaced")
		require.NoError(t, arr.Remove(0))
		require.NoError(t, s.Submit(arr.Update()))
	})

	t.Run("3D texture", func(t *testing.T) {
		vol, err := device.NewVolume[float32](d, device.R32Float, 2, 2, 2, 1)
		require.NoError(t, err)
		defer vol.Close()
		require.NoError(t, arr.EmplaceTexture(0, vol, device.Sampler{}))
		err = s.Submit(arr.Update())
		require.ErrorIs(t, err, device.ErrUnsupported)
		require.ErrorContains(t, err, "3D")
		require.NoError(t, arr.Remove(0))
		require.NoError(t, s.Submit(arr.Update()))
	})

	t.Run("texture closed while in a slot", func(t *testing.T) {
		img, err := device.NewImage[float32](d, device.R32Float, 2, 2, 1)
		require.NoError(t, err)
		require.NoError(t, arr.EmplaceTexture(1, img, device.Sampler{}))
		require.NoError(t, s.Submit(arr.Update()))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.NoError(t, img.Close())
		one := upload(t, d, []uint32{1})
		xy, uv := upload(t, d, [][2]uint32{{0, 0}}), upload(t, d, [][2]float32{{0, 0}})
		o4, o4b, sz := upload(t, d, make([][4]float32, 1)), upload(t, d, make([][4]float32, 1)), upload(t, d, make([][2]uint32, 1))
		err = s.Submit(k.Dispatch([3]uint32{1}, arr, one, xy, uv, o4, o4b, sz))
		require.Error(t, err)
		require.ErrorContains(t, err, "slot 1")
	})
}

// TestBindlessTextureMatchesSampler compares sampling through a bindless slot
// (emulated in code) with the device's own sampler reading the same texture
// through a descriptor, for every filter and address mode and each format
// class the emulation decodes.
func TestBindlessTextureMatchesSampler(t *testing.T) {
	samplingPaths(t, func(t *testing.T) *device.Device { return openVulkan(t) }, testBindlessTextureMatchesSampler)
}

func testBindlessTextureMatchesSampler(t *testing.T, d *device.Device) {
	k := compile(t, d, bindlessTexKernel)
	native := newShader(t, d, "sample", sampleSPIRV)
	s := newStream(t, d, device.StreamCompute)
	rng := rand.New(rand.NewPCG(3, 5))
	const n = 256
	slots, xys, uvs := make([]uint32, n), make([][2]uint32, n), make([][2]float32, n)
	for i := range uvs {
		uvs[i] = [2]float32{rng.Float32()*4 - 1.5, rng.Float32()*4 - 1.5}
	}
	bs, bxy, buv := newBuffer[uint32](t, d, n), newBuffer[[2]uint32](t, d, n), newBuffer[[2]float32](t, d, n)
	read, sampled, out := newBuffer[[4]float32](t, d, n), newBuffer[[4]float32](t, d, n), newBuffer[[4]float32](t, d, n)
	sizes := newBuffer[[2]uint32](t, d, n)
	require.NoError(t, s.Submit(bs.Upload(slots), bxy.Upload(xys), buv.Upload(uvs)))
	arr, err := d.NewBindlessArray(1)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, arr.Close()) })

	type texture interface {
		device.TextureRef
		Sampled(device.Sampler) device.SampledTexture
		Close() error
	}
	mk := func(t *testing.T, f device.Format, w, h int) texture {
		var img texture
		var up device.Command
		var err error
		switch f {
		case device.RGBA32Float:
			px := make([][4]float32, w*h)
			for i := range px {
				px[i] = [4]float32{rng.Float32(), rng.Float32()*8 - 4, rng.Float32(), rng.Float32()}
			}
			var i *device.Image[[4]float32]
			i, err = device.NewImage[[4]float32](d, f, w, h, 1)
			img, up = i, i.Upload(px)
		case device.RGBA8Unorm:
			px := make([][4]uint8, w*h)
			for i := range px {
				px[i] = [4]uint8{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256))}
			}
			var i *device.Image[[4]uint8]
			i, err = device.NewImage[[4]uint8](d, f, w, h, 1)
			img, up = i, i.Upload(px)
		case device.R8Unorm:
			px := make([]uint8, w*h)
			for i := range px {
				px[i] = uint8(rng.IntN(256))
			}
			var i *device.Image[uint8]
			i, err = device.NewImage[uint8](d, f, w, h, 1)
			img, up = i, i.Upload(px)
		case device.RG16Float:
			px := make([][2]uint16, w*h)
			for i := range px {
				px[i] = [2]uint16{half(float32(rng.IntN(128)-64) / 16), half(float32(rng.IntN(128)-64) / 16)}
			}
			var i *device.Image[[2]uint16]
			i, err = device.NewImage[[2]uint16](d, f, w, h, 1)
			img, up = i, i.Upload(px)
		}
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, img.Close()) })
		require.NoError(t, s.Submit(up))
		return img
	}
	for _, c := range []struct {
		f    device.Format
		w, h int
		tol  float64
	}{
		{device.RGBA32Float, 5, 4, 1e-4},
		{device.RG16Float, 3, 3, 1e-3},
		// The device filters 8-bit unorm texels in 8-bit fixed point.
		{device.RGBA8Unorm, 6, 3, 2.0 / 255},
		{device.R8Unorm, 7, 2, 2.0 / 255},
	} {
		t.Run(c.f.String(), func(t *testing.T) {
			img := mk(t, c.f, c.w, c.h)
			for _, f := range []device.Filter{device.FilterPoint, device.FilterLinearPoint, device.FilterLinear} {
				for _, a := range []device.Address{device.AddressEdge, device.AddressRepeat, device.AddressMirror, device.AddressZero} {
					smp := device.Sampler{Filter: f, Address: a}
					require.NoError(t, arr.EmplaceTexture(0, img, smp))
					require.NoError(t, s.Submit(arr.Update(),
						k.Dispatch([3]uint32{n}, arr, bs, bxy, buv, read, sampled, sizes),
						native.Dispatch([3]uint32{n}, img.Sampled(smp), buv, out, uint32(n))))
					got, want := make([][4]float32, n), make([][4]float32, n)
					require.NoError(t, s.Submit(sampled.Download(got), out.Download(want)))
					require.NoError(t, s.Synchronize(ctxT(t)))
					for i := range n {
						for ch := range 4 {
							require.InDelta(t, want[i][ch], got[i][ch], c.tol, "%v at %v, channel %d", smp, uvs[i], ch)
						}
					}
				}
			}
		})
	}
}

// TestBindlessUpdateNamesSlot: an update whose buffer or texture was closed
// after it was emplaced fails naming the array's slot and the resource, on
// every backend (Vulkan named only the resource).
func TestBindlessUpdateNamesSlot(t *testing.T) {
	d := openDevice(t)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	arr, err := d.NewBindlessArray(4)
	require.NoError(t, err)
	defer arr.Close()

	buf, err := device.NewBuffer[float32](d, 8)
	require.NoError(t, err)
	require.NoError(t, arr.EmplaceBuffer(2, buf))
	require.NoError(t, buf.Close())
	err = s.Submit(arr.Update())
	require.ErrorIs(t, err, device.ErrClosed)
	require.ErrorContains(t, err, "slot 2: ")
	require.ErrorContains(t, err, fmt.Sprintf("buffer %d: closed", buf.Handle()))
	require.NoError(t, arr.Remove(2))

	img, err := device.NewImage[float32](d, device.R32Float, 2, 2, 1)
	require.NoError(t, err)
	require.NoError(t, arr.EmplaceTexture(3, img, device.Sampler{}))
	require.NoError(t, img.Close())
	err = s.Submit(arr.Update())
	require.ErrorIs(t, err, device.ErrClosed)
	require.ErrorContains(t, err, "slot 3: ")
	require.ErrorContains(t, err, fmt.Sprintf("texture %d: closed", img.Handle()))
	require.NoError(t, arr.Remove(3))
	require.NoError(t, s.Submit(arr.Update()))
	require.NoError(t, s.Synchronize(ctxT(t)))
}

// TestNewBindlessArraySizes: a size out of range is refused saying which
// sizes are allowed, not only the one given.
func TestNewBindlessArraySizes(t *testing.T) {
	d := openDevice(t)
	for _, n := range []int{0, -1, 1<<24 + 1} {
		_, err := d.NewBindlessArray(n)
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		require.ErrorContains(t, err, fmt.Sprintf("size %d (1 to 16777216 slots)", n))
	}
	arr, err := d.NewBindlessArray(1)
	require.NoError(t, err)
	require.NoError(t, arr.Close())
}
