package device

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// texture is what Image and Volume share: a 2D or 3D texture of T pixels in
// one Format, with mip levels.
type texture[T any] struct {
	*resource
	desc TextureDesc
}

func newTexture[T any](d *Device, what string, desc TextureDesc) (texture[T], error) {
	fail := func(err error) (texture[T], error) {
		return texture[T]{}, fmt.Errorf("device: %s[%s](%v %dx%dx%d, %d levels): %w",
			what, typeOf[T](), desc.Format, desc.Width, desc.Height, desc.Depth, desc.Levels, err)
	}
	if err := checkElem[T](); err != nil {
		return fail(err)
	}
	if err := desc.Check(); err != nil {
		return fail(err)
	}
	var zero T
	if int(unsafe.Sizeof(zero)) != desc.Format.PixelSize() {
		return fail(invalidf("pixel type %s is %d bytes, format %v is %d", typeOf[T](), unsafe.Sizeof(zero), desc.Format, desc.Format.PixelSize()))
	}
	if err := d.checkOpen(); err != nil {
		return fail(err)
	}
	h, err := d.iface.CreateTexture(desc)
	if err != nil {
		return fail(err)
	}
	r, err := d.track(h, KindTexture)
	if err != nil {
		return fail(err)
	}
	return texture[T]{resource: r, desc: desc}, nil
}

// maxLevels is the length of a full mip chain for the extent.
func maxLevels(w, h, d uint32) uint32 {
	return uint32(bits.Len32(max(w, h, d)))
}

// The texture methods below take a nil *texture (from a nil Image or Volume)
// and give zero values or errors for it; Image and Volume forward to them.

func (t *texture[T]) base() *resource {
	if t == nil {
		return nil
	}
	return t.resource
}

func (t *texture[T]) format() Format {
	if t == nil {
		return FormatInvalid
	}
	return t.desc.Format
}

func (t *texture[T]) levels() int {
	if t == nil {
		return 0
	}
	return int(t.desc.Levels)
}

func (t *texture[T]) descr() TextureDesc {
	if t == nil {
		return TextureDesc{}
	}
	return t.desc
}

func (t *texture[T]) level(l int, what string) TextureLevel[T] {
	if t.base() == nil {
		return TextureLevel[T]{err: fmt.Errorf("device: %w", zeroErr(what))}
	}
	lv := TextureLevel[T]{tex: t, level: uint32(l)}
	if l < 0 || l >= int(t.desc.Levels) {
		lv.err = fmt.Errorf("device: %w: level %d of a %d-level texture %d", ErrInvalidArgument, l, t.desc.Levels, t.h)
	}
	return lv
}

func (t *texture[T]) sampled(s Sampler) SampledTexture {
	if t.base() == nil {
		return SampledTexture{}
	}
	return SampledTexture{h: t.h, res: t.resource, desc: t.desc, sampler: s}
}

func (t *texture[T]) textureHandle(what string) (Handle, error) {
	if err := t.base().usable(what); err != nil {
		return 0, err
	}
	return t.h, nil
}

// TextureRef is an *Image[T] or *Volume[T] of any T (for bindless arrays).
type TextureRef interface {
	textureHandle() (Handle, error)
}

// Image is a 2D texture of T pixels (T's size must equal the format's pixel size).
type Image[T any] struct{ t texture[T] }

// NewImage creates a width×height image with the given mip levels (>= 1).
func NewImage[T any](d *Device, format Format, width, height, levels int) (*Image[T], error) {
	if width <= 0 || height <= 0 || levels <= 0 || width > 1<<30 || height > 1<<30 || levels > 32 {
		return nil, fmt.Errorf("device: NewImage[%s]: %w: %dx%d, %d levels", typeOf[T](), ErrInvalidArgument, width, height, levels)
	}
	t, err := newTexture[T](d, "NewImage", TextureDesc{Dim: 2, Format: format, Width: uint32(width), Height: uint32(height), Depth: 1, Levels: uint32(levels)})
	if err != nil {
		return nil, err
	}
	return &Image[T]{t}, nil
}

func (i *Image[T]) tex() *texture[T] {
	if i == nil {
		return nil
	}
	return &i.t
}

// Width returns the width of level 0.
func (i *Image[T]) Width() int { return int(i.tex().descr().Width) }

// Height returns the height of level 0.
func (i *Image[T]) Height() int { return int(i.tex().descr().Height) }

// Format returns the pixel format.
func (i *Image[T]) Format() Format { return i.tex().format() }

// Levels returns the number of mip levels.
func (i *Image[T]) Levels() int { return i.tex().levels() }

// Desc returns the texture's description.
func (i *Image[T]) Desc() TextureDesc { return i.tex().descr() }

// Level returns mip level l; an out-of-range level gives a TextureLevel whose
// commands and arguments carry the error.
func (i *Image[T]) Level(l int) TextureLevel[T] { return i.tex().level(l, "Image") }

