package vulkan

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// Bindless texture slots without descriptor indexing. lavapipe cannot index
// an array of image descriptors with a run-time value, so a texture slot
// points at a linear mirror instead: a device-address buffer holding the
// texture's level 0 as tightly packed rows in the texture's own format,
// followed by 16 spare bytes (a kernel fetches any texel with four aligned
// 32-bit loads). Kernels decode texels and emulate the sampler in code
// (codegen/emit_bindless_tex.go); the record layout is in kernel-abi.md.
//
// The mirror is refreshed from the texture — one image-to-buffer copy —
// before every dispatch that binds the array and reads its texture slots
// (a kernel reading only buffer slots skips it), so a kernel always sees
// the texture as the commands before it left it. A mirror belongs to its slot
// and is reused when the slot gets a texture that fits; one that no longer
// fits is kept until the array is destroyed (the GPU may still read it).

// mirrorSpare is what follows a mirror's texels so that 16-byte fetches of
// its last texel stay inside the buffer.
const mirrorSpare = 16

// mirror is the linear copy of the texture in one slot.
type mirror struct {
	tex  device.Handle // 0 when the slot holds no texture
	raw  *rawBuffer
	size uint64 // texel bytes in use
}

// texFormatCode is the record's format byte (class<<4 | channels) for the
// formats kernels can decode, or false.
func texFormatCode(f device.Format) (uint32, bool) {
	ch := f.Channels()
	if ch == 3 {
		return 0, false
	}
	var class uint32
	switch {
	case f.Kind() == device.Float && f.Bits() == 32:
		class = 1
	case f.Kind() == device.Unorm && f.Bits() == 8:
		class = 2
	case f.Kind() == device.Float && f.Bits() == 16:
		class = 3
	default:
		return 0, false
	}
	return class<<4 | uint32(ch), true
}

// textureRecord encodes a texture slot: the mirror's address and texel bytes,
// the extent, and format | sampler<<8.
func textureRecord(dst []byte, addr, size uint64, w, h, code uint32, s device.Sampler) {
	binary.LittleEndian.PutUint64(dst[0:], addr)
	binary.LittleEndian.PutUint64(dst[8:], size)
	binary.LittleEndian.PutUint32(dst[16:], w)
	binary.LittleEndian.PutUint32(dst[20:], h)
	binary.LittleEndian.PutUint32(dst[24:], 1)
	binary.LittleEndian.PutUint32(dst[28:], code|uint32(s.Index())<<8)
}

// checkTexture says whether texture sl.Texture with its sampler can sit in
// a slot of arr, changing nothing: an update checks every slot before it
// changes any, so that one it refuses leaves the array as it was (a mirror
// refreshed from the new texture under the old record read its bytes in
// the old format).
func (e *encoder) checkTexture(arr *bindless, sl device.BindlessSlot) (*texture, error) {
	t, err := e.texture(sl.Texture)
	if err != nil {
		return nil, err
	}
	if !sl.Sampler.Valid() {
		return nil, invalidf("sampler %v", sl.Sampler)
	}
	_, decodable := texFormatCode(t.desc.Format)
	switch {
	case t.desc.Dim != 2:
		return nil, unsupportedf("a %dD texture (bindless textures are 2D)", t.desc.Dim)
	case e.d.texLayout != 0:
		return t, checkNativeTexture(arr, sl, t)
	case !decodable:
		return nil, unsupportedf("texture format %v (emulated sampling reads 1, 2 or 4 channels of Float32, Float16 or Unorm8)", t.desc.Format)
	}
	return t, nil
}

// setTexture puts texture sl.Texture with its sampler in a slot, writing the
// record into rec. The mirror is filled by the next dispatch's refresh.
func (e *encoder) setTexture(arr *bindless, sl device.BindlessSlot, rec []byte) error {
	t, err := e.checkTexture(arr, sl)
	if err != nil {
		return err
	}
	code, decodable := texFormatCode(t.desc.Format)
	ext := t.extent(0)
	if e.d.texLayout != 0 {
		if err := e.setNativeTexture(arr, sl, t); err != nil {
			return err
		}
		if !decodable {
			// No mirror: kernels compiled for the emulated path see the
			// slot empty; native ones sample it.
			arr.clearMirror(sl.Slot)
			textureRecord(rec, 0, 0, ext[0], ext[1], 0, sl.Sampler)
			return nil
		}
	}
	n := uint64(ext[0]) * uint64(ext[1]) * uint64(t.desc.Format.PixelSize())
	// With native texture slots the mirror is only for kernels compiled for
	// the emulated path (ahead of time): it is allocated, and the record
	// pointed at it, by the first such dispatch (refreshTextures).
	m, err := arr.mirrorFor(sl.Slot, n, e.d.texLayout != 0)
	if err != nil {
		return err
	}
	m.tex = sl.Texture
	var addr uint64
	if m.raw != nil {
		addr = m.raw.addr
	}
	textureRecord(rec, addr, n, ext[0], ext[1], code, sl.Sampler)
	return nil
}

