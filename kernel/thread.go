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
// threads; DispatchID and friends look the calling goroutine up. The identity
// is the number the runtime prints at the top of a goroutine's stack trace
// ("goroutine 42 [running]:"), read with runtime.Stack — the same technique the
// standard library's HTTP/2 server uses to assert which goroutine it is on.
// It is correct under any amount of concurrency because a goroutine's number
// is unique for its lifetime and the entry is removed before the goroutine
// exits. It costs about a microsecond per lookup, which only the CPU runner
// pays; compiled kernels read built-in variables.

// thread is the state of one kernel thread on the CPU.
type thread struct {
	group    *workgroup
	local    Uint3 // ThreadID
	dispatch Uint3 // DispatchID
	index    uint32
	sub      *subgroup
	lane     uint32
}

var threads sync.Map // goroutine id (uint64) -> *thread

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
	if t, ok := threads.Load(goid()); ok {
		return t.(*thread)
	}
	panic("kernel." + what + " called outside a kernel: run the kernel with kernel.Run, or compile it with the gokernel front end")
}
