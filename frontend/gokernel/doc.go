// Package gokernel compiles GPU kernels written in a subset of Go into the
// kernel AST of package frontend (and from there, through frontend's codegen,
// to SPIR-V).
//
// A kernel is a function marked with a directive in its doc comment:
//
//	//lucent:kernel block=16,16
//	func Blur(w, h uint32, src, dst []float32) { … }
//
// Load type-checks the packages with go/types, finds the marked functions,
// checks them and every function they call against the subset, and lowers
// them. Anything outside the subset (goroutines, channels, maps, interfaces,
// closures, defer, recursion, allocation, strings, pointers into the host,
// calls into the standard library other than math) is reported as an *Error
// at its file:line:col
// with a sentence saying what to write instead; all the errors of a load are
// reported together. So is source past the compiler's input bounds
// (frontend's limits.go: array and struct sizes, the size of a value a thread
// holds, statement and expression nesting, the size of a file given to
// Check), in memory linear in the source. Kernels may call Go functions and
// methods of their own package and of other non-standard packages (loaded
// from source when first called), and read unexported, never-assigned package variables with
// constant initializers (lookup tables). Kernels read, write and sample
// (bilinear, clamped) texture parameters, and read, size and sample the
// textures of a bindless array (arr.Texture2D(slot), with the slot's
// sampler).
//
// The one design choice to know: checking and lowering are a single walk over
// the typed Go syntax. The Go type checker has already resolved every name,
// constant and type, so the walk maps each Go construct either to frontend AST
// (typed from go/types) or to an error, and keeps going after an error so that
// one load reports every problem. The same kernel functions also run unchanged
// on the CPU with kernel.Run, which the tests use as the oracle.
package gokernel
