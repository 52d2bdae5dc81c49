package spirv

// This file makes type ids. Every constructor deduplicates structurally: the
// key is the opcode and the operand words (less the result id), plus the
// layout decorations the constructor applies, so that TypeVector(f32, 4)
// called twice gives one id, while a runtime array with ArrayStride 4 and one
// without stay two types.

func (b *Builder) typeID(key []uint32, op Op, desc typeDesc, operands ...uint32) (ID, bool) {
	k := b.key(key)
	if id, ok := b.typeKeys[string(k)]; ok {
		return id, false
	}
	id := b.newDef()
	b.typeKeys[string(k)] = id
	desc.op = op
	b.typeInfo[id] = desc
	b.globals = appendInst(b.globals, op, append([]uint32{uint32(id)}, operands...)...)
	return id, true
}

func (b *Builder) simpleType(op Op, desc typeDesc, operands ...uint32) ID {
	id, _ := b.typeID(append(append(b.wordScratch[:0], uint32(op)), operands...), op, desc, operands...)
	return id
}

// TypeVoid returns the void type.
func (b *Builder) TypeVoid() ID { return b.simpleType(OpTypeVoid, typeDesc{}) }

// TypeBool returns the boolean type.
func (b *Builder) TypeBool() ID { return b.simpleType(OpTypeBool, typeDesc{}) }

// TypeInt returns the integer type of width bits (8, 16, 32 or 64), declaring
// the capability a width other than 32 needs.
func (b *Builder) TypeInt(width uint32, signed bool) ID {
	switch width {
	case 8:
		b.Capability(CapabilityInt8)
	case 16:
		b.Capability(CapabilityInt16)
	case 32:
	case 64:
		b.Capability(CapabilityInt64)
	default:
		b.fail("TypeInt: unsupported width %d", width)
		return 0
	}
	s := uint32(0)
	if signed {
		s = 1
	}
	return b.simpleType(OpTypeInt, typeDesc{width: width, signed: signed}, width, s)
}

// TypeFloat returns the floating-point type of width bits (16, 32 or 64).
func (b *Builder) TypeFloat(width uint32) ID {
	switch width {
	case 16:
		b.Capability(CapabilityFloat16)
	case 32:
	case 64:
		b.Capability(CapabilityFloat64)
	default:
		b.fail("TypeFloat: unsupported width %d", width)
		return 0
	}
	return b.simpleType(OpTypeFloat, typeDesc{width: width}, width)
}

// TypeVector returns the vector of n (2, 3 or 4) components of type comp.
func (b *Builder) TypeVector(comp ID, n uint32) ID {
	if n < 2 || n > 4 {
		b.fail("TypeVector: %d components", n)
		return 0
	}
	return b.simpleType(OpTypeVector, typeDesc{elem: comp, width: n}, uint32(comp), n)
}

// TypeMatrix returns the matrix of cols columns of vector type column.
func (b *Builder) TypeMatrix(column ID, cols uint32) ID {
	b.Capability(CapabilityMatrix)
	return b.simpleType(OpTypeMatrix, typeDesc{elem: column, width: cols}, uint32(column), cols)
}

// TypeArray returns the array of n elements of type elem (the length is a uint32 constant).
func (b *Builder) TypeArray(elem ID, n uint32) ID {
	return b.TypeArrayLen(elem, b.ConstantUint32(n))
}

// TypeArrayLen returns the array of elem whose length is the constant (or
// specialization constant) length.
func (b *Builder) TypeArrayLen(elem, length ID) ID {
	return b.simpleType(OpTypeArray, typeDesc{elem: elem}, uint32(elem), uint32(length))
}

// TypeArrayStride returns the array of n elem decorated with ArrayStride stride.
func (b *Builder) TypeArrayStride(elem ID, n, stride uint32) ID {
	length := b.ConstantUint32(n)
	id, isNew := b.typeID([]uint32{uint32(OpTypeArray), uint32(elem), uint32(length), uint32(DecorationArrayStride), stride},
		OpTypeArray, typeDesc{elem: elem}, uint32(elem), uint32(length))
	if isNew {
		b.Decorate(id, DecorationArrayStride, stride)
	}
	return id
}

// TypeRuntimeArray returns the runtime array of elem, without a stride (for
// memory without explicit layout).
func (b *Builder) TypeRuntimeArray(elem ID) ID {
	return b.simpleType(OpTypeRuntimeArray, typeDesc{elem: elem}, uint32(elem))
}

// TypeRuntimeArrayStride returns the runtime array of elem decorated with ArrayStride stride.
func (b *Builder) TypeRuntimeArrayStride(elem ID, stride uint32) ID {
	id, isNew := b.typeID([]uint32{uint32(OpTypeRuntimeArray), uint32(elem), uint32(DecorationArrayStride), stride},
		OpTypeRuntimeArray, typeDesc{elem: elem}, uint32(elem))
	if isNew {
		b.Decorate(id, DecorationArrayStride, stride)
	}
	return id
}

