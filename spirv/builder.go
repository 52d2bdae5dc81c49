package spirv

import (
	"errors"
	"fmt"
	"slices"
)

// ErrBuild is wrapped by every error a Builder reports.
var ErrBuild = errors.New("spirv: build")

// Builder assembles a SPIR-V module. Methods that add instructions return the
// new result id; misuse (an instruction outside a block, an operand of the
// wrong kind …) is recorded as the first error, which [Builder.Err] and
// [Builder.Words] report, and the methods return 0 from then on: a code
// generator checks once, at the end.
//
// Types and constants are deduplicated structurally, capabilities, extensions
// and extended-instruction-set imports by value. The module is written in the
// logical layout of the specification whatever order it was built in.
// A Builder is not safe for concurrent use; build one module per goroutine.
type Builder struct {
	env     TargetEnv
	version Version
	nextID  ID
	err     error

	caps    []Capability
	capSet  map[Capability]bool
	exts    []string
	extSet  map[string]bool
	imports []uint32
	setIDs  map[string]ID

	addressing  AddressingModel
	memoryModel MemoryModel
	modelSet    bool

	entryPoints []entryPoint
	modes       []uint32
	debug       []uint32 // OpString, OpSource, OpSourceExtension, OpModuleProcessed
	names       []uint32 // OpName, OpMemberName
	annotations []uint32
	annoSet     map[string]bool
	globals     []uint32 // types, constants, global variables, in dependency order

	typeKeys  map[string]ID
	constKeys map[string]ID
	typeInfo  map[ID]typeDesc
	globalSC  map[ID]StorageClass // global variables and their storage classes
	valueType []ID                // result type of each id, indexed by id

	functions []*Function
	fnByID    map[ID]*Function
	cur       *Block

	forward     []forwardPointer // forward-declared pointers not yet defined
	defined     []uint64         // bit set of the ids some instruction defines
	wordScratch []uint32         // reused to build deduplication keys without allocating
	byteScratch []byte
}

type forwardPointer struct {
	id ID
	sc StorageClass
}

type entryPoint struct {
	model ExecutionModel
	fn    ID
	name  string
	iface []ID
}

// typeDesc remembers what a type id is, for the helpers that derive things from it.
type typeDesc struct {
	op      Op
	width   uint32 // scalar bit width, or the component count of a vector
	signed  bool
	elem    ID // element type (vector, array, pointer)
	sc      StorageClass
	members []ID // struct members, function parameters
}

// NewBuilder returns a Builder for env; the module's SPIR-V version is the
// highest env accepts (Vulkan 1.1 → 1.3, 1.2 → 1.5, 1.3 → 1.6). The memory
// model defaults to Logical GLSL450 (or PhysicalStorageBuffer64 addressing
// once a PhysicalStorageBuffer pointer type is made).
func NewBuilder(env TargetEnv) *Builder {
	b := &Builder{
		env:       env,
		version:   env.SPIRVVersion(),
		nextID:    1,
		capSet:    map[Capability]bool{},
		extSet:    map[string]bool{},
		setIDs:    map[string]ID{},
		annoSet:   map[string]bool{},
		typeKeys:  map[string]ID{},
		constKeys: map[string]ID{},
		typeInfo:  map[ID]typeDesc{},
		globalSC:  map[ID]StorageClass{},
		fnByID:    map[ID]*Function{},

		addressing:  AddressingModelLogical,
		memoryModel: MemoryModelGLSL450,
	}
	if !env.Valid() {
		b.fail("unknown target environment %v", env)
	}
	return b
}

// Env returns the target environment.
func (b *Builder) Env() TargetEnv { return b.env }

// Version returns the SPIR-V version of the module.
func (b *Builder) Version() Version { return b.version }

// Err returns the first error recorded while building, or nil.
func (b *Builder) Err() error { return b.err }

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("%w: %s", ErrBuild, fmt.Sprintf(format, args...))
	}
}

// NewID allocates a fresh id that nothing defines yet: a block label chosen
// ahead of its block ([Function.NewBlockWithLabel]). Phi operands defined later
// are added with [Builder.AddPhiIncoming]. Words reports an id used but never
// defined.
func (b *Builder) NewID() ID {
	id := b.nextID
	b.nextID++
	return id
}

// newDef allocates an id that the instruction being added defines.
func (b *Builder) newDef() ID {
	id := b.NewID()
	b.markDefined(id)
	return id
}

func (b *Builder) markDefined(id ID) {
	w := int(id / 64)
	for len(b.defined) <= w {
		b.defined = append(b.defined, 0)
	}
	b.defined[w] |= 1 << (id % 64)
}

func (b *Builder) isDefined(id ID) bool {
	w := int(id / 64)
	return w < len(b.defined) && b.defined[w]&(1<<(id%64)) != 0
}

// Bound returns one more than the largest id allocated so far.
func (b *Builder) Bound() uint32 { return uint32(b.nextID) }

func (b *Builder) setType(id, t ID) {
	if int(id) >= len(b.valueType) {
		b.valueType = slices.Grow(b.valueType, int(id)+1-len(b.valueType))[:int(id)+1]
	}
	b.valueType[id] = t
}

// TypeOf returns the result type of value id (0 when unknown or id is not a value).
func (b *Builder) TypeOf(id ID) ID {
	if int(id) < len(b.valueType) {
		return b.valueType[id]
	}
	return 0
}

