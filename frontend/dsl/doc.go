// Package dsl is lucent's Go DSL: kernels written as Go funcs of DSL types
// and traced once, at run time, into the kernel IR (frontend/ir).
//
//	saxpy, err := dsl.Kernel1D(256, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
//		i := k.DispatchID().X()
//		y.Write(i, a.Mul(x.Read(i)).Add(y.Read(i)))
//	}, "a", "x", "y")
//
// Values (F32, U32, F32x3, Mat4, Struct[T] …) are immutable expressions;
// NewVar makes a mutable local; control flow takes closures (k.If, k.Loop,
// k.While, Range, k.Switch); built-ins are generic functions (Sqrt, Max,
// Lerp, …) and methods (Dot, Normalize, Atomic …); Callable makes callable
// functions, which take values, locals by reference and resources (each
// tuple of resources passed gets its own copy of the callable); Capture
// passes host resources implicitly. An operation on operands of the wrong
// type yields a poisoned value (ir.Poison) and the kernel's first error,
// reported by K.Err and by the kernel constructor.
// device.Compile builds a runnable device.Kernel from the traced kernel.
package dsl
