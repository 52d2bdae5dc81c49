package device_test

import (
	"context"
	"image"
	"image/color"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// TestNewImageFromAndReadImage: an *image.NRGBA round-trips exactly, from a
// sub-image whose bounds do not start at the origin; the device holds the
// bytes in R, G, B, A order; an *image.RGBA (premultiplied) is converted to
// straight alpha.
func TestNewImageFromAndReadImage(t *testing.T) {
	d := openDevice(t)
	ctx := context.Background()
	big := image.NewNRGBA(image.Rect(0, 0, 7, 5))
	for y := 0; y < 5; y++ {
		for x := 0; x < 7; x++ {
			big.SetNRGBA(x, y, color.NRGBA{uint8(x * 30), uint8(y * 40), uint8(x + y), uint8(255 - x*y)})
		}
	}
	sub := big.SubImage(image.Rect(2, 1, 6, 4)).(*image.NRGBA)
	im, err := device.NewImageFrom(d, sub)
	require.NoError(t, err)
	defer im.Close()
	require.Equal(t, [2]int{4, 3}, [2]int{im.Width(), im.Height()})
	raw := make([][4]uint8, 12)
	require.NoError(t, runCmd(d, im.Download(raw)))
	require.Equal(t, [4]uint8{60, 40, 3, 253}, raw[0]) // big (2, 1)
	got, err := im.ReadImage(ctx)
	require.NoError(t, err)
	n, ok := got.(*image.NRGBA)
	require.True(t, ok, "%T", got)
	require.Equal(t, image.Rect(0, 0, 4, 3), n.Bounds())
	for y := 0; y < 3; y++ {
		for x := 0; x < 4; x++ {
			require.Equal(t, sub.NRGBAAt(x+2, y+1), n.NRGBAAt(x, y), "(%d, %d)", x, y)
		}
	}

	pre := image.NewRGBA(image.Rect(0, 0, 1, 1))
	pre.SetRGBA(0, 0, color.RGBA{64, 32, 0, 128}) // straight: 127, 63, 0, 128
	im2, err := device.NewImageFrom(d, pre)
	require.NoError(t, err)
	defer im2.Close()
	got, err = im2.ReadImage(ctx)
	require.NoError(t, err)
	require.Equal(t, color.NRGBAModel.Convert(pre.At(0, 0)), got.At(0, 0))
	require.Equal(t, color.NRGBA{127, 63, 0, 128}, got.At(0, 0))
}

// TestImageWriteImageFormats: R8Unorm ↔ *image.Gray, R16Unorm ↔
// *image.Gray16 and RGBA16Unorm ↔ *image.NRGBA64 round-trip, 16-bit channels
// little-endian on the device (Go's Pix is big-endian); an image of another
// type is converted through the format's colour model.
func TestImageWriteImageFormats(t *testing.T) {
	d := openDevice(t)
	ctx := context.Background()
	r := image.Rect(3, 3, 6, 5)

	g := image.NewGray(r)
	for k := range g.Pix {
		g.Pix[k] = uint8(k*37 + 1)
	}
	i8, err := device.NewImage[uint8](d, device.R8Unorm, 3, 2, 1)
	require.NoError(t, err)
	defer i8.Close()
	require.NoError(t, i8.WriteImage(ctx, g))
	got, err := i8.ReadImage(ctx)
	require.NoError(t, err)
	require.Equal(t, g.Pix, got.(*image.Gray).Pix)
	// A colour image goes through color.GrayModel.
	c := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	c.SetNRGBA(1, 0, color.NRGBA{200, 100, 50, 255})
	require.NoError(t, i8.WriteImage(ctx, c))
	got, err = i8.ReadImage(ctx)
	require.NoError(t, err)
	require.Equal(t, color.GrayModel.Convert(c.At(1, 0)), got.At(1, 0))

	g16 := image.NewGray16(r)
	for y := 3; y < 5; y++ {
		for x := 3; x < 6; x++ {
			g16.SetGray16(x, y, color.Gray16{uint16(x*1000 + y*7 + 0x100)})
		}
	}
	i16, err := device.NewImage[uint16](d, device.R16Unorm, 3, 2, 1)
	require.NoError(t, err)
	defer i16.Close()
	require.NoError(t, i16.WriteImage(ctx, g16))
	raw := make([]uint16, 6)
	require.NoError(t, runCmd(d, i16.Download(raw)))
	require.Equal(t, uint16(3*1000+3*7+0x100), raw[0])
	got, err = i16.ReadImage(ctx)
	require.NoError(t, err)
	require.Equal(t, g16.Pix, got.(*image.Gray16).Pix)

	n64 := image.NewNRGBA64(r)
	n64.SetNRGBA64(4, 4, color.NRGBA64{0x0102, 0x0304, 0xfffe, 0x8001})
	i64, err := device.NewImage[[4]uint16](d, device.RGBA16Unorm, 3, 2, 1)
	require.NoError(t, err)
	defer i64.Close()
	require.NoError(t, i64.WriteImage(ctx, n64))
	raw4 := make([][4]uint16, 6)
	require.NoError(t, runCmd(d, i64.Download(raw4)))
	require.Equal(t, [4]uint16{0x0102, 0x0304, 0xfffe, 0x8001}, raw4[4])
	got, err = i64.ReadImage(ctx)
	require.NoError(t, err)
	require.Equal(t, n64.Pix, got.(*image.NRGBA64).Pix)
}

// TestGoImageErrors: a format without a Go image type, a size mismatch and a
// nil image are errors naming the culprit.
func TestGoImageErrors(t *testing.T) {
	d := openDevice(t)
	ctx := context.Background()
	f, err := device.NewImage[float32](d, device.R32Float, 2, 2, 1)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.ReadImage(ctx)
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "R32Float")
	err = f.WriteImage(ctx, image.NewGray(image.Rect(0, 0, 2, 2)))
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "R32Float")

	i8, err := device.NewImage[uint8](d, device.R8Unorm, 2, 2, 1)
	require.NoError(t, err)
	defer i8.Close()
	err = i8.WriteImage(ctx, image.NewGray(image.Rect(0, 0, 3, 2)))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "3x2")
	require.ErrorIs(t, i8.WriteImage(ctx, nil), device.ErrInvalidArgument)
	_, err = device.NewImageFrom(d, nil)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = device.NewImageFrom(d, image.NewGray(image.Rect(0, 0, 0, 4)))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	var zero *device.Image[uint8]
	_, err = zero.ReadImage(ctx)
	require.Error(t, err)
}

// runCmd submits cmd on a copy stream of its own and waits.
func runCmd(d *device.Device, cmd device.Command) error {
	s, err := d.NewStream(device.StreamCopy)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Submit(cmd); err != nil {
		return err
	}
	return s.Synchronize(context.Background())
}