// Upload returns a command filling level 0 from src (exactly one level's pixels).
func (i *Image[T]) Upload(src []T) Command { return i.Level(0).Upload(src) }

// Download returns a command reading level 0 into dst (exactly one level's pixels).
func (i *Image[T]) Download(dst []T) Command { return i.Level(0).Download(dst) }

// Sampled returns the image as a sampled-texture dispatch argument.
func (i *Image[T]) Sampled(s Sampler) SampledTexture { return i.tex().sampled(s) }

// Close destroys the image once the work using it has finished; later calls,
// and calls on a nil Image, return nil.
func (i *Image[T]) Close() error { return i.tex().base().Close() }

// Handle returns the backend handle (0 for a nil Image).
func (i *Image[T]) Handle() Handle { return i.tex().base().Handle() }

// SetName gives the image a debug name.
func (i *Image[T]) SetName(name string) error { return i.tex().base().SetName(name) }

func (i *Image[T]) bindArg() (Arg, argType, error) { return i.Level(0).bindArg() }

func (i *Image[T]) textureHandle() (Handle, error) { return i.tex().textureHandle("Image") }

// Volume is a 3D texture of T pixels.
type Volume[T any] struct{ t texture[T] }

// NewVolume creates a width×height×depth volume with the given mip levels.
func NewVolume[T any](d *Device, format Format, width, height, depth, levels int) (*Volume[T], error) {
	if width <= 0 || height <= 0 || depth <= 0 || levels <= 0 || width > 1<<30 || height > 1<<30 || depth > 1<<30 || levels > 32 {
		return nil, fmt.Errorf("device: NewVolume[%s]: %w: %dx%dx%d, %d levels", typeOf[T](), ErrInvalidArgument, width, height, depth, levels)
	}
	t, err := newTexture[T](d, "NewVolume", TextureDesc{Dim: 3, Format: format, Width: uint32(width), Height: uint32(height), Depth: uint32(depth), Levels: uint32(levels)})
	if err != nil {
		return nil, err
	}
	return &Volume[T]{t}, nil
}

func (v *Volume[T]) tex() *texture[T] {
	if v == nil {
		return nil
	}
	return &v.t
}

// Extent returns the extent of level 0.
func (v *Volume[T]) Extent() [3]int {
	d := v.tex().descr()
	return [3]int{int(d.Width), int(d.Height), int(d.Depth)}
}

// Format returns the pixel format.
func (v *Volume[T]) Format() Format { return v.tex().format() }

// Levels returns the number of mip levels.
func (v *Volume[T]) Levels() int { return v.tex().levels() }

// Desc returns the texture's description.
func (v *Volume[T]) Desc() TextureDesc { return v.tex().descr() }

// Level returns mip level l; an out-of-range level gives a TextureLevel whose
// commands and arguments carry the error.
func (v *Volume[T]) Level(l int) TextureLevel[T] { return v.tex().level(l, "Volume") }

// Upload returns a command filling level 0 from src (exactly one level's pixels).
func (v *Volume[T]) Upload(src []T) Command { return v.Level(0).Upload(src) }

// Download returns a command reading level 0 into dst (exactly one level's pixels).
func (v *Volume[T]) Download(dst []T) Command { return v.Level(0).Download(dst) }

// Sampled returns the volume as a sampled-texture dispatch argument.
func (v *Volume[T]) Sampled(s Sampler) SampledTexture { return v.tex().sampled(s) }

// Close destroys the volume once the work using it has finished; later calls,
// and calls on a nil Volume, return nil.
func (v *Volume[T]) Close() error { return v.tex().base().Close() }

// Handle returns the backend handle (0 for a nil Volume).
func (v *Volume[T]) Handle() Handle { return v.tex().base().Handle() }

// SetName gives the volume a debug name.
func (v *Volume[T]) SetName(name string) error { return v.tex().base().SetName(name) }

func (v *Volume[T]) bindArg() (Arg, argType, error) { return v.Level(0).bindArg() }

func (v *Volume[T]) textureHandle() (Handle, error) { return v.tex().textureHandle("Volume") }

// TextureLevel is one mip level of an Image or Volume.
type TextureLevel[T any] struct {
	tex   *texture[T]
	level uint32
	err   error
}

// Err returns the error of an out-of-range level, or nil.
func (l TextureLevel[T]) Err() error {
	if l.tex == nil && l.err == nil {
		return fmt.Errorf("device: %w: zero TextureLevel", ErrInvalidArgument)
	}
	return l.err
}

// Extent returns the level's extent (width, height, depth); zero for an
// invalid level.
func (l TextureLevel[T]) Extent() [3]uint32 {
	if l.tex == nil {
		return [3]uint32{}
	}
	return l.tex.desc.LevelExtent(l.level)
}

