package cpu

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// bindless is a bindless array: slots of buffer ranges and 2D textures with
// their samplers. An update takes effect when it is submitted, and a
// dispatch takes the slots as they are when it is submitted (as the Vulkan
// backend's host-written tables do), so work already queued keeps its view.
type bindless struct {
	mu   sync.Mutex
	host []bslot
}

type bslot struct {
	buf     []byte  // a buffer range (nil: none)
	b       *buffer // the range's buffer (the race detector's shadow)
	isBuf   bool
	tex     *texture
	sampler device.Sampler
}

// index is s's slot in slots, which holds it.
func (s *bslot) index(slots []bslot) int {
	return int((uintptr(unsafe.Pointer(s)) - uintptr(unsafe.Pointer(unsafe.SliceData(slots)))) / unsafe.Sizeof(bslot{}))
}

// maxBindlessSlots is the largest bindless array the backend makes (its
// slots are Go values, allocated at once).
const maxBindlessSlots = 1 << 20

func (d *Device) CreateBindlessArray(size uint32) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	switch {
	case size == 0:
		return 0, fmt.Errorf("cpu: CreateBindlessArray: %w: 0 slots", device.ErrInvalidArgument)
	case size > maxBindlessSlots:
		// A size the device package allows (up to 1<<24): the backend's limit.
		return 0, fmt.Errorf("cpu: CreateBindlessArray: %w: %d slots, beyond the backend's %d", device.ErrUnsupported, size, maxBindlessSlots)
	}
	return d.add(&bindless{host: make([]bslot, size)}), nil
}

func (d *Device) DestroyBindlessArray(h device.Handle) error {
	_, err := remove[*bindless](d, h, "bindless array")
	return err
}

// check refuses an array with a destroyed buffer or texture in a slot (as
// submitted so far).
func (b *bindless) check() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, s := range b.host {
		if s.tex != nil && s.tex.destroyed.Load() {
			return fmt.Errorf("slot %d holds a destroyed texture (empty or refill the slot and Update): %w", i, device.ErrClosed)
		}
		if s.b != nil && s.b.destroyed.Load() {
			return fmt.Errorf("slot %d holds a destroyed buffer (empty or refill the slot and Update): %w", i, device.ErrClosed)
		}
	}
	return nil
}

func (b *bindless) snapshot() []bslot {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.host // never written after it is published
}

// emulatedTexture reports whether a texture format can sit in a slot: 1, 2
// or 4 channels of 32-bit float, 16-bit float or 8-bit unorm, as on the
// Vulkan backend's emulated path.
func emulatedTexture(f device.Format) bool {
	if n := f.Channels(); n == 3 {
		return false
	}
	return f.Kind() == device.Float || f.Kind() == device.Unorm && f.Bits() == 8
}

// bindlessUndo is what the updates of the list being prepared changed: each
// array's slots before the list's first update of it, and as its last left
// them. A list refused for a later command puts them back (Dispatch), so
// that an update takes effect only with its list, as on the device.
type bindlessUndo []struct {
	arr         *bindless
	before, now []bslot
}

// undo restores the arrays the refused list changed, where no other list
// changed them since.
func (u bindlessUndo) undo() {
	for i := len(u) - 1; i >= 0; i-- {
		e := u[i]
		e.arr.mu.Lock()
		if unsafe.SliceData(e.arr.host) == unsafe.SliceData(e.now) {
			e.arr.host = e.before
		}
		e.arr.mu.Unlock()
	}
}

