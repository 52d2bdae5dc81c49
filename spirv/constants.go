package spirv

import "math"

// Constants are deduplicated by (opcode, type, value words): floats by their
// bits, so 0.0 and -0.0 are two constants. Specialization constants are never
// deduplicated, each carries its own SpecId.

func (b *Builder) constant(op Op, t ID, operands ...uint32) ID {
	k := b.key(append(append(b.wordScratch[:0], uint32(op), uint32(t)), operands...))
	if id, ok := b.constKeys[string(k)]; ok {
		return id
	}
	id := b.newDef()
	b.constKeys[string(k)] = id
	b.setType(id, t)
	b.globals = appendInst(b.globals, op, append([]uint32{uint32(t), uint32(id)}, operands...)...)
	return id
}

// Constant returns the scalar constant of type t with the given value words
// (low-order word first, as many as t's width needs).
func (b *Builder) Constant(t ID, words ...uint32) ID {
	d, ok := b.typeInfo[t]
	if !ok || (d.op != OpTypeInt && d.op != OpTypeFloat) {
		b.fail("Constant: %d is not an int or float type", t)
		return 0
	}
	if want := max(1, int(d.width+31)/32); len(words) != want {
		b.fail("Constant: type %d needs %d words, got %d", t, want, len(words))
		return 0
	}
	if d.width < 32 { // the high bits are sign-extended (signed ints) or zero
		v := words[0] & (1<<d.width - 1)
		if d.op == OpTypeInt && d.signed && v>>(d.width-1) != 0 {
			v |= ^uint32(0) << d.width
		}
		words = []uint32{v}
	}
	return b.constant(OpConstant, t, words...)
}

// ConstantBool returns true or false.
func (b *Builder) ConstantBool(v bool) ID {
	if v {
		return b.constant(OpConstantTrue, b.TypeBool())
	}
	return b.constant(OpConstantFalse, b.TypeBool())
}

// ConstantUint32 returns a 32-bit unsigned integer constant.
func (b *Builder) ConstantUint32(v uint32) ID { return b.Constant(b.TypeInt(32, false), v) }

// ConstantInt32 returns a 32-bit signed integer constant.
func (b *Builder) ConstantInt32(v int32) ID { return b.Constant(b.TypeInt(32, true), uint32(v)) }

// ConstantUint64 returns a 64-bit unsigned integer constant.
func (b *Builder) ConstantUint64(v uint64) ID {
	return b.Constant(b.TypeInt(64, false), uint32(v), uint32(v>>32))
}

// ConstantInt64 returns a 64-bit signed integer constant.
func (b *Builder) ConstantInt64(v int64) ID {
	return b.Constant(b.TypeInt(64, true), uint32(v), uint32(uint64(v)>>32))
}

// ConstantFloat32 returns a 32-bit float constant.
func (b *Builder) ConstantFloat32(v float32) ID {
	return b.Constant(b.TypeFloat(32), math.Float32bits(v))
}

// ConstantFloat64 returns a 64-bit float constant.
func (b *Builder) ConstantFloat64(v float64) ID {
	bits := math.Float64bits(v)
	return b.Constant(b.TypeFloat(64), uint32(bits), uint32(bits>>32))
}

// ConstantFloat16 returns a 16-bit float constant from its IEEE half-precision bits.
func (b *Builder) ConstantFloat16(bits uint16) ID {
	return b.Constant(b.TypeFloat(16), uint32(bits))
}

// ConstantComposite returns the composite constant of type t made of parts.
func (b *Builder) ConstantComposite(t ID, parts ...ID) ID {
	return b.constant(OpConstantComposite, t, ids(parts)...)
}

// ConstantNull returns the null (all-zero) constant of type t.
func (b *Builder) ConstantNull(t ID) ID { return b.constant(OpConstantNull, t) }

// Undef returns an undefined value of type t.
func (b *Builder) Undef(t ID) ID { return b.constant(OpUndef, t) }

func (b *Builder) specConstant(op Op, t ID, specID uint32, operands ...uint32) ID {
	id := b.newDef()
	b.setType(id, t)
	b.globals = appendInst(b.globals, op, append([]uint32{uint32(t), uint32(id)}, operands...)...)
	b.Decorate(id, DecorationSpecId, specID)
	return id
}

// SpecConstant returns a scalar specialization constant of type t with SpecId
// specID and the default value words.
func (b *Builder) SpecConstant(t ID, specID uint32, words ...uint32) ID {
	return b.specConstant(OpSpecConstant, t, specID, words...)
}

// SpecConstantBool returns a boolean specialization constant.
func (b *Builder) SpecConstantBool(specID uint32, def bool) ID {
	op := OpSpecConstantFalse
	if def {
		op = OpSpecConstantTrue
	}
	return b.specConstant(op, b.TypeBool(), specID)
}

// SpecConstantComposite returns a composite of specialization constants (it has no SpecId itself).
func (b *Builder) SpecConstantComposite(t ID, parts ...ID) ID {
	id := b.newDef()
	b.setType(id, t)
	b.globals = appendInst(b.globals, OpSpecConstantComposite, append([]uint32{uint32(t), uint32(id)}, ids(parts)...)...)
	return id
}

// SpecConstantOp returns the specialization constant computed by op from operands.
func (b *Builder) SpecConstantOp(t ID, op Op, operands ...ID) ID {
	id := b.newDef()
	b.setType(id, t)
	b.globals = appendInst(b.globals, OpSpecConstantOp, append([]uint32{uint32(t), uint32(id), uint32(op)}, ids(operands)...)...)
	return id
}

// Variable declares a global variable of pointer type ptrType in storage class
// sc, with an optional initializer (0 for none). Function-local variables are
// made with [Function.Variable].
func (b *Builder) Variable(ptrType ID, sc StorageClass, init ID) ID {
	if sc == StorageClassFunction {
		b.fail("Variable: Function storage class variables belong to a function (Function.Variable)")
		return 0
	}
	if d, ok := b.typeInfo[ptrType]; !ok || d.op != OpTypePointer || d.sc != sc {
		b.fail("Variable: %d is not a pointer type in storage class %v", ptrType, sc)
		return 0
	}
	id := b.newDef()
	b.setType(id, ptrType)
	ops := []uint32{uint32(ptrType), uint32(id), uint32(sc)}
	if init != 0 {
		ops = append(ops, uint32(init))
	}
	b.globals = appendInst(b.globals, OpVariable, ops...)
	b.globalSC[id] = sc
	return id
}
