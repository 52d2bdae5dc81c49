package device

import "fmt"

// ChannelKind is how a texel channel is stored and read.
type ChannelKind uint8

const (
	Unorm ChannelKind = 1 + iota // unsigned, read as float in [0, 1]
	Snorm                        // signed, read as float in [-1, 1]
	Uint                         // unsigned integer
	Sint                         // signed integer
	Float                        // IEEE float (16 or 32 bits)
)

var channelKindNames = [...]string{Unorm: "Unorm", Snorm: "Snorm", Uint: "Uint", Sint: "Sint", Float: "Float"}

func (k ChannelKind) String() string {
	if k >= Unorm && k <= Float {
		return channelKindNames[k]
	}
	return fmt.Sprintf("ChannelKind(%d)", uint8(k))
}

// Format is a texture's pixel format: 1–4 channels of 8, 16 or 32 bits each,
// all of one ChannelKind. The value packs kind<<4 | log2(bits/8)<<2 | channels-1,
// so the methods are arithmetic and the zero Format is invalid.
type Format uint8

// FormatOf returns the format with the given channel kind, bits per channel
// (8, 16, 32) and channel count (1–4), or an error wrapping ErrInvalidArgument
// when no such format exists (32-bit unorm/snorm, 8-bit float).
func FormatOf(kind ChannelKind, bits, channels int) (Format, error) {
	var b Format
	switch bits {
	case 8:
		b = 0
	case 16:
		b = 1
	case 32:
		b = 2
	default:
		return 0, invalidf("format: %d-bit channels (want 8, 16 or 32)", bits)
	}
	if channels < 1 || channels > 4 {
		return 0, invalidf("format: %d channels (want 1 to 4)", channels)
	}
	if kind < Unorm || kind > Float {
		return 0, invalidf("format: channel kind %v", kind)
	}
	f := Format(kind)<<4 | b<<2 | Format(channels-1)
	if !f.Valid() {
		return 0, invalidf("format: no %d-bit %v channels", bits, kind)
	}
	return f, nil
}

// Valid reports whether f is one of the defined formats.
func (f Format) Valid() bool {
	k := f.Kind()
	b := (f >> 2) & 3
	switch {
	case k < Unorm || k > Float, b == 3, f>>7 != 0:
		return false
	case (k == Unorm || k == Snorm) && b == 2:
		return false
	case k == Float && b == 0:
		return false
	}
	return true
}

// Kind returns the channel kind.
func (f Format) Kind() ChannelKind { return ChannelKind(f >> 4) }

// Channels returns the channel count, 1 to 4.
func (f Format) Channels() int { return int(f&3) + 1 }

// Bits returns the bits per channel: 8, 16 or 32.
func (f Format) Bits() int { return 8 << ((f >> 2) & 3) }

// PixelSize returns the bytes of one pixel.
func (f Format) PixelSize() int { return f.Channels() * f.Bits() / 8 }

func (f Format) String() string {
	if !f.Valid() {
		return fmt.Sprintf("Format(%d)", uint8(f))
	}
	return fmt.Sprintf("%s%d%s", "RGBA"[:f.Channels()], f.Bits(), f.Kind())
}

const (
	b8  Format = 0 << 2
	b16 Format = 1 << 2
	b32 Format = 2 << 2
	ku         = Format(Unorm) << 4
	ks         = Format(Snorm) << 4
	kui        = Format(Uint) << 4
	ksi        = Format(Sint) << 4
	kf         = Format(Float) << 4
)

// The formats. Not every device supports every format for storage or
// sampling; creating a texture in an unsupported one fails with ErrUnsupported.
const (
	FormatInvalid Format = 0

	R8Unorm    = ku | b8 | 0
	RG8Unorm   = ku | b8 | 1
	RGB8Unorm  = ku | b8 | 2
	RGBA8Unorm = ku | b8 | 3

	R16Unorm    = ku | b16 | 0
	RG16Unorm   = ku | b16 | 1
	RGB16Unorm  = ku | b16 | 2
	RGBA16Unorm = ku | b16 | 3

	R8Snorm    = ks | b8 | 0
	RG8Snorm   = ks | b8 | 1
	RGB8Snorm  = ks | b8 | 2
	RGBA8Snorm = ks | b8 | 3

	R16Snorm    = ks | b16 | 0
	RG16Snorm   = ks | b16 | 1
	RGB16Snorm  = ks | b16 | 2
	RGBA16Snorm = ks | b16 | 3

	R8Uint    = kui | b8 | 0
	RG8Uint   = kui | b8 | 1
	RGB8Uint  = kui | b8 | 2
	RGBA8Uint = kui | b8 | 3

	R16Uint    = kui | b16 | 0
	RG16Uint   = kui | b16 | 1
	RGB16Uint  = kui | b16 | 2
	RGBA16Uint = kui | b16 | 3

	R32Uint    = kui | b32 | 0
	RG32Uint   = kui | b32 | 1
	RGB32Uint  = kui | b32 | 2
	RGBA32Uint = kui | b32 | 3

	R8Sint    = ksi | b8 | 0
	RG8Sint   = ksi | b8 | 1
	RGB8Sint  = ksi | b8 | 2
	RGBA8Sint = ksi | b8 | 3

	R16Sint    = ksi | b16 | 0
	RG16Sint   = ksi | b16 | 1
	RGB16Sint  = ksi | b16 | 2
	RGBA16Sint = ksi | b16 | 3

	R32Sint    = ksi | b32 | 0
	RG32Sint   = ksi | b32 | 1
	RGB32Sint  = ksi | b32 | 2
	RGBA32Sint = ksi | b32 | 3

	R16Float    = kf | b16 | 0
	RG16Float   = kf | b16 | 1
	RGB16Float  = kf | b16 | 2
	RGBA16Float = kf | b16 | 3

	R32Float    = kf | b32 | 0
	RG32Float   = kf | b32 | 1
	RGB32Float  = kf | b32 | 2
	RGBA32Float = kf | b32 | 3
)

// Formats returns every defined format, in a stable order.
func Formats() []Format {
	var out []Format
	for f := Format(0); f < 1<<7; f++ {
		if f.Valid() {
			out = append(out, f)
		}
	}
	return out
}
