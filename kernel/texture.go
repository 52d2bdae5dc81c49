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
type Texture2D[T Texel] struct {
	width, height uint32
	texels        []T
}

// NewTexture2D returns a zeroed width×height texture for the CPU runner.
func NewTexture2D[T Texel](width, height uint32) (Texture2D[T], error) {
	if width == 0 || height == 0 {
		return Texture2D[T]{}, fmt.Errorf("%w: %d×%d", ErrTexture, width, height)
	}
	return Texture2D[T]{width, height, make([]T, int(width)*int(height))}, nil
}

// Size returns the texture's width and height.
func (t Texture2D[T]) Size() Uint2 { return Uint2{t.width, t.height} }

// Read returns the texel at (x, y).
func (t Texture2D[T]) Read(x, y uint32) T {
	var zero T
	if x >= t.width || y >= t.height {
		return zero
	}
	return t.texels[y*t.width+x]
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

// NewTexture3D returns a zeroed width×height×depth texture for the CPU runner.
func NewTexture3D[T Texel](width, height, depth uint32) (Texture3D[T], error) {
	if width == 0 || height == 0 || depth == 0 {
		return Texture3D[T]{}, fmt.Errorf("%w: %d×%d×%d", ErrTexture, width, height, depth)
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
