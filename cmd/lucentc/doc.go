// Command lucentc is lucent's offline shader compiler: it compiles every
// //lucent:kernel function of the named Go packages to SPIR-V ahead of time,
// so a program runs its kernels with no compile step at run time.
//
//	lucentc [flags] ./pkg...
//
// Each kernel becomes <pkg>.<Kernel>.spv in the -o directory; -S prints the
// disassembly, -ir the kernel IR's text form, -O runs the SPIRV-Tools optimizer, and every module is checked
// by the SPIR-V validator for the -target environment unless -validate=false.
// With -go, lucentc writes lucent_kernels.go into each kernel package: the
// Vulkan backend's artefact as a []byte literal (vulkan.Artefact: the
// version of the code generator that made it, then the SPIR-V), the
// kernel's logical signature as a device.Signature literal (no binding
// numbers: the Vulkan backend lays it out by its kernel ABI), the kernel's
// IR (ir.MarshalKernel), and a typed launcher per kernel, whose constructor
// hands them to device.LoadPrebuilt, the path of ahead-of-time records: the
// SPIR-V runs where the program's lucent has the code generator that made
// it; a lucent of another codegen version (whose kernel ABI may differ: the
// push layout, the print ring), a backend that takes no SPIR-V, or a device
// that refuses the module (one tracing an accel refuses the SPIR-V's
// software traversal where its ray queries are native) compiles the IR
// instead, at the cost of codegen once per kernel and run (about 0.1 ms for
// saxpy, 0.3-0.6 ms for a tiled matmul; the device logs each stale
// artefact at Info level: regenerate the launchers to lose it). A launcher
// generated before the artefact carried its version passes bare SPIR-V to
// Device.NewShader, which cannot tell whose codegen made it: run
// "lucentc -go -check" (the file is out of date) and regenerate it. So
//
//	//go:generate go tool lucentc -go .
//
// (after go get -tool github.com/lucent-gpu/lucent/cmd/lucentc, which
// records lucentc and its dependencies in the module's go.mod) is all a
// kernel package needs, and a program calls
//
//	k, err := kernels.NewSaxpy(dev)
//	err = stream.Submit(k.Dispatch(n, a, x, y))
//
// Where a kernel's parameters are Go memory as they are (no textures, no
// bools), the launcher also carries the kernel as compiled Go
// (device.WithHost): the cpu backend runs that function instead of the IR,
// at the speed of Go with Go's bounds checks (a thread's panic is the
// stream's error naming the kernel). For a kernel in the launcher's own
// package without Barrier, Shared or subgroup operations, the launcher
// carries a copy of the kernel's body with the thread ids as loop variables
// of a loop over a block's threads (kernel.RunBlocks): a plain Go loop, not
// a call and an id look-up per thread; the others run under kernel.Run, and
// the host function says why in a comment.
//
// Every module (a .spv file or a launcher's artefact) is compiled with each
// entry of the code generator's driver-workaround table (codegen.Workarounds,
// listed by lucent info), as device.SaveKernel compiles its artefacts: no
// device is there to say which apply, and the SPIR-V runs as it is on any
// driver. (loop-exit-flags, which Mesa 22.3's lavapipe needs for a loop
// that threads leave at different iterations, costs about 7 % in
// mandelbrot where no driver needs it; docs/PERFORMANCE.md.)
//
// The launchers' modules are trusted (device.ShaderDesc.Trusted), as lucentc
// validated them, so the program does not validate them again at run time
// (nor need SPIRV-Tools); with -validate=false they carry
// device.Prebuilt.Validate, and the device validates them when they are
// created.
//
// Use -goout dir to write the launchers into a separate package instead, to
// keep the kernel package free of the device dependency. A launcher file
// records the hash of each kernel's IR in its header ("// lucentc kernel
// Saxpy ir-sha256 …"). With -check lucentc writes nothing and exits 1 naming
// each kernel changed since its launcher was generated, added without one or
// removed with one still there, with the command that regenerates the file
// (found beside the kernels with or without -go; a -goout file with -go
// -goout), each generated file missing or out of date (one generated with
// other flags with the command that made it, from its header), and each
// <pkg>.<Kernel>.spv in the -o directory of a package it compiled whose
// kernel is gone: the test a CI step runs. -gotest (with -go) writes lucent_kernels_test.go beside the
// launchers, the same comparison of IR hashes in go test.
//
// The launchers' types are exact: a slice is a *device.Buffer, a texture a
// *device.Image or *device.Volume of its declared format's pixel type (a
// device.TextureLevel in DispatchViews and DispatchIndirect), a
// kernel.Bindless a *device.BindlessArray, a kernel.Accel an *accel.Accel;
// a buffer the kernel only reads is a device.ReadView in DispatchViews and
// DispatchIndirect (x.ReadOnly() of a buffer or view: a view with no method
// that writes, so a read-only view handed where a kernel writes does not
// compile). Dispatch's doc comment gives each resource's access. Each constructor refuses a stale launcher at run
// time: it hashes the kernel's directive and tokens in the file the program
// was built from (go/scanner, about 0.2 ms a file, once) and compares the
// hash lucentc embedded, where the file is there and not newer than the
// program; it sees the kernel's own source, not its callees or types.
//
// The one design choice to know: the generated file carries the build
// constraint !lucentc and lucentc loads packages with -tags=lucentc, so a
// stale generated file (a kernel renamed, a type removed) never stops lucentc
// from loading the package that it is about to regenerate. A package that
// uses its own launchers (a main calling NewSaxpy) does not type-check
// under that tag, so lucentc leaves out the type errors of declarations no
// kernel reaches, and those of packages without a kernel; the file imports
// only device, kernel, the standard library and the packages of the kernels' own parameter types, so the
// kernel package's CPU build (kernel.Run) and its imports stay acyclic.
package main
