package spirv

// Function is a function under construction.
type Function struct {
	b          *Builder
	id         ID
	resultType ID
	fnType     ID
	control    FunctionControl
	params     []uint32 // OpFunctionParameter instructions
	vars       []uint32 // OpVariable Function instructions, written at the top of the entry block
	blocks     []*Block // in the order they were first selected
	created    []*Block // in creation order
	calls      []ID     // functions called
}

// Block is a basic block: a label, phis, then instructions ending in a terminator.
type Block struct {
	fn         *Function
	label      ID
	phis       []*phi
	words      []uint32
	merge      []uint32 // a pending OpSelectionMerge or OpLoopMerge, written just before the terminator
	terminated bool
	placed     bool
}

type phi struct {
	t, id    ID
	incoming []uint32 // value, parent pairs
}

// PhiIncoming is one (value, parent block label) pair of an OpPhi.
type PhiIncoming struct {
	Value  ID
	Parent ID
}

// Function starts a function with result type result and function type fnType.
func (b *Builder) Function(result, fnType ID) *Function {
	return b.FunctionWithControl(result, fnType, FunctionControlNone)
}

// FunctionWithControl is Function with function control bits (Inline, DontInline, …).
func (b *Builder) FunctionWithControl(result, fnType ID, control FunctionControl) *Function {
	if d, ok := b.typeInfo[fnType]; !ok || d.op != OpTypeFunction {
		b.fail("Function: %d is not a function type", fnType)
	}
	f := &Function{b: b, id: b.newDef(), resultType: result, fnType: fnType, control: control}
	b.functions = append(b.functions, f)
	b.fnByID[f.id] = f
	return f
}

// ID returns the function's result id.
func (f *Function) ID() ID { return f.id }

// Param adds a parameter of type t and returns its id.
func (f *Function) Param(t ID) ID {
	id := f.b.newDef()
	f.b.setType(id, t)
	f.params = appendInst(f.params, OpFunctionParameter, uint32(t), uint32(id))
	return id
}

// Variable declares a Function-storage variable of pointer type ptrType with
// an optional initializer (0 for none); it is written at the top of the entry block.
func (f *Function) Variable(ptrType, init ID) ID {
	b := f.b
	if d, ok := b.typeInfo[ptrType]; !ok || d.op != OpTypePointer || d.sc != StorageClassFunction {
		b.fail("Function.Variable: %d is not a Function-storage pointer type", ptrType)
		return 0
	}
	id := b.newDef()
	b.setType(id, ptrType)
	ops := []uint32{uint32(ptrType), uint32(id), uint32(StorageClassFunction)}
	if init != 0 {
		ops = append(ops, uint32(init))
	}
	f.vars = appendInst(f.vars, OpVariable, ops...)
	return id
}

// NewBlock makes a block of f with a fresh label. Blocks are written in the
// order they are first selected with [Builder.SetBlock] (blocks never
// selected follow, in creation order), so the entry block is the first one selected.
func (f *Function) NewBlock() *Block {
	return f.NewBlockWithLabel(f.b.NewID())
}

// NewBlockWithLabel makes a block whose label is an id allocated earlier with NewID.
func (f *Function) NewBlockWithLabel(label ID) *Block {
	f.b.markDefined(label)
	blk := &Block{fn: f, label: label}
	f.created = append(f.created, blk)
	return blk
}

// ID returns the block's label id, the operand of branches to it.
func (blk *Block) ID() ID { return blk.label }

// Terminated reports whether the block ends in a terminator already.
func (blk *Block) Terminated() bool { return blk.terminated }

// SetBlock makes blk the block instructions are added to.
func (b *Builder) SetBlock(blk *Block) {
	b.cur = blk
	if blk != nil && !blk.placed {
		blk.placed = true
		blk.fn.blocks = append(blk.fn.blocks, blk)
	}
}

// CurrentBlock returns the block instructions are added to (nil if none).
func (b *Builder) CurrentBlock() *Block { return b.cur }

// Phi adds an OpPhi of type t to the top of the current block. More incoming
// pairs (a loop's back edge) may be added later with [Builder.AddPhiIncoming].
func (b *Builder) Phi(t ID, incoming ...PhiIncoming) ID {
	blk := b.block(OpPhi)
	if blk == nil {
		return 0
	}
	p := &phi{t: t, id: b.newDef()}
	for _, in := range incoming {
		p.incoming = append(p.incoming, uint32(in.Value), uint32(in.Parent))
	}
	b.setType(p.id, t)
	blk.phis = append(blk.phis, p)
	return p.id
}

// AddPhiIncoming adds a (value, parent) pair to the phi phiID of block blk.
func (b *Builder) AddPhiIncoming(blk *Block, phiID ID, in PhiIncoming) {
	for _, p := range blk.phis {
		if p.id == phiID {
			p.incoming = append(p.incoming, uint32(in.Value), uint32(in.Parent))
			return
		}
	}
	b.fail("AddPhiIncoming: %d is not a phi of block %d", phiID, blk.label)
}

// block returns the current block ready for an instruction op, or records an error.
func (b *Builder) block(op Op) *Block {
	if b.err != nil {
		return nil
	}
	if b.cur == nil {
		b.fail("%v outside a block (call SetBlock first)", op)
		return nil
	}
	if b.cur.terminated {
		b.fail("%v after the terminator of block %d", op, b.cur.label)
		return nil
	}
	return b.cur
}

// words returns f's instructions from OpFunction to OpFunctionEnd.
func (f *Function) appendWords(dst []uint32) []uint32 {
	dst = appendInst(dst, OpFunction, uint32(f.resultType), uint32(f.id), uint32(f.control), uint32(f.fnType))
	dst = append(dst, f.params...)
	for i, blk := range f.orderedBlocks() {
		dst = appendInst(dst, OpLabel, uint32(blk.label))
		for _, p := range blk.phis {
			dst = appendInst(dst, OpPhi, append([]uint32{uint32(p.t), uint32(p.id)}, p.incoming...)...)
		}
		if i == 0 {
			dst = append(dst, f.vars...)
		}
		dst = append(dst, blk.words...)
	}
	return appendInst(dst, OpFunctionEnd)
}

func (f *Function) orderedBlocks() []*Block {
	if len(f.blocks) == len(f.created) {
		return f.blocks
	}
	out := append([]*Block(nil), f.blocks...)
	for _, blk := range f.created {
		if !blk.placed {
			out = append(out, blk)
		}
	}
	return out
}