// Capability declares a capability (once, however often it is asked for).
func (b *Builder) Capability(c Capability) {
	if !b.capSet[c] {
		b.capSet[c] = true
		b.caps = append(b.caps, c)
	}
}

// Extension declares an extension (once).
func (b *Builder) Extension(name string) {
	if !b.extSet[name] {
		b.extSet[name] = true
		b.exts = append(b.exts, name)
	}
}

// ExtInstImport returns the id of the extended instruction set name, imported once.
func (b *Builder) ExtInstImport(name string) ID {
	if id, ok := b.setIDs[name]; ok {
		return id
	}
	id := b.newDef()
	b.setIDs[name] = id
	b.imports = appendInst(b.imports, OpExtInstImport, append([]uint32{uint32(id)}, stringWords(name)...)...)
	return id
}

// MemoryModel sets the addressing and memory models.
func (b *Builder) MemoryModel(a AddressingModel, m MemoryModel) {
	b.addressing, b.memoryModel, b.modelSet = a, m, true
	if m == MemoryModelVulkan {
		b.Capability(CapabilityVulkanMemoryModel)
		if b.version < MakeVersion(1, 5) {
			b.Extension("SPV_KHR_vulkan_memory_model")
		}
	}
}

// EntryPoint declares fn as an entry point. On SPIR-V 1.4 and later the
// interface lists every global variable the entry point's call tree uses (found
// when the module is written); before 1.4 the Input and Output ones. Ids in
// iface are added to that list.
func (b *Builder) EntryPoint(model ExecutionModel, fn ID, name string, iface ...ID) {
	b.entryPoints = append(b.entryPoints, entryPoint{model, fn, name, slices.Clone(iface)})
}

// ExecutionMode adds an execution mode with literal operands to entry point fn.
func (b *Builder) ExecutionMode(fn ID, mode ExecutionMode, literals ...uint32) {
	b.modes = appendInst(b.modes, OpExecutionMode, append([]uint32{uint32(fn), uint32(mode)}, literals...)...)
}

// ExecutionModeID adds an execution mode with id operands (OpExecutionModeId).
func (b *Builder) ExecutionModeID(fn ID, mode ExecutionMode, operands ...ID) {
	if b.version < MakeVersion(1, 2) {
		b.fail("OpExecutionModeId needs SPIR-V 1.2, module is %v", b.version)
		return
	}
	b.modes = appendInst(b.modes, OpExecutionModeId, append([]uint32{uint32(fn), uint32(mode)}, ids(operands)...)...)
}

// LocalSize sets the workgroup size of compute entry point fn.
func (b *Builder) LocalSize(fn ID, x, y, z uint32) {
	b.ExecutionMode(fn, ExecutionModeLocalSize, x, y, z)
}

// LocalSizeID sets the workgroup size of fn from constant (or specialization constant) ids.
func (b *Builder) LocalSizeID(fn ID, x, y, z ID) {
	b.ExecutionModeID(fn, ExecutionModeLocalSizeId, x, y, z)
}

// Name gives id a debug name.
func (b *Builder) Name(id ID, name string) {
	b.names = appendInst(b.names, OpName, append([]uint32{uint32(id)}, stringWords(name)...)...)
}

// MemberName gives member i of struct type t a debug name.
func (b *Builder) MemberName(t ID, member uint32, name string) {
	b.names = appendInst(b.names, OpMemberName, append([]uint32{uint32(t), member}, stringWords(name)...)...)
}

// Source records the source language (OpSource) of the module.
func (b *Builder) Source(lang SourceLanguage, version uint32) {
	b.debug = appendInst(b.debug, OpSource, uint32(lang), version)
}

// DebugString adds an OpString (a file name or source text for debug
// instructions) and returns its id.
func (b *Builder) DebugString(s string) ID {
	id := b.newDef()
	b.debug = appendInst(b.debug, OpString, append([]uint32{uint32(id)}, stringWords(s)...)...)
	return id
}

func (b *Builder) annotate(op Op, operands ...uint32) {
	k := b.key(append(append(b.wordScratch[:0], uint32(op)), operands...))
	if b.annoSet[string(k)] {
		return
	}
	b.annoSet[string(k)] = true
	b.annotations = appendInst(b.annotations, op, operands...)
}

// key returns w as bytes in a scratch buffer: look maps up with string(key),
// which does not allocate; only an insertion copies it.
func (b *Builder) key(w []uint32) []byte {
	b.wordScratch = w[:0]
	buf := b.byteScratch[:0]
	for _, x := range w {
		buf = append(buf, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	b.byteScratch = buf
	return buf
}

// Decorate decorates id (once per distinct decoration and operands).
// Decorations that change a type's layout should be given to
// [Builder.TypeStructOf] or the *Stride type constructors instead, so that
// structurally equal types with different layouts stay distinct.
func (b *Builder) Decorate(id ID, d Decoration, literals ...uint32) {
	b.annotate(OpDecorate, append([]uint32{uint32(id), uint32(d)}, literals...)...)
}

// DecorateID decorates id with a decoration whose operands are ids (OpDecorateId).
func (b *Builder) DecorateID(id ID, d Decoration, operands ...ID) {
	b.annotate(OpDecorateId, append([]uint32{uint32(id), uint32(d)}, ids(operands)...)...)
}

// MemberDecorate decorates member of struct type t.
func (b *Builder) MemberDecorate(t ID, member uint32, d Decoration, literals ...uint32) {
	b.annotate(OpMemberDecorate, append([]uint32{uint32(t), member, uint32(d)}, literals...)...)
}
