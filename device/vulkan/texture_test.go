package vulkan

import (
	"math/rand"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/stretchr/testify/require"
)

func (f *fixture) texture(desc device.TextureDesc) device.Handle {
	h, err := f.d.CreateTexture(desc)
	require.NoError(f.t, err)
	f.t.Cleanup(func() { require.NoError(f.t, f.d.DestroyTexture(h)) })
	return h
}

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	rng.Read(b)
	return b
}

// TestTextureCopies uploads every mip level of textures of several formats,
// copies them texture→buffer→texture and texture→texture, and checks every
// byte of every level that comes back.
func TestTextureCopies(t *testing.T) {
	f := newFixture(t)
	rng := rand.New(rand.NewSource(2))
	for _, tc := range []device.TextureDesc{
		{Dim: 2, Format: device.RGBA8Unorm, Width: 37, Height: 19, Depth: 1, Levels: 4},
		{Dim: 2, Format: device.R32Float, Width: 64, Height: 64, Depth: 1, Levels: 7},
		{Dim: 2, Format: device.RG16Uint, Width: 5, Height: 3, Depth: 1, Levels: 2},
		{Dim: 2, Format: device.RGBA32Uint, Width: 16, Height: 8, Depth: 1, Levels: 1},
		{Dim: 3, Format: device.R8Uint, Width: 9, Height: 7, Depth: 5, Levels: 3},
		{Dim: 3, Format: device.RGBA16Float, Width: 4, Height: 4, Depth: 4, Levels: 3},
	} {
		t.Run(tc.Format.String(), func(t *testing.T) {
			a, b := f.texture(tc), f.texture(tc)
			var cmds []device.Command
			var want [][]byte
			var total uint64
			for l := uint32(0); l < tc.Levels; l++ {
				e := tc.LevelExtent(l)
				n := int(e[0]*e[1]*e[2]) * tc.Format.PixelSize()
				data := randomBytes(rng, n)
				want = append(want, data)
				cmds = append(cmds, &device.TextureUpload{Texture: a, Region: device.Region{Level: l}, Data: data})
				total += alignUp(uint64(n), 16)
			}
			buf := f.buffer(total)
			var off uint64
			got := make([][]byte, tc.Levels)
			copied := make([][]byte, tc.Levels)
			for l := uint32(0); l < tc.Levels; l++ {
				n := uint64(len(want[l]))
				got[l], copied[l] = make([]byte, n), make([]byte, n)
				cmds = append(cmds,
					&device.TextureToBuffer{Texture: a, Region: device.Region{Level: l}, Buffer: buf, Offset: off},
					&device.BufferToTexture{Buffer: buf, Offset: off, Texture: b, Region: device.Region{Level: l}},
					&device.TextureDownload{Texture: b, Region: device.Region{Level: l}, Data: got[l]},
				)
				off += alignUp(n, 16)
			}
			// Level-to-level copies back into a (level l of b into level l of a).
			for l := uint32(0); l < tc.Levels; l++ {
				cmds = append(cmds, &device.TextureCopy{Src: b, SrcLevel: l, Dst: a, DstLevel: l},
					&device.TextureDownload{Texture: a, Region: device.Region{Level: l}, Data: copied[l]})
			}
			f.run(cmds...)
			for l := range want {
				require.Equal(t, want[l], got[l], "level %d via buffer", l)
				require.Equal(t, want[l], copied[l], "level %d via texture copy", l)
			}
		})
	}
}

func TestTextureSubRegion(t *testing.T) {
	f := newFixture(t)
	desc := device.TextureDesc{Dim: 2, Format: device.R8Uint, Width: 8, Height: 8, Depth: 1, Levels: 1}
	tex := f.texture(desc)
	full := make([]byte, 64)
	sub := []byte{1, 2, 3, 4, 5, 6}
	out := make([]byte, 64)
	f.run(
		&device.TextureUpload{Texture: tex, Data: full},
		&device.TextureUpload{Texture: tex, Region: device.Region{Origin: [3]uint32{2, 5, 0}, Size: [3]uint32{3, 2, 1}}, Data: sub},
		&device.TextureDownload{Texture: tex, Data: out},
	)
	want := make([]byte, 64)
	for y := 0; y < 2; y++ {
		for x := 0; x < 3; x++ {
			want[(5+y)*8+2+x] = sub[y*3+x]
		}
	}
	require.Equal(t, want, out)
	err := f.d.Dispatch(f.s, (&device.CommandList{}).Add(&device.TextureUpload{Texture: tex,
		Region: device.Region{Origin: [3]uint32{7, 0, 0}, Size: [3]uint32{2, 1, 1}}, Data: make([]byte, 2)}))
	require.ErrorIs(t, err, device.ErrInvalidArgument, "a region outside the level")
}