// Pixels returns the number of pixels in the level.
func (l TextureLevel[T]) Pixels() int {
	e := l.Extent()
	return int(e[0]) * int(e[1]) * int(e[2])
}

func (l TextureLevel[T]) check() error {
	if err := l.Err(); err != nil {
		return err
	}
	if l.tex.isClosed() {
		return l.tex.errClosed()
	}
	return nil
}

func (l TextureLevel[T]) region() Region {
	return Region{Level: l.level, Size: l.Extent()}
}

// Upload returns a command filling the level from src (exactly Pixels() values).
func (l TextureLevel[T]) Upload(src []T) Command {
	if err := l.check(); err != nil {
		return bad("texture upload", err)
	}
	if len(src) != l.Pixels() {
		return bad("texture upload", invalidf("%d pixels for level %d of texture %d, which has %d", len(src), l.level, l.tex.h, l.Pixels()))
	}
	return &TextureUpload{Texture: l.tex.h, Region: l.region(), Data: asBytes(src)}
}

// Download returns a command reading the level into dst (exactly Pixels() values).
func (l TextureLevel[T]) Download(dst []T) Command {
	if err := l.check(); err != nil {
		return bad("texture download", err)
	}
	if len(dst) != l.Pixels() {
		return bad("texture download", invalidf("%d pixels for level %d of texture %d, which has %d", len(dst), l.level, l.tex.h, l.Pixels()))
	}
	return &TextureDownload{Texture: l.tex.h, Region: l.region(), Data: asBytes(dst)}
}

// CopyFrom returns a command copying a whole level of the same extent.
func (l TextureLevel[T]) CopyFrom(src TextureLevel[T]) Command {
	if err := l.check(); err != nil {
		return bad("texture copy", err)
	}
	if err := src.check(); err != nil {
		return bad("texture copy", fmt.Errorf("source: %w", err))
	}
	if l.tex.desc.Format != src.tex.desc.Format || l.Extent() != src.Extent() {
		return bad("texture copy", invalidf("source %v %v, destination %v %v", src.tex.desc.Format, src.Extent(), l.tex.desc.Format, l.Extent()))
	}
	return &TextureCopy{Src: src.tex.h, SrcLevel: src.level, Dst: l.tex.h, DstLevel: l.level}
}

// CopyFromBuffer returns a command filling the level from a view of exactly
// Pixels() elements. The view's byte offset must be a multiple of the pixel
// size and of 4 (as for CopyToBuffer); Submit refuses another.
func (l TextureLevel[T]) CopyFromBuffer(src BufferView[T]) Command {
	if err := l.check(); err != nil {
		return bad("buffer-to-texture copy", err)
	}
	if err := src.check(); err != nil {
		return bad("buffer-to-texture copy", err)
	}
	if src.n != l.Pixels() {
		return bad("buffer-to-texture copy", invalidf("%d elements for a %d-pixel level", src.n, l.Pixels()))
	}
	off, _ := src.byteRange()
	return &BufferToTexture{Buffer: src.buf.h, Offset: off, Texture: l.tex.h, Region: l.region()}
}

// CopyToBuffer returns a command copying the level into a view of exactly
// Pixels() elements.
func (l TextureLevel[T]) CopyToBuffer(dst BufferView[T]) Command {
	if err := l.check(); err != nil {
		return bad("texture-to-buffer copy", err)
	}
	if err := dst.check(); err != nil {
		return bad("texture-to-buffer copy", err)
	}
	if dst.n != l.Pixels() {
		return bad("texture-to-buffer copy", invalidf("%d elements for a %d-pixel level", dst.n, l.Pixels()))
	}
	off, _ := dst.byteRange()
	return &TextureToBuffer{Texture: l.tex.h, Region: l.region(), Buffer: dst.buf.h, Offset: off}
}

func (l TextureLevel[T]) bindArg() (Arg, argType, error) {
	if err := l.check(); err != nil {
		return Arg{}, argType{}, err
	}
	return Arg{Kind: ArgTexture, Handle: l.tex.h, Level: l.level},
		argType{elem: typeOf[T](), res: ArgResource{Texture: l.tex.desc}}, nil
}

// SampledTexture is a texture with a sampler, as a dispatch argument.
type SampledTexture struct {
	h       Handle
	res     *resource
	desc    TextureDesc
	sampler Sampler
}

func (s SampledTexture) bindArg() (Arg, argType, error) {
	if s.res == nil {
		return Arg{}, argType{}, invalidf("zero SampledTexture")
	}
	if s.res.isClosed() {
		return Arg{}, argType{}, s.res.errClosed()
	}
	if !s.sampler.Valid() {
		return Arg{}, argType{}, invalidf("sampler %v", s.sampler)
	}
	return Arg{Kind: ArgSampledTexture, Handle: s.h, Sampler: s.sampler, Access: Read},
		argType{res: ArgResource{Texture: s.desc}}, nil
}
