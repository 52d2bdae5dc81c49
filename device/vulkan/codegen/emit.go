package codegen

import (
	"fmt"
	"slices"

	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

// BindlessSlotSize is the size of one slot record of an emulated bindless
// array (kernel ABI v1): u64 device address, u64 size in bytes, 16 reserved bytes.
const BindlessSlotSize = 32

// Version changes whenever codegen changes the words it emits for the
// same AST; it belongs in cache keys next to Hash. TestVersionCoversTheWords
// holds it to a digest of the words emitted for internal/programs
// (testdata/version-digest): a change to them fails the test until Version
// is bumped and the pair recorded with go test -update.
const Version = 19

// Options tune code generation for a device.
type Options struct {
	// Env is the target environment (default Vulkan 1.2).
	Env spirv.TargetEnv
	// FloatAtomicAdd uses the native float32 atomic add
	// (SPV_EXT_shader_atomic_float_add) on buffers and shared memory;
	// otherwise float atomics become compare-and-swap loops.
	FloatAtomicAdd bool
	// Names emits debug names (OpName) for variables and functions.
	Names bool
	// NativeBindlessTextures reads and samples the texture slots of bindless
	// arrays through descriptor arrays (descriptor indexing: a runtime array
	// of combined image samplers in set 1+i for the i-th argument of
	// Function.BindlessTextureArgs) instead of decoding linear mirrors in
	// code. The slot records still give presence and size.
	NativeBindlessTextures bool
	// NativeRayQuery traces ray queries with SPV_KHR_ray_query against the
	// VkAccelerationStructureKHR whose address the accel argument holds;
	// otherwise the traversal of the software layout (docs/accel.md) is
	// code. Kernel ABI v1, "Accels".
	NativeRayQuery bool
	// SoftAccelByAddress has the software traversal read accels through
	// their device addresses only: one traversal, not the two under a
	// uniform branch on the accel's second word (the accel's binding stays
	// in the layout, unread). The Vulkan backend sets it where it reads
	// software accels by address (kernel ABI v1, "Accels").
	SoftAccelByAddress bool
	// Checked emits the checked mode: every buffer index and every index
	// of a shared or local array, vector or matrix is compared with the
	// length, every integer divisor with zero; a thread's first fault is
	// kept and appended to the print ring as a record when the kernel
	// returns (emit_print.go); an array, vector or matrix index out of
	// range is replaced by 0. The accesses otherwise behave as unchecked
	// ones.
	Checked bool
	// SubgroupVote lets the checked mode branch on subgroupAny around its
	// fault records (the device has subgroup vote operations).
	SubgroupVote bool
	// LoopExitFlags ends every loop left by break or return on a flag its
	// condition tests, with the statements after the exit guarded by it
	// (loopexit.go), instead of branching out of the loop: the
	// loop-exit-flags driver workaround (Workarounds).
	LoopExitFlags bool
	// LoopLimit, in the checked mode, counts a thread's loop iterations,
	// all its loops together, and records a fault (device.FaultLoopLimit)
	// when they reach LoopLimit: the driver ends every loop of the thread
	// there without a word (the loop-limit driver workaround). 0: no count.
	LoopLimit uint32

	// unguarded leaves accesses through device addresses without their
	// bounds guard; only the benchmark measuring the guard sets it.
	unguarded bool

	// HelpersByReference emits a kernel whose helpers still take buffers
	// (templates, not specialised: ir.Specialize not run) with each buffer
	// parameter passed by reference, as two function parameters: the
	// PhysicalStorageBuffer pointer and the element count. Only buffers by
	// address can be passed so. The kernel is not validated (Validate
	// refuses templates): this is the measurement of specialisation
	// against passing by reference (docs/PERFORMANCE.md), not a mode.
	HelpersByReference bool
}

// Emit generates the SPIR-V module of kernel f (and the callables it
// reaches) following kernel ABI v1. f is validated first.
func Emit(f *ir.Function, opts Options) (words []uint32, err error) {
	if f == nil {
		return nil, fmt.Errorf("%w: nil kernel", ir.ErrInvalid)
	}
	// Validate should reject every AST codegen cannot handle; should one slip
	// through, report it rather than crash the host.
	defer func() {
		if r := recover(); r != nil {
			words, err = nil, fmt.Errorf("%w: codegen of %s failed on a malformed AST: %v", ir.ErrInvalid, f.Name, r)
		}
	}()
	if f.Kind != ir.KernelFunc {
		return nil, fmt.Errorf("%w: %s is a callable, not a kernel", ir.ErrInvalid, f.Name)
	}
	if !opts.HelpersByReference {
		if err := f.Validate(); err != nil {
			return nil, err
		}
	} else if opts.Checked {
		// A fault names the kernel argument; through a parameter passed
		// by reference there is none to name.
		return nil, fmt.Errorf("%w: %s: helpers by reference are not checked", ir.ErrUnsupported, f.Name)
	}
	if opts.Env == 0 {
		opts.Env = spirv.EnvVulkan1_2
	}
	g := newGen(opts)
	if err := g.kernel(f); err != nil {
		return nil, err
	}
	w, err := g.b.Words()
	if err != nil {
		return nil, fmt.Errorf("codegen: %s: %w", f.Name, err)
	}
	return w, nil
}

// gen is the state of one module's code generation.
type gen struct {
	b    *spirv.Builder
	opts Options
	err  error

	logical  map[*ir.Type]spirv.ID // value types, no layout decorations
	explicit map[*ir.Type]spirv.ID // types with Offset/ArrayStride, for buffers and push constants
	ptrs     map[ptrKey]spirv.ID
	funcs    map[*ir.Function]*fnInfo

	// per kernel
	vars    map[*ir.Var]place // variables with storage
	values  map[*ir.Var]spirv.ID
	push    spirv.ID // push-constant variable
	pushT   spirv.ID
	argIdx  map[*ir.Var]uint32   // push-constant member of a uniform argument (spill-block member of a spilled one)
	spilled map[*ir.Var]bool     // arguments in the spill block
	spillT  spirv.ID             // the spill block's type (0: none)
	spillM  uint32               // the push-constant member holding its address
	binding map[*ir.Var]int      // descriptor binding of a resource argument
	refs    map[*ir.Var]refParam // buffer parameters passed by reference (Options.HelpersByReference)
	aliases map[*ir.Var]spirv.ID // u32 views of buffers, for float atomics
	texHeap map[*ir.Var]spirv.ID // descriptor arrays of bindless arrays' texture slots (native path)
	accelSB map[*ir.Var]spirv.ID // an accel's buffer as a storage buffer (software traversal)
	sw      swMem                // the accel the software traversal being emitted reads
	bits    map[*ir.Var]bool     // f32 shared variables stored as u32 bits, for emulated float atomics

	// builtin values, computed in the kernel's entry block
	builtins map[ir.BuiltinVar]spirv.ID

	// printing (emit_print.go), in kernels that print: the push-constant
	// member of the ring's address, each Print's site, and the Private
	// variable holding the dispatch id for prints in callables.
	printRing uint32
	kernelFn  *ir.Function // the kernel, whose argument and shared indices fault records name
	fault     [4]spirv.ID  // checked mode: the Private words of the thread's first fault (kind, what, index, length)
	loops     spirv.ID     // checked mode with Options.LoopLimit: the Private count of the thread's loop passes
	sites     map[*ir.Print]uint32
	printTID  spirv.ID
	siteOf    map[ir.Stmt]uint32    // checked mode: each statement's site (ir.Function.Sites)
	asserts   map[*ir.Assert]uint32 // checked mode: each assertion's index (ir.Function.Asserts)
	places    map[*ir.Index]int     // checked mode: what each index names (ir.Function.IndexNames)
	site      uint32                // the site of the statement being emitted (noSite outside any)

	// per function
	fn       *ir.Function
	sfn      *spirv.Function
	targets  []target // break/continue targets, innermost last
	constArr map[*ir.ConstArray]spirv.ID
	inv      map[ir.Expr]bool       // invariance of expressions (emit_hoist.go)
	scopes   []map[ir.Expr]spirv.ID // invariant values by scope, innermost last
	reuse    reuse                  // values of the current statement (emit_reuse.go)
	query    *queryState            // the ray query whose body is being emitted (emit_rayquery.go)

	u32, i32, f32, boolT, voidT spirv.ID
}

type ptrKey struct {
	sc spirv.StorageClass
	t  spirv.ID
}

// place is a variable's pointer with its storage class and whether its type
// is the explicit-layout one.
type place struct {
	ptr      spirv.ID
	sc       spirv.StorageClass
	explicit bool
}

type fnInfo struct {
	id    spirv.ID
	fnT   spirv.ID
	spirv *spirv.Function
}

type target struct {
	brk, cont spirv.ID // cont == 0 for a switch
}

func newGen(opts Options) *gen {
	b := spirv.NewBuilder(opts.Env)
	b.Capability(spirv.CapabilityShader)
	g := &gen{
		b: b, opts: opts,
		logical:  map[*ir.Type]spirv.ID{},
		explicit: map[*ir.Type]spirv.ID{},
		ptrs:     map[ptrKey]spirv.ID{},
		funcs:    map[*ir.Function]*fnInfo{},
		vars:     map[*ir.Var]place{},
		values:   map[*ir.Var]spirv.ID{},
		builtins: map[ir.BuiltinVar]spirv.ID{},
		argIdx:   map[*ir.Var]uint32{},
		spilled:  map[*ir.Var]bool{},
		refs:     map[*ir.Var]refParam{},
		binding:  map[*ir.Var]int{},
		aliases:  map[*ir.Var]spirv.ID{},
		texHeap:  map[*ir.Var]spirv.ID{},
		accelSB:  map[*ir.Var]spirv.ID{},
		bits:     map[*ir.Var]bool{},
	}
	g.u32 = b.TypeInt(32, false)
	g.i32 = b.TypeInt(32, true)
	g.f32 = b.TypeFloat(32)
	g.boolT = b.TypeBool()
	g.voidT = b.TypeVoid()
	return g
}

func (g *gen) fail(format string, args ...any) {
	if g.err == nil {
		g.err = fmt.Errorf("%w: %s", ir.ErrUnsupported, fmt.Sprintf(format, args...))
	}
}

// typ returns the logical SPIR-V type of t.
func (g *gen) typ(t *ir.Type) spirv.ID {
	if id, ok := g.logical[t]; ok {
		return id
	}
	b := g.b
	var id spirv.ID
	switch t.Kind() {
	case ir.KindVoid:
		id = g.voidT
	case ir.KindBool:
		id = g.boolT
	case ir.KindInt, ir.KindUint:
		id = b.TypeInt(uint32(t.Bits()), t.Kind() == ir.KindInt)
	case ir.KindFloat:
		id = b.TypeFloat(uint32(t.Bits()))
	case ir.KindVector:
		id = b.TypeVector(g.typ(t.Elem()), uint32(t.Len()))
	case ir.KindMatrix:
		id = b.TypeMatrix(g.typ(t.Elem()), uint32(t.Len()))
	case ir.KindArray:
		id = b.TypeArray(g.typ(t.Elem()), uint32(t.Len()))
	case ir.KindStruct:
		ms := make([]spirv.ID, len(t.Fields()))
		for i, f := range t.Fields() {
			ms[i] = g.typ(f.Type)
		}
		id = b.TypeStruct(ms...)
	default:
		g.fail("type %s has no value form", t)
		return 0
	}
	g.logical[t] = id
	return id
}

// etyp returns the explicitly laid out SPIR-V type of t (scalar layout at Go's offsets).
func (g *gen) etyp(t *ir.Type) spirv.ID {
	switch t.Kind() {
	case ir.KindArray, ir.KindStruct:
	default:
		g.smallStorage(t)
		return g.typ(t)
	}
	if id, ok := g.explicit[t]; ok {
		return id
	}
	var id spirv.ID
	if t.Kind() == ir.KindArray {
		if t.Elem().Kind() == ir.KindMatrix {
			g.fail("array of matrices %s in a buffer or push constant", t)
			return 0
		}
		id = g.b.TypeArrayStride(g.etyp(t.Elem()), uint32(t.Len()), uint32(t.Elem().Size()))
	} else {
		st := spirv.StructType{Members: make([]spirv.Member, len(t.Fields()))}
		for i, f := range t.Fields() {
			m := spirv.Member{Type: g.etyp(f.Type), Offset: spirv.Off(uint32(f.Offset))}
			if g.opts.Names {
				m.Name = f.Name
			}
			if f.Type.Kind() == ir.KindMatrix {
				m.Decorations = []spirv.Decor{{Decoration: spirv.DecorationColMajor},
					{Decoration: spirv.DecorationMatrixStride, Literals: []uint32{uint32(f.Type.Elem().Size())}}}
			}
			st.Members[i] = m
		}
		if g.opts.Names {
			st.Name = t.Name()
		}
		id = g.b.TypeStructOf(st)
	}
	g.explicit[t] = id
	return id
}

// smallStorage declares the capability 8- and 16-bit scalars need in
// buffers. Push constants need their own (pushStorage): devices with 16-bit
// storage buffers may lack storagePushConstant16, so only kernels with such
// a uniform declare it.
func (g *gen) smallStorage(t *ir.Type) {
	switch t.Scalar().Bits() {
	case 8:
		g.b.Capability(spirv.CapabilityStorageBuffer8BitAccess)
	case 16:
		g.b.Capability(spirv.CapabilityStorageBuffer16BitAccess)
	}
}

// pushStorage declares the capabilities the 8- and 16-bit scalars of t, a
// uniform in the push constants, need there.
func (g *gen) pushStorage(t *ir.Type) {
	switch t.Kind() {
	case ir.KindArray:
		g.pushStorage(t.Elem())
		return
	case ir.KindStruct:
		for _, f := range t.Fields() {
			g.pushStorage(f.Type)
		}
		return
	}
	switch t.Scalar().Bits() {
	case 8:
		g.b.Capability(spirv.CapabilityStoragePushConstant8)
	case 16:
		g.b.Capability(spirv.CapabilityStoragePushConstant16)
	}
}

func (g *gen) ptr(sc spirv.StorageClass, t spirv.ID) spirv.ID {
	k := ptrKey{sc, t}
	if id, ok := g.ptrs[k]; ok {
		return id
	}
	id := g.b.TypePointer(sc, t)
	g.ptrs[k] = id
	return id
}

// kernel emits the entry point: argument variables, built-ins, the dispatch
// bounds check, then the body.
func (g *gen) kernel(f *ir.Function) error {
	b := g.b
	g.kernelFn = f
	g.site = noSite
	if g.opts.Checked {
		g.siteOf = map[ir.Stmt]uint32{}
		for i, s := range f.Sites() {
			g.siteOf[s] = uint32(min(i, noSite))
		}
		g.asserts = map[*ir.Assert]uint32{}
		for i, a := range f.Asserts() {
			g.asserts[a] = uint32(i)
		}
		_, g.places = f.IndexNames()
	}
	args, lay := Layout(f, g.opts)
	ring := lay.Ring
	// Callables first, so that calls find their ids.
	for _, c := range f.Callees() {
		g.declare(c)
	}
	// Push constants: the dispatch header, then the members Layout places
	// there, in offset order; the arguments that spill are members of the
	// spill block, reached through its address (read-only, scalar layout).
	uvec3 := b.TypeVector(g.u32, 3)
	st := spirv.StructType{Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}}}
	st.Members = append(st.Members,
		spirv.Member{Type: uvec3, Offset: spirv.Off(0)},
		spirv.Member{Type: uvec3, Offset: spirv.Off(12)})
	var spill spirv.StructType
	if lay.Spill > 0 {
		spill.Decorations = []spirv.Decor{{Decoration: spirv.DecorationBlock}}
		for _, a := range slices.SortedStableFunc(slices.Values(args), func(x, y Argument) int { return x.Offset - y.Offset }) {
			if a.Spilled {
				g.spilled[a.Var] = true
				g.argIdx[a.Var] = uint32(len(spill.Members))
				spill.Members = append(spill.Members, g.argMembers(a)...)
			}
		}
		g.spillT = b.TypeStructOf(spill)
		g.spillM = uint32(len(st.Members))
		st.Members = append(st.Members, spirv.Member{Type: g.ptr(spirv.StorageClassPhysicalStorageBuffer, g.spillT), Offset: spirv.Off(SpillAddressOffset)})
	}
	if ring >= 0 && lay.Spill > 0 {
		g.printRing = uint32(len(st.Members))
		st.Members = append(st.Members, g.ringMembers(ring)...)
	}
	inPush := slices.DeleteFunc(slices.Clone(args), func(a Argument) bool { return a.Binding >= 0 || a.Spilled })
	slices.SortStableFunc(inPush, func(x, y Argument) int { return x.Offset - y.Offset })
	for _, a := range inPush {
		if a.Var.Type != ir.TBool && !a.Var.Type.ByAddress() && a.Var.Type != ir.Accel {
			g.pushStorage(a.Var.Type)
		}
		g.argIdx[a.Var] = uint32(len(st.Members))
		st.Members = append(st.Members, g.argMembers(a)...)
	}
	if ring >= 0 && lay.Spill == 0 {
		g.printRing = uint32(len(st.Members))
		st.Members = append(st.Members, g.ringMembers(ring)...)
	}
	g.pushT = b.TypeStructOf(st)
	g.push = b.Variable(g.ptr(spirv.StorageClassPushConstant, g.pushT), spirv.StorageClassPushConstant, 0)
	// Resources in descriptor set 0.
	for _, a := range args {
		if a.Bound >= 0 {
			g.accelBuffer(a)
		}
		if a.Binding < 0 {
			if a.Var.Type.ByAddress() {
				g.vars[a.Var] = place{sc: spirv.StorageClassPhysicalStorageBuffer, explicit: true}
			}
			continue
		}
		t := a.Var.Type
		g.binding[a.Var] = a.Binding
		var v spirv.ID
		switch t.Kind() {
		case ir.KindBuffer:
			if t.Elem().Kind() == ir.KindMatrix {
				return fmt.Errorf("%w: buffer of matrices (argument %s); wrap the matrix in a struct", ir.ErrUnsupported, a.Var.Name)
			}
			bt := g.blockOf(t.Elem())
			v = b.Variable(g.ptr(spirv.StorageClassStorageBuffer, bt), spirv.StorageClassStorageBuffer, 0)
			g.vars[a.Var] = place{ptr: v, sc: spirv.StorageClassStorageBuffer, explicit: true}
		case ir.KindBindless:
			// Slot records of kernel ABI v1's emulated bindless arrays:
			// {u64 address; u64 size in bytes; 16 bytes reserved for textures}.
			u64 := b.TypeInt(64, false)
			rec := b.TypeStructOf(spirv.StructType{Members: []spirv.Member{
				{Type: u64, Offset: spirv.Off(0)}, {Type: u64, Offset: spirv.Off(8)},
				{Type: b.TypeVector(g.u32, 4), Offset: spirv.Off(16)},
			}})
			bt := b.TypeStructOf(spirv.StructType{
				Members:     []spirv.Member{{Type: b.TypeRuntimeArrayStride(rec, BindlessSlotSize), Offset: spirv.Off(0)}},
				Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}},
			})
			v = b.Variable(g.ptr(spirv.StorageClassStorageBuffer, bt), spirv.StorageClassStorageBuffer, 0)
			b.Decorate(v, spirv.DecorationNonWritable)
			g.vars[a.Var] = place{ptr: v, sc: spirv.StorageClassStorageBuffer, explicit: true}
		case ir.KindTexture:
			it := g.imageType(t)
			v = b.Variable(g.ptr(spirv.StorageClassUniformConstant, it), spirv.StorageClassUniformConstant, 0)
			g.vars[a.Var] = place{ptr: v, sc: spirv.StorageClassUniformConstant}
		default:
			return fmt.Errorf("%w: kernel argument %s of type %s", ir.ErrUnsupported, a.Var.Name, t)
		}
		b.Decorate(v, spirv.DecorationDescriptorSet, 0)
		b.Decorate(v, spirv.DecorationBinding, uint32(a.Binding))
		if g.opts.Names {
			b.Name(v, a.Var.Name)
		}
	}
	if g.opts.NativeBindlessTextures {
		g.textureHeaps(f)
	}
	g.findBits(f)
	for _, s := range f.Shared {
		t := s.Type
		if g.bits[s] {
			t = bitsType(t)
		}
		v := b.Variable(g.ptr(spirv.StorageClassWorkgroup, g.typ(t)), spirv.StorageClassWorkgroup, 0)
		g.vars[s] = place{ptr: v, sc: spirv.StorageClassWorkgroup}
		if g.opts.Names {
			b.Name(v, s.Name)
		}
	}

	fnT := b.TypeFunction(g.voidT)
	sf := b.Function(g.voidT, fnT)
	b.EntryPoint(spirv.ExecutionModelGLCompute, sf.ID(), "main")
	b.LocalSize(sf.ID(), f.BlockSize[0], f.BlockSize[1], f.BlockSize[2])
	b.SetBlock(sf.NewBlock())
	body := g.begin(f, sf)
	if ring >= 0 {
		g.printSites(f)
	}
	if g.opts.Checked {
		g.declareFault()
	}
	g.kernelBuiltins(f)
	g.block(body)
	g.end()
	if g.err != nil {
		return g.err
	}
	for _, c := range f.Callees() {
		g.callable(c)
		if g.err != nil {
			return g.err
		}
	}
	return g.err
}