// TypeStruct returns the struct of the given member types without decorations.
func (b *Builder) TypeStruct(members ...ID) ID {
	return b.simpleType(OpTypeStruct, typeDesc{members: members}, ids(members)...)
}

// Decor is a decoration with its literal operands, e.g. Decor{DecorationOffset, []uint32{16}}.
type Decor struct {
	Decoration Decoration
	Literals   []uint32
}

// Member is a member of a [StructType].
type Member struct {
	Type        ID
	Name        string  // debug name, optional
	Offset      *uint32 // Offset decoration when not nil
	Decorations []Decor
}

// StructType describes a struct with its decorations.
type StructType struct {
	Name        string // debug name, optional
	Members     []Member
	Decorations []Decor // e.g. Block
}

// Off is a convenience for Member.Offset.
func Off(n uint32) *uint32 { return &n }

// TypeStructOf returns the struct st describes, decorated as it says. Structs
// with equal members and equal decorations are one type; a difference in
// decorations (say an Offset) makes another. Debug names do not count.
func (b *Builder) TypeStructOf(st StructType) ID {
	key := []uint32{uint32(OpTypeStruct), uint32(len(st.Members))}
	operands := make([]uint32, len(st.Members))
	for i, m := range st.Members {
		operands[i] = uint32(m.Type)
		key = append(key, uint32(m.Type))
		if m.Offset != nil {
			key = append(key, uint32(DecorationOffset), *m.Offset)
		}
		key = appendDecors(key, m.Decorations)
		key = append(key, ^uint32(0))
	}
	key = appendDecors(key, st.Decorations)
	members := make([]ID, len(st.Members))
	for i, m := range st.Members {
		members[i] = m.Type
	}
	id, isNew := b.typeID(key, OpTypeStruct, typeDesc{members: members}, operands...)
	if !isNew {
		return id
	}
	if st.Name != "" {
		b.Name(id, st.Name)
	}
	for _, d := range st.Decorations {
		b.Decorate(id, d.Decoration, d.Literals...)
	}
	for i, m := range st.Members {
		if m.Name != "" {
			b.MemberName(id, uint32(i), m.Name)
		}
		if m.Offset != nil {
			b.MemberDecorate(id, uint32(i), DecorationOffset, *m.Offset)
		}
		for _, d := range m.Decorations {
			b.MemberDecorate(id, uint32(i), d.Decoration, d.Literals...)
		}
	}
	return id
}

func appendDecors(key []uint32, ds []Decor) []uint32 {
	for _, d := range ds {
		key = append(key, uint32(d.Decoration), uint32(len(d.Literals)))
		key = append(key, d.Literals...)
	}
	return key
}

// TypePointer returns the pointer to elem in storage class sc. A
// PhysicalStorageBuffer pointer declares the capability (and, before SPIR-V
// 1.5, the extension) and switches addressing to PhysicalStorageBuffer64.
func (b *Builder) TypePointer(sc StorageClass, elem ID) ID {
	b.pointerNeeds(sc)
	return b.simpleType(OpTypePointer, typeDesc{elem: elem, sc: sc}, uint32(sc), uint32(elem))
}

// pointerNeeds declares what a pointer in storage class sc needs.
func (b *Builder) pointerNeeds(sc StorageClass) {
	switch sc {
	case StorageClassPhysicalStorageBuffer:
		b.Capability(CapabilityPhysicalStorageBufferAddresses)
		if b.version < MakeVersion(1, 5) {
			b.Extension("SPV_KHR_physical_storage_buffer")
		}
		if !b.modelSet {
			b.addressing = AddressingModelPhysicalStorageBuffer64
		}
	case StorageClassStorageBuffer:
		if b.version < MakeVersion(1, 3) {
			b.Extension("SPV_KHR_storage_buffer_storage_class")
		}
	}
}

// TypePointerStride returns the pointer to elem in storage class sc decorated
// with ArrayStride stride, as OpPtrAccessChain on a PhysicalStorageBuffer
// pointer requires. It is a different type from TypePointer(sc, elem).
func (b *Builder) TypePointerStride(sc StorageClass, elem ID, stride uint32) ID {
	b.pointerNeeds(sc)
	id, isNew := b.typeID([]uint32{uint32(OpTypePointer), uint32(sc), uint32(elem), uint32(DecorationArrayStride), stride},
		OpTypePointer, typeDesc{elem: elem, sc: sc}, uint32(sc), uint32(elem))
	if isNew {
		b.Decorate(id, DecorationArrayStride, stride)
	}
	return id
}

// TypeFunction returns the function type ret(params...).
func (b *Builder) TypeFunction(ret ID, params ...ID) ID {
	return b.simpleType(OpTypeFunction, typeDesc{elem: ret, members: params}, append([]uint32{uint32(ret)}, ids(params)...)...)
}

