package spirv

// inst adds an instruction with a result type and a fresh result id to the current block.
func (b *Builder) inst(op Op, t ID, operands ...uint32) ID {
	blk := b.block(op)
	if blk == nil {
		return 0
	}
	id := b.newDef()
	b.setType(id, t)
	blk.words = append(blk.words, uint32(len(operands)+3)<<16|uint32(op), uint32(t), uint32(id))
	blk.words = append(blk.words, operands...)
	return id
}

// instNoResult adds an instruction without a result to the current block.
func (b *Builder) instNoResult(op Op, operands ...uint32) {
	blk := b.block(op)
	if blk == nil {
		return
	}
	blk.words = appendInst(blk.words, op, operands...)
}

func (b *Builder) terminate(op Op, operands ...uint32) {
	blk := b.block(op)
	if blk == nil {
		return
	}
	blk.words = append(blk.words, blk.merge...)
	blk.merge = nil
	blk.words = appendInst(blk.words, op, operands...)
	blk.terminated = true
}

// setMerge records the block's merge instruction; it is written right before
// the terminator, so the branch condition may be computed after declaring the merge.
func (b *Builder) setMerge(op Op, operands ...uint32) {
	blk := b.block(op)
	if blk == nil {
		return
	}
	if blk.merge != nil {
		b.fail("%v: block %d already has a merge instruction", op, blk.label)
		return
	}
	blk.merge = appendInst(nil, op, operands...)
}

func (b *Builder) binary(op Op, t, x, y ID) ID { return b.inst(op, t, uint32(x), uint32(y)) }
func (b *Builder) unary(op Op, t, x ID) ID     { return b.inst(op, t, uint32(x)) }

// Arithmetic.

func (b *Builder) IAdd(t, x, y ID) ID              { return b.binary(OpIAdd, t, x, y) }
func (b *Builder) ISub(t, x, y ID) ID              { return b.binary(OpISub, t, x, y) }
func (b *Builder) IMul(t, x, y ID) ID              { return b.binary(OpIMul, t, x, y) }
func (b *Builder) SDiv(t, x, y ID) ID              { return b.binary(OpSDiv, t, x, y) }
func (b *Builder) UDiv(t, x, y ID) ID              { return b.binary(OpUDiv, t, x, y) }
func (b *Builder) SRem(t, x, y ID) ID              { return b.binary(OpSRem, t, x, y) }
func (b *Builder) SMod(t, x, y ID) ID              { return b.binary(OpSMod, t, x, y) }
func (b *Builder) UMod(t, x, y ID) ID              { return b.binary(OpUMod, t, x, y) }
func (b *Builder) FAdd(t, x, y ID) ID              { return b.binary(OpFAdd, t, x, y) }
func (b *Builder) FSub(t, x, y ID) ID              { return b.binary(OpFSub, t, x, y) }
func (b *Builder) FMul(t, x, y ID) ID              { return b.binary(OpFMul, t, x, y) }
func (b *Builder) FDiv(t, x, y ID) ID              { return b.binary(OpFDiv, t, x, y) }
func (b *Builder) FRem(t, x, y ID) ID              { return b.binary(OpFRem, t, x, y) }
func (b *Builder) FMod(t, x, y ID) ID              { return b.binary(OpFMod, t, x, y) }
func (b *Builder) SNegate(t, x ID) ID              { return b.unary(OpSNegate, t, x) }
func (b *Builder) FNegate(t, x ID) ID              { return b.unary(OpFNegate, t, x) }
func (b *Builder) VectorTimesScalar(t, v, s ID) ID { return b.binary(OpVectorTimesScalar, t, v, s) }
func (b *Builder) MatrixTimesScalar(t, m, s ID) ID { return b.binary(OpMatrixTimesScalar, t, m, s) }
func (b *Builder) MatrixTimesVector(t, m, v ID) ID { return b.binary(OpMatrixTimesVector, t, m, v) }
func (b *Builder) VectorTimesMatrix(t, v, m ID) ID { return b.binary(OpVectorTimesMatrix, t, v, m) }
func (b *Builder) MatrixTimesMatrix(t, x, y ID) ID { return b.binary(OpMatrixTimesMatrix, t, x, y) }
func (b *Builder) Dot(t, x, y ID) ID               { return b.binary(OpDot, t, x, y) }
func (b *Builder) Transpose(t, m ID) ID            { return b.unary(OpTranspose, t, m) }
func (b *Builder) BitwiseAnd(t, x, y ID) ID        { return b.binary(OpBitwiseAnd, t, x, y) }
func (b *Builder) BitwiseOr(t, x, y ID) ID         { return b.binary(OpBitwiseOr, t, x, y) }
func (b *Builder) BitwiseXor(t, x, y ID) ID        { return b.binary(OpBitwiseXor, t, x, y) }
func (b *Builder) Not(t, x ID) ID                  { return b.unary(OpNot, t, x) }
func (b *Builder) ShiftLeftLogical(t, x, n ID) ID  { return b.binary(OpShiftLeftLogical, t, x, n) }
func (b *Builder) ShiftRightLogical(t, x, n ID) ID { return b.binary(OpShiftRightLogical, t, x, n) }
func (b *Builder) ShiftRightArithmetic(t, x, n ID) ID {
	return b.binary(OpShiftRightArithmetic, t, x, n)
}
func (b *Builder) BitCount(t, x ID) ID   { return b.unary(OpBitCount, t, x) }
func (b *Builder) BitReverse(t, x ID) ID { return b.unary(OpBitReverse, t, x) }