// blockOf is the Block struct holding a runtime array of elem, the type of
// a buffer.
func (g *gen) blockOf(elem *ir.Type) spirv.ID {
	rt := g.b.TypeRuntimeArrayStride(g.etyp(elem), uint32(elem.Size()))
	return g.b.TypeStructOf(spirv.StructType{
		Members:     []spirv.Member{{Type: rt, Offset: spirv.Off(0)}},
		Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}},
	})
}

func (g *gen) imageType(t *ir.Type) spirv.ID {
	st := g.typ(t.Elem().Elem())
	dim := spirv.Dim2D
	if t.Len() == 3 {
		dim = spirv.Dim3D
	}
	f := imageFormats[t.Format()]
	if f == spirv.ImageFormatUnknown {
		g.b.Capability(spirv.CapabilityStorageImageReadWithoutFormat)
		g.b.Capability(spirv.CapabilityStorageImageWriteWithoutFormat)
	}
	return g.b.TypeImage(spirv.ImageType{SampledType: st, Dim: dim, Sampled: 2, Format: f})
}

var imageFormats = [...]spirv.ImageFormat{
	ir.FormatAny: spirv.ImageFormatUnknown, ir.FormatRGBA32F: spirv.ImageFormatRgba32f, ir.FormatRGBA16F: spirv.ImageFormatRgba16f,
	ir.FormatRGBA8: spirv.ImageFormatRgba8, ir.FormatR32F: spirv.ImageFormatR32f, ir.FormatRGBA32UI: spirv.ImageFormatRgba32ui,
	ir.FormatR32UI: spirv.ImageFormatR32ui, ir.FormatRGBA32I: spirv.ImageFormatRgba32i, ir.FormatR32I: spirv.ImageFormatR32i,
}

