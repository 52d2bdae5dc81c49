// Package device is lucent's runtime: open a device, make buffers and
// textures, compile kernels and run them on streams.
//
// # Using a device
//
// Import a backend for its side effect and open a device. Resources are
// typed: NewBuffer[T], NewImage[T] and NewVolume[T] take any plain-data T
// (no Go pointers; checked once per type), and host and device share Go's
// layout, so a []T uploads as it is. Kernels come from Compile (a
// ir.Function, from the Go DSL or a //lucent:kernel Go function),
// LoadKernel (saved ahead of time by name) or Device.NewShader (SPIR-V from
// elsewhere, validated before the driver sees it). A Stream runs commands in
// order; an Event orders streams; host waits take a context.Context.
//
//	import _ "github.com/lucent-gpu/lucent/device/vulkan"
//
//	dev, err := device.Open(ctx, "vulkan") // or "": the default backend (DefaultOrder)
//	...
//	defer dev.Close()
//	stream, _ := dev.NewStream(device.StreamCompute)
//	k, err := device.Compile(dev, saxpy)
//	const n = 1 << 20
//	x, _ := device.NewBuffer[float32](dev, n)
//	y, _ := device.NewBuffer[float32](dev, n)
//	err = stream.Submit(x.Upload(xs), y.Upload(ys),
//		k.Dispatch([3]uint32{n}, float32(2), x, y), y.Download(out))
//	err = stream.Synchronize(ctx)
//
// Methods that build commands (Upload, Download, View, Dispatch) return a
// value, not an error: a bad range or argument travels with the command, and
// Stream.Submit checks every command first and submits none when one is bad,
// with an error naming the command and the argument. Errors wrap the
// package's sentinels (ErrInvalidArgument, ErrUnsupported, ErrOutOfMemory,
// ErrDeviceLost, ErrClosed); nothing panics on bad input. Every resource has
// Close; Device.Close releases what is still open. WithValidation checks
// lifetimes and cross-stream hazards; Capabilities says which paths (native
// or emulated) the device takes.
//
// The main names, in the order a program meets them: Open, Enumerate and
// Options (WithValidation, WithShaderCache, WithLogger); Device; Buffer,
// BufferView, Image, Volume, Format, Sampler; Compile, CompileContext,
// LoadKernel, SaveKernel, Kernel, Shader; Stream, Event, BindlessArray;
// Capabilities, CacheStats.
//
// # Writing a backend
//
// Backend writers implement Interface, a small handle-based contract
// modelled on LuisaCompute's DeviceInterface, declared in contract.go with
// the names that go with it: Handle and HandleSpace (handles unique across
// kinds and devices), the descriptors (BufferDesc, TextureDesc, ShaderDesc),
// Factory and Register (backends register from init, database/sql style),
// Signature (how arguments bind, docs/kernel-abi.md) and CloseGuard.
// Everything above — the typed API and the validation wrapper (Validator) —
// is written once, here, on top of it. A stream runs a CommandList of
// commands, plain structs behind one sealed interface (Command); a backend
// encodes them with one type switch and derives its barriers from each
// command's Usages. NewDevice wraps an Interface built by hand.
package device
