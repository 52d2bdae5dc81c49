// This file is the backend contract: what a backend implements (Interface,
// Factory) and the names it hands out or receives (Handle, HandleSpace, the
// descriptors). Users of lucent need none of it; they call the typed API
// (Open, Buffer, Stream, Kernel, ...), which is written once on top of it.
// How arguments reach a kernel is in docs/kernel-abi.md.

package device

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Interface is the backend contract: the only thing a backend implements.
// Every resource is a Handle (non-zero, unique across kinds, never reused
// while the device lives), taken from the device's HandleSpace so that it is
// unique across devices too: a handle of another device is refused with
// ErrInvalidArgument wherever it enters. Implementations are safe for
// concurrent use.
//
// Errors wrap the package's sentinels: a destroyed or unknown handle gives
// ErrClosed or ErrInvalidArgument, exhausted memory ErrOutOfMemory, a missing
// feature ErrUnsupported, a lost device ErrDeviceLost; calls after Close give
// ErrClosed.
//
// Destroying a resource still used by submitted work is allowed: the backend
// defers the release until that work has finished.
//
// User callbacks (CommandList callbacks, Custom.Func, Options.Debug) run
// under recover: a panic in one is logged through the device's logger and
// becomes an error wrapping ErrPanicked, never a crash (see Dispatch).
type Interface interface {
	// Close waits for all submitted work, releases every resource still alive
	// and the device itself. Later calls fail with ErrClosed; a second Close
	// returns nil.
	//
	// Calls racing Close on other goroutines either complete before Close
	// releases anything or fail with ErrClosed; host waits in flight return
	// ErrClosed. Close waits for submitted work for a bounded time (the
	// Vulkan backend: 10 s); when work is still running then (a kernel that
	// does not end), it returns an error naming the stream and wrapping
	// ErrDeviceLost, and leaks the device and its objects rather than destroy
	// what the GPU may still use. Work waiting for an event value no signal
	// was submitted for is dropped at once, and the error names its stream
	// and wraps ErrInvalidArgument. Called from a CommandList callback of the
	// device, it returns an error wrapping ErrInvalidArgument and closes
	// nothing (it would wait for that callback).
	Close() error

	// Capabilities describes the device. Optional capabilities beyond this
	// contract (presentation, native handles) are extensions a backend
	// offers through Extender.
	Capabilities() Capabilities
	// WarpSize returns the subgroup size (1 where there are no subgroups).
	WarpSize() uint32
	// MemoryGranularity returns the alignment in bytes that buffer offsets
	// given to the backend (views, bindless slots) must respect for binding.
	MemoryGranularity() uint64
	// SetName gives a resource a debug name (shown by validation messages and
	// debuggers).
	SetName(h Handle, name string) error

	CreateBuffer(desc BufferDesc) (Handle, error)
	DestroyBuffer(h Handle) error

	CreateTexture(desc TextureDesc) (Handle, error)
	DestroyTexture(h Handle) error

	// CreateBindlessArray creates an array of size slots, all empty.
	CreateBindlessArray(size uint32) (Handle, error)
	DestroyBindlessArray(h Handle) error

	CreateStream(kind StreamKind) (Handle, error)
	DestroyStream(h Handle) error

	// CreateShader builds a compute pipeline. With desc.Kernel the backend
	// compiles the kernel itself (its own code generator, its own caches
	// through Options.ShaderCache); with desc.SPIRV it takes a module from
	// elsewhere, which only the Vulkan backend accepts (others return
	// ErrUnsupported). When desc.Signature is nil (SPIR-V only) the backend
	// reflects it from the module; either way it returns the signature it
	// uses to bind arguments.
	CreateShader(desc ShaderDesc) (Handle, Signature, error)
	DestroyShader(h Handle) error

	// Dispatch encodes and submits list on the stream, in order after all
	// earlier work on it, and returns without waiting. Host callbacks run once
	// the list's GPU work completes, in order, on a goroutine of the
	// stream's. Upload data has been consumed when Dispatch returns; download
	// buffers are written before the callbacks run. A callback that panics is
	// recovered and logged, the list's later callbacks still run, and the
	// stream's next SynchronizeStream returns an error wrapping ErrPanicked.
	// A Custom.Func that panics fails Dispatch with an error wrapping
	// ErrPanicked (nothing of the list runs); the cpu backend, which calls
	// Func when the stream reaches the command, fails the list there and
	// reports the error at the stream's next SynchronizeStream (see Custom).
	//
	// A list with Timings is timed: the backend calls list.Timings.Reset
	// during Dispatch and names each dispatch's kernel, then, once the
	// list's work is done and before its callbacks, calls Record with the
	// instants it took before the first command and after each (its
	// downloads' rule: a host wait covering the list covers its timings).
	// A backend that cannot time the stream returns an error wrapping
	// ErrUnsupported and runs nothing; one that never can leaves
	// Capabilities.Timings false, and Submit refuses timed lists for it.
	Dispatch(stream Handle, list *CommandList) error
	// SynchronizeStream waits until all work submitted to the stream so far has
	// finished (its downloads written, its callbacks run), or ctx is done.
	// Called from one of the stream's own callbacks it returns an error
	// wrapping ErrInvalidArgument at once (it would wait for that callback).
	SynchronizeStream(ctx context.Context, stream Handle) error

	// Events are timeline semaphores: a monotonically increasing uint64.
	CreateEvent() (Handle, error)
	DestroyEvent(h Handle) error
	// SignalEvent makes the event reach value once the stream's earlier work is done.
	SignalEvent(event, stream Handle, value uint64) error
	// WaitEvent makes the stream's later work wait until the event reaches value.
	WaitEvent(event, stream Handle, value uint64) error
	// EventCompleted reports whether the event has reached value, with the
	// host side of the work ordered before the signal done: the downloads of
	// the lists before it on the signalling stream are in their slices and
	// their callbacks have run.
	EventCompleted(event Handle, value uint64) (bool, error)
	// SynchronizeEvent blocks the host until the event reaches value, with
	// the host side of the work before the signal done as for
	// EventCompleted, or ctx is done. Called from a callback of the stream
	// whose later work signals that value, it returns an error wrapping
	// ErrInvalidArgument (it would wait for that callback).
	SynchronizeEvent(ctx context.Context, event Handle, value uint64) error
}

