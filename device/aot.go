package device

// Ahead-of-time kernels: SaveKernel compiles a kernel to SPIR-V without a
// device and stores it by name with its signature; LoadKernel builds it on a
// device later, refusing it unless the signature is the one the program
// expects. The record (shadercache.Kernel) carries the SPIR-V, the signature
// as text — what is compared, and what an error shows — and the whole
// (logical) signature as JSON (aotABI), which the backend lays out by its
// ABI, so loading needs no frontend AST.
//
// With no device to ask, SaveKernel compiles with the Vulkan backend's
// offline compiler (RegisterOfflineCompiler), which takes the portable path
// for every capability its codegen consults (float atomics become
// compare-and-swap loops), so a saved kernel runs on any Vulkan 1.2 device.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/shadercache"
)

// ErrKernelNotFound is wrapped by LoadKernel's error when the store holds no
// kernel under the name.
var ErrKernelNotFound = errors.New("kernel not found")

// aotABIVersion versions the JSON layout of aotABI. Version 1 held the
// Vulkan binding layout in the signature; version 2 holds the logical
// signature, which the backend lays out, and the kernel's IR.
const aotABIVersion = 2

// aotABI is the signature stored with an ahead-of-time kernel, and the
// kernel's IR for backends that take no SPIR-V.
type aotABI struct {
	Version   int
	Codegen   int // the version of the code generator that made the SPIR-V
	Signature Signature
	IR        []byte // ir.MarshalKernel
}

// aotBackend names the backend whose offline compiler SaveKernel uses: the
// records hold SPIR-V.
const aotBackend = "vulkan"

// SaveKernel compiles kernel f to SPIR-V without a device (with the offline
// compiler the Vulkan backend registers: import device/vulkan, or get
// ErrUnsupported) and stores it in store under name, with its argument
// signature. It returns the signature
// text LoadKernel will expect (see SignatureText). Only WithDebugNames of the
// options matters. A kernel that captures host resources cannot be saved:
// they do not outlive the process.
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
	compile := offlineCompiler(aotBackend)
	if compile == nil {
		return "", fmt.Errorf("device: SaveKernel %q: %w: no offline compiler for the %s backend (import its package)", name, ErrUnsupported, aotBackend)
	}
	words, version, err := compile(f, KernelOptions{DebugNames: o.names})
	if err != nil {
		if errors.Is(err, ir.ErrUnsupported) {
			err = fmt.Errorf("%w: %w", ErrUnsupported, err)
		}
		return "", fmt.Errorf("device: SaveKernel %q: %w", name, err)
	}
	ir, err := ir.MarshalKernel(f)
	if err != nil {
		return "", fmt.Errorf("device: SaveKernel %q: %w", name, err)
	}
	abi, err := json.Marshal(aotABI{Version: aotABIVersion, Codegen: version, Signature: sig, IR: ir})
	if err != nil {
		return "", fmt.Errorf("device: SaveKernel %q: %w", name, err)
	}
	text := SignatureText(sig)
	if err := shadercache.SaveKernel(store, name, shadercache.Kernel{SPIRV: words, Signature: text, ABI: abi}); err != nil {
		return "", fmt.Errorf("device: SaveKernel: %w", err)
	}
	return text, nil
}

// LoadKernel builds the kernel stored under name on d. signature is the
// SignatureText the program was written against; a kernel stored with
// another one is refused with an error naming both (wrapping
// shadercache.ErrSignatureMismatch). A name the store lacks wraps
// ErrKernelNotFound. The Kernel is built from the stored SPIR-V and has no
// Function; on a backend that takes no SPIR-V (or a device that refuses the
// module) it is compiled from the stored IR instead. Every argument is passed
// to Dispatch.
func LoadKernel(d *Device, store shadercache.BinaryIO, name, signature string) (*Kernel, error) {
	if store == nil {
		return nil, fmt.Errorf("device: LoadKernel %q: %w: nil store", name, ErrInvalidArgument)
	}
	rec, ok, err := shadercache.LoadKernel(store, name, signature)
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
		return nil, fmt.Errorf("device: LoadKernel %q: binding layout: %w: %w", name, shadercache.ErrBadKernel, err)
	}
	if abi.Version != aotABIVersion {
		return nil, fmt.Errorf("device: LoadKernel %q: binding layout version %d, this build reads %d (save the kernel again): %w",
			name, abi.Version, aotABIVersion, shadercache.ErrBadKernel)
	}
	if got := SignatureText(abi.Signature); got != rec.Signature {
		return nil, fmt.Errorf("device: LoadKernel %q: binding layout %s disagrees with the stored signature %s: %w",
			name, got, rec.Signature, shadercache.ErrBadKernel)
	}
	sig := abi.Signature
	// Trusted: the record is SaveKernel's codegen output, integrity-checked
	// by shadercache.LoadKernel; a store is as trusted as the program's own
	// files (RATIONALE.md, "Trust model for SPIR-V").
	sh, err := d.NewShader(ShaderDesc{SPIRV: rec.SPIRV, Signature: &sig, Name: name, Trusted: true})
	if errors.Is(err, ErrUnsupported) && len(abi.IR) > 0 {
		// A backend that takes no SPIR-V, or a device that refuses the
		// module, compiles the kernel from its IR.
		return loadFromIR(d, name, abi.IR, rec.Signature)
	}
	if err != nil {
		return nil, fmt.Errorf("device: LoadKernel %q: %w", name, err)
	}
	return &Kernel{Shader: sh, words: rec.SPIRV, captured: make([]any, len(sig.Args)), nUser: len(sig.Args)}, nil
}

// loadFromIR compiles the IR of the ahead-of-time kernel name on d; its
// signature must be the stored one (text).
func loadFromIR(d *Device, name string, blob []byte, text string) (*Kernel, error) {
	f, err := ir.UnmarshalKernel(blob)
	if err != nil {
		return nil, fmt.Errorf("device: LoadKernel %q: %w: %w", name, shadercache.ErrBadKernel, err)
	}
	k, err := Compile(d, f, WithKernelName(name))
	if err != nil {
		return nil, fmt.Errorf("device: LoadKernel %q: %w", name, err)
	}
	if got := SignatureText(k.Signature()); got != text {
		_ = k.Close()
		return nil, fmt.Errorf("device: LoadKernel %q: the stored IR has signature %s, the record %s: %w", name, got, text, shadercache.ErrBadKernel)
	}
	return k, nil
}

// SignatureText is a kernel signature as ahead-of-time kernels are checked
// against: each argument's type and, for resources, how the kernel uses it,
// e.g. "(float32, Buffer[float32] read, Buffer[float32] read-write)". Names
// and the block size are left out: renaming a parameter or retuning the
// block does not change how a program calls the kernel.
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
// "vec3<uint32>", or its size when the type is not a scalar or vector.
func valueText(a Argument, size uint32) string {
	if a.Scalar == ScalarUnknown {
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
