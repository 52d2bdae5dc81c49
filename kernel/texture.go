package kernel

import (
	"errors"
	"fmt"
)

// Texel is the set of texel types a storage texture reads and writes: four
// 32-bit components (the device format decides how they are stored).
type Texel interface{ Float4 | Int4 | Uint4 }

// ErrTexture is wrapped by errors about impossible texture sizes or data.
var ErrTexture = errors.New("kernel: invalid texture")

// Texture2D is a 2D storage texture. A kernel takes it by value (it is a
// handle: copies share the texels) and reads and writes texels by integer
// coordinates; on a device it is a storage image. Reads and writes outside the
// texture are ignored and read as zero, as with robust image access.
//
// A texture of Float4 texels can also be sampled (Sample) at normalised
// coordinates, as a sampled image is on a device.
type Texture2D[T Texel] struct {
	width, height uint32
	channels      uint8 // 0: all four
	texels        []T
}

// maxTexels bounds a texture's texels: past 2³² the texel index, a uint32
// as on a device, would wrap (and the allocation panic).
const maxTexels = 1 << 32

// NewTexture2D returns a zeroed width×height texture for the CPU runner
// (at most 2³² texels).
func NewTexture2D[T Texel](width, height uint32) (Texture2D[T], error) {
	if width == 0 || height == 0 {
		return Texture2D[T]{}, fmt.Errorf("%w: %d×%d", ErrTexture, width, height)
	}
	if uint64(width)*uint64(height) > maxTexels {
		return Texture2D[T]{}, fmt.Errorf("%w: %d×%d is more than 2³² texels", ErrTexture, width, height)
	}
	return Texture2D[T]{width, height, 0, make([]T, int(width)*int(height))}, nil
}

// WithChannels returns t (sharing its texels) read as a device texture of
// n channels (1, 2 or 4) reads it, like one of format r32f, rg32f or
// rgba32f: the channels it lacks read as 0, alpha as 1, and AddressZero's
// border has alpha 1.
func (t Texture2D[T]) WithChannels(n int) (Texture2D[T], error) {
	if n != 1 && n != 2 && n != 4 {
		return t, fmt.Errorf("%w: %d channels (want 1, 2 or 4)", ErrTexture, n)
	}
	t.channels = uint8(n)
	return t, nil
}

// Channels returns the number of channels the texture has (4 unless set by
// WithChannels).
func (t Texture2D[T]) Channels() int {
	if t.channels == 0 {
		return 4
	}
	return int(t.channels)
}

// mask makes the channels the texture lacks read as 0, alpha as 1.
func (t Texture2D[T]) mask(v T) T {
	n := t.Channels()
	if n == 4 {
		return v
	}
	switch p := any(&v).(type) {
	case *Float4:
		p.Y, p.Z, p.W = keep(n > 1, p.Y), 0, 1
	case *Int4:
		p.Y, p.Z, p.W = keep(n > 1, p.Y), 0, 1
	case *Uint4:
		p.Y, p.Z, p.W = keep(n > 1, p.Y), 0, 1
	}
	return v
}

func keep[E float32 | int32 | uint32](ok bool, v E) E {
	if ok {
		return v
	}
	return 0
}

// border is what AddressZero reads outside the texture.
func (t Texture2D[T]) border() Float4 {
	if t.Channels() == 4 {
		return Float4{}
	}
	return Float4{W: 1}
}

// Sample filters the texture bilinearly at normalised coordinates uv (texel
// centres at (x+0.5)/width), clamping to the edge: the kernel.Bilinear
// sampler. Only textures of Float4 texels are sampled; on others Sample
// panics (the compiler rejects it). The zero Texture2D samples as zero.
func (t Texture2D[T]) Sample(uv Float2) Float4 {
	ft, ok := any(t).(Texture2D[Float4])
	if !ok {
		panic(fmt.Sprintf("kernel: Sample of a Texture2D[%T]: only textures of Float4 texels are sampled", *new(T)))
	}
	return ft.sample(Bilinear, uv)
}

// sample filters at uv as s says.
func (t Texture2D[T]) sample(s Sampler, uv Float2) Float4 {
	ft := any(t).(Texture2D[Float4])
	if len(ft.texels) == 0 {
		return Float4{} // the zero Texture2D, like an empty bindless slot
	}
	fetch := func(x, y uint32) Float4 { return ft.mask(ft.texels[y*ft.width+x]) }
	return sample2D(ft.width, ft.height, fetch, ft.border(), s, uv)
}

// Size returns the texture's width and height.
func (t Texture2D[T]) Size() Uint2 { return Uint2{t.width, t.height} }

// Read returns the texel at (x, y).
func (t Texture2D[T]) Read(x, y uint32) T {
	var zero T
	if x >= t.width || y >= t.height {
		return zero
	}
	return t.mask(t.texels[y*t.width+x])
}

// Write stores v at (x, y).
func (t Texture2D[T]) Write(x, y uint32, v T) {
	if x < t.width && y < t.height {
		t.texels[y*t.width+x] = v
	}
}

// Texels returns the texels in row-major order (shared with the texture), for
// host code to fill or inspect.
func (t Texture2D[T]) Texels() []T { return t.texels }

// Texture3D is a 3D storage texture; see Texture2D.
type Texture3D[T Texel] struct {
	width, height, depth uint32
	texels               []T
}

// NewTexture3D returns a zeroed width×height×depth texture for the CPU
// runner (at most 2³² texels).
func NewTexture3D[T Texel](width, height, depth uint32) (Texture3D[T], error) {
	if width == 0 || height == 0 || depth == 0 {
		return Texture3D[T]{}, fmt.Errorf("%w: %d×%d×%d", ErrTexture, width, height, depth)
	}
	if n := uint64(width) * uint64(height); n > maxTexels || n*uint64(depth) > maxTexels {
		return Texture3D[T]{}, fmt.Errorf("%w: %d×%d×%d is more than 2³² texels", ErrTexture, width, height, depth)
	}
	return Texture3D[T]{width, height, depth, make([]T, int(width)*int(height)*int(depth))}, nil
}

// Size returns the texture's width, height and depth.
func (t Texture3D[T]) Size() Uint3 { return Uint3{t.width, t.height, t.depth} }

func (t Texture3D[T]) index(x, y, z uint32) (int, bool) {
	if x >= t.width || y >= t.height || z >= t.depth {
		return 0, false
	}
	return int((z*t.height+y)*t.width + x), true
}

// Read returns the texel at (x, y, z).
func (t Texture3D[T]) Read(x, y, z uint32) T {
	var zero T
	if i, ok := t.index(x, y, z); ok {
		return t.texels[i]
	}
	return zero
}

// Write stores v at (x, y, z).
func (t Texture3D[T]) Write(x, y, z uint32, v T) {
	if i, ok := t.index(x, y, z); ok {
		t.texels[i] = v
	}
}

// Texels returns the texels in x-fastest order (shared with the texture).
func (t Texture3D[T]) Texels() []T { return t.texels }
