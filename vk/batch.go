package vk

import "unsafe"

// A CommandBatch queues command-recording calls (the void vkCmd* commands)
// and makes them all in one Go→C transition at Flush. A single call pays a
// fixed transition cost (runtime.cgocall: tens of nanoseconds) that can
// exceed the driver's own cost of recording a command; a batch pays it once.
//
// Pointer arguments (regions, barriers, push-constant data) are kept alive by
// the batch until Flush returns, so the Go-memory rule of the package doc
// still holds; the memory they point at must not change before Flush.
// Commands run in the order they were queued. A CommandBatch is not safe for
// concurrent use; reuse it after Flush (its buffers are kept, so a warm batch
// does not allocate).
type CommandBatch struct {
	dt     *DeviceFuncs
	frames []callFrame
	keep   []unsafe.Pointer
}

// NewCommandBatch returns an empty batch calling the commands of t.
func (t *DeviceFuncs) NewCommandBatch() *CommandBatch {
	return &CommandBatch{dt: t}
}

// Len returns the number of queued calls.
func (b *CommandBatch) Len() int { return len(b.frames) }

// fn returns the address of device-level command idx, or 0.
func (b *CommandBatch) fn(idx int) uintptr {
	if b == nil || b.dt == nil {
		return 0
	}
	return b.dt.fn[idx-deviceBase]
}

// next appends a frame for fn with n arguments.
func (b *CommandBatch) next(fn uintptr, n int) *callFrame {
	b.frames = append(b.frames, callFrame{fn: fn, n: uintptr(n)})
	return &b.frames[len(b.frames)-1]
}

// ptr records p as kept alive until Flush and returns its address.
func (b *CommandBatch) ptr(p unsafe.Pointer) uintptr {
	if p == nil {
		return 0
	}
	b.keep = append(b.keep, p)
	return uintptr(p)
}

// Flush makes the queued calls, in order, and empties the batch.
func (b *CommandBatch) Flush() {
	if len(b.frames) > 0 {
		invokeAll(b.frames)
	}
	b.frames = b.frames[:0]
	clear(b.keep)
	b.keep = b.keep[:0]
}