// CloseGuard is implemented by a backend that runs user callbacks on its own
// goroutines. CloseAllowed returns an error wrapping ErrInvalidArgument when
// Close, called now, would wait for the callback it is called from (a
// CommandList callback closing its device); Device.Close asks before it
// releases anything.
type CloseGuard interface {
	CloseAllowed() error
}

// BufferDesc describes a buffer.
type BufferDesc struct {
	Size     uint64 // bytes, > 0
	ElemSize uint32 // the element stride, for naming and validation (0: bytes)
}

// TextureDesc describes a 2D or 3D texture. Textures can be read and written by
// kernels (storage), sampled, and copied.
type TextureDesc struct {
	Dim    uint8 // 2 or 3
	Format Format
	Width  uint32
	Height uint32
	Depth  uint32 // 1 for 2D
	Levels uint32 // mip levels, >= 1
}

// LevelExtent returns the extent of mip level l (each axis halved, at least 1).
func (d TextureDesc) LevelExtent(l uint32) [3]uint32 {
	e := [3]uint32{d.Width, d.Height, d.Depth}
	for i := range e {
		e[i] = max(e[i]>>l, 1)
	}
	return e
}

// ShaderDesc describes a shader to create: a lucent kernel (Kernel), or a
// SPIR-V module (SPIRV, Vulkan backend only); exactly one of the two.
type ShaderDesc struct {
	// Kernel is a validated lucent kernel for the backend to compile, with
	// KernelOptions; Signature must then be the kernel's (KernelSignature).
	// Compile fills both.
	Kernel        *ir.Function
	KernelOptions KernelOptions
	// Report, when not nil, receives what compiling Kernel took.
	Report *ShaderReport

	// SPIRV is a module from elsewhere: one GLCompute entry point.
	SPIRV []uint32
	// EntryPoint names it ("" means "main").
	EntryPoint string
	// Signature is the logical argument list (KernelSignature). Given with
	// SPIRV, the module must follow the backend's kernel ABI, by which the
	// backend lays the signature out (docs/kernel-abi.md for Vulkan); nil
	// asks the backend to reflect it from the module.
	Signature *Signature
	// Name is a debug name for the shader.
	Name string
	// Trusted says the module is known good, so the backend skips validating
	// it with SPIRV-Tools. Leave it false for SPIR-V from anywhere but
	// lucent's own compiler: such a module is checked by spirv-val (for the
	// device's Vulkan version and the layouts it enables) before the driver
	// sees it, and refused with an error wrapping ErrUnsupported where
	// SPIRV-Tools is not installed. The Vulkan backend's offline compiler
	// sets it for the artefacts LoadKernel and LoadPrebuilt (the launchers
	// lucentc -go writes) load; a Kernel's module is the backend's own
	// codegen output, always trusted (RATIONALE.md, "Trust model for SPIR-V").
	// Either way the module is parsed, and checked against the device's
	// limits (workgroup size and invocations, shared memory, id bound).
	Trusted bool
	// Host, given with Kernel, is the same kernel as a compiled Go function
	// (the launchers lucentc -go writes pass the Go-subset kernel they were
	// made from). A backend that runs kernels on the host CPU may call it
	// instead of compiling Kernel; the others ignore it. Kernel stays the
	// description: the signature, the argument checks and the limits come
	// from it, and Host must compute what it does.
	Host HostFunc
	// WholeBlocks says the shader must be dispatched in whole blocks of
	// Signature.BlockSize, as a kernel with barriers must (threads past the
	// size return early and would miss the barrier): Dispatch refuses any
	// other size. A Kernel's shader has it when the kernel uses barriers;
	// the launchers lucentc -go writes set it from the kernel.
	WholeBlocks bool
}

