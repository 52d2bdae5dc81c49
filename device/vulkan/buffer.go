package vulkan

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/lucent-gpu/lucent/device"
)

// buffer is a device buffer. Buffers larger than maxStorageBufferRange are
// fine for copies and device addresses; only a descriptor binding is limited.
type buffer struct {
	tracked
	raw        *rawBuffer
	desc       device.BufferDesc
	name       string
	d          *Device
	needsClear atomic.Bool // not yet zeroed (CreateBuffer, encoder.bufferFor)

	holdMu  sync.Mutex
	holders map[*bindless]int // the arrays with the buffer in slots, and in how many
}

// hold counts n more (or, negative, fewer) slots of arr holding b.
func (b *buffer) hold(arr *bindless, n int) {
	b.holdMu.Lock()
	defer b.holdMu.Unlock()
	if c := b.holders[arr] + n; c > 0 {
		if b.holders == nil {
			b.holders = map[*bindless]int{}
		}
		b.holders[arr] = c
	} else {
		delete(b.holders, arr)
	}
}

// lifetime is what b's release waits for: its own work and that of every
// bindless array holding it, whose kernels may reach it by address.
func (b *buffer) lifetime() map[*stream]uint64 {
	w := b.waits()
	b.holdMu.Lock()
	defer b.holdMu.Unlock()
	for arr := range b.holders {
		for s, v := range arr.waits() {
			w[s] = max(w[s], v)
		}
	}
	return w
}

func (b *buffer) setName(n string) { b.name = n }

// whole says whether n bytes from off are all of the buffer: a command
// writing them leaves nothing of a first use to clear (encoder.bufferFor).
func (b *buffer) whole(off, n uint64) bool { return off == 0 && n >= b.desc.Size }

func (b *buffer) release() { b.d.mem.destroyRawBuffer(b.raw) }

func (b *buffer) label(h device.Handle) string {
	if b.name != "" {
		return fmt.Sprintf("buffer %d (%q)", h, b.name)
	}
	return fmt.Sprintf("buffer %d", h)
}

// CreateBuffer creates a buffer of desc.Size bytes.
func (d *Device) CreateBuffer(desc device.BufferDesc) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	if desc.Size == 0 {
		return 0, invalidf("buffer of 0 bytes")
	}
	if desc.Size > d.caps.MaxBufferSize {
		return 0, fmt.Errorf("vulkan: %w: buffer of %d bytes exceeds the device's maximum of %d",
			device.ErrOutOfMemory, desc.Size, d.caps.MaxBufferSize)
	}
	// Round up so that copies and fills of whole words stay inside.
	raw, err := d.mem.newRawBuffer(alignUp(desc.Size, 4), placeDevice)
	if err != nil {
		return 0, fmt.Errorf("vulkan: buffer of %d bytes: %w", desc.Size, err)
	}
	b := &buffer{raw: raw, desc: desc, d: d}
	// A new buffer reads as zeros, as on the cpu backend, though its memory
	// may be a freed resource's (or, on Mesa 25's lavapipe, a dedicated
	// allocation's of before): the first list that uses it clears it,
	// unless it first overwrites all of it (encoder.bufferFor). Clearing
	// here, on the host, committed every page of every buffer at once (on
	// lavapipe, host memory): filling the heap with buffers never used got
	// the process killed instead of ErrOutOfMemory.
	b.needsClear.Store(true)
	h, err := d.add(b)
	if err != nil {
		b.release()
		return 0, err
	}
	return h, nil
}

// DestroyBuffer releases the buffer once the work using it has finished.
func (d *Device) DestroyBuffer(h device.Handle) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	// Counted before it is gone: a dispatch that finds the count unchanged
	// found the buffer alive, and its use of the arrays holding it is
	// recorded before remove can take the table (bindless.slotBuffers).
	d.buffersGone.Add(1)
	b, err := remove[*buffer](d, h, "buffer")
	if err != nil {
		return err
	}
	recycle := d.dropResource(h)
	d.graveyard.bury(b.lifetime(), func() { b.release(); recycle() })
	return nil
}