// argMembers are the block members of argument a, a uniform or an
// argument by address, at its offset: one for a uniform; for a buffer by
// address its pointer then its element count (member +1), for an accel its
// two u64 words.
func (g *gen) argMembers(a Argument) []spirv.Member {
	b, t := g.b, a.Var.Type
	var mt spirv.ID
	switch {
	case t == ir.TBool:
		mt = g.u32
	case t.ByAddress():
		mt = g.ptr(spirv.StorageClassPhysicalStorageBuffer, g.blockOf(t.Elem()))
	case t == ir.Accel:
		mt = b.TypeInt(64, false) // the address; the second word follows
	default:
		mt = g.etyp(t)
	}
	m := spirv.Member{Type: mt, Offset: spirv.Off(uint32(a.Offset))}
	if t.Kind() == ir.KindMatrix {
		m.Decorations = []spirv.Decor{{Decoration: spirv.DecorationColMajor},
			{Decoration: spirv.DecorationMatrixStride, Literals: []uint32{uint32(t.Elem().Size())}}}
	}
	if t.ByAddress() || t == ir.Accel {
		// The element count (a buffer's) or the box table (an accel's)
		// follows the address.
		return []spirv.Member{m, {Type: b.TypeInt(64, false), Offset: spirv.Off(uint32(a.Offset + 8))}}
	}
	return []spirv.Member{m}
}