func (d *Device) prepareBindless(c *device.BindlessUpdate, undo *bindlessUndo) (func() error, error) {
	arr, err := lookup[*bindless](d, c.Array, "bindless array")
	if err != nil {
		return nil, err
	}
	n := uint32(len(arr.host))
	type change struct {
		slot uint32
		s    bslot
	}
	changes := make([]change, 0, len(c.Slots))
	for _, s := range c.Slots {
		if s.Slot >= n {
			return nil, fmt.Errorf("%w: slot %d of a %d-slot bindless array", device.ErrInvalidArgument, s.Slot, n)
		}
		switch s.Op {
		case device.BindlessSetBuffer:
			b, err := lookup[*buffer](d, s.Buffer, "buffer")
			if err != nil {
				return nil, fmt.Errorf("slot %d: %w", s.Slot, err)
			}
			size := s.Size
			if size == device.WholeSize {
				if s.Offset > uint64(len(b.data)) {
					return nil, fmt.Errorf("%w: slot %d: offset %d past buffer %d's %d bytes", device.ErrInvalidArgument, s.Slot, s.Offset, s.Buffer, len(b.data))
				}
				size = uint64(len(b.data)) - s.Offset
			}
			span, err := span(d, s.Buffer, s.Offset, size, fmt.Sprintf("slot %d", s.Slot))
			if err != nil {
				return nil, err
			}
			changes = append(changes, change{s.Slot, bslot{buf: span, b: b, isBuf: true}})
		case device.BindlessSetTexture:
			t, err := lookup[*texture](d, s.Texture, "texture")
			if err != nil {
				return nil, fmt.Errorf("slot %d: %w", s.Slot, err)
			}
			if t.desc.Dim != 2 {
				return nil, fmt.Errorf("%w: slot %d: a %dD texture (slots hold 2D textures)", device.ErrUnsupported, s.Slot, t.desc.Dim)
			}
			if !emulatedTexture(t.desc.Format) {
				return nil, fmt.Errorf("%w: slot %d: format %v (bindless texture slots take 1, 2 or 4 channels of 32- or 16-bit float or 8-bit unorm)", device.ErrUnsupported, s.Slot, t.desc.Format)
			}
			if !s.Sampler.Valid() {
				return nil, fmt.Errorf("%w: slot %d: sampler %v", device.ErrInvalidArgument, s.Slot, s.Sampler)
			}
			changes = append(changes, change{s.Slot, bslot{tex: t, sampler: s.Sampler}})
		case device.BindlessRemove:
			changes = append(changes, change{s.Slot, bslot{}})
		default:
			return nil, fmt.Errorf("%w: slot %d: op %d", device.ErrInvalidArgument, s.Slot, s.Op)
		}
	}
	arr.mu.Lock()
	next := append([]bslot(nil), arr.host...) // copy on write: dispatches hold the old slice
	for _, ch := range changes {
		next[ch.slot] = ch.s
	}
	mine := false
	for i := range *undo {
		if e := &(*undo)[i]; e.arr == arr {
			e.now, mine = next, true
		}
	}
	if !mine {
		*undo = append(*undo, struct {
			arr         *bindless
			before, now []bslot
		}{arr, arr.host, next})
	}
	arr.host = next
	arr.mu.Unlock()
	return nil, nil
}

