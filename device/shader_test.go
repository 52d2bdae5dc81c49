package device

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// saxpySig is what the compiler would report for
// func saxpy(a float32, x, y Buffer[float32]).
var saxpySig = Signature{
	Args: []Argument{
		{Name: "a", Kind: ArgUniform, Size: 4, Scalar: ScalarFloat, ScalarBits: 32},
		{Name: "x", Kind: ArgBuffer, ElemSize: 4, Scalar: ScalarFloat, ScalarBits: 32, Access: Read},
		{Name: "y", Kind: ArgBuffer, ElemSize: 4, Scalar: ScalarFloat, ScalarBits: 32, Access: ReadWrite},
	},
	BlockSize: [3]uint32{64, 1, 1},
}

func TestBindArgs(t *testing.T) {
	x := testBuffer[float32](7, 100)
	y := testBuffer[float32](8, 100)
	args, err := bindArgs(saxpySig, []any{float32(2), x, y.View(10, 50)})
	require.NoError(t, err)
	require.Equal(t, []Arg{
		{Kind: ArgUniform, Uniform: []byte{0, 0, 0, 0x40}},
		{Kind: ArgBuffer, Handle: 7, Offset: 0, Size: 400, Access: Read},
		{Kind: ArgBuffer, Handle: 8, Offset: 40, Size: 200, Access: ReadWrite},
	}, args)
}

func TestBindArgsMismatch(t *testing.T) {
	x := testBuffer[float32](7, 100)
	y := testBuffer[float32](8, 100)
	ints := testBuffer[int32](9, 100)
	vec := testBuffer[[4]float32](10, 100)
	img := testImage[float32](11, R32Float, 4, 4, 1)
	for _, c := range []struct {
		name string
		args []any
		want string
	}{
		{"too few", []any{float32(2), x}, "takes 3 argument(s)"},
		{"too many", []any{float32(2), x, y, y}, "got 4"},
		{"uniform for buffer", []any{float32(2), float32(1), y}, "argument 1 (x): invalid argument: kernel expects a buffer, got a uniform (float32)"},
		{"buffer for uniform", []any{x, x, y}, "argument 0 (a): invalid argument: kernel expects a uniform, got a buffer (*device.Buffer[float32])"},
		{"texture for buffer", []any{float32(2), x, img}, "argument 2 (y): invalid argument: kernel expects a buffer, got a texture (*device.Image[float32])"},
		{"wrong uniform type", []any{int32(2), x, y}, "argument 0 (a): invalid argument: kernel expects float32, got int32"},
		{"wrong uniform size", []any{float64(2), x, y}, "argument 0 (a): invalid argument: kernel expects a 4-byte uniform, got 8 bytes (float64)"},
		{"wrong element type", []any{float32(2), ints, y}, "argument 1 (x): invalid argument: buffer element: kernel expects float32, got int32"},
		{"wrong element size", []any{float32(2), x, vec}, "has 16-byte elements (*device.Buffer[[4]float32])"},
		{"bad view", []any{float32(2), x.View(90, 20), y}, "argument 1 (x): device: invalid argument: view [90, 90+20)"},
		{"pointer uniform", []any{new(float32), x, y}, "argument 0 (a): invalid argument: *float32 is a ptr"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := bindArgs(saxpySig, c.args)
			require.ErrorIs(t, err, ErrInvalidArgument)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

func TestBindArgsTextures(t *testing.T) {
	sig := Signature{Args: []Argument{
		{Kind: ArgTexture, Format: RGBA8Unorm, Dim: 2},
		{Kind: ArgSampledTexture, Dim: 2},
	}}
	img := testImage[[4]uint8](11, RGBA8Unorm, 8, 8, 2)
	other := testImage[float32](12, R32Float, 8, 8, 1)
	args, err := bindArgs(sig, []any{img.Level(1), other.Sampled(Sampler{FilterLinear, AddressEdge})})
	require.NoError(t, err)
	require.Equal(t, Arg{Kind: ArgTexture, Handle: 11, Level: 1}, args[0])
	require.Equal(t, Arg{Kind: ArgSampledTexture, Handle: 12, Sampler: Sampler{FilterLinear, AddressEdge}, Access: Read}, args[1])

	_, err = bindArgs(sig, []any{other, other.Sampled(Sampler{})})
	require.ErrorContains(t, err, "argument 0: invalid argument: kernel expects format RGBA8Unorm, texture")
	require.ErrorContains(t, err, "is R32Float")
	_, err = bindArgs(sig, []any{img.Level(2), other.Sampled(Sampler{})})
	require.ErrorContains(t, err, "argument 0: device: invalid argument: level 2 of a 2-level texture")
	_, err = bindArgs(sig, []any{img, img})
	require.ErrorContains(t, err, "argument 1: invalid argument: kernel expects a sampled texture, got a texture")
}

func TestShaderDispatchCommand(t *testing.T) {
	sh := &Shader{resource: detached(20, KindShader), sig: saxpySig, name: "saxpy"}
	x := testBuffer[float32](7, 100)
	y := testBuffer[float32](8, 100)
	c := sh.Dispatch([3]uint32{100}, float32(2), x, y)
	require.NoError(t, CommandError(c))
	d := c.(*ShaderDispatch)
	require.Equal(t, [3]uint32{100, 1, 1}, d.Size)
	require.Equal(t, []Usage{
		{Handle: 7, Kind: KindBuffer, Access: Read, Size: 400},
		{Handle: 8, Kind: KindBuffer, Access: ReadWrite, Size: 400},
	}, d.Usages())

	err := CommandError(sh.Dispatch([3]uint32{100}, float32(2), x))
	require.ErrorContains(t, err, "dispatch saxpy")
	require.ErrorIs(t, CommandError(sh.Dispatch([3]uint32{0, 4}, float32(2), x, y)), ErrInvalidArgument)

	groups := testBuffer[uint32](30, 3)
	ind := sh.DispatchIndirect(groups.All(), float32(2), x, y).(*ShaderDispatch)
	require.Equal(t, Handle(30), ind.Indirect)
	require.Contains(t, ind.Usages(), Usage{Handle: 30, Kind: KindBuffer, Access: Read, Size: 12})
	require.ErrorIs(t, CommandError(sh.DispatchIndirect(groups.View(1, 2), float32(2), x, y)), ErrInvalidArgument)

	sh.closed.Store(true)
	require.ErrorIs(t, CommandError(sh.Dispatch([3]uint32{1}, float32(2), x, y)), ErrClosed)
}
