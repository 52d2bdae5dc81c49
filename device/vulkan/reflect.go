package vulkan

// Reflection of raw SPIR-V compute modules: the descriptor bindings of set 0
// and the push-constant block become a device.Signature, in the order kernel
// ABI v1 gives raw modules (descriptors by binding, then push-constant members
// by offset). A push-constant member that is a PhysicalStorageBuffer pointer
// becomes a buffer argument passed by device address.
//
// The module is read by spirv.Scan, the decoder of spirv.Read (lucent's one
// SPIR-V parser), which checks every instruction against the grammar;
// reflection keeps what the few kinds of instruction it needs say.
//
// Spec: SPIR-V 1.6, sections 2.3 (physical layout) and 3 (binary form).

import (
	"fmt"
	"math"
	"sort"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/vk"
)

const (
	maxReflectedMembers = 64
	// maxIDBound is the largest id bound accepted: spirv-val's own universal
	// limit (spv_validator_limit_max_id_bound). A driver may size tables by
	// the bound, so a module claiming 2^32 ids is refused before it sees it.
	maxIDBound = 0x3FFFFF
	// maxTypeDepth bounds how deeply types nest (spirv-val's
	// spv_validator_limit_max_struct_depth is 255 for structs alone).
	maxTypeDepth = 255
	// maxTypeBytes is the largest type size reflection reports.
	maxTypeBytes = 1<<32 - 1
)

// spvType is a type declaration: its opcode and the first word of each
// operand after the result id (every operand of a type is one word). The
// reader checked the operands the grammar requires; arg checks the optional ones.
type spvType struct {
	op       spirv.Op
	operands []uint32
}

// arg returns operand i, or false where the declaration has too few.
func (t spvType) arg(i int) (uint32, bool) {
	if i < len(t.operands) {
		return t.operands[i], true
	}
	return 0, false
}

type spvDecor struct {
	set, binding         int64
	block, bufferBlock   bool
	nonWritable, nonRead bool
	arrayStride          uint32
	hasOffset            bool
	offset               uint32
	matrixStride         uint32
}

// reflection is what a module says about its interface.
type reflection struct {
	sig device.Signature
	lay shaderLayout // no dispatch header: a raw module has none
}

// spvConst is a scalar constant's type and value (OpSpecConstant: its default).
type spvConst struct {
	typ   uint32
	value uint64
}

type spvModule struct {
	bound      uint32
	types      map[uint32]spvType
	consts     map[uint32]spvConst
	composites map[uint32][]uint32 // constant composites' constituents
	names      map[uint32]string
	members    map[[2]uint32]string
	decor      map[uint32]*spvDecor
	mdecor     map[[2]uint32]*spvDecor
	vars       []uint32
	varType    map[uint32]uint32 // variable -> pointer type
	varClass   map[uint32]uint32
	entry      uint32
	entryName  string
	localSize  [3]uint32
	wgSizeID   uint32             // the constant decorated BuiltIn WorkgroupSize, if any
	rayQuery   bool               // declares RayQueryKHR: accels are traced natively (kernel ABI v1, "Accels")
	caps       []spirv.Capability // the capabilities it declares

	sizes  map[uint32]uint64 // memoized type sizes
	sizing map[uint32]bool   // types being sized (a cycle check)
}

func (m *spvModule) dec(id uint32) *spvDecor {
	d := m.decor[id]
	if d == nil {
		d = &spvDecor{set: -1, binding: -1}
		m.decor[id] = d
	}
	return d
}

func (m *spvModule) mdec(id, member uint32) *spvDecor {
	k := [2]uint32{id, member}
	d := m.mdecor[k]
	if d == nil {
		d = &spvDecor{set: -1, binding: -1}
		m.mdecor[k] = d
	}
	return d
}

// intConst returns the value of an integer constant.
func (m *spvModule) intConst(id uint32) (uint64, bool) {
	c, ok := m.consts[id]
	if !ok || m.types[c.typ].op != spirv.OpTypeInt {
		return 0, false
	}
	return c.value, true
}

// sizeConst is an integer constant as a workgroup dimension: one past 32
// bits (or no integer constant at all) becomes a size no device has, so the
// limit checks refuse it rather than see it truncated.
func (m *spvModule) sizeConst(id uint32) uint32 {
	v, ok := m.intConst(id)
	if !ok {
		return 0
	}
	return uint32(min(v, math.MaxUint32))
}

