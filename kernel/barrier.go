package kernel

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// barrier is a reusable rendezvous of the live threads of a workgroup or
// subgroup. A thread that returns leaves the barrier, so the threads still
// running never wait for it (on a device a barrier in divergent control flow is
// undefined behaviour; on the CPU it must not deadlock).
//
// In a -race build the barrier's mutex is hidden from the detector (its
// state is atomics, used under the mutex, which the detector ignores
// between raceOff and raceOn): through
// it, a thread that woke later would be ordered after everything a thread
// woken before it did once past the barrier and until it next took the
// mutex (at the next barrier, or as it finished), so a race between two
// threads after one barrier went unreported. What orders threads instead is
// the generation: each arrival releases sync[gen%2], and each thread leaving
// the barrier acquires it, so everything a thread did before a barrier comes
// before what every thread does after it, and nothing else. Two slots
// suffice: no thread can arrive at generation gen+2 before every thread has
// left generation gen.
type barrier struct {
	mu      sync.Mutex
	cond    sync.Cond
	parties atomic.Int64 // live threads
	arrived atomic.Int64
	gen     atomic.Uint64
	sync    [2]uint64 // the detector's sync objects of even and odd generations
	// onRelease, where set, runs as a generation completes, before any
	// thread leaves it, with the barrier's mutex held.
	onRelease func()
}

func newBarrier(parties int) *barrier {
	b := &barrier{}
	b.parties.Store(int64(parties))
	b.cond.L = &b.mu
	return b
}

// wait blocks until every live thread has called wait.
func (b *barrier) wait() {
	raceOff()
	b.mu.Lock()
	gen := b.gen.Load()
	p := unsafe.Pointer(&b.sync[gen%2])
	raceOn()
	raceRelease(p) // with the mutex held: before the generation completes
	raceOff()
	if b.arrived.Add(1) >= b.parties.Load() {
		b.release()
	} else {
		for gen == b.gen.Load() {
			b.cond.Wait()
		}
	}
	b.mu.Unlock()
	raceOn()
	raceAcquire(p)
}

// leave removes a finished thread from the barrier.
func (b *barrier) leave() {
	raceOff()
	defer raceOn()
	b.mu.Lock()
	defer b.mu.Unlock()
	parties := b.parties.Add(-1)
	if arrived := b.arrived.Load(); arrived > 0 && arrived >= parties {
		b.release()
	}
}

// rejoin adds n threads that left the barrier back to its parties; none of
// its threads may be waiting.
func (b *barrier) rejoin(n int64) {
	raceOff()
	defer raceOn()
	b.mu.Lock()
	b.parties.Add(n)
	b.mu.Unlock()
}

func (b *barrier) release() {
	b.arrived.Store(0)
	b.gen.Add(1)
	if b.onRelease != nil {
		b.onRelease()
	}
	b.cond.Broadcast()
}

// Barrier waits until every thread of the calling thread's block has reached
// it, and makes the shared-memory and buffer writes made before it visible to
// the block's threads after it (SPIR-V OpControlBarrier, workgroup scope, with
// workgroup and buffer memory semantics). Every thread of a block must reach
// the same Barrier call.
//
// While a thread waits at Barrier, its subgroup's other lanes do not wait
// for it at a subgroup operation: one in control flow it did not take runs
// over the lanes that reach it, as on a device.
func Barrier() {
	t := current("Barrier")
	g := t.group
	g.collective()
	t.sub.suspend()
	g.barrier.wait()
}
