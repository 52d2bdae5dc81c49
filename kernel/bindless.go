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
// reaches the slots through buffer device addresses (docs/notes/kernel-abi.md).
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

// SetBindlessTexture2D puts texture t in slot i.
func SetBindlessTexture2D[T Texel](b Bindless, i int, t Texture2D[T]) error {
	if i < 0 || i >= len(b.slots) {
		return fmt.Errorf("%w: %d out of range [0,%d)", ErrBindless, i, len(b.slots))
	}
	b.slots[i] = t
	return nil
}

// BindlessBuffer returns the buffer in slot i as a slice of T. A kernel
// reading a slot that is empty or holds another type panics on the CPU; on a
// device the result is undefined.
func BindlessBuffer[T any](b Bindless, i uint32) []T {
	s, ok := b.slots[i].([]T)
	if !ok {
		panic(fmt.Sprintf("kernel: bindless slot %d holds %T, not []%T", i, b.slots[i], *new(T)))
	}
	return s
}

// BindlessTexture2D returns the 2D texture in slot i.
func BindlessTexture2D[T Texel](b Bindless, i uint32) Texture2D[T] {
	t, ok := b.slots[i].(Texture2D[T])
	if !ok {
		panic(fmt.Sprintf("kernel: bindless slot %d holds %T, not a Texture2D", i, b.slots[i]))
	}
	return t
}