// ImageType describes an OpTypeImage.
type ImageType struct {
	SampledType ID // a scalar numeric type
	Dim         Dim
	Depth       uint32 // 0 not depth, 1 depth, 2 unknown
	Arrayed     bool
	MS          bool
	Sampled     uint32 // 1 used with a sampler, 2 storage image
	Format      ImageFormat
}

// TypeImage returns the image type it describes.
func (b *Builder) TypeImage(it ImageType) ID {
	bit := func(v bool) uint32 {
		if v {
			return 1
		}
		return 0
	}
	if it.Sampled == 2 && it.Format == ImageFormatUnknown {
		b.Capability(CapabilityStorageImageReadWithoutFormat)
		b.Capability(CapabilityStorageImageWriteWithoutFormat)
	}
	if it.Dim == Dim1D {
		if it.Sampled == 2 {
			b.Capability(CapabilityImage1D)
		} else {
			b.Capability(CapabilitySampled1D)
		}
	}
	return b.simpleType(OpTypeImage, typeDesc{elem: it.SampledType},
		uint32(it.SampledType), uint32(it.Dim), it.Depth, bit(it.Arrayed), bit(it.MS), it.Sampled, uint32(it.Format))
}

// TypeSampler returns the sampler type.
func (b *Builder) TypeSampler() ID { return b.simpleType(OpTypeSampler, typeDesc{}) }

// TypeSampledImage returns the sampled image type of image type img.
func (b *Builder) TypeSampledImage(img ID) ID {
	return b.simpleType(OpTypeSampledImage, typeDesc{elem: img}, uint32(img))
}

// TypeAccelerationStructure returns the ray-tracing acceleration structure
// type, declaring RayQueryKHR and SPV_KHR_ray_query.
func (b *Builder) TypeAccelerationStructure() ID {
	b.rayQuery()
	return b.simpleType(OpTypeAccelerationStructureKHR, typeDesc{})
}

// TypeRayQuery returns the ray query type, declaring RayQueryKHR and SPV_KHR_ray_query.
func (b *Builder) TypeRayQuery() ID {
	b.rayQuery()
	return b.simpleType(OpTypeRayQueryKHR, typeDesc{})
}

func (b *Builder) rayQuery() {
	b.Capability(CapabilityRayQueryKHR)
	b.Extension("SPV_KHR_ray_query")
}

// ElemType returns the element type of a pointer, vector, matrix or array type (0 otherwise).
func (b *Builder) ElemType(t ID) ID { return b.typeInfo[t].elem }

// StorageClassOf returns the storage class of pointer type t.
func (b *Builder) StorageClassOf(t ID) StorageClass { return b.typeInfo[t].sc }

// IsTypeOp reports whether t is a type made with opcode op.
func (b *Builder) IsTypeOp(t ID, op Op) bool {
	d, ok := b.typeInfo[t]
	return ok && d.op == op
}

// ScalarWidth returns the bit width of scalar int or float type t (0 otherwise).
func (b *Builder) ScalarWidth(t ID) uint32 {
	d := b.typeInfo[t]
	if d.op == OpTypeInt || d.op == OpTypeFloat {
		return d.width
	}
	return 0
}

// MemberTypes returns the member types of struct type t (nil otherwise).
func (b *Builder) MemberTypes(t ID) []ID {
	if d := b.typeInfo[t]; d.op == OpTypeStruct {
		return d.members
	}
	return nil
}

// TypeForwardPointer declares a pointer type in storage class sc before its
// pointee exists (OpTypeForwardPointer), so a struct can hold a pointer to
// itself — a linked list in PhysicalStorageBuffer memory. Use the id as a
// member type, then complete it with [Builder.DefineForwardPointer] once the
// pointee is made.
func (b *Builder) TypeForwardPointer(sc StorageClass) ID {
	b.pointerNeeds(sc)
	id := b.NewID()
	b.forward = append(b.forward, forwardPointer{id, sc})
	b.globals = appendInst(b.globals, OpTypeForwardPointer, uint32(id), uint32(sc))
	return id
}

// DefineForwardPointer completes a pointer declared with TypeForwardPointer
// as a pointer to elem. Later TypePointer(sc, elem) calls return it.
func (b *Builder) DefineForwardPointer(ptr, elem ID) {
	for i, f := range b.forward {
		if f.id != ptr {
			continue
		}
		b.forward = append(b.forward[:i], b.forward[i+1:]...)
		b.markDefined(ptr)
		b.typeInfo[ptr] = typeDesc{op: OpTypePointer, elem: elem, sc: f.sc}
		k := b.key([]uint32{uint32(OpTypePointer), uint32(f.sc), uint32(elem)})
		if _, ok := b.typeKeys[string(k)]; !ok {
			b.typeKeys[string(k)] = ptr
		}
		b.globals = appendInst(b.globals, OpTypePointer, uint32(ptr), uint32(f.sc), uint32(elem))
		return
	}
	b.fail("DefineForwardPointer: %d is not a pending forward pointer", ptr)
}