// Logic and comparison.

func (b *Builder) LogicalAnd(t, x, y ID) ID        { return b.binary(OpLogicalAnd, t, x, y) }
func (b *Builder) LogicalOr(t, x, y ID) ID         { return b.binary(OpLogicalOr, t, x, y) }
func (b *Builder) LogicalNot(t, x ID) ID           { return b.unary(OpLogicalNot, t, x) }
func (b *Builder) LogicalEqual(t, x, y ID) ID      { return b.binary(OpLogicalEqual, t, x, y) }
func (b *Builder) LogicalNotEqual(t, x, y ID) ID   { return b.binary(OpLogicalNotEqual, t, x, y) }
func (b *Builder) IEqual(t, x, y ID) ID            { return b.binary(OpIEqual, t, x, y) }
func (b *Builder) INotEqual(t, x, y ID) ID         { return b.binary(OpINotEqual, t, x, y) }
func (b *Builder) SLessThan(t, x, y ID) ID         { return b.binary(OpSLessThan, t, x, y) }
func (b *Builder) SLessThanEqual(t, x, y ID) ID    { return b.binary(OpSLessThanEqual, t, x, y) }
func (b *Builder) SGreaterThan(t, x, y ID) ID      { return b.binary(OpSGreaterThan, t, x, y) }
func (b *Builder) SGreaterThanEqual(t, x, y ID) ID { return b.binary(OpSGreaterThanEqual, t, x, y) }
func (b *Builder) ULessThan(t, x, y ID) ID         { return b.binary(OpULessThan, t, x, y) }
func (b *Builder) ULessThanEqual(t, x, y ID) ID    { return b.binary(OpULessThanEqual, t, x, y) }
func (b *Builder) UGreaterThan(t, x, y ID) ID      { return b.binary(OpUGreaterThan, t, x, y) }
func (b *Builder) UGreaterThanEqual(t, x, y ID) ID { return b.binary(OpUGreaterThanEqual, t, x, y) }
func (b *Builder) FOrdEqual(t, x, y ID) ID         { return b.binary(OpFOrdEqual, t, x, y) }
func (b *Builder) FOrdNotEqual(t, x, y ID) ID      { return b.binary(OpFOrdNotEqual, t, x, y) }
func (b *Builder) FOrdLessThan(t, x, y ID) ID      { return b.binary(OpFOrdLessThan, t, x, y) }
func (b *Builder) FOrdLessThanEqual(t, x, y ID) ID { return b.binary(OpFOrdLessThanEqual, t, x, y) }
func (b *Builder) FOrdGreaterThan(t, x, y ID) ID   { return b.binary(OpFOrdGreaterThan, t, x, y) }
func (b *Builder) FOrdGreaterThanEqual(t, x, y ID) ID {
	return b.binary(OpFOrdGreaterThanEqual, t, x, y)
}
func (b *Builder) FUnordNotEqual(t, x, y ID) ID { return b.binary(OpFUnordNotEqual, t, x, y) }
func (b *Builder) IsNan(t, x ID) ID             { return b.unary(OpIsNan, t, x) }
func (b *Builder) IsInf(t, x ID) ID             { return b.unary(OpIsInf, t, x) }
func (b *Builder) Any(t, v ID) ID               { return b.unary(OpAny, t, v) }
func (b *Builder) All(t, v ID) ID               { return b.unary(OpAll, t, v) }

