package device

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Kernel is a compiled lucent kernel: the Shader the backend built from the
// kernel with the Signature derived from the kernel's arguments, plus the
// resources the kernel captured, which Dispatch passes implicitly.
type Kernel struct {
	*Shader
	fn       *ir.Function
	words    []uint32
	captured []any // per argument: the captured resource, or nil for arguments given at dispatch
	nUser    int

	// CodegenTime is how long the backend's codegen (AST → native code)
	// took; PipelineTime how long the backend took to build the pipeline
	// (ShaderReport).
	CodegenTime, PipelineTime time.Duration
	// CacheHit is true when the native code came from the backend's shader
	// cache (codegen was skipped; CodegenTime is then 0).
	CacheHit bool
}

type compileOptions struct {
	name     string
	names    bool
	emulated bool
	host     HostFunc
	checked  bool
	noWork   bool
}

// CompileOption tunes Compile.
type CompileOption func(*compileOptions)

// WithKernelName names the shader (for errors and debuggers).
func WithKernelName(name string) CompileOption { return func(o *compileOptions) { o.name = name } }

// WithEmulatedFloatAtomics uses compare-and-swap loops for float32 atomic
// add and sub on buffers even where the device has native ones (for testing
// the emulation, or working around a driver).
func WithEmulatedFloatAtomics() CompileOption { return func(o *compileOptions) { o.emulated = true } }

// WithHost gives the kernel's compiled Go function (ShaderDesc.Host), for a
// backend that runs kernels on the host: the launchers lucentc -go writes pass
// the Go-subset kernel they were made from.
func WithHost(fn HostFunc) CompileOption { return func(o *compileOptions) { o.host = fn } }

// WithoutDriverWorkarounds compiles without the driver workarounds the
// backend would apply on the device (Capabilities.Workarounds): for
// measuring their cost, or checking one is still needed. The kernel may then
// compute wrong results on the drivers they are for.
func WithoutDriverWorkarounds() CompileOption { return func(o *compileOptions) { o.noWork = true } }

// WithDebugNames keeps variable and function names in the native code.
func WithDebugNames() CompileOption { return func(o *compileOptions) { o.names = true } }

// WithChecked compiles the kernel in the checked mode (KernelOptions.Checked):
// faults (buffer, shared-memory, local array, vector and matrix and texel
// indices out of range, bindless slots past the array or empty when a
// buffer or texture is read or written through them, indices past the
// buffer in a bindless slot (FaultBufferIndex, What naming the array
// argument, "…, the buffer in its slot"), integer division by
// zero, failed assertions) are recorded on the device and fail
// the stream's Synchronize with a *KernelFault naming the statement's
// source position. WithCheckedKernels does it for every kernel of a device.
// What a faulting list wrote is then undefined: on the Vulkan backend the
// faulting access itself behaves as an unchecked one and the rest of the
// list runs; the cpu backend ends the list at the faulting command.
func WithChecked() CompileOption { return func(o *compileOptions) { o.checked = true } }

// Compile has d's backend compile kernel f, specialised to the device's
// capabilities (native float atomics where present), and build its
// pipeline. A kernel beyond the device's compute limits (its block size against
// maxComputeWorkGroupSize and maxComputeWorkGroupInvocations, its shared
// variables together against maxComputeSharedMemorySize) is refused with
// ErrUnsupported, naming the kernel and, for kernels compiled from source,
// the file:line:col of the culprit; one beyond the compiler's own bounds
// (ir.ErrLimit) with ErrInvalidArgument.
func Compile(d *Device, f *ir.Function, opts ...CompileOption) (*Kernel, error) {
	return CompileContext(context.Background(), d, f, opts...)
}

