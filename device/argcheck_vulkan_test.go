package device_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// Dispatch arguments are checked in one place: each fault gives the same
// message from the typed API, from the validation wrapper and from the
// Vulkan backend on its own.
func TestOneArgumentChecker(t *testing.T) {
	validated := openVulkan(t)
	plain, err := device.Open(context.Background(), "vulkan", device.WithValidationLayer(true))
	testenv.Need(t, "a Vulkan device", err)
	t.Cleanup(func() { require.NoError(t, plain.Close()) })

	type fault struct {
		name string
		want string
		cmd  func(saxpy, invert device.Handle, buf, img, fimg device.Handle) *device.ShaderDispatch
	}
	f32 := []byte{0, 0, 128, 63}
	n := []byte{8, 0, 0, 0}
	saxpy := func(x, y device.Arg, a, n []byte) []device.Arg {
		return []device.Arg{x, y, {Kind: device.ArgUniform, Uniform: a}, {Kind: device.ArgUniform, Uniform: n}}
	}
	buf := func(h device.Handle, off, size uint64) device.Arg {
		return device.Arg{Kind: device.ArgBuffer, Handle: h, Offset: off, Size: size}
	}
	faults := []fault{
		{"kind", "kernel expects a buffer, got a uniform",
			func(sx, _, b, _, _ device.Handle) *device.ShaderDispatch {
				return &device.ShaderDispatch{Shader: sx, Size: [3]uint32{8, 1, 1}, Args: saxpy(buf(b, 0, 32), device.Arg{Kind: device.ArgUniform, Uniform: f32}, f32, n)}
			}},
		{"uniform size", "kernel expects a 4-byte uniform, got 2 bytes",
			func(sx, _, b, _, _ device.Handle) *device.ShaderDispatch {
				return &device.ShaderDispatch{Shader: sx, Size: [3]uint32{8, 1, 1}, Args: saxpy(buf(b, 0, 32), buf(b, 0, 32), f32[:2], n)}
			}},
		{"buffer range", "out of range of 32-byte buffer",
			func(sx, _, b, _, _ device.Handle) *device.ShaderDispatch {
				return &device.ShaderDispatch{Shader: sx, Size: [3]uint32{8, 1, 1}, Args: saxpy(buf(b, 16, 32), buf(b, 0, 32), f32, n)}
			}},
		{"element alignment", "byte range [2, 2+8) is not a whole number of 4-byte elements",
			func(sx, _, b, _, _ device.Handle) *device.ShaderDispatch {
				return &device.ShaderDispatch{Shader: sx, Size: [3]uint32{8, 1, 1}, Args: saxpy(buf(b, 2, 8), buf(b, 0, 32), f32, n)}
			}},
		{"mip level", "mip level 3 of 2-level texture",
			func(_, inv, _, img, _ device.Handle) *device.ShaderDispatch {
				return &device.ShaderDispatch{Shader: inv, Size: [3]uint32{8, 8, 1}, Args: []device.Arg{{Kind: device.ArgTexture, Handle: img, Level: 3}}}
			}},
		{"format", "kernel expects format RGBA8Unorm, texture",
			func(_, inv, _, _, fimg device.Handle) *device.ShaderDispatch {
				return &device.ShaderDispatch{Shader: inv, Size: [3]uint32{8, 8, 1}, Args: []device.Arg{{Kind: device.ArgTexture, Handle: fimg}}}
			}},
	}
	for _, dev := range []*device.Device{validated, plain} {
		sx := newShader(t, dev, "saxpy", saxpySPIRV)
		inv := newShader(t, dev, "invert", invertSPIRV)
		b := newBuffer[float32](t, dev, 8)
		img, err := device.NewImage[[4]uint8](dev, device.RGBA8Unorm, 8, 8, 2)
		require.NoError(t, err)
		defer img.Close()
		fimg, err := device.NewImage[[4]float32](dev, device.RGBA32Float, 8, 8, 1)
		require.NoError(t, err)
		defer fimg.Close()
		s := newStream(t, dev, device.StreamCompute)
		for _, f := range faults {
			err := dev.Interface().Dispatch(s.Handle(), (&device.CommandList{}).Add(f.cmd(sx.Handle(), inv.Handle(), b.Handle(), img.Handle(), fimg.Handle())))
			require.ErrorIs(t, err, device.ErrInvalidArgument, "%s, validation %v", f.name, dev == validated)
			require.Contains(t, err.Error(), f.want, "%s, validation %v", f.name, dev == validated)
		}
		// The typed API, where it can express the fault.
		typed := map[string]device.Command{
			"kind":         sx.Dispatch([3]uint32{8}, b, float32(1), float32(1), uint32(8)),
			"uniform size": sx.Dispatch([3]uint32{8}, b, b, uint16(1), uint32(8)),
			"format":       inv.Dispatch([3]uint32{8, 8}, fimg),
		}
		for _, f := range faults {
			c, ok := typed[f.name]
			if !ok {
				continue
			}
			err := s.Submit(c)
			require.ErrorIs(t, err, device.ErrInvalidArgument, "typed %s", f.name)
			require.Contains(t, err.Error(), f.want, "typed %s", f.name)
		}
		require.NoError(t, s.Synchronize(ctxT(t)))
	}
}

// A texture description is checked in one place too: the typed API, the
// validation wrapper and the Vulkan backend give one message per fault.
func TestOneTextureDescChecker(t *testing.T) {
	validated := openVulkan(t)
	plain, err := device.Open(context.Background(), "vulkan", device.WithValidationLayer(true))
	testenv.Need(t, "a Vulkan device", err)
	t.Cleanup(func() { require.NoError(t, plain.Close()) })
	for _, tc := range []struct {
		name string
		desc device.TextureDesc
		want string
	}{
		{"dimension", device.TextureDesc{Dim: 4, Format: device.RGBA8Unorm, Width: 4, Height: 4, Depth: 1, Levels: 1}, "dimension 4 (want 2 or 3)"},
		{"format", device.TextureDesc{Dim: 2, Format: 0xEE, Width: 4, Height: 4, Depth: 1, Levels: 1}, "format Format(238)"},
		{"zero extent", device.TextureDesc{Dim: 3, Format: device.RGBA8Unorm, Width: 4, Height: 0, Depth: 2, Levels: 1}, "zero extent 4x0x2"},
		{"2D depth", device.TextureDesc{Dim: 2, Format: device.RGBA8Unorm, Width: 4, Height: 4, Depth: 2, Levels: 1}, "a 2D texture with depth 2"},
		{"levels", device.TextureDesc{Dim: 2, Format: device.RGBA8Unorm, Width: 4, Height: 4, Depth: 1, Levels: 4}, "4 mip levels for 4x4x1 (at most 3)"},
	} {
		for _, dev := range []*device.Device{validated, plain} {
			h, err := dev.Interface().CreateTexture(tc.desc)
			require.Zero(t, h)
			require.ErrorIs(t, err, device.ErrInvalidArgument, "%s, validation %v", tc.name, dev == validated)
			require.Contains(t, err.Error(), tc.want, "%s, validation %v", tc.name, dev == validated)
		}
	}
	_, err = device.NewImage[[4]uint8](plain, device.RGBA8Unorm, 4, 4, 4)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.Contains(t, err.Error(), "4 mip levels for 4x4x1 (at most 3)")
}
