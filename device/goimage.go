package device

import (
	"context"
	"fmt"
	"image"
	"image/color"
)

// Go's image package and textures. The formats that map exactly onto an
// image type are the unsigned-normalized ones whose channels Go has:
//
//	R8Unorm     *image.Gray
//	R16Unorm    *image.Gray16
//	RGBA8Unorm  *image.NRGBA
//	RGBA16Unorm *image.NRGBA64
//
// Colour channels are straight (non-premultiplied) alpha, as in PNG files and
// as a kernel reading a texel expects; an image in another colour model (an
// *image.RGBA, a *image.YCbCr, a paletted image) is converted through the
// format's colour model (color.NRGBAModel and so on). 16-bit channels are
// big-endian in Go's Pix and little-endian on the device; the conversion swaps
// them. Any other format gives ErrUnsupported naming it.

// NewImageFrom creates a one-level RGBA8Unorm image holding img, converted
// through color.NRGBAModel, uploaded before it returns on a copy stream of its
// own (as NewBufferFrom does). An *image.NRGBA is copied exactly.
func NewImageFrom(d *Device, img image.Image) (*Image[[4]uint8], error) {
	if img == nil {
		return nil, fmt.Errorf("device: NewImageFrom: %w: a nil image.Image", ErrInvalidArgument)
	}
	b := img.Bounds()
	i, err := NewImage[[4]uint8](d, RGBA8Unorm, b.Dx(), b.Dy(), 1)
	if err != nil {
		return nil, fmt.Errorf("device: NewImageFrom(%T %v): %w", img, b, err)
	}
	if err := i.WriteImage(context.Background(), img); err != nil {
		_ = i.Close()
		return nil, fmt.Errorf("device: NewImageFrom: %w", err)
	}
	return i, nil
}

// WriteImage fills level 0 with img, converted through the colour model of
// the image's format (see the table above), and waits: it uploads on a copy
// stream of its own. img's bounds must have the image's size (their origin
// may be anywhere). Work on other streams that uses the image must have
// finished; WriteImage does not order itself after it.
func (i *Image[T]) WriteImage(ctx context.Context, img image.Image) error {
	if err := i.tex().base().usable("Image"); err != nil {
		return fmt.Errorf("device: Image.WriteImage: %w", err)
	}
	if img == nil {
		return fmt.Errorf("device: Image.WriteImage: %w: a nil image.Image", ErrInvalidArgument)
	}
	f := i.Format()
	if _, ok := goImageFormats[f]; !ok {
		return fmt.Errorf("device: Image.WriteImage: %w: format %v has no Go image type (%s)", ErrUnsupported, f, goImageTable)
	}
	b := img.Bounds()
	if b.Dx() != i.Width() || b.Dy() != i.Height() {
		return fmt.Errorf("device: Image.WriteImage: %w: %T is %dx%d, the image %dx%d", ErrInvalidArgument, img, b.Dx(), b.Dy(), i.Width(), i.Height())
	}
	pix := make([]T, b.Dx()*b.Dy())
	encodePixels(asBytes(pix), f, img)
	if err := i.tex().base().dev.runCopy(ctx, i.Upload(pix)); err != nil {
		return fmt.Errorf("device: Image.WriteImage %d: %w", i.Handle(), err)
	}
	return nil
}

// ReadImage returns level 0 as a Go image (see the table above) with bounds
// at the origin: it downloads on a copy stream of its own and waits, as
// Buffer.Read does. A format without a Go image type gives ErrUnsupported.
func (i *Image[T]) ReadImage(ctx context.Context) (image.Image, error) {
	if err := i.tex().base().usable("Image"); err != nil {
		return nil, fmt.Errorf("device: Image.ReadImage: %w", err)
	}
	f := i.Format()
	if _, ok := goImageFormats[f]; !ok {
		return nil, fmt.Errorf("device: Image.ReadImage: %w: format %v has no Go image type (%s)", ErrUnsupported, f, goImageTable)
	}
	w, h := i.Width(), i.Height()
	pix := make([]T, w*h)
	if err := i.tex().base().dev.runCopy(ctx, i.Download(pix)); err != nil {
		return nil, fmt.Errorf("device: Image.ReadImage %d: %w", i.Handle(), err)
	}
	return decodePixels(asBytes(pix), f, w, h), nil
}

// goImageFormats are the formats with an exact Go image type.
var goImageFormats = map[Format]bool{R8Unorm: true, R16Unorm: true, RGBA8Unorm: true, RGBA16Unorm: true}

const goImageTable = "R8Unorm, R16Unorm, RGBA8Unorm and RGBA16Unorm have one"

// encodePixels writes img into dst, tightly packed in f's device layout.
func encodePixels(dst []byte, f Format, img image.Image) {
	b := img.Bounds()
	w, ps := b.Dx(), f.PixelSize()
	row := w * ps
	// The exact image types copy (8-bit) or byte-swap (16-bit) rows.
	var src []byte
	var stride int
	switch m := img.(type) {
	case *image.Gray:
		if f == R8Unorm {
			src, stride = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride
		}
	case *image.Gray16:
		if f == R16Unorm {
			src, stride = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride
		}
	case *image.NRGBA:
		if f == RGBA8Unorm {
			src, stride = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride
		}
	case *image.NRGBA64:
		if f == RGBA16Unorm {
			src, stride = m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride
		}
	}
	if src != nil {
		for y := 0; y < b.Dy(); y++ {
			d, s := dst[y*row:(y+1)*row], src[y*stride:y*stride+row]
			if f.Bits() == 16 {
				for k := 0; k < row; k += 2 {
					d[k], d[k+1] = s[k+1], s[k]
				}
			} else {
				copy(d, s)
			}
		}
		return
	}
	k := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.At(x, y)
			switch f {
			case R8Unorm:
				dst[k] = color.GrayModel.Convert(c).(color.Gray).Y
			case R16Unorm:
				v := color.Gray16Model.Convert(c).(color.Gray16).Y
				dst[k], dst[k+1] = byte(v), byte(v>>8)
			case RGBA8Unorm:
				n := color.NRGBAModel.Convert(c).(color.NRGBA)
				dst[k], dst[k+1], dst[k+2], dst[k+3] = n.R, n.G, n.B, n.A
			case RGBA16Unorm:
				n := color.NRGBA64Model.Convert(c).(color.NRGBA64)
				for j, v := range [4]uint16{n.R, n.G, n.B, n.A} {
					dst[k+2*j], dst[k+2*j+1] = byte(v), byte(v>>8)
				}
			}
			k += ps
		}
	}
}

// decodePixels makes the Go image of f's tightly packed device pixels.
func decodePixels(src []byte, f Format, w, h int) image.Image {
	r := image.Rect(0, 0, w, h)
	var m image.Image
	var pix []byte
	switch f {
	case R8Unorm:
		g := image.NewGray(r)
		m, pix = g, g.Pix
	case R16Unorm:
		g := image.NewGray16(r)
		m, pix = g, g.Pix
	case RGBA8Unorm:
		n := image.NewNRGBA(r)
		m, pix = n, n.Pix
	default: // RGBA16Unorm
		n := image.NewNRGBA64(r)
		m, pix = n, n.Pix
	}
	if f.Bits() == 16 {
		for k := 0; k+1 < len(src); k += 2 {
			pix[k], pix[k+1] = src[k+1], src[k]
		}
	} else {
		copy(pix, src)
	}
	return m
}
