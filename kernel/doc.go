// Package kernel is what a lucent GPU kernel written in plain Go imports: the
// vector and matrix types, the thread ids, barriers, shared memory, atomics,
// subgroup operations, textures and bindless arrays. Every intrinsic has a real
// CPU implementation, and Run executes a kernel on the CPU exactly as a device
// would dispatch it; the gokernel front end compiles the same functions to
// SPIR-V.
//
// A kernel is an ordinary Go function marked with a directive:
//
//	//lucent:kernel block=256
//	func Saxpy(a float32, x, y []float32) {
//		i := kernel.DispatchID().X
//		if i < uint32(len(y)) {
//			y[i] = a*x[i] + y[i]
//		}
//	}
//
// The one design choice to know: a kernel reads its ids (DispatchID, ThreadID,
// …) from package functions, not from a parameter, so kernels stay plain Go.
// On the CPU the runner records which kernel thread each of its goroutines
// is running, and the intrinsics find that thread's state through the
// goroutine's identity (see thread.go and RATIONALE.md (gokernel)). Calling an intrinsic outside Run panics
// with a message saying so.
package kernel

//go:generate go run ./internal/vecgen -o vector_gen.go
