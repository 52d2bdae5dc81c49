package device

// Ahead-of-time kernels: SaveKernel stores a kernel by name, without a
// device, with its signature and its IR, plus an artefact from each
// registered offline compiler (RegisterOfflineCompiler; the Vulkan backend's
// is its SPIR-V); LoadKernel builds it on a device later, refusing it unless
// the signature is the one the program expects. The record
// (shadercache.Kernel) carries the signature as text — what is compared, and
// what an error shows — and the whole (logical) signature as JSON (aotABI),
// which the backend lays out by its ABI, so loading an artefact needs no IR.
// A device whose backend has no artefact in the record (or one of another
// code generator's version) compiles the IR, so a kernel saved anywhere
// loads on every backend.
//
// With no device to ask, an offline compiler takes the portable path for
// every capability its codegen consults (the Vulkan backend's float atomics
// become compare-and-swap loops), so a saved kernel runs on any device of
// the backend (for Vulkan, any Vulkan 1.2 device).

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/shadercache"
)

// ErrKernelNotFound is wrapped by LoadKernel's error when the store holds no
// kernel under the name.
var ErrKernelNotFound = errors.New("kernel not found")

// aotABIVersion versions the JSON layout of aotABI. Version 1 held the
// Vulkan binding layout in the signature; version 2 the logical signature,
// the code generator's version and the IR; version 3 the logical signature
// and whether the kernel runs in whole blocks (the IR is the record's own,
// the code generator's version the backend's artefact's); version 4 adds
// the layouts of struct, array and matrix arguments (Argument.Layout).
// Versions from aotABIOldest are read (version 3: arguments without layouts).
const (
	aotABIVersion = 4
	aotABIOldest  = 3
)

// aotABI is the signature stored with an ahead-of-time kernel.
type aotABI struct {
	Version   int
	Signature Signature
	// WholeBlocks is ShaderDesc.WholeBlocks: the kernel uses barriers.
	WholeBlocks bool
}

// SaveKernel stores kernel f in store under name, with its argument
// signature and its IR, and compiles it with every registered offline
// compiler (the Vulkan backend's, where device/vulkan is imported) for an
// artefact each; no device is involved. It returns the signature text
// LoadKernel will expect (see SignatureText). Only WithDebugNames of the
// options matters. A kernel that captures host resources cannot be saved:
// they do not outlive the process. A kernel an offline compiler refuses is
// not saved (the error names the backend).
func SaveKernel(store shadercache.BinaryIO, name string, f *ir.Function, opts ...CompileOption) (string, error) {
	o := compileOptions{}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if f == nil {
		return "", fmt.Errorf("device: SaveKernel %q: %w: nil kernel", name, ErrInvalidArgument)
	}
	if store == nil {
		return "", fmt.Errorf("device: SaveKernel %q: %w: nil store", name, ErrInvalidArgument)
	}
	sig, captured, err := KernelSignature(f)
	if err != nil {
		return "", fmt.Errorf("device: SaveKernel %q: %w", name, err)
	}
	for i, c := range captured {
		if c != nil {
			return "", fmt.Errorf("device: SaveKernel %q: %w: %s captures a host resource (%T); pass it as an argument",
				name, ErrInvalidArgument, sig.Args[i].Label(i), c)
		}
	}
	blob, err := ir.MarshalKernel(f)
	if err != nil {
		return "", fmt.Errorf("device: SaveKernel %q: %w", name, err)
	}
	rec := shadercache.Kernel{Signature: SignatureText(sig), IR: blob}
	for _, backend := range offlineCompilers() {
		art, err := offlineCompiler(backend).Compile(f, KernelOptions{DebugNames: o.names})
		if err != nil {
			if errors.Is(err, ir.ErrUnsupported) && !errors.Is(err, ErrUnsupported) {
				err = fmt.Errorf("%w: %w", ErrUnsupported, err)
			}
			return "", fmt.Errorf("device: SaveKernel %q: the %s backend: %w", name, backend, err)
		}
		rec.Artefacts = append(rec.Artefacts, shadercache.Artefact{Backend: backend, Data: art})
	}
	rec.ABI, err = json.Marshal(aotABI{Version: aotABIVersion, Signature: sig, WholeBlocks: f.UsesBarrier()})
	if err != nil {
		return "", fmt.Errorf("device: SaveKernel %q: %w", name, err)
	}
	if err := shadercache.SaveKernel(store, name, rec); err != nil {
		return "", fmt.Errorf("device: SaveKernel: %w", err)
	}
	return rec.Signature, nil
}