// ringMembers are the print ring's push-constant members at offset ring:
// its address, then the dispatch's tag.
func (g *gen) ringMembers(ring int) []spirv.Member {
	return []spirv.Member{{Type: g.b.TypeInt(64, false), Offset: spirv.Off(uint32(ring))},
		{Type: g.u32, Offset: spirv.Off(uint32(ring + 8))}}
}

// spillLoad loads member k of spilled argument v (1: the second word of an
// argument by address), of type t and alignment align, through the spill
// block's address in the push constants.
func (g *gen) spillLoad(v *ir.Var, k uint32, t spirv.ID, align uint32) spirv.ID {
	b := g.b
	pt := g.ptr(spirv.StorageClassPhysicalStorageBuffer, g.spillT)
	blk := b.Load(pt, b.AccessChain(g.ptr(spirv.StorageClassPushConstant, pt), g.push, b.ConstantUint32(g.spillM)))
	return b.Load(t, b.AccessChain(g.ptr(spirv.StorageClassPhysicalStorageBuffer, t), blk, b.ConstantUint32(g.argIdx[v]+k)),
		uint32(spirv.MemoryAccessAligned), align)
}

// input declares a built-in input variable.
func (g *gen) input(t spirv.ID, bi spirv.BuiltIn) spirv.ID {
	v := g.b.Variable(g.ptr(spirv.StorageClassInput, t), spirv.StorageClassInput, 0)
	g.b.Decorate(v, spirv.DecorationBuiltIn, uint32(bi))
	return v
}

