package device

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFormatTable(t *testing.T) {
	all := Formats()
	// 2 unorm + 2 snorm + 3 uint + 3 sint + 2 float bit widths, 4 channel counts each.
	require.Len(t, all, (2+2+3+3+2)*4)
	seen := map[string]bool{}
	for _, f := range all {
		require.True(t, f.Valid(), "%d", f)
		require.False(t, seen[f.String()], "duplicate name %s", f)
		seen[f.String()] = true
		g, err := FormatOf(f.Kind(), f.Bits(), f.Channels())
		require.NoError(t, err)
		require.Equal(t, f, g, "FormatOf(%v, %d, %d)", f.Kind(), f.Bits(), f.Channels())
		require.Equal(t, f.Channels()*f.Bits()/8, f.PixelSize())
	}
}

func TestFormatNamed(t *testing.T) {
	for _, c := range []struct {
		f        Format
		name     string
		kind     ChannelKind
		bits, ch int
		pixel    int
	}{
		{R8Unorm, "R8Unorm", Unorm, 8, 1, 1},
		{RGBA8Unorm, "RGBA8Unorm", Unorm, 8, 4, 4},
		{RG16Snorm, "RG16Snorm", Snorm, 16, 2, 4},
		{RGB32Uint, "RGB32Uint", Uint, 32, 3, 12},
		{R16Sint, "R16Sint", Sint, 16, 1, 2},
		{RGBA16Float, "RGBA16Float", Float, 16, 4, 8},
		{RGBA32Float, "RGBA32Float", Float, 32, 4, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.name, c.f.String())
			require.Equal(t, c.kind, c.f.Kind())
			require.Equal(t, c.bits, c.f.Bits())
			require.Equal(t, c.ch, c.f.Channels())
			require.Equal(t, c.pixel, c.f.PixelSize())
		})
	}
}

func TestFormatOfRejects(t *testing.T) {
	for _, c := range []struct {
		name     string
		kind     ChannelKind
		bits, ch int
	}{
		{"32-bit unorm", Unorm, 32, 1},
		{"32-bit snorm", Snorm, 32, 4},
		{"8-bit float", Float, 8, 1},
		{"24 bits", Uint, 24, 1},
		{"0 channels", Uint, 8, 0},
		{"5 channels", Uint, 8, 5},
		{"no kind", 0, 8, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := FormatOf(c.kind, c.bits, c.ch)
			require.True(t, errors.Is(err, ErrInvalidArgument), "%v", err)
		})
	}
	require.False(t, FormatInvalid.Valid())
	require.Equal(t, "Format(0)", FormatInvalid.String())
}

func TestSamplerIndexDense(t *testing.T) {
	seen := map[int]Sampler{}
	for f := FilterPoint; f <= FilterAnisotropic; f++ {
		for a := AddressEdge; a <= AddressZero; a++ {
			s := Sampler{f, a}
			require.True(t, s.Valid())
			i := s.Index()
			require.GreaterOrEqual(t, i, 0)
			require.Less(t, i, 16)
			_, dup := seen[i]
			require.False(t, dup, "%v and %v share index %d", s, seen[i], i)
			seen[i] = s
		}
	}
	require.False(t, Sampler{Filter: 9}.Valid())
	require.Equal(t, "linear/repeat", Sampler{FilterLinear, AddressRepeat}.String())
}

func TestLevelExtent(t *testing.T) {
	d := TextureDesc{Dim: 2, Width: 100, Height: 30, Depth: 1, Levels: 7}
	require.Equal(t, [3]uint32{100, 30, 1}, d.LevelExtent(0))
	require.Equal(t, [3]uint32{50, 15, 1}, d.LevelExtent(1))
	require.Equal(t, [3]uint32{3, 1, 1}, d.LevelExtent(5))
	require.Equal(t, [3]uint32{1, 1, 1}, d.LevelExtent(6))
	require.Equal(t, uint32(7), maxLevels(100, 30, 1))
	require.Equal(t, uint32(1), maxLevels(1, 1, 1))
	require.Equal(t, uint32(9), maxLevels(4, 4, 256))
}