// LoadKernel builds the kernel stored under name on d. signature is the
// SignatureText the program was written against; a kernel stored with
// another one is refused with an error naming both (wrapping
// shadercache.ErrSignatureMismatch); where the text or the record gives a
// struct no layout (made before signatures carried layouts), only the
// struct's size is compared. A name the store lacks wraps
// ErrKernelNotFound; a record the store holds damaged (truncated, altered)
// wraps shadercache.ErrBadKernel. Where the record holds an artefact of d's backend, made
// by this build's code generator, the Kernel is built from it and has no
// Function; otherwise (no artefact for the backend, an artefact of another
// version, or a device that refuses the module with ErrUnsupported) it is
// compiled from the stored IR (the Vulkan artefact of a kernel that traces
// an accel is for the software path, so a device with native ray queries
// compiles the IR). An artefact of another version is logged (Info, on d's
// logger) as it is ignored; artefacts of other backends are ignored. An
// artefact of d's backend that does not decode is an error wrapping
// shadercache.ErrBadKernel. Every argument is passed to Dispatch.
// LoadPrebuilt takes the same path for a kernel compiled into the program.
func LoadKernel(d *Device, store shadercache.BinaryIO, name, signature string) (*Kernel, error) {
	if store == nil {
		return nil, fmt.Errorf("device: LoadKernel %q: %w: nil store", name, ErrInvalidArgument)
	}
	rec, ok, err := shadercache.LoadKernelMatch(store, name, signature, sameSignatureText)
	if err != nil {
		if errors.Is(err, shadercache.ErrSignatureMismatch) {
			return nil, fmt.Errorf("device: LoadKernel: %w: %w", ErrInvalidArgument, err)
		}
		return nil, fmt.Errorf("device: LoadKernel: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("device: LoadKernel %q: %w", name, ErrKernelNotFound)
	}
	var abi aotABI
	if err := json.Unmarshal(rec.ABI, &abi); err != nil {
		return nil, fmt.Errorf("device: LoadKernel %q: signature: %w: %w", name, shadercache.ErrBadKernel, err)
	}
	if abi.Version < aotABIOldest || abi.Version > aotABIVersion {
		return nil, fmt.Errorf("device: LoadKernel %q: signature version %d, this build reads %d to %d (save the kernel again): %w",
			name, abi.Version, aotABIOldest, aotABIVersion, shadercache.ErrBadKernel)
	}
	if got := SignatureText(abi.Signature); got != rec.Signature {
		return nil, fmt.Errorf("device: LoadKernel %q: signature %s disagrees with the stored text %s: %w",
			name, got, rec.Signature, shadercache.ErrBadKernel)
	}
	art, hasArt := rec.Artefact(d.Backend())
	return aotKernel{
		name: name, sig: abi.Signature, text: rec.Signature, wholeBlocks: abi.WholeBlocks,
		ir: rec.IR, artefact: art, hasArtefact: hasArt,
	}.build(d, "LoadKernel")
}

// Prebuilt is a kernel compiled ahead of time and compiled into a program,
// as the launchers lucentc -go writes carry it: what an ahead-of-time
// record holds (SaveKernel), with no store. LoadPrebuilt builds it as
// LoadKernel builds a record, so an artefact of another code generator
// version than this build's is never run.
type Prebuilt struct {
	// Name names the kernel in errors, logs and debuggers ("pkg.Saxpy").
	Name string
	// Signature is the kernel's logical argument list (KernelSignature of
	// the IR), with which the artefact is created.
	Signature Signature
	// WholeBlocks is ShaderDesc.WholeBlocks: the kernel uses barriers.
	WholeBlocks bool
	// IR is the kernel serialised (ir.MarshalKernel), compiled where no
	// artefact is used.
	IR []byte
	// Artefacts holds, by backend name, what the backend's OfflineCompiler
	// makes: the Vulkan backend's is the code generator's version, then the
	// SPIR-V (device/vulkan.Artefact).
	Artefacts map[string][]byte
	// Host is the kernel as compiled Go (WithHost), given to the backend
	// where the IR is compiled.
	Host HostFunc
	// Validate has the backend validate the artefact's module when the
	// shader is created (ShaderDesc.Trusted false): for an artefact nothing
	// validated when it was made (lucentc -validate=false).
	Validate bool
}

// LoadPrebuilt builds kernel p on d, as LoadKernel builds a record: from
// the artefact of d's backend where this build's code generator made it
// (the Kernel then has no Function and CodegenTime 0), otherwise from the
// IR (no artefact for the backend, an artefact of another code generator
// version, or a device that refuses the module with ErrUnsupported), with
// p.Host. An artefact of another version is logged (Info, on d's logger) as
// it is ignored. An artefact of d's backend that does not decode is an
// error wrapping shadercache.ErrBadKernel, as is IR that does not decode or
// whose signature is not p.Signature's (a struct's layout included, where
// p.Signature has one: a launcher made before signatures carried layouts
// has none, and only the struct's size is compared).
func LoadPrebuilt(d *Device, p Prebuilt) (*Kernel, error) {
	name := p.Name
	if name == "" {
		name = "kernel"
	}
	if d == nil {
		return nil, fmt.Errorf("device: LoadPrebuilt %q: %w: nil device", name, ErrInvalidArgument)
	}
	art, hasArt := p.Artefacts[d.Backend()]
	return aotKernel{
		name: name, sig: cloneSignature(p.Signature), text: SignatureText(p.Signature), wholeBlocks: p.WholeBlocks,
		ir: p.IR, artefact: art, hasArtefact: hasArt, host: p.Host, validate: p.Validate,
	}.build(d, "LoadPrebuilt")
}

// cloneSignature copies s's lists, so that a shader's signature shares no
// memory with the caller's (a launcher's package variable).
func cloneSignature(s Signature) Signature {
	s.Args = slices.Clone(s.Args)
	for i := range s.Args {
		s.Args[i].Layout = slices.Clone(s.Args[i].Layout)
	}
	s.Prints = slices.Clone(s.Prints)
	s.Sites = slices.Clone(s.Sites)
	s.Asserts = slices.Clone(s.Asserts)
	s.Places = slices.Clone(s.Places)
	return s
}

// aotKernel is what LoadKernel and LoadPrebuilt build a kernel from: one
// path, so that a record and a launcher treat their artefacts alike.
type aotKernel struct {
	name        string
	sig         Signature
	text        string // SignatureText(sig): what the IR must compile to
	wholeBlocks bool
	ir          []byte
	artefact    []byte // the device's backend's, where hasArtefact
	hasArtefact bool
	host        HostFunc
	validate    bool
}

// build builds a on d (what is LoadKernel or LoadPrebuilt, for errors).
func (a aotKernel) build(d *Device, what string) (*Kernel, error) {
	backend := d.Backend()
	oc := offlineCompiler(backend)
	if !a.hasArtefact || oc == nil || d.opts.CheckedKernels {
		// A device checking every kernel (WithCheckedKernels) compiles the
		// IR in the checked mode: the artefact is the unchecked code.
		return a.fromIR(d, what)
	}
	desc, current, err := oc.Load(a.artefact)
	if err != nil {
		return nil, fmt.Errorf("device: %s %q: the %s artefact: %w: %w", what, a.name, backend, shadercache.ErrBadKernel, err)
	}
	if !current {
		d.Logger().Info("device: ahead-of-time artefact of another code generator version, compiling the kernel's IR",
			"kernel", a.name, "backend", backend)
		return a.fromIR(d, what)
	}
	sig := a.sig
	desc.Signature, desc.Name, desc.WholeBlocks = &sig, a.name, a.wholeBlocks
	if a.validate {
		desc.Trusted = false
	}
	sh, err := d.NewShader(desc)
	if errors.Is(err, ErrUnsupported) {
		// A device that refuses the module (a feature it lacks) compiles
		// the kernel from its IR.
		return a.fromIR(d, what)
	}
	if err != nil {
		return nil, fmt.Errorf("device: %s %q: %w", what, a.name, err)
	}
	return &Kernel{Shader: sh, words: desc.SPIRV, captured: make([]any, len(sig.Args)), nUser: len(sig.Args)}, nil
}

// fromIR compiles a's IR on d; its signature must be a's.
func (a aotKernel) fromIR(d *Device, what string) (*Kernel, error) {
	f, err := ir.UnmarshalKernel(a.ir)
	if err != nil {
		return nil, fmt.Errorf("device: %s %q: %w: %w", what, a.name, shadercache.ErrBadKernel, err)
	}
	k, err := Compile(d, f, WithKernelName(a.name), WithHost(a.host))
	if err != nil {
		return nil, fmt.Errorf("device: %s %q: %w", what, a.name, err)
	}
	if got := SignatureText(k.Signature()); !sameSignatureText(a.text, got) {
		_ = k.Close()
		return nil, fmt.Errorf("device: %s %q: the IR has signature %s, the kernel's is %s: %w", what, a.name, got, a.text, shadercache.ErrBadKernel)
	}
	return k, nil
}

// SignatureText is a kernel signature as ahead-of-time kernels are checked
// against: each argument's type and, for resources, how the kernel uses it,
// e.g. "(float32, Buffer[float32] read, Buffer[float32] read-write)"; a
// struct, array or matrix is its size and its layout where the argument has
// one (Argument.Layout), e.g. "struct(8 bytes){float32@0, int32@4}". Names
// (of parameters and of fields) and the block size are left out: renaming
// them or retuning the block does not change how a program calls the kernel.
func SignatureText(sig Signature) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, a := range sig.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		switch a.Kind {
		case ArgUniform:
			b.WriteString(valueText(a, a.Size))
		case ArgBuffer:
			fmt.Fprintf(&b, "Buffer[%s] %s", valueText(a, a.ElemSize), a.Access)
		case ArgTexture:
			fmt.Fprintf(&b, "Texture%dD[%s] %s", a.Dim, a.Format, a.Access)
		default:
			fmt.Fprintf(&b, "%s %s", a.Kind, a.Access)
		}
	}
	b.WriteByte(')')
	return b.String()
}

// valueText names a uniform's or a buffer element's type: "float32",
// "vec3<uint32>", or, when the type is not a scalar or vector, its size and
// its layout where known: "struct(8 bytes){float32@0, int32@4}".
func valueText(a Argument, size uint32) string {
	if a.Scalar == ScalarUnknown {
		if a.Layout != nil {
			return fmt.Sprintf("struct(%d bytes)%s", size, layoutText(a.Layout))
		}
		return fmt.Sprintf("struct(%d bytes)", size)
	}
	s := fmt.Sprintf("%s%d", a.Scalar, a.ScalarBits)
	if a.Scalar == ScalarBool {
		s = "bool"
	}
	if a.Components > 1 {
		s = fmt.Sprintf("vec%d<%s>", a.Components, s)
	}
	return s
}
