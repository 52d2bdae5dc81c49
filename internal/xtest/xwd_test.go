package xtest

import (
	"encoding/binary"
	"image/color"
	"testing"

	"github.com/stretchr/testify/require"
)

// xwd builds a ZPixmap dump of w×h pixels from pixel values.
func xwd(w, h, bpp, byteOrder uint32, pix func(x, y uint32) uint32) []byte {
	name := []byte("win\x00")
	hdr := make([]uint32, 25)
	hdr[0] = 100 + uint32(len(name))
	hdr[1], hdr[2], hdr[3] = 7, 2, 24
	hdr[4], hdr[5] = w, h
	hdr[7], hdr[11] = byteOrder, bpp
	stride := (w*bpp/8 + 3) &^ 3
	hdr[12] = stride
	hdr[14], hdr[15], hdr[16] = 0xff0000, 0x00ff00, 0x0000ff
	hdr[19] = 2 // two colormap entries to skip
	out := make([]byte, 0, 200+stride*h)
	for _, v := range hdr {
		out = binary.BigEndian.AppendUint32(out, v)
	}
	out = append(out, name...)
	out = append(out, make([]byte, 2*12)...)
	for y := range h {
		row := make([]byte, stride)
		for x := range w {
			p := pix(x, y)
			for i := range bpp / 8 {
				shift := 8 * i
				if byteOrder == 1 {
					shift = 8 * (bpp/8 - 1 - i)
				}
				row[x*bpp/8+i] = byte(p >> shift)
			}
		}
		out = append(out, row...)
	}
	return out
}

func TestDecodeXWD(t *testing.T) {
	pix := func(x, y uint32) uint32 { return x*40<<16 | y*50<<8 | 0x80 }
	for _, tc := range []struct {
		name           string
		bpp, byteOrder uint32
	}{
		{"32 bpp LSB first", 32, 0},
		{"32 bpp MSB first", 32, 1},
		{"24 bpp LSB first", 24, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := DecodeXWD(xwd(5, 3, tc.bpp, tc.byteOrder, pix))
			require.NoError(t, err)
			require.Equal(t, 5, img.Bounds().Dx())
			require.Equal(t, 3, img.Bounds().Dy())
			for y := range 3 {
				for x := range 5 {
					require.Equal(t, color.RGBA{uint8(x * 40), uint8(y * 50), 0x80, 255}, img.RGBAAt(x, y), "(%d,%d)", x, y)
				}
			}
		})
	}
	good := xwd(4, 4, 32, 0, pix)
	for name, b := range map[string][]byte{
		"short":     good[:50],
		"truncated": good[:len(good)-10],
		"16 bpp":    xwd(4, 4, 16, 0, pix),
	} {
		_, err := DecodeXWD(b)
		require.Error(t, err, name)
	}
	bad := append([]byte(nil), good...)
	binary.BigEndian.PutUint32(bad[4:], 6) // version
	_, err := DecodeXWD(bad)
	require.ErrorContains(t, err, "version 6")
}
