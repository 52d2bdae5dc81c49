package kernel

import (
	"errors"
	"fmt"
)

// ErrBindless is wrapped by errors about bindless slots.
var ErrBindless = errors.New("kernel: bindless slot")

// Bindless is a bindless array: numbered slots each holding a buffer or a 2D
// texture, chosen per thread at run time. A kernel takes it by value (copies
// share the slots). On a device without descriptor indexing the runtime
// reaches the slots through buffer device addresses (docs/kernel-abi.md).
type Bindless struct {
	slots []any
}

// NewBindless returns a bindless array of n empty slots.
func NewBindless(n int) Bindless { return Bindless{make([]any, n)} }

// Len returns the number of slots.
func (b Bindless) Len() int { return len(b.slots) }

// SetBindlessBuffer puts buffer s in slot i.
func SetBindlessBuffer[T any](b Bindless, i int, s []T) error {
	if i < 0 || i >= len(b.slots) {
		return fmt.Errorf("%w: %d out of range [0,%d)", ErrBindless, i, len(b.slots))
	}
	b.slots[i] = s
	return nil
}

// SetBindlessTexture2D puts texture t with sampler s in slot i, as
// device.BindlessArray.EmplaceTexture does. Kernels read, size and sample
// it through b.Texture2D(i); on a device its texels read as Float4 whatever
// the image format, so the CPU mirror is a Texture2D[Float4] (see
// Texture2D.WithChannels for formats of fewer channels).
func SetBindlessTexture2D(b Bindless, i int, t Texture2D[Float4], s Sampler) error {
	if i < 0 || i >= len(b.slots) {
		return fmt.Errorf("%w: %d out of range [0,%d)", ErrBindless, i, len(b.slots))
	}
	if !s.Valid() {
		return fmt.Errorf("%w: slot %d: invalid sampler %v", ErrBindless, i, s)
	}
	if t.texels == nil {
		return fmt.Errorf("%w: slot %d: texture was not made by NewTexture2D", ErrBindless, i)
	}
	b.slots[i] = BindlessTexture2D{t, s}
	return nil
}

// inRange panics, naming the slot and the array's slots, for a slot past
// the array: a kernel's thread then fails as a checked kernel's does on a
// device (device.FaultBindlessSlot), not with a bare index error.
func (b Bindless) inRange(i uint32) {
	if int64(i) >= int64(len(b.slots)) {
		panic(fmt.Sprintf("kernel: bindless slot %d out of range [0, %d)", i, len(b.slots)))
	}
}

// BindlessBuffer returns the buffer in slot i as a slice of T. A kernel
// reading a slot past the array, empty or holding another type panics on
// the CPU; on a device the result is undefined.
func BindlessBuffer[T any](b Bindless, i uint32) []T {
	b.inRange(i)
	s, ok := b.slots[i].([]T)
	if !ok {
		panic(fmt.Sprintf("kernel: bindless slot %d holds %T, not []%T", i, b.slots[i], *new(T)))
	}
	return s
}

// BindlessTexture2D is the 2D texture, with its sampler, in one slot of a
// bindless array. An empty slot is a texture of size (0, 0) that reads and
// samples as zero, as on a device.
type BindlessTexture2D struct {
	tex Texture2D[Float4]
	s   Sampler
}

// Texture2D returns the texture in slot i. A slot past the array or holding
// a buffer panics on the CPU; on a device the result is undefined.
func (b Bindless) Texture2D(i uint32) BindlessTexture2D {
	b.inRange(i)
	switch t := b.slots[i].(type) {
	case nil:
		return BindlessTexture2D{}
	case BindlessTexture2D:
		return t
	}
	panic(fmt.Sprintf("kernel: bindless slot %d holds %T, not a texture", i, b.slots[i]))
}

// Size returns the texture's width and height ((0, 0) for an empty slot).
func (t BindlessTexture2D) Size() Uint2 { return t.tex.Size() }

// Read returns the texel at (x, y): zero outside the texture or for an empty
// slot.
func (t BindlessTexture2D) Read(x, y uint32) Float4 { return t.tex.Read(x, y) }

// Sample filters at normalised coordinates uv with the slot's sampler: the
// nearest texel (FilterPoint) or four blended bilinearly, texel centres at
// +0.5, each tap addressed by the sampler's address mode; zero for an empty
// slot.
func (t BindlessTexture2D) Sample(uv Float2) Float4 { return t.tex.sample(t.s, uv) }
