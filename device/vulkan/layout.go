package vulkan

import (
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// Kernel ABI v1 (docs/kernel-abi.md): where the arguments of a logical
// signature reach the module. abiLayout is the one function that says it;
// codegen places arguments by the same rules (codegen.Layout), and
// TestABILayoutMatchesCodegen holds the two together.
const (
	abiHeaderSize  = 24 // dispatch_size, then block_offset: two uvec3
	abiAddressSize = 16 // a buffer by device address: u64 address, u64 element count
	abiPrintSize   = 16 // the print ring of a kernel that prints: u64 address, u32 dispatch tag, 4 spare bytes
	abiMaxPush     = 128
)

// argLayout is where one argument reaches the module.
type argLayout struct {
	desc    vk.DescriptorType // the descriptor it takes in set 0, or noDescriptor
	binding uint32            // its binding in set 0 (desc != noDescriptor)
	// offset and size locate a uniform, or a buffer by device address, in
	// the push-constant block. A buffer by address takes 8 bytes, the
	// device address of the view's first byte, or 16 under kernel ABI v1:
	// the address, then the u64 number of elements in the view, which
	// codegen checks every access through the address against.
	offset, size uint32
	// textureSet is the descriptor set holding a bindless array's texture
	// descriptors, for kernels compiled for native bindless textures; 0:
	// texture slots are reached through the slot records.
	textureSet uint32
}

// shaderLayout is how a shader's arguments are bound.
type shaderLayout struct {
	args []argLayout
	// header is true when the push-constant block starts with the
	// dispatch header (kernel ABI v1); raw modules have none.
	header bool
	// pushSize is the push-constant block's size in bytes.
	pushSize uint32
	// prints: the kernel prints (Signature.Prints), and printOffset is
	// where its print ring goes in the push-constant block.
	prints      bool
	printOffset uint32
}

// descriptorOf is the descriptor a resource argument takes in set 0.
func descriptorOf(a device.Argument) vk.DescriptorType {
	switch a.Kind {
	case device.ArgBuffer:
		if a.ByAddress {
			return noDescriptor
		}
		return vk.DESCRIPTOR_TYPE_STORAGE_BUFFER
	case device.ArgTexture:
		return vk.DESCRIPTOR_TYPE_STORAGE_IMAGE
	case device.ArgSampledTexture:
		return vk.DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
	case device.ArgBindlessArray:
		return vk.DESCRIPTOR_TYPE_STORAGE_BUFFER // the slot table (emulated bindless)
	}
	return noDescriptor
}

// abiLayout lays sig out by kernel ABI v1: resources take descriptor
// bindings of set 0 in argument order; uniforms and buffers by device
// address follow the dispatch header in the push-constant block, each at
// its alignment (8 for an address, 4 for a bool, else the value's).
func abiLayout(sig device.Signature, label string) (shaderLayout, error) {
	l := shaderLayout{args: make([]argLayout, len(sig.Args)), header: true}
	binding, off := uint32(0), uint32(abiHeaderSize)
	for i, a := range sig.Args {
		al := &l.args[i]
		al.desc = descriptorOf(a)
		if al.desc != noDescriptor {
			al.binding = binding
			binding++
			continue
		}
		var align, size uint32
		switch {
		case a.Kind == device.ArgBuffer: // by address
			align, size = 8, abiAddressSize
		case a.Kind == device.ArgAccel: // two addresses (kernel ABI v1, "Accels")
			align, size = 8, abiAddressSize
		case a.Kind != device.ArgUniform:
			return shaderLayout{}, unsupportedf("shader %q: %s: a %v argument", label, a.Label(i), a.Kind)
		case a.Scalar == device.ScalarBool && a.Components <= 1:
			align, size = 4, 4 // bools travel as u32 in push constants
		default:
			align, size = a.Align, a.Size
			if align == 0 {
				align = max(uint32(a.ScalarBits)/8, 1)
			}
		}
		if align&(align-1) != 0 || align > 16 {
			return shaderLayout{}, invalidf("shader %q: %s: alignment %d is not a power of two of at most 16", label, a.Label(i), align)
		}
		off = alignUp32(off, align)
		al.offset, al.size = off, size
		off += size
		if off > abiMaxPush {
			return shaderLayout{}, unsupportedf("shader %q: uniform arguments need %d push-constant bytes, kernel ABI v1 allows %d", label, off, abiMaxPush)
		}
	}
	if len(sig.Prints) > 0 || sig.Checked {
		off = alignUp32(off, 8)
		l.prints, l.printOffset = true, off
		off += abiPrintSize
		if off > abiMaxPush {
			return shaderLayout{}, unsupportedf("shader %q: uniform arguments and the print ring need %d push-constant bytes, kernel ABI v1 allows %d", label, off, abiMaxPush)
		}
	}
	l.pushSize = off
	return l, nil
}
