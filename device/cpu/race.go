package cpu

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// The race detector (device.WithRaceDetector): every load, store and atomic
// of shared memory and of buffer arguments goes through a shadow cell of
// the element it touches, holding the last write and up to two reads, each
// as (block, epoch, thread, site). An epoch is a worker's count of barrier
// rounds and block starts, so within a block two accesses are ordered when
// their epochs differ or one thread made both; accesses of different blocks
// to a buffer are never ordered (no barrier spans blocks). For example, in
//
//	tile[tid] = in[i]            // site 1, epoch 7
//	out[i] = tile[127-tid]       // site 2, epoch 7: no barrier between
//
// thread 0 writes cell 0 of tile at epoch 7 and thread 127 reads it at
// epoch 7: a conflicting pair, reported with both threads and sites. With
// a barrier between, the read is at epoch 8 and ordered after the write.
//
// A write clears the reads it ordered after (a later write that races with
// them races with it too). Reads keep two slots, of two threads not ordered
// with each other; a third concurrent reader is not kept, so a race among
// three or more readers and a writer may be reported with another of the
// readers, never missed when the writer races with a kept one. Two atomics
// never race with each other; an atomic and a plain access do.
//
// Textures are shadowed per level, a cell per texel: a read, a write and
// each texel a filtered read (texture_sample, a bindless sample) fetches
// (the 4 or 8 corners of a bilinear or trilinear filter, clamped to the
// edge, whatever their weights: a texel weighted 0 still enters the result,
// an infinity making it NaN) is an access of its cell. A buffer or texture
// reached through a bindless array's slot has the shadow of the buffer or
// texture level 0 itself, one for the dispatch however it is reached.
//
// Shared memory's shadow belongs to the worker (one block at a time, one
// goroutine), so it takes no lock; a buffer's or texture's shadow, shared
// by every worker, locks a stripe of its cells. Cells are allocated by
// page, as first touched.

// raceSite is one instrumented access of the kernel.
type raceSite struct {
	pos           string // the position of the access's statement (ir.StmtPos), if the kernel carries one
	write, atomic bool
	arg           int     // the buffer, texture or bindless argument accessed, or -1 (shared memory)
	elem          int64   // bytes of the buffer's element (the reported index is in these)
	bindless      bool    // through a slot of bindless argument arg
	leaf          uintptr // a bindless buffer access: its smallest leaf
}

// raceAccess is one access as the shadow keeps it; site 0 is none.
type raceAccess struct {
	blk    uint64 // the block's linear id
	ep     uint32 // the worker's epoch
	tid    uint32 // the thread's linear id in its block
	site   uint32 // 1 + index into program.raceSites
	slot   uint32 // the bindless slot, for a site through one
	atomic bool
}

type raceCell struct{ w, r0, r1 raceAccess }

const racePageCells = 1024

// raceLock is a stripe's lock, alone in its cache line: the workers take
// their blocks' stripes at once.
type raceLock struct {
	sync.Mutex
	_ [56]byte
}

// raceStripe is the stripe of cell c: runs of 128 cells (about a block's
// elements) take turns over the locks.
func raceStripe(c uintptr, n int) int { return int(c>>7) % n }

type racePage [racePageCells]raceCell

// raceRegion is the shadow of one piece of memory: a shared variable of a
// worker's blockState, or a buffer or texture level a dispatch reaches.
type raceRegion struct {
	base, size uintptr // the bytes shadowed
	gran       uintptr // bytes per cell
	pages      []atomic.Pointer[racePage]
	locks      []raceLock // per stripe of cells; nil for shared memory
	shared     bool       // a shared variable: accesses of different blocks never meet
	what       string     // the shared variable's name, for reports
	elemLeaves int        // leaves per element of the shared variable (reported index)
	texel      bool       // a texture level: a cell per texel
	dim        int        // the texture's
	ext        [3]uint32  // the level's extent
	level      uint32
}

