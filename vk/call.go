package vk

// A command call fills a callFrame and hands it to invoke, which runs the C
// function on the system stack. The frame is read only before the C function
// starts (a debug callback during the call may move the goroutine stack, so
// nothing is written back into it): the result comes back as the int32 that
// runtime.cgocall returns, which is all a VkResult or void command needs.
// Commands returning 64-bit values go through purego.SyscallN instead.
//
// The generated callN functions take their arguments as uintptr with
// //go:uintptrescapes: a pointer converted to uintptr in the call's argument
// list is moved to the heap and kept alive until callN returns, which is the
// Go-memory rule of the package doc.

// maxCallArgs is the most arguments a frame carries.
const maxCallArgs = 16

type callFrame struct {
	fn uintptr
	n  uintptr // the argument count (frameArgs), and frameChecked
	a  [maxCallArgs]uintptr
}

const (
	frameArgs = 0xff
	// frameChecked marks a batched frame whose command returns a VkResult:
	// an error result stops the batch (invokeAll).
	frameChecked = 0x100
)