// kernelBuiltins computes the built-in values the kernel uses and returns
// early for threads past dispatch_size (kernel ABI v1) unless the kernel
// uses barriers.
func (g *gen) kernelBuiltins(f *ir.Function) {
	b := g.b
	uvec3 := b.TypeVector(g.u32, 3)
	pu3 := g.ptr(spirv.StorageClassPushConstant, uvec3)
	size := b.Load(uvec3, b.AccessChain(pu3, g.push, b.ConstantUint32(0)))
	off := b.Load(uvec3, b.AccessChain(pu3, g.push, b.ConstantUint32(1)))
	wg := b.Load(uvec3, g.input(uvec3, spirv.BuiltInWorkgroupId))
	lid := b.Load(uvec3, g.input(uvec3, spirv.BuiltInLocalInvocationId))
	bs := b.ConstantComposite(uvec3, b.ConstantUint32(f.BlockSize[0]), b.ConstantUint32(f.BlockSize[1]), b.ConstantUint32(f.BlockSize[2]))
	block := b.IAdd(uvec3, wg, off)
	did := b.IAdd(uvec3, b.IMul(uvec3, block, bs), lid)
	g.builtins[ir.ThreadID] = lid
	g.builtins[ir.BlockID] = block
	g.builtins[ir.DispatchID] = did
	if g.printTID != 0 {
		b.Store(g.printTID, did) // for prints in callables
	}
	g.builtins[ir.BlockSize] = bs
	uses := map[ir.BuiltinVar]bool{}
	ir.WalkExprs(f, func(e ir.Expr) {
		if r, ok := e.(*ir.Ref); ok && r.Var.Kind == ir.VarBuiltin {
			uses[r.Var.Builtin] = true
		}
	})
	if uses[ir.DispatchSize] || uses[ir.DispatchGroups] {
		g.dispatchSize(size, bs)
	}
	if uses[ir.SubgroupLane] || uses[ir.SubgroupSize] {
		b.Capability(spirv.CapabilityGroupNonUniform)
	}
	if uses[ir.SubgroupLane] {
		g.builtins[ir.SubgroupLane] = b.Load(g.u32, g.input(g.u32, spirv.BuiltInSubgroupLocalInvocationId))
	}
	if uses[ir.SubgroupSize] {
		g.builtins[ir.SubgroupSize] = b.Load(g.u32, g.input(g.u32, spirv.BuiltInSubgroupSize))
	}
	if f.UsesBarrier() {
		// Every thread of a block must reach each barrier, so such a kernel
		// is dispatched in whole blocks (device.Kernel.Dispatch insists)
		// and no thread is past dispatch_size. The early return is then
		// dead, yet it is not free: it made the barrier kernels of
		// bench/codegen (tiled matmul, prefix sum) about 1.2x slower on
		// lavapipe (docs/PERFORMANCE.md, frontend).
		return
	}
	// Only a dimension whose block is wider than one thread can overshoot:
	// the runtime launches ceil(size/block) groups, so with a block of 1
	// every thread of that dimension is inside dispatch_size. Checking just
	// those dimensions saved saxpy about 7% on lavapipe (1.12 → 1.05 of
	// glslang's time in bench/codegen), where the three-way compare was
	// its largest overhead.
	//
	// dispatch_id is u32: in the last group of a dispatch near 2³² threads
	// it can pass 2³² − 1 and wrap around to a small id, which would run as
	// a second thread 0, 1, …. That takes a block that 2³² is not a multiple
	// of, i.e. not a power of two (ceil(size/block)*block ≤ 2³² otherwise),
	// and such a thread's id is then less than its ThreadID, so only those
	// dimensions pay for a second compare.
	var out spirv.ID
	for d := range 3 {
		if f.BlockSize[d] <= 1 {
			continue
		}
		id := b.CompositeExtract(g.u32, did, uint32(d))
		past := b.UGreaterThanEqual(g.boolT, id, b.CompositeExtract(g.u32, size, uint32(d)))
		if bs := f.BlockSize[d]; bs&(bs-1) != 0 {
			past = b.LogicalOr(g.boolT, past, b.ULessThan(g.boolT, id, b.CompositeExtract(g.u32, lid, uint32(d))))
		}
		if out == 0 {
			out = past
		} else {
			out = b.LogicalOr(g.boolT, out, past)
		}
	}
	if out == 0 {
		return
	}
	ret, body := g.sfn.NewBlock(), g.sfn.NewBlock()
	b.SelectionMerge(body.ID(), spirv.SelectionControlNone)
	b.BranchConditional(out, ret.ID(), body.ID())
	b.SetBlock(ret)
	b.Return()
	b.SetBlock(body)
}

