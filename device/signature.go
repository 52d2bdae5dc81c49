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
	ArgAccel                         // reserved: a ray-tracing acceleration structure
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
// known. ScalarUnknown disables the type check for that argument (a struct, or
// a reflected module that says no more than a size).
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

// ArgForm is how a buffer argument reaches the kernel (see docs/kernel-abi.md).
type ArgForm uint8

const (
	FormDescriptor ArgForm = iota // a descriptor at Binding in set 0
	FormAddress                   // a buffer device address at Offset in the push-constant block
)

// Argument describes one kernel argument, in argument order.
type Argument struct {
	Name string // source name, or "" (errors then use the index)
	Kind ArgKind

	// Binding is the descriptor binding in set 0 (resource arguments with
	// FormDescriptor).
	Binding uint32
	Form    ArgForm

	// Offset and Size locate a uniform (or a FormAddress buffer) in the
	// push-constant block. A FormAddress buffer takes 8 bytes, the device
	// address of the view's first byte, or 16 in lucent's kernels (kernel
	// ABI v1): the address, then the u64 number of ElemSize elements in the
	// view, which codegen checks every access through the address against.
	Offset uint32
	Size   uint32

	// ElemSize is a buffer's element stride in bytes (0: unknown, unchecked).
	ElemSize uint32

	// Scalar, ScalarBits and Components describe a uniform of scalar or vector
	// type (or a buffer's element of that type); Scalar == ScalarUnknown
	// leaves only the size checked.
	Scalar     ScalarKind
	ScalarBits uint8
	Components uint8

	// Format is a storage texture's pixel format (FormatInvalid: unchecked);
	// Dim is a texture's dimension, 2 or 3 (0: unchecked).
	Format Format
	Dim    uint8

	// TextureSet is the descriptor set holding a bindless array's texture
	// descriptors, for kernels compiled for native bindless textures (a
	// runtime array of combined image samplers at binding 0, indexed by
	// slot); 0: the kernel reaches texture slots through the slot records
	// (emulated sampling).
	TextureSet uint32

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

// Signature is a shader's argument list plus what the runtime needs to dispatch
// it. Kernels compiled by lucent carry one from the compiler; for raw SPIR-V the
// backend reflects it from the module (descriptor bindings in binding order,
// then the push-constant block's members in offset order).
type Signature struct {
	Args []Argument

	// BlockSize is the workgroup size (LocalSize) of the entry point.
	BlockSize [3]uint32

	// DispatchHeader is true when the push-constant block starts with
	// kernel ABI v1's dispatch_size and block_offset (24 bytes); lucent's
	// codegen always emits it, raw modules usually do not.
	DispatchHeader bool

	// PushConstantSize is the push-constant block's total size in bytes.
	PushConstantSize uint32
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
