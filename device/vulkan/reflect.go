package vulkan

// Reflection of raw SPIR-V compute modules: the descriptor bindings of set 0
// and the push-constant block become a device.Signature, in the order kernel
// ABI v1 gives raw modules (descriptors by binding, then push-constant members
// by offset). A push-constant member that is a PhysicalStorageBuffer pointer
// becomes a buffer argument passed by device address.
//
// Spec: SPIR-V 1.6, sections 2.3 (physical layout) and 3 (binary form).

import (
	"fmt"
	"sort"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

const (
	opName              = 5
	opMemberName        = 6
	opEntryPoint        = 15
	opExecutionMode     = 16
	opTypeBool          = 20
	opTypeInt           = 21
	opTypeFloat         = 22
	opTypeVector        = 23
	opTypeMatrix        = 24
	opTypeImage         = 25
	opTypeSampler       = 26
	opTypeSampledImage  = 27
	opTypeArray         = 28
	opTypeRuntimeArray  = 29
	opTypeStruct        = 30
	opTypePointer       = 32
	opTypeForwardPtr    = 39
	opConstant          = 43
	opVariable          = 59
	opDecorate          = 71
	opMemberDecorate    = 72
	opExecutionModeID   = 331
	decBlock            = 2
	decBufferBlock      = 3
	decArrayStride      = 6
	decMatrixStride     = 7
	decNonWritable      = 24
	decNonReadable      = 25
	decBinding          = 33
	decDescriptorSet    = 34
	decOffset           = 35
	scUniformConstant   = 0
	scUniform           = 2
	scPushConstant      = 9
	scStorageBuffer     = 12
	scPhysicalStorage   = 5349
	modelGLCompute      = 5
	modeLocalSize       = 17
	modeLocalSizeID     = 38
	spirvMagic          = 0x07230203
	maxReflectedMembers = 64
)

type spvType struct {
	op       uint32
	operands []uint32
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
	sig      device.Signature
	descType []vk.DescriptorType // per argument, or noDescriptor
}

type spvModule struct {
	types     map[uint32]spvType
	consts    map[uint32]uint32
	names     map[uint32]string
	members   map[[2]uint32]string
	decor     map[uint32]*spvDecor
	mdecor    map[[2]uint32]*spvDecor
	vars      []uint32
	varType   map[uint32]uint32 // variable -> pointer type
	varClass  map[uint32]uint32
	entry     uint32
	entryName string
	localSize [3]uint32
	sizeIDs   [3]uint32
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

func spvString(words []uint32) (string, int) {
	var b []byte
	for i, w := range words {
		for k := 0; k < 4; k++ {
			c := byte(w >> (8 * k))
			if c == 0 {
				return string(b), i + 1
			}
			b = append(b, c)
		}
	}
	return string(b), len(words)
}

// parseSPIRV reads the parts of a module reflection needs.
func parseSPIRV(words []uint32, entryPoint string) (*spvModule, error) {
	if len(words) < 5 || words[0] != spirvMagic {
		return nil, invalidf("shader: not a SPIR-V module (bad magic or shorter than the header)")
	}
	m := &spvModule{
		types: map[uint32]spvType{}, consts: map[uint32]uint32{}, names: map[uint32]string{},
		members: map[[2]uint32]string{}, decor: map[uint32]*spvDecor{}, mdecor: map[[2]uint32]*spvDecor{},
		varType: map[uint32]uint32{}, varClass: map[uint32]uint32{},
	}
	found := false
	for i := 5; i < len(words); {
		n := int(words[i] >> 16)
		op := words[i] & 0xffff
		if n == 0 || i+n > len(words) {
			return nil, invalidf("shader: malformed SPIR-V instruction at word %d", i)
		}
		ops := words[i+1 : i+n]
		i += n
		switch op {
		case opName:
			if len(ops) >= 1 {
				m.names[ops[0]], _ = spvString(ops[1:])
			}
		case opMemberName:
			if len(ops) >= 2 {
				m.members[[2]uint32{ops[0], ops[1]}], _ = spvString(ops[2:])
			}
		case opEntryPoint:
			if len(ops) >= 3 && ops[0] == modelGLCompute {
				name, _ := spvString(ops[2:])
				if name == entryPoint && !found {
					m.entry, m.entryName, found = ops[1], name, true
				}
			}
		case opExecutionMode, opExecutionModeID:
			if len(ops) >= 5 && ops[0] == m.entry && found {
				switch {
				case op == opExecutionMode && ops[1] == modeLocalSize:
					m.localSize = [3]uint32{ops[2], ops[3], ops[4]}
				case op == opExecutionModeID && ops[1] == modeLocalSizeID:
					m.sizeIDs = [3]uint32{ops[2], ops[3], ops[4]}
				}
			}
		case opTypeBool, opTypeInt, opTypeFloat, opTypeVector, opTypeMatrix, opTypeImage, opTypeSampler,
			opTypeSampledImage, opTypeArray, opTypeRuntimeArray, opTypeStruct, opTypePointer, 5341:
			if len(ops) >= 1 {
				m.types[ops[0]] = spvType{op: op, operands: ops[1:]}
			}
		case opConstant:
			if len(ops) >= 3 {
				m.consts[ops[1]] = ops[2]
			}
		case opVariable:
			if len(ops) >= 3 {
				m.vars = append(m.vars, ops[1])
				m.varType[ops[1]] = ops[0]
				m.varClass[ops[1]] = ops[2]
			}
		case opDecorate:
			if len(ops) >= 2 {
				d := m.dec(ops[0])
				applyDecoration(d, ops[1], ops[2:])
			}
		case opMemberDecorate:
			if len(ops) >= 3 {
				d := m.mdec(ops[0], ops[1])
				applyDecoration(d, ops[2], ops[3:])
			}
		}
	}
	if !found {
		return nil, invalidf("shader: no GLCompute entry point named %q", entryPoint)
	}
	for i, id := range m.sizeIDs {
		if id != 0 {
			m.localSize[i] = m.consts[id]
		}
	}
	return m, nil
}

func applyDecoration(d *spvDecor, dec uint32, lit []uint32) {
	arg := uint32(0)
	if len(lit) > 0 {
		arg = lit[0]
	}
	switch dec {
	case decBlock:
		d.block = true
	case decBufferBlock:
		d.bufferBlock = true
	case decArrayStride:
		d.arrayStride = arg
	case decMatrixStride:
		d.matrixStride = arg
	case decNonWritable:
		d.nonWritable = true
	case decNonReadable:
		d.nonRead = true
	case decBinding:
		d.binding = int64(arg)
	case decDescriptorSet:
		d.set = int64(arg)
	case decOffset:
		d.hasOffset, d.offset = true, arg
	}
}

// size returns the byte size of a type in the explicit layout its
// decorations give (scalar layout where they say nothing more).
func (m *spvModule) size(id uint32, depth int) (uint32, error) {
	t, ok := m.types[id]
	if !ok || depth > 16 {
		return 0, invalidf("shader: unknown or too deeply nested type %%%d", id)
	}
	switch t.op {
	case opTypeBool:
		return 4, nil
	case opTypeInt, opTypeFloat:
		return t.operands[0] / 8, nil
	case opTypeVector:
		c, err := m.size(t.operands[0], depth+1)
		return c * t.operands[1], err
	case opTypeMatrix:
		col, err := m.size(t.operands[0], depth+1)
		if d := m.decor[id]; d != nil && d.matrixStride != 0 {
			col = d.matrixStride
		}
		return col * t.operands[1], err
	case opTypeArray:
		n := m.consts[t.operands[1]]
		stride := uint32(0)
		if d := m.decor[id]; d != nil {
			stride = d.arrayStride
		}
		if stride == 0 {
			var err error
			if stride, err = m.size(t.operands[0], depth+1); err != nil {
				return 0, err
			}
		}
		return stride * n, nil
	case opTypeStruct:
		var end uint32
		for i, mt := range t.operands {
			sz, err := m.size(mt, depth+1)
			if err != nil {
				return 0, err
			}
			off := end
			if d := m.mdecor[[2]uint32{id, uint32(i)}]; d != nil && d.hasOffset {
				off = d.offset
				if d.matrixStride != 0 && m.types[mt].op == opTypeMatrix {
					sz = d.matrixStride * m.types[mt].operands[1]
				}
			}
			end = max(end, off+sz)
		}
		return end, nil
	case opTypePointer:
		return 8, nil
	}
	return 0, invalidf("shader: type %%%d (opcode %d) has no size", id, t.op)
}

// scalarOf describes scalar and vector types for argument checks.
func (m *spvModule) scalarOf(id uint32) (device.ScalarKind, uint8, uint8) {
	t := m.types[id]
	comps := uint8(1)
	if t.op == opTypeVector {
		comps = uint8(t.operands[1])
		t = m.types[t.operands[0]]
	}
	switch t.op {
	case opTypeBool:
		return device.ScalarBool, 32, comps
	case opTypeInt:
		if t.operands[1] == 1 {
			return device.ScalarInt, uint8(t.operands[0]), comps
		}
		return device.ScalarUint, uint8(t.operands[0]), comps
	case opTypeFloat:
		return device.ScalarFloat, uint8(t.operands[0]), comps
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

// reflect derives the signature of a raw module.
func reflectSPIRV(words []uint32, entryPoint string) (*reflection, error) {
	m, err := parseSPIRV(words, entryPoint)
	if err != nil {
		return nil, err
	}
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
	var descs []bound
	var push []device.Argument
	for _, v := range m.vars {
		class := m.varClass[v]
		ptr := m.types[m.varType[v]]
		if ptr.op != opTypePointer || len(ptr.operands) < 2 {
			continue
		}
		pointee := ptr.operands[1]
		pt := m.types[pointee]
		switch class {
		case scPushConstant:
			if pt.op != opTypeStruct {
				return nil, invalidf("shader: push constant %%%d is not a struct", v)
			}
			for i, mt := range pt.operands {
				d := m.mdecor[[2]uint32{pointee, uint32(i)}]
				if d == nil || !d.hasOffset {
					return nil, invalidf("shader: push-constant member %d has no Offset", i)
				}
				sz, err := m.size(mt, 0)
				if err != nil {
					return nil, err
				}
				a := device.Argument{Name: m.members[[2]uint32{pointee, uint32(i)}], Kind: device.ArgUniform, Offset: d.offset, Size: sz}
				if tt := m.types[mt]; tt.op == opTypePointer && tt.operands[0] == scPhysicalStorage {
					a.Kind, a.Form, a.Access = device.ArgBuffer, device.FormAddress, device.ReadWrite
				} else {
					a.Scalar, a.ScalarBits, a.Components = m.scalarOf(mt)
				}
				push = append(push, a)
				r.sig.PushConstantSize = max(r.sig.PushConstantSize, d.offset+sz)
			}
		case scStorageBuffer, scUniform, scUniformConstant:
			d := m.decor[v]
			if d == nil || d.binding < 0 {
				continue
			}
			if d.set != 0 {
				return nil, unsupportedf("shader: variable %q uses descriptor set %d (only set 0 is bound)", m.names[v], d.set)
			}
			a := device.Argument{Name: m.names[v], Binding: uint32(d.binding), Access: device.ReadWrite}
			desc := noDescriptor
			ty := pt
			if ty.op == opTypeArray || ty.op == opTypeRuntimeArray {
				return nil, unsupportedf("shader: descriptor array %q at binding %d", m.names[v], d.binding)
			}
			switch ty.op {
			case opTypeStruct:
				a.Kind = device.ArgBuffer
				sd := m.decor[pointee]
				if class == scUniform && (sd == nil || !sd.bufferBlock) {
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
					if last.op == opTypeRuntimeArray {
						if ad := m.decor[ty.operands[n-1]]; ad != nil {
							a.ElemSize = ad.arrayStride
						}
					}
				}
				nonW, nonR := true, true
				for i := range ty.operands {
					md := m.mdecor[[2]uint32{pointee, uint32(i)}]
					nonW = nonW && md != nil && md.nonWritable
					nonR = nonR && md != nil && md.nonRead
				}
				nonW = nonW || d.nonWritable || desc == vk.DESCRIPTOR_TYPE_UNIFORM_BUFFER
				nonR = nonR || d.nonRead
				a.Access = accessOf(nonW, nonR)
			case opTypeImage:
				// operands: sampled type, dim, depth, arrayed, ms, sampled, format
				if len(ty.operands) < 7 {
					return nil, invalidf("shader: malformed image type")
				}
				switch ty.operands[1] {
				case 1:
					a.Dim = 2
				case 2:
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
			case opTypeSampledImage:
				img := m.types[ty.operands[0]]
				a.Kind = device.ArgSampledTexture
				a.Access = device.Read
				if len(img.operands) > 1 && img.operands[1] == 2 {
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
	sort.SliceStable(push, func(i, j int) bool { return push[i].Offset < push[j].Offset })
	for _, b := range descs {
		r.sig.Args = append(r.sig.Args, b.arg)
		r.descType = append(r.descType, b.desc)
	}
	for _, a := range push {
		r.sig.Args = append(r.sig.Args, a)
		r.descType = append(r.descType, noDescriptor)
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
