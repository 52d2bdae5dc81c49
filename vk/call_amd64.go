//go:build amd64 && !windows

package vk

import "unsafe"

// callTrampolineABI0 is the address of callTrampoline (call_amd64.s), which
// moves a callFrame into the System V registers and stack and calls fn.
var callTrampolineABI0 uintptr

// runtime_cgocall switches to the system stack, marks the goroutine as in a
// system call (so a blocking driver call does not stall the scheduler) and
// calls fn(arg). purego relies on the same runtime entry point.
//
//go:linkname runtime_cgocall runtime.cgocall
//go:noescape
func runtime_cgocall(fn uintptr, arg unsafe.Pointer) int32

// invoke calls f.fn with f's arguments; f may live on the goroutine stack.
func invoke(f *callFrame) int32 {
	if counting.Load() {
		countCalls(f.fn)
	}
	return runtime_cgocall(callTrampolineABI0, unsafe.Pointer(f))
}

// batchTrampolineABI0 is the address of batchTrampoline (call_amd64.s), which
// calls every frame of a batch in order.
var batchTrampolineABI0 uintptr

type batchHeader struct {
	frames *callFrame
	n      uintptr
}

// invokeAll calls the frames in order in one transition until a checked
// frame fails; it returns that frame's index and result, or -1 and SUCCESS.
// The frames are in the heap (a batch's buffer), which does not move; a
// failing frame's n is overwritten with its result.
func invokeAll(frames []callFrame) (failed int, r Result) {
	if counting.Load() {
		fns := make([]uintptr, len(frames))
		for i := range frames {
			fns[i] = frames[i].fn
		}
		countCalls(fns...)
	}
	h := batchHeader{frames: &frames[0], n: uintptr(len(frames))}
	left := runtime_cgocall(batchTrampolineABI0, unsafe.Pointer(&h))
	if left == 0 {
		return -1, SUCCESS
	}
	failed = len(frames) - int(left)
	return failed, Result(int32(frames[failed].n))
}

// The trampolines step through frames of exactly this size.
var _ [144 - unsafe.Sizeof(callFrame{})]byte
var _ [unsafe.Sizeof(callFrame{}) - 144]byte
