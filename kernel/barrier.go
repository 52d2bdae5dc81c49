package kernel

import "sync"

// barrier is a reusable rendezvous of the live threads of a workgroup or
// subgroup. A thread that returns leaves the barrier, so the threads still
// running never wait for it (on a device a barrier in divergent control flow is
// undefined behaviour; on the CPU it must not deadlock).
type barrier struct {
	mu      sync.Mutex
	cond    sync.Cond
	parties int // live threads
	arrived int
	gen     uint64
}

func newBarrier(parties int) *barrier {
	b := &barrier{parties: parties}
	b.cond.L = &b.mu
	return b
}

// wait blocks until every live thread has called wait.
func (b *barrier) wait() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.arrived++
	if b.arrived >= b.parties {
		b.release()
		return
	}
	gen := b.gen
	for gen == b.gen {
		b.cond.Wait()
	}
}

// leave removes a finished thread from the barrier.
func (b *barrier) leave() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.parties--
	if b.arrived > 0 && b.arrived >= b.parties {
		b.release()
	}
}

func (b *barrier) release() {
	b.arrived = 0
	b.gen++
	b.cond.Broadcast()
}

// Barrier waits until every thread of the calling thread's block has reached
// it, and makes the shared-memory and buffer writes made before it visible to
// the block's threads after it (SPIR-V OpControlBarrier, workgroup scope, with
// workgroup and buffer memory semantics). Every thread of a block must reach
// the same Barrier call.
func Barrier() {
	g := current("Barrier").group
	g.collective()
	g.barrier.wait()
}