// CompileContext is Compile that gives up when ctx is done, returning
// ctx.Err() (wrapped) at once. Codegen and the driver's pipeline build
// cannot be interrupted, so they run on in the background; the pipeline they
// finally make is destroyed, not leaked, and Device.Close waits for it.
func CompileContext(ctx context.Context, d *Device, f *ir.Function, opts ...CompileOption) (*Kernel, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, fmt.Errorf("device: CompileContext: %w", err)
	}
	o := compileOptions{}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if f == nil {
		return nil, fmt.Errorf("device: Compile: %w: nil kernel", ErrInvalidArgument)
	}
	if o.name == "" {
		o.name = f.Name
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("device: Compile %s: %w", o.name, err)
	}
	// Validate before anything walks the AST (the cache key's hash does):
	// it bounds the AST's depth, and the device limits read a valid kernel.
	if err := f.Validate(); err != nil {
		if errors.Is(err, ir.ErrLimit) {
			err = fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		return nil, fmt.Errorf("device: Compile %s: %w", o.name, err)
	}
	if err := checkDeviceLimits(d.Capabilities(), f); err != nil {
		return nil, fmt.Errorf("device: Compile %s: %w", o.name, err)
	}
	if ctx.Done() == nil {
		return d.compile(f, o) // never cancelled: no goroutine
	}
	type result struct {
		k   *Kernel
		err error
	}
	ch := make(chan result) // unbuffered: a send succeeds only to a waiting caller
	d.mu.Lock()
	if d.closed.Load() {
		d.mu.Unlock()
		return nil, fmt.Errorf("device: Compile %s: %w", o.name, ErrClosed)
	}
	d.compiles.Add(1) // under mu: Close waits only once no more can start
	d.mu.Unlock()
	go func() {
		defer d.compiles.Done()
		k, err := d.compile(f, o)
		select {
		case ch <- result{k, err}:
		case <-ctx.Done():
			// The caller has gone: the late pipeline is nobody's.
			if k != nil {
				_ = k.Close()
			}
		}
	}()
	select {
	case r := <-ch:
		return r.k, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("device: Compile %s: %w", o.name, ctx.Err())
	}
}

// checkDeviceLimits holds kernel f to the device's compute limits (a zero
// limit is taken as unknown).
func checkDeviceLimits(caps Capabilities, f *ir.Function) error {
	at := func(pos string) string {
		if pos == "" {
			return ""
		}
		return pos + ": "
	}
	if f.Kind != ir.KernelFunc {
		return nil // Emit refuses it with its own error
	}
	b := f.BlockSize
	for i, m := range caps.MaxWorkgroupSize {
		if m != 0 && b[i] > m {
			return fmt.Errorf("%w: %skernel %s: its block %v is %d threads in %c, more than the device's %d (maxComputeWorkGroupSize %v)",
				ErrUnsupported, at(f.Pos), f.Name, b, b[i], "xyz"[i], m, caps.MaxWorkgroupSize)
		}
	}
	if n := uint64(b[0]) * uint64(b[1]) * uint64(b[2]); caps.MaxWorkgroupInvocations != 0 && n > uint64(caps.MaxWorkgroupInvocations) {
		return fmt.Errorf("%w: %skernel %s: its block %v is %d threads, more than the device's %d (maxComputeWorkGroupInvocations)",
			ErrUnsupported, at(f.Pos), f.Name, b, n, caps.MaxWorkgroupInvocations)
	}
	var total uint64
	var largest *ir.Var
	for _, v := range f.Shared {
		total += uint64(v.Type.Size())
		if largest == nil || v.Type.Size() > largest.Type.Size() {
			largest = v
		}
	}
	if caps.MaxSharedMemory != 0 && total > uint64(caps.MaxSharedMemory) {
		pos := largest.Pos
		if pos == "" {
			pos = f.Pos
		}
		return fmt.Errorf("%w: %skernel %s: its shared variables take %s, more than the device's %s (maxComputeSharedMemorySize); the largest, %s of type %s, takes %s",
			ErrUnsupported, at(pos), f.Name, ir.SizeText(total), ir.SizeText(uint64(caps.MaxSharedMemory)),
			largest.Name, largest.Type, ir.SizeText(uint64(largest.Type.Size())))
	}
	return nil
}