// Select returns cond ? x : y.
func (b *Builder) Select(t, cond, x, y ID) ID {
	return b.inst(OpSelect, t, uint32(cond), uint32(x), uint32(y))
}

// Conversions.

func (b *Builder) ConvertFToS(t, x ID) ID   { return b.unary(OpConvertFToS, t, x) }
func (b *Builder) ConvertFToU(t, x ID) ID   { return b.unary(OpConvertFToU, t, x) }
func (b *Builder) ConvertSToF(t, x ID) ID   { return b.unary(OpConvertSToF, t, x) }
func (b *Builder) ConvertUToF(t, x ID) ID   { return b.unary(OpConvertUToF, t, x) }
func (b *Builder) UConvert(t, x ID) ID      { return b.unary(OpUConvert, t, x) }
func (b *Builder) SConvert(t, x ID) ID      { return b.unary(OpSConvert, t, x) }
func (b *Builder) FConvert(t, x ID) ID      { return b.unary(OpFConvert, t, x) }
func (b *Builder) Bitcast(t, x ID) ID       { return b.unary(OpBitcast, t, x) }
func (b *Builder) ConvertPtrToU(t, p ID) ID { return b.unary(OpConvertPtrToU, t, p) }
func (b *Builder) ConvertUToPtr(t, x ID) ID { return b.unary(OpConvertUToPtr, t, x) }

// Memory.

// Load loads a value of type t through ptr, with optional memory access
// operands (a MemoryAccess mask followed by its parameters, e.g. Aligned 4).
func (b *Builder) Load(t, ptr ID, access ...uint32) ID {
	return b.inst(OpLoad, t, append([]uint32{uint32(ptr)}, access...)...)
}

// Store stores v through ptr, with optional memory access operands.
func (b *Builder) Store(ptr, v ID, access ...uint32) {
	b.instNoResult(OpStore, append([]uint32{uint32(ptr), uint32(v)}, access...)...)
}

// AccessChain returns a pointer of type t into base through the index ids.
func (b *Builder) AccessChain(t, base ID, indexes ...ID) ID {
	return b.inst(OpAccessChain, t, append([]uint32{uint32(base)}, ids(indexes)...)...)
}

// PtrAccessChain is AccessChain with an element offset applied to base first.
func (b *Builder) PtrAccessChain(t, base, element ID, indexes ...ID) ID {
	return b.inst(OpPtrAccessChain, t, append([]uint32{uint32(base), uint32(element)}, ids(indexes)...)...)
}

// ArrayLength returns the length of the runtime-array member of the struct structPtr points to.
func (b *Builder) ArrayLength(t, structPtr ID, member uint32) ID {
	return b.inst(OpArrayLength, t, uint32(structPtr), member)
}

// CopyObject returns a copy of x.
func (b *Builder) CopyObject(t, x ID) ID { return b.unary(OpCopyObject, t, x) }

// Composites.

// CompositeConstruct builds a composite of type t from parts.
func (b *Builder) CompositeConstruct(t ID, parts ...ID) ID {
	return b.inst(OpCompositeConstruct, t, ids(parts)...)
}

// CompositeExtract extracts the part of c at the literal index path.
func (b *Builder) CompositeExtract(t, c ID, indexes ...uint32) ID {
	return b.inst(OpCompositeExtract, t, append([]uint32{uint32(c)}, indexes...)...)
}

// CompositeInsert returns c with obj placed at the literal index path.
func (b *Builder) CompositeInsert(t, obj, c ID, indexes ...uint32) ID {
	return b.inst(OpCompositeInsert, t, append([]uint32{uint32(obj), uint32(c)}, indexes...)...)
}

// VectorShuffle picks components of x and y (0xFFFFFFFF for undefined).
func (b *Builder) VectorShuffle(t, x, y ID, components ...uint32) ID {
	return b.inst(OpVectorShuffle, t, append([]uint32{uint32(x), uint32(y)}, components...)...)
}

// VectorExtractDynamic returns v[i].
func (b *Builder) VectorExtractDynamic(t, v, i ID) ID {
	return b.binary(OpVectorExtractDynamic, t, v, i)
}

// VectorInsertDynamic returns v with v[i] = x.
func (b *Builder) VectorInsertDynamic(t, v, x, i ID) ID {
	return b.inst(OpVectorInsertDynamic, t, uint32(v), uint32(x), uint32(i))
}

