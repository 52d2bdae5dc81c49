package vulkan

import (
	"fmt"
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
	b, err := remove[*buffer](d, h, "buffer")
	if err != nil {
		return err
	}
	recycle := d.dropResource(h)
	d.graveyard.bury(b.waits(), func() { b.release(); recycle() })
	return nil
}
