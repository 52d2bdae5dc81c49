package kernel

import (
	"runtime"
	"sync"
)

// How an intrinsic finds its thread.
//
// Go has no goroutine-local storage, and kernels take no thread parameter, so
// the CPU runner keys each thread's state by the identity of the goroutine it
// runs on: Run starts one goroutine per kernel thread and records it in
// threads; DispatchID and friends look the calling goroutine up.
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
	sub      *subgroup
	lane     uint32
}

// slot is a goroutine's registration: the kernel thread it is running now
// (a goroutine runs several threads one after another until a block needs
// its threads to run at once). Only its goroutine touches t.
type slot struct{ t *thread }

var threads sync.Map // goroutineID() -> *slot

// register records the calling goroutine as a runner of kernel threads.
func register() (*slot, func()) {
	id := goroutineID()
	s := &slot{}
	threads.Store(id, s)
	return s, func() { threads.Delete(id) }
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
	if s, ok := threads.Load(goroutineID()); ok && s.(*slot).t != nil {
		return s.(*slot).t
	}
	panic("kernel." + what + " called outside a kernel: run the kernel with kernel.Run, or compile it with the gokernel front end")
}