func newRaceRegion(base unsafe.Pointer, size, gran uintptr, shared bool) *raceRegion {
	r := &raceRegion{base: uintptr(base), size: size, gran: gran, shared: shared}
	cells := (size + gran - 1) / gran
	r.pages = make([]atomic.Pointer[racePage], (cells+racePageCells-1)/racePageCells)
	if !shared {
		r.locks = make([]raceLock, 64)
	}
	return r
}

func (r *raceRegion) cell(i uintptr) *raceCell {
	pg := &r.pages[i/racePageCells]
	p := pg.Load()
	if p == nil {
		p = new(racePage)
		if !pg.CompareAndSwap(nil, p) {
			p = pg.Load()
		}
	}
	return &p[i%racePageCells]
}

// ordered reports whether access a happens before b, both of one region,
// with a made first.
func (r *raceRegion) ordered(a, b raceAccess) bool {
	if !r.shared && a.blk != b.blk {
		return false
	}
	return a.ep < b.ep || a.tid == b.tid
}

// access checks access a of bytes [off, off+n) of r against the shadow and
// records it; each conflicting pair goes to l's report with the cell's index.
func (r *raceRegion) access(l *launch, a raceAccess, write bool, off, n uintptr) {
	if n == 0 {
		return
	}
	for c := off / r.gran; c <= (off+n-1)/r.gran; c++ {
		var mu *sync.Mutex
		if r.locks != nil {
			mu = &r.locks[raceStripe(c, len(r.locks))].Mutex
			mu.Lock()
		}
		s := r.cell(c)
		var conflict raceAccess
		switch {
		case s.w.site != 0 && !r.ordered(s.w, a) && !(s.w.atomic && a.atomic):
			conflict = s.w
		case write && s.r0.site != 0 && !r.ordered(s.r0, a):
			conflict = s.r0
		case write && s.r1.site != 0 && !r.ordered(s.r1, a):
			conflict = s.r1
		}
		if write {
			s.w, s.r0, s.r1 = a, raceAccess{}, raceAccess{}
		} else {
			switch {
			case s.r0.site == 0 || r.ordered(s.r0, a):
				s.r0 = a
			case s.r1.site == 0 || r.ordered(s.r1, a):
				s.r1 = a
			}
		}
		if mu != nil {
			mu.Unlock()
		}
		if conflict.site != 0 {
			l.raceFound(r, c, conflict, a)
		}
	}
}

// raceState is one dispatch's detector: the shadows of the buffers and
// textures it reaches and what it found.
type raceState struct {
	bufs []*raceRegion // per argument: its buffer's or texture level's shadow (arguments binding one share it), or nil
	offs []uintptr     // per argument: the byte offset of its range in the buffer
	// Per bindless argument, per slot: the shadow of what the slot holds,
	// made when first reached.
	slots   [][]atomic.Pointer[raceSlot]
	binds   [][]bslot
	gran    uintptr             // the smallest leaf of the kernel's bindless buffer accesses (0: none)
	regions map[any]*raceRegion // by *buffer or raceTex (under mu)

	mu    sync.Mutex
	count int
	first *device.KernelRace
}

// raceSlot is a bindless slot's view of its shadow.
type raceSlot struct {
	r   *raceRegion // nil: the slot holds nothing
	off uintptr     // a buffer range's byte offset in its buffer
}

// raceTex keys a texture level's shadow.
type raceTex struct {
	t     *texture
	level uint32
}

// raceBuffer is what prepareDispatch learns of a buffer argument for the detector.
type raceBuffer struct {
	b    *buffer
	off  uintptr
	leaf uintptr // the smallest leaf of the argument's element type
}