// HostFunc runs a kernel over size threads (in the kernel's blocks) as
// compiled Go, on the calling goroutine and as many more as it likes,
// returning when every thread has finished. args[i] is argument i's bytes,
// by the signature: a buffer's bound range (the device's memory, aligned for
// the element type), a uniform's value as Argument.Uniform holds it. It
// returns ctx's error, wrapped, when ctx is done before the work is; an error
// wrapping ErrInvalidArgument when an argument does not fit the function
// (its size), and any other error (a panicking thread) as what went wrong in
// the kernel. The backend names the kernel around it.
type HostFunc func(ctx context.Context, size [3]uint32, args [][]byte) error

// Factory is what a backend registers: it lists the adapters it sees and opens
// one of them.
type Factory interface {
	// Enumerate lists the adapters, Index 0..n-1 in the backend's order.
	Enumerate(ctx context.Context, opts Options) ([]Adapter, error)
	// Open opens adapter opts.DeviceIndex (always a valid index when called
	// through this package).
	Open(ctx context.Context, opts Options) (Interface, error)
}

// Register makes a backend available under name. Backends call it from init.
// It panics, as database/sql.Register does, when name is taken or f is nil:
// that is a programming error in the backend, found at program start.
func Register(name string, f Factory) {
	registry.Lock()
	defer registry.Unlock()
	if f == nil {
		panic("device: Register factory is nil for " + name)
	}
	if _, dup := registry.m[name]; dup {
		panic("device: Register called twice for backend " + name)
	}
	if registry.m == nil {
		registry.m = map[string]Factory{}
	}
	registry.m[name] = f
}

// Handle names a backend resource. A backend hands out handles that are
// non-zero, unique across all kinds and never reused, and unique across every
// device of the process: a backend takes them from a HandleSpace, whose top
// bits name the device. So a handle alone identifies a resource, a handle of
// another device is told apart from one of this device, and 0 is never valid.
type Handle uint64

// Handle layout: the device's serial in the top bits, a per-device counter in
// the low handleCounterBits.
const handleCounterBits = 40

var handleSpaces atomic.Uint64 // serials of the HandleSpaces made so far

// HandleSpace hands out the handles of one device. Every backend takes its
// handles from one, so that a handle of another device (which would otherwise
// name an unrelated resource of this one with the same number) is refused
// wherever it enters. Safe for concurrent use.
type HandleSpace struct {
	base uint64
	last atomic.Uint64 // the counter of the last handle handed out
}

