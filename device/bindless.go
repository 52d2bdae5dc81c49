package device

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// BindlessArray is a fixed-size table of buffers and textures that kernels
// index at run time. Emplace and Remove change a host-side copy; Update
// returns the command that applies the pending changes on a stream. A slot
// does not keep its buffer or texture open: a dispatch binding the array
// while a slot holds one that was closed fails with ErrClosed naming the
// slot (Remove it or put another there, then Update); one closed after the
// dispatch was submitted is destroyed once the dispatch is done.
type BindlessArray struct {
	*resource
	size int

	mu      sync.Mutex
	pending map[uint32]BindlessSlot
	sent    *BindlessUpdate // the last Update made
}

// NewBindlessArray creates an array of size empty slots, 1 to 1<<24; a
// backend may make fewer (cpu: 1<<20), refusing more with ErrUnsupported.
func (d *Device) NewBindlessArray(size int) (*BindlessArray, error) {
	if size <= 0 || size > 1<<24 {
		return nil, fmt.Errorf("device: NewBindlessArray: %w: size %d (1 to %d slots)", ErrInvalidArgument, size, 1<<24)
	}
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	h, err := d.iface.CreateBindlessArray(uint32(size))
	if err != nil {
		return nil, fmt.Errorf("device: NewBindlessArray(%d): %w", size, err)
	}
	r, err := d.track(h, KindBindlessArray)
	if err != nil {
		return nil, err
	}
	return &BindlessArray{resource: r, size: size, pending: map[uint32]BindlessSlot{}}, nil
}

// Len returns the number of slots (0 for a nil BindlessArray).
func (b *BindlessArray) Len() int {
	if b == nil {
		return 0
	}
	return b.size
}

func (b *BindlessArray) base() *resource {
	if b == nil {
		return nil
	}
	return b.resource
}

// Close destroys the bindless array once the work using it has finished; later calls,
// and calls on a nil BindlessArray, return nil.
func (b *BindlessArray) Close() error { return b.base().Close() }

// Handle returns the backend handle (0 for a nil BindlessArray).
func (b *BindlessArray) Handle() Handle { return b.base().Handle() }

// SetName gives the bindless array a debug name.
func (b *BindlessArray) SetName(name string) error { return b.base().SetName(name) }

func (b *BindlessArray) set(slot int, s BindlessSlot) error {
	if err := b.base().usable("BindlessArray"); err != nil {
		return fmt.Errorf("device: %w", err)
	}
	if slot < 0 || slot >= b.size {
		return fmt.Errorf("device: bindless array %d: %w: slot %d of %d", b.h, ErrInvalidArgument, slot, b.size)
	}
	if b.isClosed() {
		return fmt.Errorf("device: %w", b.errClosed())
	}
	s.Slot = uint32(slot)
	b.mu.Lock()
	b.pending[uint32(slot)] = s
	b.mu.Unlock()
	return nil
}

// EmplaceBuffer puts a buffer (or a view of one) in a slot.
func (b *BindlessArray) EmplaceBuffer(slot int, buf BufferRef) error {
	if buf == nil {
		return fmt.Errorf("device: EmplaceBuffer slot %d: %w: nil buffer", slot, ErrInvalidArgument)
	}
	if err := b.base().usable("BindlessArray"); err != nil {
		return fmt.Errorf("device: EmplaceBuffer: %w", err)
	}
	h, off, size, err := buf.bufferRange()
	if err != nil {
		return fmt.Errorf("device: EmplaceBuffer slot %d: %w", slot, err)
	}
	if h.Device() != b.h.Device() {
		return fmt.Errorf("device: EmplaceBuffer slot %d: %w", slot, invalidf("buffer %d belongs to another device", h))
	}
	return b.set(slot, BindlessSlot{Op: BindlessSetBuffer, Buffer: h, Offset: off, Size: size})
}

// EmplaceTexture puts a 2D texture with a sampler in a slot. Where the device
// samples bindless textures natively (Capabilities.Sampling is PathNative)
// any sampled float format works, in the first Capabilities.MaxBindlessTextures
// slots; on the emulated path the format must have 1, 2 or 4 channels of
// 32-bit float, 16-bit float or 8-bit unorm. Kernels sample level 0. A
// format or slot the device cannot take fails the Update command with
// ErrUnsupported.
func (b *BindlessArray) EmplaceTexture(slot int, tex TextureRef, s Sampler) error {
	if tex == nil {
		return fmt.Errorf("device: EmplaceTexture slot %d: %w: nil texture", slot, ErrInvalidArgument)
	}
	if !s.Valid() {
		return fmt.Errorf("device: EmplaceTexture slot %d: %w: sampler %v", slot, ErrInvalidArgument, s)
	}
	if err := b.base().usable("BindlessArray"); err != nil {
		return fmt.Errorf("device: EmplaceTexture: %w", err)
	}
	h, err := tex.textureHandle()
	if err != nil {
		return fmt.Errorf("device: EmplaceTexture slot %d: %w", slot, err)
	}
	if h.Device() != b.h.Device() {
		return fmt.Errorf("device: EmplaceTexture slot %d: %w", slot, invalidf("texture %d belongs to another device", h))
	}
	return b.set(slot, BindlessSlot{Op: BindlessSetTexture, Texture: h, Sampler: s})
}

// Remove empties a slot.
func (b *BindlessArray) Remove(slot int) error {
	return b.set(slot, BindlessSlot{Op: BindlessRemove})
}

// Update returns a command applying the changes made since the last Update
// a Submit took (in slot order; a compute-stream command): the changes of one refused or never
// submitted go again with this one, where no later change replaced them, so
// a slot the device refuses fails each Update until it is replaced or
// removed.
func (b *BindlessArray) Update() Command {
	if err := b.base().usable("BindlessArray"); err != nil {
		return bad("bindless update", err)
	}
	b.mu.Lock()
	if o := b.sent; o != nil && !o.Accepted() {
		for _, s := range o.Slots {
			if _, newer := b.pending[s.Slot]; !newer {
				b.pending[s.Slot] = s
			}
		}
	}
	slots := make([]BindlessSlot, 0, len(b.pending))
	for _, s := range b.pending {
		slots = append(slots, s)
	}
	clear(b.pending)
	sortSlots(slots)
	c := &BindlessUpdate{Array: b.h, Slots: slots}
	b.sent = c
	b.mu.Unlock()
	return c
}

func sortSlots(s []BindlessSlot) {
	slices.SortFunc(s, func(a, b BindlessSlot) int { return cmp.Compare(a.Slot, b.Slot) })
}

func (b *BindlessArray) bindArg() (Arg, argType, error) {
	if err := b.base().usable("BindlessArray"); err != nil {
		return Arg{}, argType{}, err
	}
	return Arg{Kind: ArgBindlessArray, Handle: b.h, Access: Read}, argType{}, nil
}