// Control flow.

// FunctionCall calls fn with args.
func (b *Builder) FunctionCall(t, fn ID, args ...ID) ID {
	if blk := b.cur; blk != nil {
		blk.fn.calls = append(blk.fn.calls, fn)
	}
	return b.inst(OpFunctionCall, t, append([]uint32{uint32(fn)}, ids(args)...)...)
}

// SelectionMerge declares the merge block of the selection ending the current
// block. It is written just before the block's terminator, wherever it is
// called in between.
func (b *Builder) SelectionMerge(merge ID, control SelectionControl) {
	b.setMerge(OpSelectionMerge, uint32(merge), uint32(control))
}

// LoopMerge declares the merge and continue blocks of the loop whose header is
// the current block; like SelectionMerge it is written just before the terminator.
func (b *Builder) LoopMerge(merge, cont ID, control LoopControl, params ...uint32) {
	b.setMerge(OpLoopMerge, append([]uint32{uint32(merge), uint32(cont), uint32(control)}, params...)...)
}

// Branch ends the current block with a jump to target.
func (b *Builder) Branch(target ID) { b.terminate(OpBranch, uint32(target)) }

// BranchConditional ends the current block with a two-way branch.
func (b *Builder) BranchConditional(cond, t, f ID) {
	b.terminate(OpBranchConditional, uint32(cond), uint32(t), uint32(f))
}

// SwitchCase is one literal case of a Switch.
type SwitchCase struct {
	Value  uint64 // truncated to the selector's width
	Target ID
}

// Switch ends the current block with a multi-way branch on integer selector
// sel; the case literals take the selector type's width.
func (b *Builder) Switch(sel, def ID, cases ...SwitchCase) {
	width := b.ScalarWidth(b.TypeOf(sel))
	if width == 0 {
		b.fail("Switch: selector %d has no known integer type", sel)
		return
	}
	ops := []uint32{uint32(sel), uint32(def)}
	for _, c := range cases {
		ops = append(ops, uint32(c.Value))
		if width > 32 {
			ops = append(ops, uint32(c.Value>>32))
		}
		ops = append(ops, uint32(c.Target))
	}
	b.terminate(OpSwitch, ops...)
}

// Return ends the current block returning from a void function.
func (b *Builder) Return() { b.terminate(OpReturn) }

// ReturnValue ends the current block returning v.
func (b *Builder) ReturnValue(v ID) { b.terminate(OpReturnValue, uint32(v)) }

// Unreachable ends the current block with OpUnreachable.
func (b *Builder) Unreachable() { b.terminate(OpUnreachable) }

// Extended instructions.

// ExtInst calls instruction inst of the extended instruction set set.
func (b *Builder) ExtInst(t, set ID, inst uint32, args ...ID) ID {
	ops := append(b.wordScratch[:0], uint32(set), inst)
	for _, a := range args {
		ops = append(ops, uint32(a))
	}
	b.wordScratch = ops[:0]
	return b.inst(OpExtInst, t, ops...)
}

// GLSL calls a GLSL.std.450 instruction (importing the set once), checking the operand count.
func (b *Builder) GLSL(t ID, inst GLSLInst, args ...ID) ID {
	d, ok := LookupGLSL(inst)
	if !ok {
		b.fail("GLSL: unknown instruction %d", uint32(inst))
		return 0
	}
	if len(args) != len(d.Operands) {
		b.fail("GLSL %s takes %d operands, got %d", d.Name, len(d.Operands), len(args))
		return 0
	}
	return b.ExtInst(t, b.ExtInstImport("GLSL.std.450"), uint32(inst), args...)
}

// Atomics and barriers. Scopes and memory semantics are passed as values and
// turned into the uint32 constants the instructions take.

func (b *Builder) scopeSem(s Scope, sem MemorySemantics) (uint32, uint32) {
	return uint32(b.ConstantUint32(uint32(s))), uint32(b.ConstantUint32(uint32(sem)))
}

// AtomicLoad atomically loads through ptr.
func (b *Builder) AtomicLoad(t, ptr ID, s Scope, sem MemorySemantics) ID {
	sc, se := b.scopeSem(s, sem)
	return b.inst(OpAtomicLoad, t, uint32(ptr), sc, se)
}

// AtomicStore atomically stores v through ptr.
func (b *Builder) AtomicStore(ptr ID, s Scope, sem MemorySemantics, v ID) {
	sc, se := b.scopeSem(s, sem)
	b.instNoResult(OpAtomicStore, uint32(ptr), sc, se, uint32(v))
}

