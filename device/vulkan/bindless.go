package vulkan

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/lucent-gpu/lucent/device"
)

// Bindless arrays, with buffer device addresses: the array is a storage
// buffer of slotRecordSize-byte records that a kernel indexes and follows.
// Buffer slots are reached this way on every device; texture slots too where
// the device cannot index descriptor arrays (bindless_texture.go), and through
// a descriptor set where it can (bindless_native.go).
//
//	offset 0  uint64  device address of the slot's first byte (0: empty)
//	offset 8  uint64  size of the range in bytes
//	offset 16 uint32  textures: width, height, depth (1); 0 for buffers
//	offset 28 uint32  textures: format | sampler<<8; 0 for buffers
//
// A texture slot's address is that of a linear mirror of the texture
// (bindless_texture.go). The array binds as a storage-buffer descriptor like
// a buffer argument.
const slotRecordSize = 32

type bindless struct {
	tracked
	d     *Device
	size  uint32
	table *buffer
	name  string

	needsClear atomic.Bool // the records are not yet zeroed (encoder.bindlessArray)

	bufMu   sync.Mutex
	bufs    map[uint32]slotBuf // buffer slots, as the lists submitted so far left them
	checked uint64             // Device.buffersGone when every buffer in bufs was last seen alive

	texMu   sync.Mutex
	mirrors map[uint32]*mirror // texture slots' linear mirrors, by slot
	retired []*rawBuffer       // mirrors outgrown by their slot, freed with the array
	heap    texHeap            // texture slots' descriptors, with descriptor indexing (bindless_native.go)
}

func (b *bindless) setName(n string) { b.name = n }

func (b *bindless) release() {
	b.releaseSlotBuffers()
	b.releaseMirrors()
	b.releaseHeap()
	b.table.release()
}

// CreateBindlessArray creates an array of size empty slots.
func (d *Device) CreateBindlessArray(size uint32) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	if size == 0 {
		return 0, invalidf("bindless array of 0 slots")
	}
	if !d.caps.BufferDeviceAddress {
		return 0, unsupportedf("bindless arrays need bufferDeviceAddress")
	}
	raw, err := d.mem.newRawBuffer(uint64(size)*slotRecordSize, placeDevice)
	if err != nil {
		return 0, err
	}
	b := &bindless{d: d, size: size, table: &buffer{raw: raw, d: d}}
	// Device memory starts undefined (on a discrete GPU it is not even
	// mapped): the first command list using the array empties every slot on
	// the GPU, on every device alike.
	b.needsClear.Store(true)
	h, err := d.add(b)
	if err != nil {
		b.release()
		return 0, err
	}
	return h, nil
}

// DestroyBindlessArray releases the array once the work using it has finished.
func (d *Device) DestroyBindlessArray(h device.Handle) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	b, err := remove[*bindless](d, h, "bindless array")
	if err != nil {
		return err
	}
	recycle := d.dropResource(h)
	d.graveyard.bury(b.waits(), func() { b.release(); recycle() })
	return nil
}

// slotRecord encodes one slot.
func slotRecord(dst []byte, addr, size uint64) {
	binary.LittleEndian.PutUint64(dst[0:], addr)
	binary.LittleEndian.PutUint64(dst[8:], size)
	clear(dst[16:slotRecordSize])
}

// slotBuf is the buffer in a slot.
type slotBuf struct {
	h device.Handle
	b *buffer
}

// slotBuffer is a buffer slot set (or emptied: buf.b nil) by an update of
// the list being encoded; the array's record of its buffer slots takes it
// when the list is submitted, and a list that fails leaves the record as it
// was, as it leaves the slots on the device.
type slotBuffer struct {
	arr  *bindless
	slot uint32
	buf  slotBuf
}

// setBuffer notes that the list's update puts buffer b (handle h) in slot
// (b nil: none).
func (e *encoder) setBuffer(arr *bindless, slot uint32, h device.Handle, b *buffer) {
	e.slotBufs = append(e.slotBufs, slotBuffer{arr, slot, slotBuf{h, b}})
}

// commitSlotBuffers applies the buffer slots of the list just submitted, and
// tells each buffer which arrays hold it (DestroyBuffer waits for their
// work too).
func (e *encoder) commitSlotBuffers() {
	for _, sb := range e.slotBufs {
		arr := sb.arr
		arr.bufMu.Lock()
		if old := arr.bufs[sb.slot]; old.b != nil {
			old.b.hold(arr, -1)
		}
		if sb.buf.b == nil {
			delete(arr.bufs, sb.slot)
		} else {
			if arr.bufs == nil {
				arr.bufs = map[uint32]slotBuf{}
			}
			arr.bufs[sb.slot] = sb.buf
			sb.buf.b.hold(arr, 1)
		}
		arr.bufMu.Unlock()
	}
}

// releaseSlotBuffers forgets the array's buffer slots (the array is destroyed).
func (b *bindless) releaseSlotBuffers() {
	b.bufMu.Lock()
	defer b.bufMu.Unlock()
	for _, sb := range b.bufs {
		sb.b.hold(b, -int(b.size)) // every slot of b it was in
	}
	b.bufs = nil
}

// slotBuffers refuses a dispatch binding an array with a closed buffer in a
// slot (as the updates before it in the stream left the slots): a kernel
// reaches the slots by address, and a closed buffer's memory may already be
// another resource's. Where no buffer was destroyed since the array's
// buffers were last seen alive, there is nothing to look at (a dispatch
// costs no walk over the slots); a buffer in a slot, destroyed, waits for
// the work of the arrays holding it (DestroyBuffer).
func (e *encoder) slotBuffers(arr *bindless) error {
	gone := e.d.buffersGone.Load()
	arr.bufMu.Lock()
	defer arr.bufMu.Unlock()
	if arr.checked == gone {
		return nil // this list's own slots were alive when its updates were encoded
	}
	// This list's updates, the last of each slot.
	var mine map[uint32]slotBuf
	for _, sb := range e.slotBufs {
		if sb.arr == arr {
			if mine == nil {
				mine = map[uint32]slotBuf{}
			}
			mine[sb.slot] = sb.buf
		}
	}
	closed := func(slot uint32, sb slotBuf) error {
		if _, err := lookup[*buffer](e.d, sb.h, "buffer"); err != nil {
			return fmt.Errorf("bindless array slot %d holds a closed buffer (empty or refill the slot and Update): %w", slot, err)
		}
		return nil
	}
	alive := true // every buffer in arr.bufs, replaced by this list or not
	for slot, sb := range arr.bufs {
		if err := closed(slot, sb); err != nil {
			if _, set := mine[slot]; !set {
				return err
			}
			alive = false
		}
	}
	for slot, sb := range mine {
		if sb.b != nil {
			if err := closed(slot, sb); err != nil {
				return err
			}
		}
	}
	if alive {
		arr.checked = gone
	}
	return nil
}
