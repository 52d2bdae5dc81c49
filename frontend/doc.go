// Package frontend holds lucent's kernel language: a typed AST (types,
// expressions, statements, functions) and a Go DSL that builds it by tracing
// Go calls at run time. It knows no target: backends compile the AST (the
// Vulkan backend's code generator, device/vulkan/codegen, lowers it to
// SPIR-V following docs/kernel-abi.md).
//
// The one design choice to know: types are interned, so two *Type values
// describe the same type exactly when they are the same pointer, and every
// expression carries its type. Validate checks the AST's invariants before
// codegen; codegen assumes a valid AST and does no type inference of its own.
// Validate also holds every kernel to the compiler's input bounds (limits.go:
// type and per-thread value sizes, nesting, statement and local counts), so
// no kernel makes codegen or a driver run without bound.
//
// A kernel in the DSL is a Go func of DSL types, traced once:
//
//	saxpy, err := frontend.Kernel1D(256, func(k *frontend.K, a frontend.F32, x, y frontend.Buf[frontend.F32]) {
//		i := k.DispatchID().X()
//		y.Write(i, a.Mul(x.Read(i)).Add(y.Read(i)))
//	}, "a", "x", "y")
//
// Values (F32, U32, F32x3, Mat4, Struct[T] …) are immutable expressions;
// NewVar makes a mutable local; control flow takes closures (k.If, k.Loop,
// k.While, Range, k.Switch); built-ins are generic functions (Sqrt, Max,
// Lerp, …) and methods (Dot, Normalize, Atomic …); Callable makes callable
// functions; Capture passes host resources implicitly. device.Compile builds
// a runnable device.Kernel from the traced kernel.
package frontend