// mirrorFor returns slot's mirror, with room for n texel bytes; lazy leaves
// a mirror that must grow unallocated (raw nil).
func (b *bindless) mirrorFor(slot uint32, n uint64, lazy bool) (*mirror, error) {
	b.texMu.Lock()
	defer b.texMu.Unlock()
	if b.mirrors == nil {
		b.mirrors = map[uint32]*mirror{}
	}
	if m := b.mirrors[slot]; m != nil && m.raw != nil && m.raw.size >= n+mirrorSpare {
		m.size = n
		return m, nil
	} else if m != nil && m.raw != nil {
		b.retired = append(b.retired, m.raw)
	}
	if lazy {
		m := &mirror{size: n}
		b.mirrors[slot] = m
		return m, nil
	}
	raw, err := b.d.mem.newRawBuffer(n+mirrorSpare, placeDevice)
	if err != nil {
		return nil, err
	}
	m := &mirror{raw: raw, size: n}
	b.mirrors[slot] = m
	return m, nil
}

// clearTexture forgets the texture in slot (its mirror stays for reuse).
func (b *bindless) clearTexture(slot uint32) {
	b.clearMirror(slot)
	b.texMu.Lock()
	delete(b.heap.slots, slot) // its descriptor is never read again: the record says empty
	b.texMu.Unlock()
}

// clearMirror stops refreshing slot's mirror.
func (b *bindless) clearMirror(slot uint32) {
	b.texMu.Lock()
	if m := b.mirrors[slot]; m != nil {
		m.tex = 0
	}
	b.texMu.Unlock()
}

// mirrorRefreshes counts the texture-to-mirror copies recorded, for tests.
var mirrorRefreshes atomic.Int64

// refreshTextures copies every texture slot's texture into its mirror, ahead
// of a dispatch that binds the array and reads its texture slots.
func (e *encoder) refreshTextures(arr *bindless) error {
	arr.texMu.Lock()
	defer arr.texMu.Unlock()
	for slot, m := range arr.mirrors {
		if m.tex == 0 {
			continue
		}
		t, err := e.texture(m.tex)
		if err != nil {
			return invalidf("bindless array slot %d: %v", slot, err)
		}
		if ext := t.extent(0); uint64(ext[0])*uint64(ext[1])*uint64(t.desc.Format.PixelSize()) != m.size {
			return invalidf("bindless array slot %d: texture %d changed size", slot, m.tex)
		}
		if m.raw == nil {
			// A lazy mirror's first use: allocate it and point the slot's
			// record at it, ordered before the dispatch reads the record.
			raw, err := e.d.mem.newRawBuffer(m.size+mirrorSpare, placeDevice)
			if err != nil {
				return fmt.Errorf("bindless array slot %d: mirror of %d bytes: %w", slot, m.size, err)
			}
			m.raw = raw
			off := len(e.pushArena)
			e.pushArena = binary.LittleEndian.AppendUint64(e.pushArena, raw.addr)
			e.pushArena = binary.LittleEndian.AppendUint64(e.pushArena, m.size)
			at := uint64(slot) * slotRecordSize
			e.order(stageCopy, accessTransferWrite, use{arr, at, at + 16, true})
			e.batch.CmdUpdateBuffer(e.cmd, arr.table.raw.handle, vk.DeviceSize(at), 16, unsafe.Pointer(&e.pushArena[off]))
		}
		mirrorRefreshes.Add(1)
		e.transition(t, 0, 1, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)
		e.order(stageCopy, accessTransferWrite, use{t, 0, ^uint64(0), false}, use{m, 0, m.size, true})
		r := t.copyRegion(0, 0, [3]uint32{}, t.extent(0))
		e.batch.CmdCopyImageToBuffer(e.cmd, t.image, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, m.raw.handle, 1, &r)
	}
	return nil
}

// releaseMirrors frees every mirror of the array (the GPU is done with it).
func (b *bindless) releaseMirrors() {
	b.texMu.Lock()
	defer b.texMu.Unlock()
	for _, m := range b.mirrors {
		if m.raw != nil {
			b.d.mem.destroyRawBuffer(m.raw)
		}
	}
	for _, r := range b.retired {
		b.d.mem.destroyRawBuffer(r)
	}
	b.mirrors, b.retired = nil, nil
}
