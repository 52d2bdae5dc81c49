package kernel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// How an intrinsic finds its thread.
//
// Go has no goroutine-local storage, and kernels take no thread parameter, so
// the CPU runner keys each thread's state by the identity of the goroutine it
// runs on: each goroutine running kernel threads (a worker running a block's
// threads one after another, or a thread's own goroutine once its block needs
// them concurrent) registers a slot saying which thread it runs now;
// DispatchID and friends look the calling goroutine's slot up.
//
// The identity is the address of the goroutine's runtime descriptor, read by
// a three-instruction assembly function on amd64 and arm64 (goid_*.s), and
// elsewhere the number the runtime prints at the top of a goroutine's stack
// trace ("goroutine 42 [running]:"), read with runtime.Stack — the technique
// the standard library's HTTP/2 server uses to assert which goroutine it is
// on. Either is correct under any amount of concurrency: it is unique while
// the goroutine runs, and the runner removes the entry before the goroutine
// exits. The descriptor costs nanoseconds per lookup, the stack trace about
// four microseconds (docs/PERFORMANCE.md, gokernel); only the CPU runner
// pays it, compiled kernels read built-in variables.

// thread is the state of one kernel thread on the CPU.
type thread struct {
	group    *workgroup
	local    Uint3 // ThreadID
	dispatch Uint3 // DispatchID
	index    uint32
	sub      *subgroup // set once the block's threads run concurrently (collectives)
	lane     uint32
}

// slot is a goroutine's registration: the kernel thread it is running now
// (a goroutine runs several threads one after another until a block needs
// its threads to run at once). Only its goroutine touches t.
type slot struct {
	g uintptr // the goroutine's identity
	t *thread
}

// The registry maps a goroutine to its slot: a table indexed by a hash of
// the goroutine's identity, where a lookup is one atomic load and a compare
// (every id a kernel reads costs one), and a sync.Map for the goroutines
// whose entry of the table another holds. A goroutine only ever looks
// itself up, after registering, so it finds its own entry wherever it went.
const slotBits = 12

var (
	slotTable [1 << slotBits]atomic.Pointer[slot]
	overflow  sync.Map // goroutine identity -> *slot
	overflowN atomic.Int64
)

func slotIndex(g uintptr) uint64 { return (uint64(g) * 0x9E3779B97F4A7C15) >> (64 - slotBits) }

// register records the calling goroutine as a runner of kernel threads.
func register() (*slot, func()) {
	if raceBuild {
		return raceRegister()
	}
	id := goroutineID()
	s := &slot{g: id}
	e := &slotTable[slotIndex(id)]
	if e.CompareAndSwap(nil, s) {
		return s, func() { e.CompareAndSwap(s, nil) }
	}
	overflowN.Add(1)
	overflow.Store(id, s)
	return s, func() {
		overflow.Delete(id)
		overflowN.Add(-1)
	}
}

// goid returns the calling goroutine's id.
func goid() uint64 {
	var buf [32]byte
	n := runtime.Stack(buf[:], false)
	const prefix = "goroutine "
	var id uint64
	for _, c := range buf[len(prefix):n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// current returns the calling kernel thread; what names the intrinsic, for
// the panic raised when it is called outside Run.
func current(what string) *thread {
	id := goroutineID()
	if raceBuild {
		if s := raceLookup(id); s != nil && s.t != nil {
			return s.t
		}
	} else if s := slotTable[slotIndex(id)].Load(); s != nil && s.g == id && s.t != nil {
		return s.t
	}
	if !raceBuild && overflowN.Load() > 0 {
		if s, ok := overflow.Load(id); ok && s.(*slot).t != nil {
			return s.(*slot).t
		}
	}
	panic("kernel." + what + " called outside a kernel: run the kernel with kernel.Run, or compile it with the gokernel front end")
}
