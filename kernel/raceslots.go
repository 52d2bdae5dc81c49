package kernel

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// The registry of a -race build. The usual one (thread.go) orders the
// goroutines it serves: a thread's unregistering and another's look-up of
// a shared entry, or of the overflow map, are synchronising operations to
// Go's detector, which would then take a thread's accesses as ordered
// before those of threads that looked up after it ended, and miss their
// races. This one is open addressing over atomics only, run between
// raceOff and raceOn, so the detector sees no order in it; it holds more
// entries than the detector allows goroutines (8128), so it never fills.

const raceSlotBits = 14

// raceSlot is one entry: g is 0 (never used), 1 (freed) or a goroutine's
// identity, s that goroutine's slot.
type raceSlot struct {
	g atomic.Uintptr
	s atomic.Pointer[slot]
}

var raceSlots []raceSlot // made by race.go's init in -race builds

func raceSlotIndex(g uintptr) int {
	return int((uint64(g) * 0x9E3779B97F4A7C15) >> (64 - raceSlotBits))
}

// raceRegister is register for -race builds.
func raceRegister() (*slot, func()) {
	id := goroutineID()
	s := &slot{g: id}
	raceOff()
	defer raceOn()
	mask := len(raceSlots) - 1
	for i, n := raceSlotIndex(id), 0; n <= mask; i, n = (i+1)&mask, n+1 {
		e := &raceSlots[i]
		if g := e.g.Load(); (g == 0 || g == 1) && e.g.CompareAndSwap(g, id) {
			e.s.Store(s)
			return s, func() {
				raceOff()
				e.s.Store(nil)
				e.g.Store(1)
				raceOn()
			}
		}
	}
	panic("kernel: the race build's goroutine registry is full") // unreachable below the detector's goroutine limit
}

// raceLookup is the slot of goroutine id, or nil.
func raceLookup(id uintptr) *slot {
	raceOff()
	defer raceOn()
	mask := len(raceSlots) - 1
	for i, n := raceSlotIndex(id), 0; n <= mask; i, n = (i+1)&mask, n+1 {
		switch raceSlots[i].g.Load() {
		case id:
			return raceSlots[i].s.Load()
		case 0:
			return nil
		}
	}
	return nil
}

// raceSharedSites is how many Shared call sites a block's table holds in a
// -race build; past it, Shared falls back to its map under a mutex, which
// orders the threads calling it.
const raceSharedSites = 64

// sharedSite is a Shared call site's variable in a -race build: pc is 0
// (free) or the call site, p the variable once made.
type sharedSite struct {
	pc atomic.Uintptr
	p  atomic.Pointer[byte]
}

// sharedRace is the block's variable for call site pc, made by mk on the
// first call, with no order between the threads calling it (see
// raceSlots). ok is false when the table is full.
func (g *workgroup) sharedRace(pc uintptr, mk func() *byte) (p *byte, ok bool) {
	raceOff()
	defer raceOn()
	tab := g.raceShared
	for i, n := raceSlotIndex(pc)%raceSharedSites, 0; n < raceSharedSites; n++ {
		e := &tab[i]
		switch e.pc.Load() {
		case 0:
			if !e.pc.CompareAndSwap(0, pc) {
				continue // taken meanwhile: look at it again
			}
			p := mk()
			e.p.Store(p)
			return p, true
		case pc:
			for {
				if p := e.p.Load(); p != nil {
					return p, true
				}
				runtime.Gosched() // its maker is storing it
			}
		}
		i = (i + 1) % raceSharedSites
	}
	return nil, false
}

// raceWorker is a worker of Run in a -race build: Run's token the threads
// release as they end, and the channel the threads of the worker's last
// block wait on once they have. Go's detector misses races with a
// goroutine that ended dozens of goroutine starts before (its slot in the
// detector is reused), so a block's threads stay until the worker's next
// block has run, and the last blocks' until every block has: races within
// a block, and between blocks that run in turn or at once, are seen
// whatever the goroutines' order. Races between blocks further apart may
// be missed.
type raceWorker struct {
	done unsafe.Pointer
	held chan struct{}
}

// release lets the last block's threads go.
func (w *raceWorker) release() {
	if w.held != nil {
		raceOff()
		close(w.held)
		raceOn()
		w.held = nil
	}
}
