package device

import (
	"fmt"
	"strings"
)

// ArgKind is the kind of one kernel argument.
type ArgKind uint8

const (
	ArgUniform        ArgKind = iota // a value in the push-constant block (scalar, vector, matrix, struct)
	ArgBuffer                        // a storage buffer (a Buffer[T] or BufferView[T])
	ArgTexture                       // a storage image (read/write texels of one mip level)
	ArgSampledTexture                // a sampled image with its sampler
	ArgBindlessArray                 // a BindlessArray
	ArgAccel                         // an accel (RayTracing), read by ray queries (an AccelArg at Dispatch)
)

func (k ArgKind) String() string {
	switch k {
	case ArgUniform:
		return "uniform"
	case ArgBuffer:
		return "buffer"
	case ArgTexture:
		return "texture"
	case ArgSampledTexture:
		return "sampled texture"
	case ArgBindlessArray:
		return "bindless array"
	case ArgAccel:
		return "accel"
	}
	return fmt.Sprintf("ArgKind(%d)", uint8(k))
}

// ScalarKind is the scalar type of a uniform (or of a buffer's elements), when
// known. ScalarUnknown leaves the type check to Argument.Layout (a struct,
// array or matrix), or to the size alone (a reflected module that says no
// more than a size).
type ScalarKind uint8

const (
	ScalarUnknown ScalarKind = iota
	ScalarBool
	ScalarInt // signed integer of Argument.ScalarBits
	ScalarUint
	ScalarFloat
)

func (k ScalarKind) String() string {
	return [...]string{"unknown", "bool", "int", "uint", "float"}[min(int(k), 4)]
}

// Argument describes one kernel argument, in argument order: what it is,
// not where it goes. Where each argument reaches the kernel (descriptor
// bindings, push-constant offsets) is the backend's business: the Vulkan
// backend lays a signature out by its kernel ABI (docs/kernel-abi.md).
type Argument struct {
	Name string // source name, or "" (errors then use the index)
	Kind ArgKind

	// Size is a uniform's size in bytes; Align its alignment (0: that of
	// its scalar, per Scalar and ScalarBits).
	Size  uint32
	Align uint32

	// ElemSize is a buffer's element stride in bytes (0: unknown, unchecked).
	ElemSize uint32
	// ByAddress marks a buffer the kernel reaches by device address (a
	// dsl.BigBuf parameter: views beyond the backend's descriptor
	// range); the backend passes the view's address and element count.
	ByAddress bool

	// Scalar, ScalarBits and Components describe a uniform of scalar or vector
	// type (or a buffer's element of that type); Scalar == ScalarUnknown
	// leaves only the size checked.
	Scalar     ScalarKind
	ScalarBits uint8
	Components uint8
	// Layout describes a uniform (or a buffer's element) of struct, array
	// or matrix type: its scalars in offset order, nested structs, arrays,
	// matrices and vectors flattened into runs of one scalar type (Leaf).
	// Dispatch checks a Go value's type, or a Buffer[T]'s T, against it
	// (kinds, widths and offsets; field names need not match), and an
	// ahead-of-time kernel's SignatureText carries it. It is nil where
	// nothing says more than a size: a signature reflected from SPIR-V or
	// written by hand, an ahead-of-time record or lucentc launcher made
	// before signatures carried layouts, a type of more than
	// MaxLayoutLeaves runs; then only the size is checked.
	Layout []Leaf `json:",omitempty"`

	// Format is a storage texture's pixel format (FormatInvalid: unchecked);
	// Dim is a texture's dimension, 2 or 3 (0: unchecked).
	Format Format
	Dim    uint8

	// Access is how the kernel uses a resource argument. Reflection of raw
	// SPIR-V reports Read for NonWritable and Write for NonReadable variables,
	// ReadWrite otherwise.
	Access Access
}

// Label names the argument in errors: its name, or "#i".
func (a Argument) Label(i int) string {
	if a.Name != "" {
		return fmt.Sprintf("argument %d (%s)", i, a.Name)
	}
	return fmt.Sprintf("argument %d", i)
}

// Signature is a shader's argument list plus its block size. Kernels
// compiled by lucent carry one derived from the kernel (KernelSignature); for
// raw SPIR-V the backend reflects it from the module (descriptor bindings in
// binding order, then the push-constant block's members in offset order).
type Signature struct {
	Args []Argument

	// BlockSize is the workgroup size (LocalSize) of the entry point.
	BlockSize [3]uint32

	// Prints lists the kernel's print statements by site (the index of the
	// ir.Print in ir.Function.Prints), for backends that format what the
	// kernel wrote after it ran; nil for a kernel that never prints.
	Prints []PrintSite `json:",omitempty"`
	// Checked says the kernel was compiled in the checked mode
	// (KernelOptions.Checked), so that it records faults as it runs.
	Checked bool `json:",omitempty"`
	// Sites is the source position of each statement of the kernel by
	// site (ir.Function.SitePositions), which the checked mode's faults
	// name; nil when the kernel has no positions.
	Sites []string `json:",omitempty"`
	// Asserts is the message of each assertion of the kernel, by its index
	// in ir.Function.Asserts, which a failed one's fault names.
	Asserts []string `json:",omitempty"`
	// Places names each array, vector, matrix or shared variable the
	// kernel indexes, by its position in ir.Function.IndexNames, which an
	// index fault (FaultArrayIndex, FaultSharedIndex) names.
	Places []string `json:",omitempty"`
}

func (s Signature) String() string {
	var b strings.Builder
	b.WriteString("(")
	for i, a := range s.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		if a.Name != "" {
			b.WriteString(a.Name + " ")
		}
		b.WriteString(a.Kind.String())
	}
	fmt.Fprintf(&b, ") block %v", s.BlockSize)
	return b.String()
}
