package vk

import (
	"fmt"
	"unsafe"
)

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

// Flush makes the queued calls, in order, and empties the batch. A queued
// command that returns a VkResult (BeginCommandBuffer, EndCommandBuffer) and
// fails stops the batch: the calls after it are not made, and Flush returns
// a *BatchError naming it (errors.Is finds its Result).
func (b *CommandBatch) Flush() error {
	var err error
	if len(b.frames) > 0 {
		if i, r := invokeAll(b.frames); i >= 0 {
			err = &BatchError{Command: b.name(b.frames[i].fn), Index: i, Calls: len(b.frames), Result: r}
		}
	}
	b.frames = b.frames[:0]
	clear(b.keep)
	b.keep = b.keep[:0]
	return err
}

// BatchError is a failed command of a CommandBatch: the calls queued after
// it were not made.
type BatchError struct {
	Command string // the command's name, e.g. "vkEndCommandBuffer"
	Index   int    // its place in the batch, from 0
	Calls   int    // how many calls the batch held
	Result  Result
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("%s (call %d of %d in a command batch): %v", e.Command, e.Index+1, e.Calls, e.Result)
}

func (e *BatchError) Unwrap() error { return e.Result }

// name returns the name of the device-level command at address fn.
func (b *CommandBatch) name(fn uintptr) string {
	for i, f := range b.dt.fn {
		if f == fn {
			return commandNames[deviceBase+i]
		}
	}
	return "a command"
}

// BeginCommandBuffer queues vkBeginCommandBuffer; it runs at Flush, and an
// error stops the batch there.
func (b *CommandBatch) BeginCommandBuffer(commandBuffer CommandBuffer, pBeginInfo *CommandBufferBeginInfo) error {
	fn := b.fn(cmdBeginCommandBuffer)
	if fn == 0 {
		return missing(cmdBeginCommandBuffer)
	}
	fr := b.next(fn, 2)
	fr.n |= frameChecked
	fr.a[0] = uintptr(commandBuffer)
	fr.a[1] = b.ptr(unsafe.Pointer(pBeginInfo))
	return nil
}

// EndCommandBuffer queues vkEndCommandBuffer; it runs at Flush, and an error
// stops the batch there.
func (b *CommandBatch) EndCommandBuffer(commandBuffer CommandBuffer) error {
	fn := b.fn(cmdEndCommandBuffer)
	if fn == 0 {
		return missing(cmdEndCommandBuffer)
	}
	fr := b.next(fn, 1)
	fr.n |= frameChecked
	fr.a[0] = uintptr(commandBuffer)
	return nil
}