// bindlessOp compiles the bindless built-ins. Accesses past a slot's range,
// to an empty slot or one of the other kind read zero and drop writes: the
// contract of the ops, on every backend. In the checked mode a read or
// write through a slot past the array or holding nothing faults
// (FaultBindlessSlot), and one past the slot's buffer FaultBufferIndex; size
// queries never do.
func (c *compiler) bindlessOp(e *ir.Call) ex {
	r, ok := e.Args[0].(*ir.Ref)
	if !ok || r.Var.Kind != ir.VarArg {
		refuse(unsupported("%s on a bindless array that is not a kernel argument", e.Op))
	}
	k := c.params[r.Var]
	slot := c.expr(e.Args[1]).s
	get := func(t *th) *bslot {
		s := slot(t)
		sl := t.run.binds[k]
		if s >= uint64(len(sl)) {
			return nil
		}
		return &sl[s]
	}
	// The race detector's: the site of a read or write, and the index of
	// slot s of thread t.
	var rsite uint32
	if c.race {
		switch e.Op {
		case ir.OpBindlessRead:
			rsite = c.newResourceSite(r.Var, false, e.T)
		case ir.OpBindlessWrite:
			rsite = c.newResourceSite(r.Var, true, e.Args[3].Type())
		case ir.OpBindlessTexRead, ir.OpBindlessTexSample:
			rsite = c.newResourceSite(r.Var, false, nil)
		}
	}
	touch := func(t *th, s *bslot) raceTouch {
		return raceTouch{t: t, site: rsite, slot: uint32(s.index(t.run.binds[k]))}
	}
	if c.checked && e.Op != ir.OpBindlessSize && e.Op != ir.OpBindlessTexSize {
		// The checked mode: a slot past the array or holding nothing faults.
		label, unchecked := c.argSite(r.Var), get
		get = func(t *th) *bslot {
			s := unchecked(t)
			if s == nil || (!s.isBuf && s.tex == nil) {
				label.fault(device.FaultBindlessSlot, slot(t), uint64(len(t.run.binds[k])))
			}
			return s
		}
	}
	switch e.Op {
	case ir.OpBindlessSize:
		es := e.Args[2].(*ir.Literal).Bits
		return scalarEx(func(t *th) uint64 {
			if s := get(t); s != nil && s.isBuf {
				return uint64(uint32(uint64(len(s.buf)) / es))
			}
			return 0
		})
	case ir.OpBindlessRead, ir.OpBindlessWrite:
		idx := c.expr(e.Args[2]).s
		t := e.T
		if e.Op == ir.OpBindlessWrite {
			t = e.Args[3].Type()
		}
		lay, size := layout(t), uint64(t.Size())
		n := ir.Leaves(t)
		if c.checked {
			// The checked mode: an index past the slot's buffer faults.
			label, unchecked := c.argSite(r.Var), get
			label.what += ", the buffer in its slot"
			get = func(t *th) *bslot {
				s := unchecked(t)
				if i := idx(t); s != nil && s.isBuf && (i*size+size > uint64(len(s.buf)) || i*size/size != i) {
					label.fault(device.FaultBufferIndex, i, uint64(len(s.buf))/size)
				}
				return s
			}
		}
		if e.Op == ir.OpBindlessRead {
			return ex{n: n, v: func(th *th, d []uint64) {
				s := get(th)
				off := idx(th) * size
				if s == nil || !s.isBuf || off+size > uint64(len(s.buf)) || off/size != idx(th) {
					clear(d[:n])
					return
				}
				if rsite != 0 {
					rt := touch(th, s)
					th.raceSlotBuffer(rt.site, rt.slot, off, size)
				}
				for i, l := range lay {
					d[i] = getLeaf(s.buf[off+uint64(l.off):], l.size)
				}
			}}
		}
		vo, ve := c.agg(c.expr(e.Args[3]))
		return ex{v: func(th *th, _ []uint64) {
			ve(th)
			s := get(th)
			i := idx(th)
			off := i * size
			if s == nil || !s.isBuf || off+size > uint64(len(s.buf)) || off/size != i {
				return
			}
			if rsite != 0 {
				rt := touch(th, s)
				th.raceSlotBuffer(rt.site, rt.slot, off, size)
			}
			for j, l := range lay {
				putLeaf(s.buf[off+uint64(l.off):], l.size, th.r[vo+j])
			}
		}}
	case ir.OpBindlessTexSize:
		return ex{n: 2, v: func(t *th, d []uint64) {
			d[0], d[1] = 0, 0
			if s := get(t); s != nil && s.tex != nil {
				d[0], d[1] = uint64(s.tex.desc.Width), uint64(s.tex.desc.Height)
			}
		}}
	case ir.OpBindlessTexRead:
		co, ce := c.agg(c.expr(e.Args[2]))
		return ex{n: 4, v: func(t *th, d []uint64) {
			ce(t)
			clear(d[:4])
			s := get(t)
			if s == nil || s.tex == nil {
				return
			}
			x, y := t.r[co], t.r[co+1]
			if x >= uint64(s.tex.desc.Width) || y >= uint64(s.tex.desc.Height) {
				return
			}
			v := texView{data: s.tex.levels[0], ext: s.tex.desc.LevelExtent(0), format: s.tex.desc.Format}
			if rsite != 0 {
				touch(t, s).texel(y*uint64(v.ext[0]) + x)
			}
			v.readTexel(y*uint64(v.ext[0])+x, d)
		}}
	case ir.OpBindlessTexSample:
		co, ce := c.agg(c.expr(e.Args[2]))
		return ex{n: 4, v: func(t *th, d []uint64) {
			ce(t)
			clear(d[:4])
			s := get(t)
			if s == nil || s.tex == nil {
				return
			}
			v := texView{data: s.tex.levels[0], ext: s.tex.desc.LevelExtent(0), format: s.tex.desc.Format}
			var rt raceTouch
			if rsite != 0 {
				rt = touch(t, s)
			}
			out := sample2D(&v, s.sampler, f32(t.r[co]), f32(t.r[co+1]), rt)
			for i := range 4 {
				d[i] = uf32(out[i])
			}
		}}
	}
	refuse(unsupported("built-in %s", e.Op))
	return ex{}
}