// operand is operand i of in (none, no words, where it has fewer).
func operand(in *spirv.Instruction, i int) spirv.Operand {
	if i < len(in.Operands) {
		return in.Operands[i]
	}
	return spirv.Operand{}
}

// word is the first word of operand i of in (0 where it has none).
func word(in *spirv.Instruction, i int) uint32 { return uint32(operand(in, i).ID()) }

// words is the first word of each of in's operands from i on.
func words(in *spirv.Instruction, i int) []uint32 {
	if i >= len(in.Operands) {
		return nil
	}
	out := make([]uint32, 0, len(in.Operands)-i)
	for j := i; j < len(in.Operands); j++ {
		out = append(out, word(in, j))
	}
	return out
}

// parseSPIRV reads the parts of a module reflection and the limit checks
// need, from the instructions spirv.Scan decodes (spirv.Read's checks, no
// module kept): any input gives a module or an error, never a panic, in time
// linear in the module. The header is checked before the module is read.
func parseSPIRV(code []uint32, entryPoint string) (*spvModule, error) {
	if len(code) < 5 || code[0] != spirv.MagicNumber {
		return nil, invalidf("shader: not a SPIR-V module (bad magic or shorter than the header)")
	}
	if code[4] != 0 {
		return nil, invalidf("shader: header schema word is %d, reserved as 0", code[4])
	}
	if code[3] > maxIDBound {
		return nil, invalidf("shader: id bound %d exceeds %d (spirv-val's limit)", code[3], maxIDBound)
	}
	m := &spvModule{
		bound: code[3],
		types: map[uint32]spvType{}, consts: map[uint32]spvConst{}, composites: map[uint32][]uint32{}, names: map[uint32]string{},
		members: map[[2]uint32]string{}, decor: map[uint32]*spvDecor{}, mdecor: map[[2]uint32]*spvDecor{},
		varType: map[uint32]uint32{}, varClass: map[uint32]uint32{},
		sizes: map[uint32]uint64{}, sizing: map[uint32]bool{},
	}
	found := false
	type mode struct {
		op          spirv.Op
		entry, mode uint32
		args        [3]uint32
	}
	var modes []mode
	_, err := spirv.Scan(code, func(in *spirv.Instruction) error {
		// Operand positions below are the grammar's; spirv.Scan checked
		// that every operand it requires is there.
		switch in.Op {
		case spirv.OpCapability:
			m.rayQuery = m.rayQuery || spirv.Capability(word(in, 0)) == spirv.CapabilityRayQueryKHR
			m.caps = append(m.caps, spirv.Capability(word(in, 0)))
		case spirv.OpName:
			m.names[word(in, 0)] = operand(in, 1).String()
		case spirv.OpMemberName:
			m.members[[2]uint32{word(in, 0), word(in, 1)}] = operand(in, 2).String()
		case spirv.OpEntryPoint:
			if word(in, 0) == uint32(spirv.ExecutionModelGLCompute) && !found && operand(in, 2).String() == entryPoint {
				m.entry, m.entryName, found = word(in, 1), entryPoint, true
			}
		case spirv.OpExecutionMode, spirv.OpExecutionModeId:
			modes = append(modes, mode{in.Op, word(in, 0), word(in, 1), [3]uint32{word(in, 2), word(in, 3), word(in, 4)}})
		case spirv.OpTypeBool, spirv.OpTypeInt, spirv.OpTypeFloat, spirv.OpTypeVector, spirv.OpTypeMatrix, spirv.OpTypeImage,
			spirv.OpTypeSampler, spirv.OpTypeSampledImage, spirv.OpTypeArray, spirv.OpTypeRuntimeArray, spirv.OpTypeStruct,
			spirv.OpTypePointer, spirv.OpTypeAccelerationStructureKHR:
			m.types[word(in, 0)] = spvType{op: in.Op, operands: words(in, 1)}
		case spirv.OpConstant, spirv.OpSpecConstant:
			m.consts[uint32(in.Result())] = spvConst{typ: uint32(in.ResultType()), value: operand(in, 2).Literal()}
		case spirv.OpConstantComposite, spirv.OpSpecConstantComposite:
			m.composites[uint32(in.Result())] = words(in, 2)
		case spirv.OpVariable:
			v := uint32(in.Result())
			m.vars = append(m.vars, v)
			m.varType[v] = uint32(in.ResultType())
			m.varClass[v] = word(in, 2)
		case spirv.OpDecorate:
			if spirv.Decoration(word(in, 1)) == spirv.DecorationBuiltIn && spirv.BuiltIn(word(in, 2)) == spirv.BuiltInWorkgroupSize {
				m.wgSizeID = word(in, 0)
			}
			applyDecoration(m.dec(word(in, 0)), spirv.Decoration(word(in, 1)), word(in, 2))
		case spirv.OpMemberDecorate:
			applyDecoration(m.mdec(word(in, 0), word(in, 1)), spirv.Decoration(word(in, 2)), word(in, 3))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("vulkan: %w: shader: %w", device.ErrInvalidArgument, err)
	}
	if !found {
		return nil, invalidf("shader: no GLCompute entry point named %q", entryPoint)
	}
	// Execution modes are applied once the entry point is known, wherever
	// in the module it is.
	for _, md := range modes {
		if md.entry != m.entry {
			continue
		}
		switch mode := spirv.ExecutionMode(md.mode); {
		case md.op == spirv.OpExecutionMode && mode == spirv.ExecutionModeLocalSize:
			m.localSize = md.args
		case md.op == spirv.OpExecutionModeId && mode == spirv.ExecutionModeLocalSizeId:
			m.localSize = [3]uint32{m.sizeConst(md.args[0]), m.sizeConst(md.args[1]), m.sizeConst(md.args[2])}
		}
	}
	// A WorkgroupSize built-in overrides the execution mode (SPIR-V 3.21).
	if parts, ok := m.composites[m.wgSizeID]; ok && m.wgSizeID != 0 && len(parts) == 3 {
		for i, id := range parts {
			m.localSize[i] = m.sizeConst(id)
		}
	}
	return m, nil
}

// applyDecoration records a decoration and arg, the first word of its
// first parameter (0 if it has none).
func applyDecoration(d *spvDecor, dec spirv.Decoration, arg uint32) {
	switch dec {
	case spirv.DecorationBlock:
		d.block = true
	case spirv.DecorationBufferBlock:
		d.bufferBlock = true
	case spirv.DecorationArrayStride:
		d.arrayStride = arg
	case spirv.DecorationMatrixStride:
		d.matrixStride = arg
	case spirv.DecorationNonWritable:
		d.nonWritable = true
	case spirv.DecorationNonReadable:
		d.nonRead = true
	case spirv.DecorationBinding:
		d.binding = int64(arg)
	case spirv.DecorationDescriptorSet:
		d.set = int64(arg)
	case spirv.DecorationOffset:
		d.hasOffset, d.offset = true, arg
	}
}

// size returns the byte size of a type in the explicit layout its
// decorations give (scalar layout where they say nothing more). Sizes are
// memoized, so sizing any set of types takes time linear in the module.
func (m *spvModule) size(id uint32) (uint32, error) {
	s, err := m.sizeOf(id, 0)
	return uint32(s), err
}

func (m *spvModule) sizeOf(id uint32, depth int) (uint64, error) {
	if s, ok := m.sizes[id]; ok {
		return s, nil
	}
	if m.sizing[id] {
		return 0, invalidf("shader: type %%%d contains itself", id)
	}
	if depth > maxTypeDepth {
		return 0, invalidf("shader: type %%%d nests deeper than %d", id, maxTypeDepth)
	}
	t, ok := m.types[id]
	if !ok {
		return 0, invalidf("shader: %%%d is not a type", id)
	}
	m.sizing[id] = true
	s, err := m.computeSize(id, t, depth)
	delete(m.sizing, id)
	if err != nil {
		return 0, err
	}
	if s > maxTypeBytes {
		return 0, invalidf("shader: type %%%d is larger than 4 GiB", id)
	}
	m.sizes[id] = s
	return s, nil
}

// mulSize multiplies two sizes, saturating past maxTypeBytes.
func mulSize(a, b uint64) uint64 {
	if a != 0 && b > (maxTypeBytes+1)/a {
		return maxTypeBytes + 1
	}
	return a * b
}

func (m *spvModule) computeSize(id uint32, t spvType, depth int) (uint64, error) {
	short := func() (uint64, error) {
		return 0, invalidf("shader: type %%%d (%v) lacks operands", id, t.op)
	}
	switch t.op {
	case spirv.OpTypeBool:
		return 4, nil
	case spirv.OpTypeInt, spirv.OpTypeFloat:
		w, ok := t.arg(0)
		if !ok || (t.op == spirv.OpTypeInt && len(t.operands) < 2) {
			return short()
		}
		return uint64(w / 8), nil
	case spirv.OpTypeVector, spirv.OpTypeMatrix:
		elem, ok1 := t.arg(0)
		n, ok2 := t.arg(1)
		if !ok1 || !ok2 {
			return short()
		}
		c, err := m.sizeOf(elem, depth+1)
		if err != nil {
			return 0, err
		}
		if d := m.decor[id]; t.op == spirv.OpTypeMatrix && d != nil && d.matrixStride != 0 {
			c = uint64(d.matrixStride)
		}
		return mulSize(c, uint64(n)), nil
	case spirv.OpTypeArray:
		elem, ok1 := t.arg(0)
		lenID, ok2 := t.arg(1)
		if !ok1 || !ok2 {
			return short()
		}
		n, ok := m.intConst(lenID)
		if !ok {
			return 0, invalidf("shader: the length %%%d of array type %%%d is not an integer constant", lenID, id)
		}
		stride, err := m.sizeOf(elem, depth+1)
		if err != nil {
			return 0, err
		}
		if d := m.decor[id]; d != nil && d.arrayStride != 0 {
			stride = uint64(d.arrayStride)
		}
		return mulSize(stride, uint64(n)), nil
	case spirv.OpTypeStruct:
		var end uint64
		for i, mt := range t.operands {
			sz, err := m.sizeOf(mt, depth+1)
			if err != nil {
				return 0, err
			}
			off := end
			if d := m.mdecor[[2]uint32{id, uint32(i)}]; d != nil && d.hasOffset {
				off = uint64(d.offset)
				if mtt := m.types[mt]; d.matrixStride != 0 && mtt.op == spirv.OpTypeMatrix {
					cols, _ := mtt.arg(1)
					sz = mulSize(uint64(d.matrixStride), uint64(cols))
				}
			}
			end = max(end, off+sz)
		}
		return end, nil
	case spirv.OpTypePointer:
		if len(t.operands) < 2 {
			return short()
		}
		return 8, nil
	}
	return 0, invalidf("shader: type %%%d (%v) has no size", id, t.op)
}

// sharedMemory is the bytes of the module's Workgroup variables.
func (m *spvModule) sharedMemory() (uint64, error) {
	var total uint64
	for _, v := range m.vars {
		if m.varClass[v] != uint32(spirv.StorageClassWorkgroup) {
			continue
		}
		ptr := m.types[m.varType[v]]
		pointee, ok := ptr.arg(1)
		if ptr.op != spirv.OpTypePointer || !ok {
			return 0, invalidf("shader: Workgroup variable %%%d has no pointer type", v)
		}
		s, err := m.sizeOf(pointee, 0)
		if err != nil {
			return 0, fmt.Errorf("Workgroup variable %%%d: %w", v, err)
		}
		total += s
	}
	return total, nil
}

// scalarOf describes scalar and vector types for argument checks.
func (m *spvModule) scalarOf(id uint32) (device.ScalarKind, uint8, uint8) {
	t := m.types[id]
	comps := uint8(1)
	if t.op == spirv.OpTypeVector {
		elem, _ := t.arg(0)
		n, _ := t.arg(1)
		comps = uint8(min(n, 255))
		t = m.types[elem]
	}
	width, _ := t.arg(0)
	bits := uint8(min(width, 255))
	switch t.op {
	case spirv.OpTypeBool:
		return device.ScalarBool, 32, comps
	case spirv.OpTypeInt:
		if signed, _ := t.arg(1); signed == 1 {
			return device.ScalarInt, bits, comps
		}
		return device.ScalarUint, bits, comps
	case spirv.OpTypeFloat:
		return device.ScalarFloat, bits, comps
	}
	return device.ScalarUnknown, 0, 0
}

// imageFormats maps SPIR-V image formats to device formats.
var imageFormats = map[uint32]device.Format{
	1: device.RGBA32Float, 2: device.RGBA16Float, 3: device.R32Float, 4: device.RGBA8Unorm, 5: device.RGBA8Snorm,
	6: device.RG32Float, 7: device.RG16Float, 9: device.R16Float, 10: device.RGBA16Unorm, 13: device.RG8Unorm,
	14: device.R16Unorm, 15: device.R8Unorm, 21: device.RGBA32Sint, 22: device.RGBA16Sint, 23: device.RGBA8Sint,
	24: device.R32Sint, 25: device.RG32Sint, 26: device.RG16Sint, 27: device.RG8Sint, 28: device.R16Sint,
	29: device.R8Sint, 30: device.RGBA32Uint, 31: device.RGBA16Uint, 32: device.RGBA8Uint, 33: device.R32Uint,
	35: device.RG32Uint, 36: device.RG16Uint, 37: device.RG8Uint, 38: device.R16Uint, 39: device.R8Uint,
}

// reflectSPIRV derives the signature of a raw module.
func reflectSPIRV(words []uint32, entryPoint string) (*reflection, error) {
	m, err := parseSPIRV(words, entryPoint)
	if err != nil {
		return nil, err
	}
	return m.reflect(entryPoint)
}

// reflect derives the signature of a parsed module.
func (m *spvModule) reflect(entryPoint string) (*reflection, error) {
	r := &reflection{}
	r.sig.BlockSize = m.localSize
	if m.localSize[0] == 0 {
		return nil, invalidf("shader: entry point %q declares no LocalSize", entryPoint)
	}
	type bound struct {
		binding uint32
		arg     device.Argument
		desc    vk.DescriptorType
	}
	type pushed struct {
		arg          device.Argument
		offset, size uint32
	}
	var descs []bound
	var push []pushed
	blockAccess := map[uint32][2]bool{} // per block type: every member NonWritable, NonReadable
	for _, v := range m.vars {
		class := spirv.StorageClass(m.varClass[v])
		ptr := m.types[m.varType[v]]
		pointee, ok := ptr.arg(1)
		if ptr.op != spirv.OpTypePointer || !ok {
			continue
		}
		pt := m.types[pointee]
		switch class {
		case spirv.StorageClassPushConstant:
			if pt.op != spirv.OpTypeStruct {
				return nil, invalidf("shader: push constant %%%d is not a struct", v)
			}
			if len(pt.operands) > maxReflectedMembers {
				return nil, unsupportedf("shader: push-constant block of %d members", len(pt.operands))
			}
			for i, mt := range pt.operands {
				d := m.mdecor[[2]uint32{pointee, uint32(i)}]
				if d == nil || !d.hasOffset {
					return nil, invalidf("shader: push-constant member %d has no Offset", i)
				}
				sz, err := m.size(mt)
				if err != nil {
					return nil, err
				}
				end := uint64(d.offset) + uint64(sz)
				if end > maxTypeBytes {
					return nil, invalidf("shader: push-constant member %d ends past 4 GiB", i)
				}
				a := device.Argument{Name: m.members[[2]uint32{pointee, uint32(i)}], Kind: device.ArgUniform, Size: sz}
				if tt := m.types[mt]; tt.op == spirv.OpTypePointer && len(tt.operands) > 0 && tt.operands[0] == uint32(spirv.StorageClassPhysicalStorageBuffer) {
					a.Kind, a.ByAddress, a.Access, a.Size = device.ArgBuffer, true, device.ReadWrite, 0
				} else {
					a.Scalar, a.ScalarBits, a.Components = m.scalarOf(mt)
				}
				push = append(push, pushed{a, d.offset, sz})
				r.lay.pushSize = max(r.lay.pushSize, uint32(end))
			}
		case spirv.StorageClassStorageBuffer, spirv.StorageClassUniform, spirv.StorageClassUniformConstant:
			d := m.decor[v]
			if d == nil || d.binding < 0 {
				continue
			}
			if d.set != 0 {
				return nil, unsupportedf("shader: variable %q uses descriptor set %d (only set 0 is bound)", m.names[v], d.set)
			}
			if len(descs) >= maxReflectedMembers {
				return nil, unsupportedf("shader: more than %d resources", maxReflectedMembers)
			}
			a := device.Argument{Name: m.names[v], Access: device.ReadWrite}
			desc := noDescriptor
			ty := pt
			if ty.op == spirv.OpTypeArray || ty.op == spirv.OpTypeRuntimeArray {
				return nil, unsupportedf("shader: descriptor array %q at binding %d", m.names[v], d.binding)
			}
			switch ty.op {
			case spirv.OpTypeStruct:
				a.Kind = device.ArgBuffer
				sd := m.decor[pointee]
				if class == spirv.StorageClassUniform && (sd == nil || !sd.bufferBlock) {
					desc = vk.DESCRIPTOR_TYPE_UNIFORM_BUFFER
				} else {
					desc = vk.DESCRIPTOR_TYPE_STORAGE_BUFFER
				}
				if a.Name == "" {
					a.Name = m.names[pointee]
				}
				// Element stride of a trailing runtime array.
				if n := len(ty.operands); n > 0 {
					last := m.types[ty.operands[n-1]]
					if last.op == spirv.OpTypeRuntimeArray {
						if ad := m.decor[ty.operands[n-1]]; ad != nil {
							a.ElemSize = ad.arrayStride
						}
					}
				}
				// Members are looked at once per block type, however many
				// variables share it.
				members, seen := blockAccess[pointee]
				if !seen {
					nonW, nonR := true, true
					for i := range ty.operands {
						md := m.mdecor[[2]uint32{pointee, uint32(i)}]
						nonW = nonW && md != nil && md.nonWritable
						nonR = nonR && md != nil && md.nonRead
					}
					members = [2]bool{nonW, nonR}
					blockAccess[pointee] = members
				}
				nonW := members[0] || d.nonWritable || desc == vk.DESCRIPTOR_TYPE_UNIFORM_BUFFER
				nonR := members[1] || d.nonRead
				a.Access = accessOf(nonW, nonR)
			case spirv.OpTypeImage:
				// operands: sampled type, dim, depth, arrayed, ms, sampled, format
				if len(ty.operands) < 7 {
					return nil, invalidf("shader: malformed image type")
				}
				switch spirv.Dim(ty.operands[1]) {
				case spirv.Dim2D:
					a.Dim = 2
				case spirv.Dim3D:
					a.Dim = 3
				default:
					return nil, unsupportedf("shader: image %q of SPIR-V Dim %d (2D and 3D only)", m.names[v], ty.operands[1])
				}
				if ty.operands[5] != 2 {
					return nil, unsupportedf("shader: separate sampled image %q (use a combined image sampler)", m.names[v])
				}
				a.Kind = device.ArgTexture
				a.Format = imageFormats[ty.operands[6]]
				a.Access = accessOf(d.nonWritable, d.nonRead)
				desc = vk.DESCRIPTOR_TYPE_STORAGE_IMAGE
			case spirv.OpTypeSampledImage:
				imgID, ok := ty.arg(0)
				img := m.types[imgID]
				if !ok || img.op != spirv.OpTypeImage {
					return nil, invalidf("shader: sampled image %q has no image type", m.names[v])
				}
				a.Kind = device.ArgSampledTexture
				a.Access = device.Read
				if dim, _ := img.arg(1); dim == uint32(spirv.Dim3D) {
					a.Dim = 3
				} else {
					a.Dim = 2
				}
				desc = vk.DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
			default:
				return nil, unsupportedf("shader: resource %q of SPIR-V type opcode %d", m.names[v], ty.op)
			}
			descs = append(descs, bound{uint32(d.binding), a, desc})
		}
	}
	sort.Slice(descs, func(i, j int) bool { return descs[i].binding < descs[j].binding })
	for i := 1; i < len(descs); i++ {
		if descs[i].binding == descs[i-1].binding {
			return nil, invalidf("shader: two resources at binding %d", descs[i].binding)
		}
	}
	sort.SliceStable(push, func(i, j int) bool { return push[i].offset < push[j].offset })
	for _, b := range descs {
		r.sig.Args = append(r.sig.Args, b.arg)
		r.lay.args = append(r.lay.args, argLayout{desc: b.desc, binding: b.binding})
	}
	for _, p := range push {
		r.sig.Args = append(r.sig.Args, p.arg)
		r.lay.args = append(r.lay.args, argLayout{desc: noDescriptor, offset: p.offset, size: p.size})
	}
	if len(r.sig.Args) > maxReflectedMembers {
		return nil, unsupportedf("shader: %d arguments", len(r.sig.Args))
	}
	return r, nil
}

func accessOf(nonWritable, nonReadable bool) device.Access {
	switch {
	case nonWritable && !nonReadable:
		return device.Read
	case nonReadable && !nonWritable:
		return device.Write
	}
	return device.ReadWrite
}

func (r *reflection) String() string { return fmt.Sprint(r.sig) }
