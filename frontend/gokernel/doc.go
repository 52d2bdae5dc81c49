// Package gokernel compiles GPU kernels written in a subset of Go into the
// kernel IR of package frontend/ir (which each backend compiles: the Vulkan
// backend to SPIR-V, the cpu backend to Go closures).
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
// calls into the standard library other than math and math/bits) is reported as an *Error
// at its file:line:col
// with a sentence saying what to write instead; all the errors of a load are
// reported together, one per cause (the uses of a declaration that failed
// stay quiet). So is source past the compiler's input bounds
// (frontend/ir's limits.go: array and struct sizes, the size of a value a thread
// holds, statement and expression nesting, the size of a file given to
// Check), in memory linear in the source. Kernels may call Go functions and
// methods of their own package and of the other packages of the module, or
// any non-standard package (loaded from source when first called, checked by
// the same rules, transitively); generic functions are instantiated once per
// list of type arguments. Kernels read unexported, never-assigned package
// variables with constant initializers (lookup tables). Kernels read, write
// and sample (bilinear, clamped) texture parameters, and read, size and
// sample the textures of a bindless array (arr.Texture2D(slot), with the
// slot's sampler).
//
// # The directive
//
// The directive is a line of the doc comment of a top-level function,
// spelled exactly //lucent:kernel (no space after //, like //go:generate),
// then options separated by spaces, in any order, each key=value with no
// spaces around the =:
//
//	block=X[,Y[,Z]]   required: threads per block (the SPIR-V LocalSize), one to
//	                  three positive sizes, at most 1024 threads in all; the
//	                  number of sizes is the kernel's dimension (Kernel.Dim)
//	format=param:fmt  the storage format of texture parameter param, one of
//	                  rgba32f, rgba16f, rgba8, r32f (Float4 texels), rgba32ui,
//	                  r32ui (Uint4 texels), rgba32i, r32i (Int4 texels); may be
//	                  repeated, once per texture parameter
//
// For example:
//
//	//lucent:kernel block=8,8 format=mask:r32ui format=img:rgba8
//	func Mask(img kernel.Texture2D[kernel.Float4], mask kernel.Texture2D[kernel.Uint4]) { … }
//
// A texture parameter without a format option is rgba32f, rgba32i or
// rgba32ui after its texel type. Any other key, a format its texel type
// cannot read, a format naming no texture parameter, and a key given twice
// are errors at the directive; so is a doc comment line that reads as the
// directive but is spelled otherwise (// lucent:kernel, as gofmt leaves //Lucent:kernel),
// which would leave the function uncompiled without a word.
//
// A one-channel format (r32f, r32ui, r32i) holds x: a read gives (x, 0, 0, 1)
// and a write stores x. Integer formats keep all 32 bits of a texel. The DSL
// has the same formats as parameter types: dsl.Tex2DR32UI for
// format=mask:r32ui on a kernel.Texture2D[kernel.Uint4], dsl.Tex3DRGBA32I,
// and so on for each format and dimension.
//
// The marked function is the kernel: a plain function (not a method, not
// generic) that returns nothing and names every parameter. Its slice
// parameters are buffers, its texture and bindless parameters those
// resources, and every other parameter a uniform value; a pointer parameter
// is an error (it would point into host memory). The kernel's arguments are
// passed to device.Kernel.Dispatch in parameter order. Only the marked
// functions are kernels; the functions they call are helpers, compiled as
// needed.
//
// # Go types on the device
//
//	Go                               device
//	bool                             bool (not in buffers or struct fields: use uint32)
//	int8, int16, uint8, uint16       8- and 16-bit integers (device.Capabilities Int8, Int16)
//	int32, uint32                    32-bit integers: what GPUs compute fastest
//	int, uint, int64, uint64         64-bit integers, as on the host (Capabilities.Int64)
//	float32                          32-bit float
//	float64                          64-bit float (Capabilities.Float64): arithmetic and
//	                                 math.Abs Floor Ceil Round Trunc Sqrt Min Max FMA
//	kernel.Float2 … Uint4            vectors; .X .Y .Z .W are components
//	kernel.Float2x2 … Float4x4       column-major float matrices; m[c] is column c
//	[N]T                             arrays (locals, fields, lookup tables)
//	struct                           structs at Go's offsets (gc, amd64), so host
//	                                 and device share one layout
//	[]T kernel or helper parameter   a buffer; len(x) is its element count
//	kernel.Texture2D[T], Texture3D[T] storage textures of Float4, Int4 or Uint4 texels
//	kernel.Bindless                  a bindless array of buffers and textures
//	kernel.Accel                     an accel: TraceClosest(kernel.Ray) kernel.Hit, TraceAny
//	                                 (kernel.Hit is lowered to ir.RayHit, docs/accel.md)
//	q := acc.Query(r); for q.Next()  a candidate loop (ir.RayQuery): q.Candidate, CommitProcedural,
//	                                 CommitTriangle, Terminate in it; q.Result, Committed after it
//	other kernel parameters          uniform values, passed in push constants
//	*T helper parameter              by reference (pass &local, &buf[i], &shared[i])
//	p := &buf[i], &v.F, &arr[j]      a pointer local: an alias of that place
//	x[lo:hi] of a buffer             a view of it: index i is x[lo+i], len is hi-lo
//	v.At(i), v.Set(i, c) on vectors  component i, i computed at run time
//
// int and uint are 64-bit on the device, faithful to Go: a kernel computing
// with them (i := 0 in a loop, len(x) compared with an int) does 64-bit
// arithmetic, which most GPUs emulate with several 32-bit instructions and
// some lack altogether (device.Capabilities.Int64 says). Kernel ids are
// uint32 (kernel.DispatchID().X); write loops and indices in int32 or uint32
// (for k := uint32(0); k < n; k++) where speed matters. Likewise float64:
// convert to float32 and use package kernel's float32 math (kernel.Sqrt, …)
// and the float32 forms of package math's tests (math.IsNaN(float64(x)) of a
// float32 x is computed in float32).
//
// Float arithmetic is the device's, which Go's matches except at the edges
// Vulkan leaves open: min and max of floats (the built-ins, math.Min and
// Max, kernel.Min, Max and Clamp) with a NaN operand give either operand,
// and of -0 and +0 either zero, where Go gives NaN and -0 (test with
// kernel.IsNaN where a NaN can reach them); a division by a zero the
// driver can see as a constant may give 0 instead of ±Inf or NaN. The cpu
// backend and kernel.Run give Go's answers.
//
// Of package math/bits kernels call OnesCount, LeadingZeros,
// TrailingZeros, Len, Reverse, RotateLeft, ReverseBytes, Add, Sub and Mul
// at every width (8, 16, 32, 64 and uint, which is 64 bits), with Go's
// results exactly: LeadingZeros32(0) and TrailingZeros32(0) are 32,
// RotateLeft with a negative k rotates right, Add and Sub return the
// carry and borrow, Mul the high and low halves. The 32-bit counts are one
// device instruction (OpBitCount, FindUMsb, FindILsb, OpBitReverse) and a
// subtraction or a mask at most; the 64-bit ones work on the two 32-bit
// halves, and Mul on the halves of its operands, so that no width needs a
// wider integer than its own. Div and Rem are refused: Go panics on a zero
// or overflowing divisor, which the device cannot.
//
// # Control flow
//
// if, for (all three forms), range over an integer, an array, a buffer, a
// view or shared memory, switch (with or without a tag, cases in order, as
// Go tests them), break, continue and return behave as in Go, labelled
// break and continue included: break L and continue L leave nested loops,
// break inside a switch leaves the switch (inside a loop, the switch only),
// and break L from a switch leaves the loop labelled L. A switch on an
// int32 or uint32 tag with constant cases is a device switch; any other is
// an if/else chain. The device's structured control flow leaves one loop
// or switch per branch, so a jump past more than one sets a flag of its
// target that each construct it leaves tests once; a jump that leaves
// only its innermost loop or switch costs nothing extra. In a ray query's
// candidate loop (for q.Next()) continue moves on to the next candidate,
// break ends the traversal (as q.Terminate does, the rest of the body
// skipped), and a return, a labelled jump to an enclosing loop or a goto
// to a label after the loop ends it and then returns or jumps. fallthrough runs the next clause's body
// without testing its cases, as in Go (into a default too, and through
// several clauses); such a switch selects a clause into an index first,
// with a device switch or an if/else chain as above, and then runs the
// bodies in order, each where the index is its own. goto forward, to a
// label later in an enclosing block, is a break of a loop that runs once
// around the statements from the first goto to the label; goto back to an
// earlier label and select are refused.
//
// # Pointers, views and run-time components
//
// The device has no pointers a thread can store, so a pointer local is an
// alias of the place it is bound to: p := &ps[i] (or &ps[i].Vel, &local,
// &arr[j], another pointer) makes every later p.Vel, *p and helper call
// taking p mean ps[i], with i as it was at the binding (the indices are
// kept in temporaries, as Go evaluates them there). A pointer local must be
// bound where it is declared and never reassigned or have its address
// taken; var p *T without a value, &T{…} and pointers returned by functions
// are errors at the declaration, whose later uses stay quiet. A helper's
// pointer parameter to a local array is indexed as Go allows: stack[*sp]
// and (*stack)[i] on stack *[16]uint32. A pointer argument that is a whole
// local (&v) is that variable; any other (&v.F, &arr[j], &buf[i],
// &shared[i]) is the place its indices name at the call, passed as a copy
// stored back when the helper returns, so two arguments of one call that
// point to the same place (add(&a[0], &a[0])) do not see each other's
// writes, as they would in Go.
//
// A sub-slice x[lo:hi] of a buffer (or of a view) is a view: v := x[lo:hi]
// names it, v[i] is x[lo+i], len(v) is hi-lo, range v covers it, v[a:b] is
// a view of it, and a helper taking []T may be passed a view, the helper
// then compiled once more with the view's start and length as hidden
// parameters. Bounds are clamped to the buffer (hi to len(x), lo to hi), so
// a view never reaches past its buffer and its length never wraps, where Go
// on the host would panic; an index past a view's end is not checked, as a
// buffer index is not. Three-index slices, slices of arrays and reassigned
// views are errors.
//
// Vector components are .X .Y .Z .W, or v.At(i) and v.Set(i, c) with i
// computed at run time (a Go struct cannot be indexed, so v[i] is not Go).
// On the device an i out of range is clamped to the last component (on the
// host it panics).
//
// # Helpers that take resources
//
// A helper (any Go function a kernel calls) takes buffers ([]T), textures
// and bindless arrays as parameters, and reads, writes, sizes and passes
// them on to other helpers as the kernel does:
//
//	func closestHit(nodes []Node, spheres []Sphere, r Ray) Hit { … }
//
// A helper is compiled once per distinct tuple of kernel arguments it is
// called with (closestHit(nodes, a, r) and closestHit(nodes, b, r) are two
// device functions, each naming its kernel's buffers directly:
// ir.Specialize), so a resource is never a run-time value: a helper cannot
// return one, take one through a pointer (*[]T), reassign or take the
// address of a resource parameter, or keep one in a local variable, a
// struct or an array; those are errors at their file:line:col, worded as
// the DSL's (frontend/dsl's Callable). A slot of a bindless array
// (kernel.BindlessBuffer[T](arr, slot)) is not a buffer: pass the array and
// the slot. A buffer parameter bound to a view (device.Buffer.View) is that
// sub-range, len included, in the kernel and its helpers alike.
//
// The value (non-buffer) parameters of a kernel share the push-constant
// block of kernel ABI v1 (docs/kernel-abi.md): 128 bytes, 24 of them the
// dispatch header. Arguments past that budget spill to a per-dispatch block
// the kernel reads by its device address, so there is no limit to write
// around; only the first 104 bytes of arguments are read from push constants.
//
// The one design choice to know: checking and lowering are a single walk over
// the typed Go syntax. The Go type checker has already resolved every name,
// constant and type, so the walk maps each Go construct either to IR
// (typed from go/types) or to an error, and keeps going after an error so that
// one load reports every problem. The same kernel functions also run unchanged
// on the CPU with kernel.Run, which the tests use as the oracle.
package gokernel