// NewHandleSpace returns the handle space of a new device.
func NewHandleSpace() *HandleSpace {
	return &HandleSpace{base: handleSpaces.Add(1) << handleCounterBits}
}

// New returns a fresh handle.
func (s *HandleSpace) New() Handle { return Handle(s.base | s.last.Add(1)) }

// Device returns the serial of the device a handle was made by (0 for none).
func (h Handle) Device() uint64 { return uint64(h) >> handleCounterBits }

// Number returns a handle's number on its device: 1 for the first handle the
// device handed out, 2 for the next, and so on.
func (h Handle) Number() uint64 { return uint64(h) & (1<<handleCounterBits - 1) }

// Format writes a handle the way messages name it: "#7", its number on its
// device, for %v, %d and %s (so an error reads "stream #7: closed", not
// "stream 2199023255559: closed"); %+v adds the device ("#7 of device 2");
// %x and %X write the whole 64-bit value.
func (h Handle) Format(f fmt.State, verb rune) {
	switch verb {
	case 'x', 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), uint64(h))
	default:
		if h == 0 {
			fmt.Fprint(f, "0 (no handle)")
			return
		}
		fmt.Fprintf(f, "#%d", h.Number())
		if verb == 'v' && f.Flag('+') {
			fmt.Fprintf(f, " of device %d", h.Device())
		}
	}
}

// Owns reports whether h was handed out by this space.
func (s *HandleSpace) Owns(h Handle) bool {
	n := uint64(h) &^ s.base
	return uint64(h)&^(1<<handleCounterBits-1) == s.base && n != 0 && n <= s.last.Load()
}

// Missing explains why a handle names no live resource of this device: 0, a
// handle of another device, one of this device that was destroyed (ErrClosed),
// or one never handed out. kind names what the caller wanted ("buffer").
func (s *HandleSpace) Missing(h Handle, kind string) error {
	switch {
	case h == 0:
		return invalidf("%s handle 0 (a zero value, or a resource never created)", kind)
	case h.Device() != s.base>>handleCounterBits:
		if h.Device() != 0 && h.Device() <= handleSpaces.Load() {
			return invalidf("%s %d belongs to another device (device #%d; this is device #%d)",
				kind, h, h.Device(), s.base>>handleCounterBits)
		}
		return invalidf("unknown %s handle %d", kind, h)
	case s.Owns(h):
		return fmt.Errorf("%s %d: %w", kind, h, ErrClosed)
	}
	return invalidf("unknown %s handle %d", kind, h)
}

// KernelOptions are the backend-neutral choices a kernel is compiled with;
// the backend adds its own (native float atomics or textures where its
// device has them, its target environment).
type KernelOptions struct {
	// DebugNames keeps variable and function names in the native code.
	DebugNames bool
	// EmulatedFloatAtomics uses compare-and-swap loops for float32 atomic
	// add and sub even where the device has native ones.
	EmulatedFloatAtomics bool
	// Checked compiles the checked mode: buffer, shared-memory and
	// storage-texel indices out of range, integer divisions by zero and
	// failed assertions (ir.Assert) are recorded (the access
	// itself is then dropped or reads zero, as robust buffer access does)
	// and reported after the list as a *KernelFault from the stream's
	// Synchronize. Off, the native code is exactly the unchecked kernel's.
	// The cpu backend checks every kernel, whatever this says.
	Checked bool
	// NoDriverWorkarounds compiles without the driver workarounds the
	// backend applies on the device (Capabilities.Workarounds), to measure
	// their cost or see one is still needed; the code may then be wrong on
	// the drivers they are for.
	NoDriverWorkarounds bool
}

// ShaderReport is what a backend reports of compiling a kernel.
type ShaderReport struct {
	// CodegenTime is how long kernel → native code took (0 when it came
	// from the shader cache); PipelineTime how long the pipeline build took.
	CodegenTime, PipelineTime time.Duration
	// CacheHit is true when the native code came from the shader cache.
	CacheHit bool
	// SPIRV is the module the kernel became, on backends whose native code
	// is SPIR-V (Vulkan); nil elsewhere.
	SPIRV []uint32
}