// newRaceState makes the shadows of a dispatch's buffer and texture
// arguments: one per buffer, its cells as small as the smallest leaf any
// argument binding it (or any bindless access) accesses, and one per
// texture level; those of bindless slots come when first reached.
func newRaceState(l *launch, args []raceBuffer) *raceState {
	rs := &raceState{bufs: make([]*raceRegion, len(args)), offs: make([]uintptr, len(args)), regions: map[any]*raceRegion{}, binds: l.binds}
	for _, s := range l.prog.raceSites {
		if s.leaf != 0 && (rs.gran == 0 || s.leaf < rs.gran) {
			rs.gran = s.leaf
		}
	}
	gran := map[*buffer]uintptr{}
	for _, a := range args {
		if a.b == nil || len(a.b.data) == 0 {
			continue
		}
		if g, ok := gran[a.b]; !ok || a.leaf < g {
			gran[a.b] = a.leaf
		}
	}
	for i, a := range args {
		switch {
		case a.b != nil && len(a.b.data) > 0:
			rs.bufs[i], rs.offs[i] = rs.bufferRegion(a.b, gran[a.b]), a.off
		case i < len(l.texs) && l.texs[i] != nil:
			rs.bufs[i] = rs.textureRegion(l.texs[i].tex, l.texs[i].level)
		}
	}
	if l.binds != nil {
		rs.slots = make([][]atomic.Pointer[raceSlot], len(l.binds))
		for i, b := range l.binds {
			rs.slots[i] = make([]atomic.Pointer[raceSlot], len(b))
		}
	}
	return rs
}

// bufferRegion is buffer b's shadow, made with cells of gran bytes (or the
// bindless accesses' smaller leaf) if there is none yet; under mu, or
// before the workers start.
func (rs *raceState) bufferRegion(b *buffer, gran uintptr) *raceRegion {
	if r := rs.regions[b]; r != nil {
		return r
	}
	if rs.gran != 0 && (gran == 0 || rs.gran < gran) {
		gran = rs.gran
	}
	r := newRaceRegion(unsafe.Pointer(unsafe.SliceData(b.data)), uintptr(len(b.data)), gran, false)
	rs.regions[b] = r
	return r
}

// textureRegion is the shadow of level of t, a cell per texel.
func (rs *raceState) textureRegion(t *texture, level uint32) *raceRegion {
	k := raceTex{t, level}
	if r := rs.regions[k]; r != nil {
		return r
	}
	data := t.levels[level]
	r := newRaceRegion(unsafe.Pointer(unsafe.SliceData(data)), uintptr(len(data)), uintptr(t.desc.Format.PixelSize()), false)
	r.texel, r.dim, r.ext, r.level = true, int(t.desc.Dim), t.desc.LevelExtent(level), level
	rs.regions[k] = r
	return r
}

