package device

import (
	"errors"
	"fmt"
	"time"

	"github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/spirv"
)

// Kernel is a compiled lucent kernel: the Shader built from the codegen's
// SPIR-V with the Signature the compiler derived from the kernel's
// arguments, plus the resources the kernel captured, which Dispatch passes
// implicitly.
type Kernel struct {
	*Shader
	fn       *frontend.Function
	words    []uint32
	captured []any // per argument: the captured resource, or nil for arguments given at dispatch
	nUser    int
	barrier  bool // must be dispatched in whole blocks

	// CodegenTime is how long AST → SPIR-V words took; PipelineTime how long
	// the backend took to build the pipeline.
	CodegenTime, PipelineTime time.Duration
	// CacheHit is true when the SPIR-V came from the shader cache (codegen
	// was skipped; CodegenTime is then 0).
	CacheHit bool
}

type compileOptions struct {
	name     string
	names    bool
	emulated bool
}

// CompileOption tunes Compile.
type CompileOption func(*compileOptions)

// WithKernelName names the shader (for errors and debuggers).
func WithKernelName(name string) CompileOption { return func(o *compileOptions) { o.name = name } }

// WithEmulatedFloatAtomics uses compare-and-swap loops for float32 atomic
// add and sub on buffers even where the device has native ones (for testing
// the emulation, or working around a driver).
func WithEmulatedFloatAtomics() CompileOption { return func(o *compileOptions) { o.emulated = true } }

// WithDebugNames keeps variable and function names in the SPIR-V.
func WithDebugNames() CompileOption { return func(o *compileOptions) { o.names = true } }

// Compile generates SPIR-V for kernel f, specialised to d's capabilities
// (native float atomics where present), and builds its pipeline.
func Compile(d *Device, f *frontend.Function, opts ...CompileOption) (*Kernel, error) {
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
	caps := d.Capabilities()
	fo := frontend.Options{
		Env:            spirv.EnvVulkan1_2,
		FloatAtomicAdd: caps.AtomicFloat32Add && !o.emulated,
		Names:          o.names,
		// Texture slots through descriptor arrays where the device indexes
		// them; linear mirrors and sampling in code elsewhere.
		NativeBindlessTextures: caps.Sampling == PathNative,
	}
	words, cached, codegen, err := d.kernelSPIRV(f, fo, o.name) // through the shader cache (cache.go)
	if err != nil {
		if errors.Is(err, frontend.ErrUnsupported) {
			err = fmt.Errorf("%w: %w", ErrUnsupported, err)
		}
		return nil, fmt.Errorf("device: Compile %s: %w", o.name, err)
	}
	sig, captured, err := KernelSignature(f)
	if err != nil {
		return nil, fmt.Errorf("device: Compile %s: %w", o.name, err)
	}
	if fo.NativeBindlessTextures {
		textureSets(&sig, f)
	}
	t1 := time.Now()
	// Trusted: the words are this build's codegen output, fresh or read back
	// from the shader cache, which verifies what it returns (RATIONALE.md,
	// "Trust model for SPIR-V").
	sh, err := d.NewShader(ShaderDesc{SPIRV: words, Signature: &sig, Name: o.name, Trusted: true})
	if err != nil && cached && d.checkOpen() == nil {
		// A cached module the backend refuses is compiled again and rewritten.
		if words, codegen, err = d.recompile(f, fo, o.name, err); err != nil {
			return nil, fmt.Errorf("device: Compile %s: %w", o.name, err)
		}
		cached = false
		t1 = time.Now()
		sh, err = d.NewShader(ShaderDesc{SPIRV: words, Signature: &sig, Name: o.name, Trusted: true})
	}
	if err != nil {
		return nil, err
	}
	k := &Kernel{Shader: sh, fn: f, words: words, captured: captured, barrier: f.UsesBarrier(),
		CodegenTime: codegen, PipelineTime: time.Since(t1), CacheHit: cached}
	for _, c := range captured {
		if c == nil {
			k.nUser++
		}
	}
	return k, nil
}

// Function is the kernel's AST.
func (k *Kernel) Function() *frontend.Function { return k.fn }

// SPIRV is the module the kernel was built from.
func (k *Kernel) SPIRV() []uint32 { return k.words }