// dispatchSize computes DispatchSize and DispatchGroups from the header's
// dispatch_size (kernel ABI v1). An indirect dispatch's header holds
// 0xFFFFFFFF in all three components (no direct dispatch is that large: 2⁹⁶
// threads), since the group count lives on the device; the values then come
// from NumWorkgroups, which a direct dispatch cannot use, as the runtime
// may split it into pieces:
//
//	indirect = all(size == ~0)
//	DispatchSize   = indirect ? NumWorkgroups * block : size
//	DispatchGroups = indirect ? NumWorkgroups : (size - 1) / block + 1
//
// Only kernels that read either pay for it; the early return keeps
// comparing with dispatch_size itself, which every launched thread of an
// indirect dispatch is inside.
func (g *gen) dispatchSize(size, bs spirv.ID) {
	b := g.b
	uvec3, bvec3 := b.TypeVector(g.u32, 3), b.TypeVector(g.boolT, 3)
	all := b.ConstantUint32(^uint32(0))
	one := b.ConstantUint32(1)
	ind := b.All(g.boolT, b.IEqual(bvec3, size, b.ConstantComposite(uvec3, all, all, all)))
	sel := b.CompositeConstruct(bvec3, ind, ind, ind) // a vector condition: SPIR-V before 1.4 wants one
	nwg := b.Load(uvec3, g.input(uvec3, spirv.BuiltInNumWorkgroups))
	ones := b.ConstantComposite(uvec3, one, one, one)
	groups := b.IAdd(uvec3, b.UDiv(uvec3, b.ISub(uvec3, size, ones), bs), ones)
	g.builtins[ir.DispatchSize] = b.Select(uvec3, sel, b.IMul(uvec3, nwg, bs), size)
	g.builtins[ir.DispatchGroups] = b.Select(uvec3, sel, nwg, groups)
}

