package vulkan

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestImageLayoutsNoPerformanceWarnings runs every kind of texture command
// (uploads and downloads of several levels, buffer↔texture and
// texture↔texture copies, a storage write, sampling, sampling and writing in
// one dispatch) with the validation layer's best-practices checks on, over
// two lists (the second starts from the resting layouts the first left), and
// requires no layout warning and no error. In GENERAL every copy drew "For
// optimal performance VkImage … layout should be
// VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL instead of GENERAL".
func TestImageLayoutsNoPerformanceWarnings(t *testing.T) {
	t.Setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT:VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT")
	var mu sync.Mutex
	var bad []string
	d, err := Open(device.Options{DeviceIndex: -1, ValidationLayer: true, Debug: func(m device.DebugMessage) {
		layout := strings.Contains(m.ID, "ImageLayout") || strings.Contains(strings.ToLower(m.Text), "layout should be")
		if m.Severity >= device.SeverityError || (m.Severity >= device.SeverityWarning && layout) {
			mu.Lock()
			bad = append(bad, m.ID+": "+m.Text)
			mu.Unlock()
		}
	}})
	testenv.Need(t, "a Vulkan device with the validation layer", err)
	s, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	f := &fixture{t: t, d: d, s: s, msgs: &messages{}}
	t.Cleanup(func() {
		require.NoError(t, d.DestroyStream(s))
		require.NoError(t, d.Close())
		mu.Lock()
		defer mu.Unlock()
		require.Empty(t, bad)
	})

	img, _ := f.shader("image")  // texture in (storage), texture out (storage)
	smp, _ := f.shader("sample") // sampled texture → buffer
	const w, h = 16, 8
	desc := device.TextureDesc{Dim: 2, Format: device.RGBA32Float, Width: w, Height: h, Depth: 1, Levels: 2}
	a, b := f.texture(desc), f.texture(desc)
	r32 := f.texture(device.TextureDesc{Dim: 2, Format: device.R32Float, Width: w, Height: h, Depth: 1, Levels: 2})
	buf := f.buffer(4 * 4 * w * h)
	out := f.buffer(4 * w * h)
	in := make([]float32, 4*w*h)
	for i := range in {
		in[i] = float32(i)
	}
	r32in := make([]float32, w*h)
	for i := range r32in {
		r32in[i] = float32(3 * i)
	}
	ext1 := desc.LevelExtent(1)
	got, got1, sampled, back := make([]byte, 4*len(in)), make([]byte, 4*4*ext1[0]*ext1[1]), make([]byte, 4*w*h), make([]byte, 4*w*h)
	sample := &device.ShaderDispatch{Shader: smp, Size: [3]uint32{w, h, 1}, Args: []device.Arg{
		{Kind: device.ArgSampledTexture, Handle: r32, Sampler: device.Sampler{Filter: device.FilterPoint, Address: device.AddressEdge}},
		{Kind: device.ArgBuffer, Handle: out, Size: device.WholeSize},
		{Kind: device.ArgUniform, Uniform: uniform32(0)},
	}}
	for round := range 2 {
		f.run(
			&device.TextureUpload{Texture: a, Data: bytesOfF32(in)},
			&device.TextureUpload{Texture: a, Region: device.Region{Level: 1}, Data: make([]byte, len(got1))},
			&device.ShaderDispatch{Shader: img, Size: [3]uint32{w, h, 1}, Args: []device.Arg{
				{Kind: device.ArgTexture, Handle: a}, {Kind: device.ArgTexture, Handle: b}}},
			&device.TextureToBuffer{Texture: b, Buffer: buf},
			&device.BufferToTexture{Buffer: buf, Texture: a},
			&device.TextureCopy{Src: a, Dst: b},
			&device.TextureCopy{Src: a, SrcLevel: 1, Dst: b, DstLevel: 1},
			&device.TextureDownload{Texture: b, Data: got},
			&device.TextureDownload{Texture: a, Region: device.Region{Level: 1}, Data: got1},
			&device.TextureUpload{Texture: r32, Data: bytesOfF32(r32in)},
			sample,
			&device.BufferDownload{Buffer: out, Data: sampled},
		)
		require.Equal(t, r32in, f32s(sampled), "round %d", round)
		// The image kernel doubles, adds x to R, y to G and 1 to A.
		g := f32s(got)
		for i := 0; i < w*h; i++ {
			x, y := float32(i%w), float32(i/w)
			want := []float32{in[4*i]*2 + x, in[4*i+1]*2 + y, in[4*i+2] * 2, in[4*i+3]*2 + 1}
			require.Equal(t, want, g[4*i:4*i+4], "round %d texel %d", round, i)
		}
		// Sampling alone, in a list of its own: from the resting layout.
		f.run(sample, &device.BufferDownload{Buffer: out, Data: back})
		require.Equal(t, r32in, f32s(back), "round %d", round)
	}
}