// Dispatch runs the kernel over size threads with the arguments the kernel
// declares (captured resources are added in their places). A wrong count or
// a mismatched argument gives a command whose error names the argument. A
// kernel with barriers must be dispatched in whole blocks.
func (k *Kernel) Dispatch(size [3]uint32, args ...any) Command {
	if k.barrier {
		bs := k.fn.BlockSize
		for i := range 3 {
			if s := max(size[i], 1); s%bs[i] != 0 {
				return bad("dispatch "+k.name, invalidf("kernel %s uses barriers, so its size %v must be a multiple of its block %v", k.name, size, bs))
			}
		}
	}
	if len(args) != k.nUser {
		return bad("dispatch "+k.name, invalidf("kernel %s takes %d argument(s), got %d", k.name, k.nUser, len(args)))
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
	return k.Shader.Dispatch(size, all...)
}

// KernelSignature derives the runtime Signature of kernel f from its
// arguments per kernel ABI v1, and lists the captured host resources by
// argument (nil for arguments given at dispatch).
func KernelSignature(f *frontend.Function) (Signature, []any, error) {
	layout, push, err := f.Layout()
	if err != nil {
		return Signature{}, nil, err
	}
	sig := Signature{BlockSize: f.BlockSize, DispatchHeader: true, PushConstantSize: uint32(push)}
	captured := make([]any, len(layout))
	for i, a := range layout {
		v := a.Var
		t := v.Type
		arg := Argument{Name: v.Name}
		captured[i] = v.Capture
		switch t.Kind() {
		case frontend.KindBuffer:
			arg.Kind = ArgBuffer
			if t.ByAddress() {
				arg.Form = FormAddress
				arg.Offset = uint32(a.Offset)
				arg.Size = 8
			} else {
				arg.Binding = uint32(a.Binding)
			}
			arg.ElemSize = uint32(t.Elem().Size())
			describeScalar(&arg, t.Elem())
			arg.Access = access(f, v)
		case frontend.KindTexture:
			arg.Kind = ArgTexture
			arg.Binding = uint32(a.Binding)
			arg.Dim = uint8(t.Len())
			arg.Format = textureFormats[t.Format()]
			arg.Access = access(f, v)
		case frontend.KindBindless:
			arg.Kind = ArgBindlessArray
			arg.Binding = uint32(a.Binding)
			arg.Access = Read
		case frontend.KindAccel:
			return Signature{}, nil, fmt.Errorf("%w: kernel argument %s of type %s", ErrUnsupported, v.Name, t)
		default:
			arg.Kind = ArgUniform
			arg.Offset = uint32(a.Offset)
			arg.Size = uint32(t.Size())
			describeScalar(&arg, t)
		}
		sig.Args = append(sig.Args, arg)
	}
	return sig, captured, nil
}

// textureSets gives the bindless arguments whose texture slots kernel f uses
// their descriptor sets, 1+i for the i-th (frontend.Options.NativeBindlessTextures).
func textureSets(sig *Signature, f *frontend.Function) {
	sets := map[*frontend.Var]uint32{}
	for i, v := range f.BindlessTextureArgs() {
		sets[v] = uint32(1 + i)
	}
	for j, p := range f.Params {
		sig.Args[j].TextureSet = sets[p]
	}
}

// textureFormats maps the kernel's texel formats to the runtime's.
var textureFormats = map[frontend.TexelFormat]Format{
	frontend.FormatAny: FormatInvalid, frontend.FormatRGBA32F: RGBA32Float, frontend.FormatRGBA16F: RGBA16Float,
	frontend.FormatRGBA8: RGBA8Unorm, frontend.FormatR32F: R32Float, frontend.FormatRGBA32UI: RGBA32Uint,
	frontend.FormatR32UI: R32Uint, frontend.FormatRGBA32I: RGBA32Sint, frontend.FormatR32I: R32Sint,
}

func describeScalar(a *Argument, t *frontend.Type) {
	if !t.IsScalar() && t.Kind() != frontend.KindVector {
		return
	}
	s := t.Scalar()
	switch s.Kind() {
	case frontend.KindBool:
		a.Scalar = ScalarBool
	case frontend.KindInt:
		a.Scalar = ScalarInt
	case frontend.KindUint:
		a.Scalar = ScalarUint
	case frontend.KindFloat:
		a.Scalar = ScalarFloat
	}
	a.ScalarBits = uint8(s.Bits())
	a.Components = uint8(t.Components())
}

func access(f *frontend.Function, v *frontend.Var) Access {
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