// Atomic adds a read-modify-write atomic op (OpAtomicExchange, OpAtomicIAdd,
// OpAtomicISub, OpAtomicSMin/UMin/SMax/UMax, OpAtomicAnd/Or/Xor,
// OpAtomicFAddEXT, OpAtomicFMinEXT, OpAtomicFMaxEXT) and returns the old value.
func (b *Builder) Atomic(op Op, t, ptr ID, s Scope, sem MemorySemantics, v ID) ID {
	switch op {
	case OpAtomicExchange, OpAtomicIAdd, OpAtomicISub, OpAtomicSMin, OpAtomicUMin, OpAtomicSMax, OpAtomicUMax,
		OpAtomicAnd, OpAtomicOr, OpAtomicXor, OpAtomicFAddEXT, OpAtomicFMinEXT, OpAtomicFMaxEXT:
	default:
		b.fail("Atomic: %v is not a read-modify-write atomic", op)
		return 0
	}
	sc, se := b.scopeSem(s, sem)
	return b.inst(op, t, uint32(ptr), sc, se, uint32(v))
}

// AtomicIAdd atomically adds v to *ptr and returns the old value.
func (b *Builder) AtomicIAdd(t, ptr ID, s Scope, sem MemorySemantics, v ID) ID {
	return b.Atomic(OpAtomicIAdd, t, ptr, s, sem, v)
}

// AtomicFAdd atomically adds float v to *ptr (SPV_EXT_shader_atomic_float_add;
// the capability for t's width and storage is the caller's to declare).
func (b *Builder) AtomicFAdd(t, ptr ID, s Scope, sem MemorySemantics, v ID) ID {
	b.Extension("SPV_EXT_shader_atomic_float_add")
	return b.Atomic(OpAtomicFAddEXT, t, ptr, s, sem, v)
}

// AtomicIIncrement atomically increments *ptr and returns the old value.
func (b *Builder) AtomicIIncrement(t, ptr ID, s Scope, sem MemorySemantics) ID {
	sc, se := b.scopeSem(s, sem)
	return b.inst(OpAtomicIIncrement, t, uint32(ptr), sc, se)
}

// AtomicIDecrement atomically decrements *ptr and returns the old value.
func (b *Builder) AtomicIDecrement(t, ptr ID, s Scope, sem MemorySemantics) ID {
	sc, se := b.scopeSem(s, sem)
	return b.inst(OpAtomicIDecrement, t, uint32(ptr), sc, se)
}

// AtomicCompareExchange stores v when *ptr == cmp and returns the old value.
func (b *Builder) AtomicCompareExchange(t, ptr ID, s Scope, equal, unequal MemorySemantics, v, cmp ID) ID {
	sc, se := b.scopeSem(s, equal)
	su := uint32(b.ConstantUint32(uint32(unequal)))
	return b.inst(OpAtomicCompareExchange, t, uint32(ptr), sc, se, su, uint32(v), uint32(cmp))
}

// ControlBarrier waits for all invocations of exec scope, with a memory barrier.
func (b *Builder) ControlBarrier(exec, mem Scope, sem MemorySemantics) {
	e := uint32(b.ConstantUint32(uint32(exec)))
	m, s := b.scopeSem(mem, sem)
	b.instNoResult(OpControlBarrier, e, m, s)
}

// MemoryBarrier orders memory accesses.
func (b *Builder) MemoryBarrier(mem Scope, sem MemorySemantics) {
	m, s := b.scopeSem(mem, sem)
	b.instNoResult(OpMemoryBarrier, m, s)
}

// Images.

// ImageRead reads a texel of storage image img at coord.
func (b *Builder) ImageRead(t, img, coord ID, operands ...uint32) ID {
	return b.inst(OpImageRead, t, append([]uint32{uint32(img), uint32(coord)}, operands...)...)
}

// ImageWrite writes texel to storage image img at coord.
func (b *Builder) ImageWrite(img, coord, texel ID, operands ...uint32) {
	b.instNoResult(OpImageWrite, append([]uint32{uint32(img), uint32(coord), uint32(texel)}, operands...)...)
}

// SampledImage combines image img and sampler s.
func (b *Builder) SampledImage(t, img, s ID) ID { return b.binary(OpSampledImage, t, img, s) }

