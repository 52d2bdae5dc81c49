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
	return runtime_cgocall(callTrampolineABI0, unsafe.Pointer(f))
}