// declare makes the SPIR-V function of callable c (its body comes later).
func (g *gen) declare(c *ir.Function) {
	var params []spirv.ID
	u64 := spirv.ID(0)
	for _, p := range c.Params {
		if p.Type.IsResource() {
			// A template's buffer passed by reference: pointer, count.
			if !g.opts.HelpersByReference || !p.Type.ByAddress() {
				g.fail("callable %s takes %s of type %s: only a buffer by address passes by reference", c.Name, p.Name, p.Type)
				return
			}
			if u64 == 0 {
				u64 = g.b.TypeInt(64, false)
			}
			params = append(params, g.ptr(spirv.StorageClassPhysicalStorageBuffer, g.blockOf(p.Type.Elem())), u64)
			continue
		}
		t := g.typ(p.Type)
		if p.Kind == ir.VarRefParam {
			t = g.ptr(spirv.StorageClassFunction, t)
		}
		params = append(params, t)
	}
	fnT := g.b.TypeFunction(g.typ(c.Result), params...)
	sf := g.b.Function(g.typ(c.Result), fnT)
	if g.opts.Names {
		g.b.Name(sf.ID(), c.Name)
	}
	info := &fnInfo{id: sf.ID(), fnT: fnT, spirv: sf}
	i := 0
	for _, p := range c.Params {
		id := sf.Param(params[i])
		i++
		switch {
		case p.Type.IsResource():
			g.b.Decorate(id, spirv.DecorationAliased) // two parameters may be the same buffer
			g.refs[p] = refParam{ptr: id, count: sf.Param(params[i])}
			i++
			g.vars[p] = place{sc: spirv.StorageClassPhysicalStorageBuffer, explicit: true}
		case p.Kind == ir.VarRefParam:
			g.vars[p] = place{ptr: id, sc: spirv.StorageClassFunction}
		default:
			g.values[p] = id
		}
	}
	g.funcs[c] = info
}