func TestStorageImageDispatch(t *testing.T) {
	f := newFixture(t)
	sh, sig := f.shader("image")
	require.Equal(t, device.ArgTexture, sig.Args[0].Kind)
	require.Equal(t, device.RGBA32Float, sig.Args[0].Format)
	require.Equal(t, device.Read, sig.Args[0].Access)
	require.Equal(t, device.Write, sig.Args[1].Access)
	const w, h = 21, 13
	desc := device.TextureDesc{Dim: 2, Format: device.RGBA32Float, Width: w, Height: h, Depth: 1, Levels: 2}
	src, dst := f.texture(desc), f.texture(desc)
	in := make([]float32, w*h*4)
	for i := range in {
		in[i] = float32(i%97) * 0.25
	}
	ext1 := desc.LevelExtent(1)
	in1 := make([]float32, ext1[0]*ext1[1]*4)
	for i := range in1 {
		in1[i] = float32(i)
	}
	out := make([]byte, 4*len(in))
	out1 := make([]byte, 4*len(in1))
	args := func(level uint32) []device.Arg {
		return []device.Arg{{Kind: device.ArgTexture, Handle: src, Level: level}, {Kind: device.ArgTexture, Handle: dst, Level: level}}
	}
	f.run(
		&device.TextureUpload{Texture: src, Data: bytesOfF32(in)},
		&device.TextureUpload{Texture: src, Region: device.Region{Level: 1}, Data: bytesOfF32(in1)},
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{w, h, 1}, Args: args(0)},
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{ext1[0], ext1[1], 1}, Args: args(1)},
		&device.TextureDownload{Texture: dst, Data: out},
		&device.TextureDownload{Texture: dst, Region: device.Region{Level: 1}, Data: out1},
	)
	check := func(in []float32, out []byte, w, h int) {
		got := f32s(out)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				i := (y*w + x) * 4
				want := []float32{in[i]*2 + float32(x), in[i+1]*2 + float32(y), in[i+2] * 2, in[i+3]*2 + 1}
				require.Equal(t, want, got[i:i+4], "texel (%d, %d)", x, y)
			}
		}
	}
	check(in, out, w, h)
	check(in1, out1, int(ext1[0]), int(ext1[1]))
}

func TestSampledTexture(t *testing.T) {
	f := newFixture(t)
	sh, sig := f.shader("sample")
	require.Equal(t, device.ArgSampledTexture, sig.Args[0].Kind)
	desc := device.TextureDesc{Dim: 2, Format: device.R32Float, Width: 16, Height: 8, Depth: 1, Levels: 2}
	tex := f.texture(desc)
	l0 := make([]float32, 16*8)
	for i := range l0 {
		l0[i] = float32(i) * 1.5
	}
	l1 := make([]float32, 8*4)
	for i := range l1 {
		l1[i] = -float32(i)
	}
	out := f.buffer(4 * 16 * 8)
	got0, got1 := make([]byte, 4*len(l0)), make([]byte, 4*len(l1))
	run := func(lod uint32, size [3]uint32, dst []byte) []device.Command {
		return []device.Command{
			&device.ShaderDispatch{Shader: sh, Size: size, Args: []device.Arg{
				{Kind: device.ArgSampledTexture, Handle: tex, Sampler: device.Sampler{Filter: device.FilterPoint, Address: device.AddressEdge}},
				{Kind: device.ArgBuffer, Handle: out, Size: device.WholeSize},
				{Kind: device.ArgUniform, Uniform: uniform32(lod)},
			}},
			&device.BufferDownload{Buffer: out, Data: dst},
		}
	}
	cmds := []device.Command{
		&device.TextureUpload{Texture: tex, Data: bytesOfF32(l0)},
		&device.TextureUpload{Texture: tex, Region: device.Region{Level: 1}, Data: bytesOfF32(l1)},
	}
	cmds = append(cmds, run(0, [3]uint32{16, 8, 1}, got0)...)
	cmds = append(cmds, run(1, [3]uint32{8, 4, 1}, got1)...)
	f.run(cmds...)
	require.Equal(t, l0, f32s(got0))
	require.Equal(t, l1, f32s(got1))
}