// sample2D filters level 0 of a slot's texture at normalised (u, v) as the
// sampler says, by the rules of kernel.Texture2D's sampler (the CPU
// reference of the Vulkan backend's emulation): texel centres at +0.5,
// nearest for point filtering, else bilinear on level 0; AddressZero's
// border is transparent black, with alpha 1 for formats without alpha. Each
// texel fetched goes to rt (the race detector's).
func sample2D(v *texView, s device.Sampler, u, w float32, rt raceTouch) [4]float32 {
	wd, ht := v.ext[0], v.ext[1]
	px, py := u*float32(wd), w*float32(ht)
	point := s.Filter == device.FilterPoint
	if !point {
		px, py = px-0.5, py-0.5
	}
	fx, fy := float32(math.Floor(float64(px))), float32(math.Floor(float64(py)))
	i0, j0 := texelIndex(px), texelIndex(py)
	var border [4]float32
	if v.format.Channels() < 4 {
		border[3] = 1
	}
	tap := func(i, j int64) [4]float32 {
		x, okx := address(s.Address, i, int64(wd))
		y, oky := address(s.Address, j, int64(ht))
		if !okx || !oky {
			return border
		}
		var d [4]uint64
		rt.texel(uint64(y)*uint64(wd) + uint64(x))
		v.readTexel(uint64(y)*uint64(wd)+uint64(x), d[:])
		return [4]float32{f32(d[0]), f32(d[1]), f32(d[2]), f32(d[3])}
	}
	if point {
		return tap(i0, j0)
	}
	ax, ay := px-fx, py-fy
	mix := func(a, b [4]float32, t float32) [4]float32 {
		return [4]float32{a[0]*(1-t) + b[0]*t, a[1]*(1-t) + b[1]*t, a[2]*(1-t) + b[2]*t, a[3]*(1-t) + b[3]*t}
	}
	top := mix(tap(i0, j0), tap(i0+1, j0), ax)
	bottom := mix(tap(i0, j0+1), tap(i0+1, j0+1), ax)
	return mix(top, bottom, ay)
}

func address(a device.Address, i, n int64) (int64, bool) {
	switch a {
	case device.AddressRepeat:
		return (i%n + n) % n, true
	case device.AddressMirror:
		m := (i%(2*n) + 2*n) % (2 * n)
		if m >= n {
			m = 2*n - 1 - m
		}
		return m, true
	}
	return min(max(i, 0), n-1), a != device.AddressZero || i >= 0 && i < n
}

func texelIndex(p float32) int64 {
	f := math.Floor(float64(p))
	if !(f >= math.MinInt32 && f <= math.MaxInt32) {
		return math.MinInt32
	}
	return int64(f)
}