// refParam is a buffer parameter passed by reference: the function
// parameters holding its pointer and its element count.
type refParam struct{ ptr, count spirv.ID }

// addrPtr is the pointer to the first element of buffer v by address: a
// kernel argument's from the push constants (or the spill block), a
// parameter's passed by reference.
func (g *gen) addrPtr(v *ir.Var) spirv.ID {
	if r, ok := g.refs[v]; ok {
		return r.ptr
	}
	pt := g.ptr(spirv.StorageClassPhysicalStorageBuffer, g.blockOf(v.Type.Elem()))
	if g.spilled[v] {
		return g.spillLoad(v, 0, pt, 8)
	}
	return g.b.Load(pt, g.b.AccessChain(g.ptr(spirv.StorageClassPushConstant, pt), g.push, g.b.ConstantUint32(g.argIdx[v])))
}

func (g *gen) callable(c *ir.Function) {
	info := g.funcs[c]
	g.b.SetBlock(info.spirv.NewBlock())
	g.block(g.begin(c, info.spirv))
	g.end()
}

// begin declares f's locals and returns the body to emit: f's own, or its
// rewrite with loop exits in flag form (Options.LoopExitFlags), whose flags
// are declared with the locals.
func (g *gen) begin(f *ir.Function, sf *spirv.Function) *ir.Block {
	g.fn, g.sfn = f, sf
	g.constArr = map[*ir.ConstArray]spirv.ID{}
	g.inv = map[ir.Expr]bool{}
	g.reuse = reuse{ok: map[ir.Expr]bool{}}
	g.scopes = []map[ir.Expr]spirv.ID{{}}
	body, locals := f.Body, f.Locals
	if g.opts.LoopExitFlags {
		var flags []*ir.Var
		var from map[ir.Stmt]ir.Stmt
		body, flags, from = loopExits(f)
		locals = append(locals[:len(locals):len(locals)], flags...)
		for n, s := range from {
			if site, ok := g.siteOf[s]; ok {
				g.siteOf[n] = site
			}
		}
	}
	for _, l := range locals {
		v := sf.Variable(g.ptr(spirv.StorageClassFunction, g.typ(l.Type)), 0)
		g.vars[l] = place{ptr: v, sc: spirv.StorageClassFunction}
		if g.opts.Names {
			g.b.Name(v, l.Name)
		}
	}
	return body
}

// end terminates the function's last block.
func (g *gen) end() {
	if blk := g.b.CurrentBlock(); blk != nil && !blk.Terminated() {
		g.flushFault()
		if g.fn.Result == ir.TVoid {
			g.b.Return()
		} else {
			g.b.ReturnValue(g.b.ConstantNull(g.typ(g.fn.Result)))
		}
	}
}