// Image returns the image of a sampled image.
func (b *Builder) Image(t, sampled ID) ID { return b.unary(OpImage, t, sampled) }

// ImageSampleExplicitLod samples at coord at level of detail lod.
func (b *Builder) ImageSampleExplicitLod(t, sampled, coord, lod ID) ID {
	return b.inst(OpImageSampleExplicitLod, t, uint32(sampled), uint32(coord), uint32(ImageOperandsLod), uint32(lod))
}

// ImageFetch fetches texel coord of sampled image img at level lod.
func (b *Builder) ImageFetch(t, img, coord, lod ID) ID {
	return b.inst(OpImageFetch, t, uint32(img), uint32(coord), uint32(ImageOperandsLod), uint32(lod))
}

// ImageQuerySize returns the size of a storage image (declares ImageQuery).
func (b *Builder) ImageQuerySize(t, img ID) ID {
	b.Capability(CapabilityImageQuery)
	return b.unary(OpImageQuerySize, t, img)
}

// ImageQuerySizeLod returns the size of level lod of a sampled image (declares ImageQuery).
func (b *Builder) ImageQuerySizeLod(t, img, lod ID) ID {
	b.Capability(CapabilityImageQuery)
	return b.binary(OpImageQuerySizeLod, t, img, lod)
}

// Group (subgroup) non-uniform operations; the capabilities are declared as used.

// GroupNonUniformElect returns true in one active invocation of the scope.
func (b *Builder) GroupNonUniformElect(t ID, s Scope) ID {
	b.Capability(CapabilityGroupNonUniform)
	return b.inst(OpGroupNonUniformElect, t, uint32(b.ConstantUint32(uint32(s))))
}

// GroupNonUniformVote adds OpGroupNonUniformAll, Any or AllEqual.
func (b *Builder) GroupNonUniformVote(op Op, t ID, s Scope, v ID) ID {
	b.Capability(CapabilityGroupNonUniformVote)
	return b.inst(op, t, uint32(b.ConstantUint32(uint32(s))), uint32(v))
}

// GroupNonUniformBallot returns the ballot of predicate p.
func (b *Builder) GroupNonUniformBallot(t ID, s Scope, p ID) ID {
	b.Capability(CapabilityGroupNonUniformBallot)
	return b.inst(OpGroupNonUniformBallot, t, uint32(b.ConstantUint32(uint32(s))), uint32(p))
}

// GroupNonUniformBroadcastFirst returns v of the lowest active invocation.
func (b *Builder) GroupNonUniformBroadcastFirst(t ID, s Scope, v ID) ID {
	b.Capability(CapabilityGroupNonUniformBallot)
	return b.inst(OpGroupNonUniformBroadcastFirst, t, uint32(b.ConstantUint32(uint32(s))), uint32(v))
}

// GroupNonUniformShuffle adds OpGroupNonUniformShuffle/ShuffleXor (or the
// relative ShuffleUp/ShuffleDown) of v with lane operand id.
func (b *Builder) GroupNonUniformShuffle(op Op, t ID, s Scope, v, id ID) ID {
	switch op {
	case OpGroupNonUniformShuffle, OpGroupNonUniformShuffleXor:
		b.Capability(CapabilityGroupNonUniformShuffle)
	case OpGroupNonUniformShuffleUp, OpGroupNonUniformShuffleDown:
		b.Capability(CapabilityGroupNonUniformShuffleRelative)
	default:
		b.fail("GroupNonUniformShuffle: %v is not a shuffle", op)
		return 0
	}
	return b.inst(op, t, uint32(b.ConstantUint32(uint32(s))), uint32(v), uint32(id))
}

// GroupNonUniformArith adds a group arithmetic op (OpGroupNonUniformIAdd,
// FAdd, IMul, FMul, SMin, UMin, FMin, SMax, UMax, FMax, BitwiseAnd/Or/Xor,
// LogicalAnd/Or/Xor) with operation g (Reduce, InclusiveScan, ExclusiveScan).
func (b *Builder) GroupNonUniformArith(op Op, t ID, s Scope, g GroupOperation, v ID) ID {
	if op < OpGroupNonUniformIAdd || op > OpGroupNonUniformLogicalXor {
		b.fail("GroupNonUniformArith: %v is not a group arithmetic op", op)
		return 0
	}
	b.Capability(CapabilityGroupNonUniformArithmetic)
	return b.inst(op, t, uint32(b.ConstantUint32(uint32(s))), uint32(g), uint32(v))
}