// slot is the shadow of slot s of bindless argument k.
func (rs *raceState) slot(k int, s uint32) *raceSlot {
	p := &rs.slots[k][s]
	if v := p.Load(); v != nil {
		return v
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if v := p.Load(); v != nil {
		return v
	}
	v := &raceSlot{}
	switch b := &rs.binds[k][s]; {
	case b.isBuf && b.b != nil && len(b.buf) > 0:
		v.r = rs.bufferRegion(b.b, 0)
		v.off = uintptr(unsafe.Pointer(unsafe.SliceData(b.buf))) - uintptr(unsafe.Pointer(unsafe.SliceData(b.b.data)))
	case b.tex != nil:
		v.r = rs.textureRegion(b.tex, 0)
	}
	p.Store(v)
	return v
}

// smallestLeaf is the size of the smallest scalar in t's layout.
func smallestLeaf(t *ir.Type) uintptr {
	m := 8
	for _, l := range layout(t) {
		m = min(m, l.size)
	}
	return uintptr(m)
}

// raceShared makes the shadows of a worker's shared variables.
func (p *program) raceShared(bs *blockState) {
	for k, s := range bs.shared {
		if len(s) == 0 {
			bs.race = append(bs.race, nil)
			continue
		}
		r := newRaceRegion(unsafe.Pointer(unsafe.SliceData(s)), 8*uintptr(len(s)), 8, true)
		r.what, r.elemLeaves = p.sharedWhat[k], p.sharedElem[k]
		bs.race = append(bs.race, r)
	}
}

// me is thread t's access at site (through slot, for a bindless site).
func (t *th) me(site, slot uint32, atomic bool) raceAccess {
	g, b := t.run.groups, t.run.block
	return raceAccess{
		blk:  uint64(t.bid[0]) + uint64(g[0])*(uint64(t.bid[1])+uint64(g[1])*uint64(t.bid[2])),
		ep:   t.blk.epoch,
		tid:  t.tid[0] + b[0]*(t.tid[1]+b[1]*t.tid[2]),
		site: site, slot: slot, atomic: atomic,
	}
}

// raceBufferAccess checks thread t's access at site of n bytes at byte o of
// buffer argument k.
func (t *th) raceBufferAccess(site uint32, o int, n int) {
	rs := t.run.race
	s := &t.run.prog.raceSites[site-1]
	r := rs.bufs[s.arg]
	if r == nil {
		return
	}
	r.access(t.run, t.me(site, 0, s.atomic), s.write, rs.offs[s.arg]+uintptr(o), uintptr(n))
}

// raceSlotBuffer checks thread t's access at site of n bytes at byte o of
// the buffer range in slot of its bindless argument.
func (t *th) raceSlotBuffer(site, slot uint32, o uint64, n uint64) {
	s := &t.run.prog.raceSites[site-1]
	v := t.run.race.slot(s.arg, slot)
	if v.r == nil || v.r.texel {
		return
	}
	v.r.access(t.run, t.me(site, slot, s.atomic), s.write, v.off+uintptr(o), uintptr(n))
}

// raceTouch is where a texel access is checked: a thread's at a site (t
// nil: none, the detector is off), through a slot or an argument.
type raceTouch struct {
	t          *th
	site, slot uint32
}

// texel checks the access of texel i.
func (rt raceTouch) texel(i uint64) {
	if rt.t == nil {
		return
	}
	t := rt.t
	s := &t.run.prog.raceSites[rt.site-1]
	var r *raceRegion
	if s.bindless {
		r = t.run.race.slot(s.arg, rt.slot).r
	} else {
		r = t.run.race.bufs[s.arg]
	}
	if r == nil || !r.texel {
		return
	}
	r.access(t.run, t.me(rt.site, rt.slot, false), s.write, uintptr(i)*r.gran, r.gran)
}

// raceSharedAccess checks thread t's access at site of n leaves at p, if p
// lies in one of the block's shared variables (a by-reference parameter
// may also name a local).
func (t *th) raceSharedAccess(site uint32, p *uint64, n int) {
	a := uintptr(unsafe.Pointer(p))
	for _, r := range t.blk.race {
		if r == nil || a-r.base >= r.size {
			continue
		}
		s := &t.run.prog.raceSites[site-1]
		r.access(t.run, t.me(site, 0, s.atomic), s.write, a-r.base, 8*uintptr(n))
		return
	}
}

// raceFound records a conflicting pair of accesses to cell of r.
func (l *launch) raceFound(r *raceRegion, cell uintptr, first, second raceAccess) {
	rs := l.race
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.count++
	if rs.first != nil {
		return
	}
	what := l.raceWhat(r, first)
	kr := &device.KernelRace{Kernel: l.prog.name, What: what, First: l.raceAccess(first), Second: l.raceAccess(second)}
	if w := l.raceWhat(r, second); w != what {
		kr.Second.Via = w
	}
	s := &l.prog.raceSites[first.site-1]
	switch {
	case r.shared:
		kr.Index = uint64(cell) / uint64(r.elemLeaves)
	case r.texel:
		kr.Index, kr.Level = uint64(cell), r.level
		x, y := uint64(cell)%uint64(r.ext[0]), uint64(cell)/uint64(r.ext[0])
		kr.Texel = []uint32{uint32(x), uint32(y % uint64(r.ext[1]))}
		if r.dim == 3 {
			kr.Texel = append(kr.Texel, uint32(y/uint64(r.ext[1])))
		}
	default:
		// The element of the first access's range (the argument's or the
		// slot's) the cell lies in.
		off := rs.offs[s.arg]
		if s.bindless {
			off = rs.slots[s.arg][first.slot].Load().off
		}
		kr.Index = uint64(max(cell*r.gran, off)-off) / uint64(s.elem)
	}
	rs.first = kr
}

// raceWhat names the memory of r as access a reached it.
func (l *launch) raceWhat(r *raceRegion, a raceAccess) string {
	s := &l.prog.raceSites[a.site-1]
	switch {
	case s.arg < 0:
		return r.what
	case s.bindless:
		return fmt.Sprintf("%s slot %d", l.prog.argWhat[s.arg], a.slot)
	}
	return l.prog.argWhat[s.arg]
}

func (l *launch) raceAccess(a raceAccess) device.RaceAccess {
	s := l.prog.raceSites[a.site-1]
	g, b := l.groups, l.block
	bid := [3]uint64{a.blk % uint64(g[0]), a.blk / uint64(g[0]) % uint64(g[1]), a.blk / (uint64(g[0]) * uint64(g[1]))}
	tid := [3]uint32{a.tid % b[0], a.tid / b[0] % b[1], a.tid / (b[0] * b[1])}
	var id [3]uint32
	for i := range 3 {
		id[i] = uint32(bid[i]*uint64(b[i])) + tid[i]
	}
	return device.RaceAccess{Thread: id, Write: s.write || s.atomic, Atomic: s.atomic, Pos: s.pos}
}

// raceErr is the dispatch's race report, nil if it saw none.
func (l *launch) raceErr() error {
	if l.race == nil {
		return nil
	}
	rs := l.race
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.first == nil {
		return nil
	}
	rs.first.Count = rs.count
	return &faultError{rs.first}
}

// The compiler's side: in race mode each access of a shared variable (or
// of a by-reference parameter, which may name one), of a buffer or
// texture argument and through a bindless argument becomes a site, and its
// address closure (texture.go's and bindless.go's ops for the others)
// checks the access before it is made.

// newRaceSite registers the access of place e.
func (c *compiler) newRaceSite(e ir.Expr, write, atomic bool) uint32 {
	s := raceSite{pos: c.pos, write: write, atomic: atomic, arg: -1}
	if v := ir.PlaceRoot(e); v != nil && v.Type.Kind() == ir.KindBuffer {
		s.arg, s.elem = c.params[v], int64(v.Type.Elem().Size())
	}
	c.raceSites = append(c.raceSites, s)
	return uint32(len(c.raceSites))
}

// raceBuf wraps the address of a buffer place e so that the access of n
// bytes it makes is checked first.
func (c *compiler) raceBuf(e ir.Expr, addr func(*th) ([]byte, int), n int, write, atomic bool) func(*th) ([]byte, int) {
	if !c.race {
		return addr
	}
	site := c.newRaceSite(e, write, atomic)
	return func(t *th) ([]byte, int) {
		b, o := addr(t)
		t.raceBufferAccess(site, o, n)
		return b, o
	}
}

// raceMem wraps the storage of place e so that the access of n leaves it
// makes is checked first, where e may lie in shared memory.
func (c *compiler) raceMem(e ir.Expr, mem func(*th) ([]uint64, int), n int, write, atomic bool) func(*th) ([]uint64, int) {
	if !c.race {
		return mem
	}
	if v := ir.PlaceRoot(e); v == nil || v.Kind != ir.VarShared && v.Kind != ir.VarRefParam {
		return mem
	}
	site := c.newRaceSite(e, write, atomic)
	return func(t *th) ([]uint64, int) {
		m, o := mem(t)
		t.raceSharedAccess(site, &m[o], n)
		return m, o
	}
}

// newResourceSite registers an access of texture or bindless argument v
// (elem: the bytes of a bindless buffer access's element type t, nil for a
// texel).
func (c *compiler) newResourceSite(v *ir.Var, write bool, t *ir.Type) uint32 {
	s := raceSite{pos: c.pos, write: write, arg: c.params[v], bindless: v.Type.Kind() == ir.KindBindless}
	if t != nil {
		s.elem, s.leaf = int64(t.Size()), smallestLeaf(t)
	}
	c.raceSites = append(c.raceSites, s)
	return uint32(len(c.raceSites))
}
