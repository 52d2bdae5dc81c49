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
			e.logSlot(arr, slot)
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

// texUndo is how a command list's updates left the texture slots of the
// arrays they changed before they changed them: the host's record (mirrors,
// descriptors) moves with each update as it is encoded, for the dispatches
// after it in the list, while the device's slots change only when the list
// is submitted. A list refused for a later command puts the record back
// (undoTextures), so that a later dispatch does not read the old slot's
// texels under the new texture's size and format.
type texUndo struct {
	slots  []slotUndo
	arrays []arrayUndo
}

// slotUndo is one texture slot before a change of the list.
type slotUndo struct {
	arr   *bindless
	slot  uint32
	m     *mirror // the slot's mirror (nil: none)
	mv    mirror  // its value
	td    texDesc
	hadTd bool
}

// arrayUndo is an array's texture state before the list's first change.
type arrayUndo struct {
	arr     *bindless
	retired int
	cur     *texSet
	written bool // the list wrote descriptors (in place or into a new version)
}

// logSlot notes slot's texture state before the list changes it;
// arr.texMu held.
func (e *encoder) logSlot(arr *bindless, slot uint32) {
	u := &e.texUndo
	seen := false
	for i := range u.arrays {
		if u.arrays[i].arr == arr {
			seen = true
			break
		}
	}
	if !seen {
		u.arrays = append(u.arrays, arrayUndo{arr: arr, retired: len(arr.retired), cur: arr.heap.cur})
	}
	su := slotUndo{arr: arr, slot: slot, m: arr.mirrors[slot]}
	if su.m != nil {
		su.mv = *su.m
	}
	su.td, su.hadTd = arr.heap.slots[slot]
	u.slots = append(u.slots, su)
}

// logTextures is logSlot taking arr.texMu.
func (e *encoder) logTextures(arr *bindless, slot uint32) {
	arr.texMu.Lock()
	e.logSlot(arr, slot)
	arr.texMu.Unlock()
}

// wroteTextures notes that the list wrote arr's descriptors; arr.texMu held.
func (e *encoder) wroteTextures(arr *bindless) {
	for i := range e.texUndo.arrays {
		if e.texUndo.arrays[i].arr == arr {
			e.texUndo.arrays[i].written = true
		}
	}
}

// undoTextures puts back the texture slots the refused list changed, and
// frees the mirrors it allocated (only its own commands, never submitted,
// referred to them).
func (e *encoder) undoTextures() {
	u := &e.texUndo
	for _, a := range u.arrays {
		arr := a.arr
		arr.texMu.Lock()
		made := map[*rawBuffer]bool{}
		for _, su := range u.slots {
			if su.arr == arr {
				if m := arr.mirrors[su.slot]; m != nil && m.raw != nil {
					made[m.raw] = true
				}
			}
		}
		for _, r := range arr.retired[a.retired:] {
			made[r] = true
		}
		for i := len(u.slots) - 1; i >= 0; i-- {
			su := u.slots[i]
			if su.arr != arr {
				continue
			}
			if su.m != nil {
				*su.m = su.mv
				arr.mirrors[su.slot] = su.m
			} else {
				delete(arr.mirrors, su.slot)
			}
			if su.hadTd {
				arr.heap.slots[su.slot] = su.td
			} else {
				delete(arr.heap.slots, su.slot)
			}
		}
		for _, su := range u.slots {
			if su.arr == arr && su.m != nil && su.m.raw != nil {
				delete(made, su.m.raw) // the slot's own again
			}
		}
		arr.retired = arr.retired[:a.retired]
		for r := range made {
			arr.d.mem.destroyRawBuffer(r)
		}
		h := &arr.heap
		h.changed = h.changed[:0]
		if a.written || h.cur != a.cur {
			// The current version holds the list's descriptors: it becomes a
			// spare (rewritten in full when reused), and the next dispatch
			// binding the array writes a version of the slots as they are.
			if h.cur != nil {
				h.spare = append(h.spare, h.cur)
			}
			h.cur = nil
		}
		arr.texMu.Unlock()
	}
	e.resetTextures()
}

// resetTextures forgets the list's texture undo log.
func (e *encoder) resetTextures() {
	clear(e.texUndo.slots)
	e.texUndo.slots = e.texUndo.slots[:0]
	clear(e.texUndo.arrays)
	e.texUndo.arrays = e.texUndo.arrays[:0]
}
