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
// The directive line is //lucent:kernel followed by block=X[,Y[,Z]] (threads
// per block, required, at most 1024 in all) and, per texture parameter that
// is not stored as rgba32f/rgba32i/rgba32ui, format=param:fmt (rgba16f, rgba8,
// r32f, r32ui, r32i, …); package gokernel documents every key.
//
// Types: kernels compute on the device in the Go types they declare. int32,
// uint32 and float32 are the GPU's native widths; int and uint are 64-bit, as
// on the host, which most GPUs emulate with several 32-bit instructions (some
// lack 64-bit integers altogether), so write indices and loop counters as
// uint32 or int32, as the ids here are. float64 is 64-bit float, often slow
// or missing on a GPU, with few device math functions (math.Sqrt, Abs, Floor,
// Ceil, Round, Trunc, Min, Max and FMA take float64): compute in float32 with
// the float32 math of this package (Sqrt, Sin, Exp, Pow, Fma, Clamp, Lerp,
// SmoothStep, IsNaN …) rather than float32(math.Sqrt(float64(x))). Constants
// come from package math (math.Pi, math.MaxFloat32, float32(math.Inf(1))).
// Package math/bits works at every width (bits.OnesCount32,
// LeadingZeros64, RotateLeft8, Mul64 …), with Go's results.
// Vectors (Float2 … Uint4) and column-major matrices (Float2x2 … Float4x4)
// are device vectors and matrices, slices ([]T) kernel parameters are
// buffers, and structs keep Go's field offsets so host and device share one
// layout:
//
//	Go                               device
//	int32, uint32, float32           native 32-bit integers and float
//	int, uint, int64, uint64         64-bit integers (emulated on most GPUs)
//	int8 … uint16, float64           narrow integers, 64-bit float (device capabilities)
//	bool                             bool (in buffers and fields use uint32)
//	Float2 … Uint4, Float2x2 …       vectors and column-major matrices
//	[N]T, struct                     arrays and structs at Go's layout
//	[]T parameter                    a buffer; x[lo:hi] of it is a view
//	*T helper parameter, p := &x[i]  a reference to that place
//	Texture2D[T], Bindless           textures and bindless arrays
//
// gokernel's package documentation has the whole table and its rules. A
// vector's component i computed at run time is v.At(i) and v.Set(i, c).
//
// The one design choice to know: a kernel reads its ids (DispatchID, ThreadID,
// …) from package functions, not from a parameter, so kernels stay plain Go.
// On the CPU the runner records which kernel thread each of its goroutines
// is running, and the intrinsics find that thread's state through the
// goroutine's identity (see thread.go and RATIONALE.md (gokernel)). Calling an intrinsic outside Run panics
// with a message saying so.
package kernel

//go:generate go run ./internal/vecgen -o vector_gen.go