// compile is Compile past its checks: the backend compiles the kernel (its
// codegen, through its shader cache) and builds the pipeline.
func (d *Device) compile(f *ir.Function, o compileOptions) (*Kernel, error) {
	sig, captured, err := KernelSignature(f)
	if err != nil {
		return nil, fmt.Errorf("device: Compile %s: %w", o.name, err)
	}
	var rep ShaderReport
	checked := o.checked
	if d != nil {
		checked = checked || d.opts.CheckedKernels
	}
	sh, err := d.newShader(ShaderDesc{
		Kernel: f, Signature: &sig, Name: o.name, Report: &rep, Host: o.host,
		KernelOptions: KernelOptions{DebugNames: o.names, EmulatedFloatAtomics: o.emulated, Checked: checked, NoDriverWorkarounds: o.noWork},
	}, func(err error) error {
		if errors.Is(err, ir.ErrUnsupported) && !errors.Is(err, ErrUnsupported) {
			err = fmt.Errorf("%w: %w", ErrUnsupported, err)
		} else if errors.Is(err, ir.ErrLimit) && !errors.Is(err, ErrInvalidArgument) {
			err = fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		return fmt.Errorf("device: Compile %s: %w", o.name, err)
	})
	if err != nil {
		return nil, err
	}
	k := &Kernel{Shader: sh, fn: f, words: rep.SPIRV, captured: captured,
		CodegenTime: rep.CodegenTime, PipelineTime: rep.PipelineTime, CacheHit: rep.CacheHit}
	for _, c := range captured {
		if c == nil {
			k.nUser++
		}
	}
	return k, nil
}

// Function is the kernel's AST.
func (k *Kernel) Function() *ir.Function {
	if k == nil {
		return nil
	}
	return k.fn
}

// SPIRV is the module the kernel was built from, on a backend whose native
// code is SPIR-V (Vulkan); nil elsewhere.
func (k *Kernel) SPIRV() []uint32 {
	if k == nil {
		return nil
	}
	return k.words
}

func (k *Kernel) shader() *Shader {
	if k == nil {
		return nil
	}
	return k.Shader
}

// Close destroys the kernel's pipeline once the work using it has finished;
// later calls, and calls on a nil Kernel, return nil.
func (k *Kernel) Close() error { return k.shader().Close() }

// Handle returns the backend handle of the kernel's shader (0 for a nil Kernel).
func (k *Kernel) Handle() Handle { return k.shader().Handle() }

// SetName gives the kernel's shader a debug name.
func (k *Kernel) SetName(name string) error { return k.shader().SetName(name) }

// Signature returns the argument list the kernel's shader is dispatched with.
func (k *Kernel) Signature() Signature { return k.shader().Signature() }

// Dispatch runs the kernel over size threads with the arguments the kernel
// declares (captured resources are added in their places). A wrong count or
// a mismatched argument gives a command whose error names the argument. A
// kernel with barriers must be dispatched in whole blocks (the check is
// Shader.Dispatch's, which generated launchers take too).
func (k *Kernel) Dispatch(size [3]uint32, args ...any) Command {
	if k == nil || k.Shader == nil {
		return bad("dispatch", zeroErr("Kernel"))
	}
	all, err := k.withCaptured(args)
	if err != nil {
		return bad("dispatch "+k.name, err)
	}
	return k.Shader.Dispatch(size, all...)
}

// DispatchIndirect runs the kernel with workgroup counts read on the device
// from groups (three uint32: x, y, z), with the arguments the kernel declares
// (captured resources are added in their places).
func (k *Kernel) DispatchIndirect(groups BufferView[uint32], args ...any) Command {
	if k == nil || k.Shader == nil {
		return bad("dispatch", zeroErr("Kernel"))
	}
	all, err := k.withCaptured(args)
	if err != nil {
		return bad("dispatch "+k.name, err)
	}
	return k.Shader.DispatchIndirect(groups, all...)
}

// withCaptured puts the user's arguments and the captured resources in
// argument order.
func (k *Kernel) withCaptured(args []any) ([]any, error) {
	if len(args) != k.nUser {
		return nil, invalidf("kernel %s takes %d argument(s), got %d", k.name, k.nUser, len(args))
	}
	all := make([]any, len(k.captured))
	j := 0
	for i, c := range k.captured {
		if c != nil {
			all[i] = c
			continue
		}
		all[i] = args[j]
		j++
	}
	return all, nil
}

// KernelSignature derives the runtime Signature of kernel f from its
// parameters, and lists the captured host resources by argument (nil for
// arguments given at dispatch). The signature is logical (kinds, types,
// access); a backend lays it out by its own ABI.
func KernelSignature(f *ir.Function) (Signature, []any, error) {
	sig := Signature{BlockSize: f.BlockSize}
	captured := make([]any, len(f.Params))
	for i, v := range f.Params {
		t := v.Type
		arg := Argument{Name: v.Name}
		captured[i] = v.Capture
		switch t.Kind() {
		case ir.KindBuffer:
			arg.Kind = ArgBuffer
			arg.ByAddress = t.ByAddress()
			arg.ElemSize = uint32(t.Elem().Size())
			describeScalar(&arg, t.Elem())
			arg.Layout = kernelLayout(t.Elem())
			arg.Access = access(f, v)
		case ir.KindTexture:
			arg.Kind = ArgTexture
			arg.Dim = uint8(t.Len())
			arg.Format = textureFormats[t.Format()]
			arg.Access = access(f, v)
		case ir.KindBindless:
			arg.Kind = ArgBindlessArray
			arg.Access = Read
		case ir.KindAccel:
			arg.Kind = ArgAccel
			arg.Access = Read
		default:
			arg.Kind = ArgUniform
			arg.Size = uint32(t.Size())
			arg.Align = uint32(t.Align())
			describeScalar(&arg, t)
			arg.Layout = kernelLayout(t)
		}
		sig.Args = append(sig.Args, arg)
	}
	sig.Prints = printSites(f)
	sig.Sites = f.SitePositions()
	for _, a := range f.Asserts() {
		sig.Asserts = append(sig.Asserts, a.Msg)
	}
	sig.Places, _ = f.IndexNames()
	return sig, captured, nil
}

// textureFormats maps the kernel's texel formats to the runtime's.
var textureFormats = map[ir.TexelFormat]Format{
	ir.FormatAny: FormatInvalid, ir.FormatRGBA32F: RGBA32Float, ir.FormatRGBA16F: RGBA16Float,
	ir.FormatRGBA8: RGBA8Unorm, ir.FormatR32F: R32Float, ir.FormatRGBA32UI: RGBA32Uint,
	ir.FormatR32UI: R32Uint, ir.FormatRGBA32I: RGBA32Sint, ir.FormatR32I: R32Sint,
}

func describeScalar(a *Argument, t *ir.Type) {
	if !t.IsScalar() && t.Kind() != ir.KindVector {
		return
	}
	s := t.Scalar()
	switch s.Kind() {
	case ir.KindBool:
		a.Scalar = ScalarBool
	case ir.KindInt:
		a.Scalar = ScalarInt
	case ir.KindUint:
		a.Scalar = ScalarUint
	case ir.KindFloat:
		a.Scalar = ScalarFloat
	}
	a.ScalarBits = uint8(s.Bits())
	a.Components = uint8(t.Components())
}

func access(f *ir.Function, v *ir.Var) Access {
	r, w := f.Access(v)
	var a Access
	if r {
		a |= Read
	}
	if w {
		a |= Write
	}
	if a == 0 {
		a = Read // bound but unused
	}
	return a
}
