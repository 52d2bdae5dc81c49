package vulkan

import (
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/vk"
)

// Kernel ABI v1 (docs/kernel-abi.md): where the arguments of a logical
// signature reach the module. codegen.Place is the one function that says
// it, for codegen (codegen.Layout) and abiLayout alike;
// TestABILayoutMatchesCodegen holds the two descriptions of the arguments
// it is given together.
const (
	abiHeaderSize  = codegen.PushHeaderSize     // dispatch_size, then block_offset: two uvec3
	abiAddressSize = codegen.AddressArgSize     // a buffer by device address: u64 address, u64 element count
	abiSpillOffset = codegen.SpillAddressOffset // the spill block's u64 address, in a kernel that spills
	abiMaxPush     = codegen.MaxPushSize
)

// argLayout is where one argument reaches the module.
type argLayout struct {
	desc    vk.DescriptorType // the descriptor it takes in set 0, or noDescriptor
	binding uint32            // its binding in set 0 (desc != noDescriptor)
	// offset and size locate a uniform, or a buffer by device address, in
	// the push-constant block (in the spill block when spilled). A buffer
	// by address takes 8 bytes, the device address of the view's first
	// byte, or 16 under kernel ABI v1: the address, then the u64 number of
	// elements in the view, which codegen checks every access through the
	// address against.
	offset, size uint32
	spilled      bool
	// accelBuffer: an accel of the software traversal, in the push
	// constants and, as its buffer, at binding (desc a storage buffer).
	accelBuffer bool
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
	// spillSize is the size of the spill block, whose device address the
	// push constants hold at abiSpillOffset; 0: none.
	spillSize uint32
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

// abiLayout lays sig out by kernel ABI v1 (codegen.Place): resources take
// descriptor bindings of set 0 in argument order; uniforms, buffers by
// device address and accels go to the push-constant block after the
// dispatch header, each at its alignment (8 for an address, 4 for a bool,
// else the value's), or to the spill block past the budget. In a module
// with the software traversal (softRay: it does not declare RayQueryKHR)
// an accel also takes a binding, its buffer as a storage buffer.
func abiLayout(sig device.Signature, label string, softRay bool) (shaderLayout, error) {
	l := shaderLayout{args: make([]argLayout, len(sig.Args)), header: true}
	ms := make([]codegen.Member, len(sig.Args))
	for i, a := range sig.Args {
		al := &l.args[i]
		al.desc = descriptorOf(a)
		if al.desc != noDescriptor {
			ms[i].Descriptor = true
			continue
		}
		var align, size uint32
		addr := false
		switch {
		case a.Kind == device.ArgBuffer, a.Kind == device.ArgAccel: // by address; an accel's two words
			align, size, addr = 8, abiAddressSize, true
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
		al.size = size
		ms[i] = codegen.Member{Address: addr, Size: int(size), Align: int(align), Bound: a.Kind == device.ArgAccel && softRay}
	}
	p := codegen.Place(ms, len(sig.Prints) > 0 || sig.Checked)
	for i, s := range p.Args {
		al := &l.args[i]
		if al.desc != noDescriptor {
			al.binding = uint32(s.Binding)
			continue
		}
		al.offset, al.spilled = uint32(s.Offset), s.Spilled
		if s.Bound >= 0 {
			al.desc, al.binding, al.accelBuffer = vk.DESCRIPTOR_TYPE_STORAGE_BUFFER, uint32(s.Bound), true
		}
	}
	if p.Ring >= 0 {
		l.prints, l.printOffset = true, uint32(p.Ring)
	}
	l.pushSize, l.spillSize = uint32(p.Size), uint32(p.Spill)
	return l, nil
}
