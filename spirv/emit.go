package spirv

import (
	"fmt"
	"math"
)

// enumOperand is implemented by every generated enum type.
type enumOperand interface {
	operand() (OperandKind, uint32)
}

// Emit adds any instruction of the grammar. The operands are Go values checked
// against the grammar's operand list (count, kinds and quantifiers):
//
//   - ids (IdRef, IdScope, IdMemorySemantics, IdResultType): ID;
//   - LiteralString: string;
//   - LiteralInteger, LiteralExtInstInteger: uint32 (or GLSLInst);
//   - LiteralSpecConstantOpInteger: Op;
//   - LiteralContextDependentNumber: uint32, int32, uint64, int64, float32 or float64;
//   - enums: the generated type (Capability, Decoration, MemoryAccess …),
//     followed by the enumerant's parameters.
//
// The result id is not passed: Emit allocates it and returns it (0 for an
// instruction without a result). The instruction goes where the logical
// layout puts it — capabilities, names, annotations, types and constants
// (deduplicated like their typed constructors), global variables — or into
// the current block. OpFunction, OpFunctionParameter, OpLabel and
// OpFunctionEnd are made by Function, Param and NewBlock instead.
func (b *Builder) Emit(op Op, operands ...any) (ID, error) {
	if b.err != nil {
		return 0, b.err
	}
	id, err := b.emit(op, operands)
	if err != nil {
		b.fail("%v", err)
		return 0, b.err
	}
	return id, nil
}

type emitter struct {
	op    Op
	vals  []any
	pos   int
	words []uint32
	width int // words of a context-dependent literal, 0 when unknown
}

func (e *emitter) errorf(format string, args ...any) error {
	return fmt.Errorf("Emit %v: %s", e.op, fmt.Sprintf(format, args...))
}

func (e *emitter) list(ops []OperandDesc) error {
	for _, od := range ops {
		switch od.Quant {
		case QuantOne:
			if e.pos >= len(e.vals) {
				return e.errorf("missing operand %v %s", od.Kind, od.Name)
			}
			if err := e.one(od.Kind); err != nil {
				return err
			}
		case QuantOptional:
			if e.pos < len(e.vals) {
				if err := e.one(od.Kind); err != nil {
					return err
				}
			}
		case QuantVariadic:
			for e.pos < len(e.vals) {
				if err := e.one(od.Kind); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (e *emitter) one(kind OperandKind) error {
	kd := kind.Desc()
	if e.pos >= len(e.vals) {
		return e.errorf("missing operand %v", kind)
	}
	v := e.vals[e.pos]
	bad := func() error {
		return e.errorf("operand %d: %T is not a %v", e.pos, v, kind)
	}
	switch kd.Category {
	case CategoryId:
		id, ok := v.(ID)
		if !ok {
			return bad()
		}
		e.words = append(e.words, uint32(id))
	case CategoryLiteral:
		switch kind {
		case KindLiteralString:
			s, ok := v.(string)
			if !ok {
				return bad()
			}
			e.words = appendString(e.words, s)
		case KindLiteralSpecConstantOpInteger:
			op, ok := v.(Op)
			if !ok {
				return bad()
			}
			e.words = append(e.words, uint32(op))
		case KindLiteralContextDependentNumber:
			w, err := numberWords(v)
			if err != nil {
				return e.errorf("operand %d: %v", e.pos, err)
			}
			if e.width != 0 && len(w) != e.width {
				return e.errorf("operand %d: %T needs %d words for the result type, has %d", e.pos, v, e.width, len(w))
			}
			e.words = append(e.words, w...)
		default:
			switch x := v.(type) {
			case uint32:
				if e.op == OpSwitch && e.width == 2 {
					return e.errorf("operand %d: the selector is 64-bit, the case literal must be a uint64", e.pos)
				}
				e.words = append(e.words, x)
			case GLSLInst:
				e.words = append(e.words, uint32(x))
			case uint64: // a case literal of a 64-bit switch
				if e.op != OpSwitch || e.width != 2 {
					return e.errorf("operand %d: a uint64 literal needs OpSwitch on a 64-bit selector", e.pos)
				}
				e.words = append(e.words, uint32(x), uint32(x>>32))
			default:
				return bad()
			}
		}
	case CategoryComposite:
		for _, base := range kd.Bases {
			if err := e.one(base); err != nil {
				return err
			}
		}
		return nil
	case CategoryValueEnum, CategoryBitEnum:
		ev, ok := v.(enumOperand)
		if !ok {
			return bad()
		}
		k, x := ev.operand()
		if k != kind {
			return bad()
		}
		e.words = append(e.words, x)
		e.pos++
		if kd.Category == CategoryValueEnum {
			en, ok := kind.Enumerant(x)
			if !ok {
				return e.errorf("%d is not a %v", x, kind)
			}
			return e.list(en.Params)
		}
		parts, unknown := kind.maskParts(x)
		if unknown != 0 {
			return e.errorf("%#x has bits that are not %v", unknown, kind)
		}
		for _, p := range parts {
			if err := e.list(p.Params); err != nil {
				return err
			}
		}
		return nil
	}
	e.pos++
	return nil
}

func numberWords(v any) ([]uint32, error) {
	switch x := v.(type) {
	case uint32:
		return []uint32{x}, nil
	case int32:
		return []uint32{uint32(x)}, nil
	case uint64:
		return []uint32{uint32(x), uint32(x >> 32)}, nil
	case int64:
		return []uint32{uint32(x), uint32(uint64(x) >> 32)}, nil
	case float32:
		return []uint32{math.Float32bits(x)}, nil
	case float64:
		bits := math.Float64bits(x)
		return []uint32{uint32(bits), uint32(bits >> 32)}, nil
	}
	return nil, fmt.Errorf("%T is not a number", v)
}

func isTerminator(op Op) bool {
	switch op {
	case OpBranch, OpBranchConditional, OpSwitch, OpReturn, OpReturnValue, OpKill, OpUnreachable,
		OpTerminateInvocation, OpIgnoreIntersectionKHR, OpTerminateRayKHR, OpEmitMeshTasksEXT:
		return true
	}
	return false
}

func (b *Builder) emit(op Op, vals []any) (ID, error) {
	desc, ok := LookupOp(op)
	if !ok {
		return 0, fmt.Errorf("Emit: unknown opcode %d", uint16(op))
	}
	switch op {
	case OpFunction, OpFunctionParameter, OpFunctionEnd, OpLabel:
		return 0, fmt.Errorf("Emit %v: use Function, Function.Param and Function.NewBlock", op)
	}
	e := &emitter{op: op, vals: vals}
	ops := desc.Operands
	var resultType ID
	if desc.HasResultType() {
		if len(vals) == 0 {
			return 0, e.errorf("missing the result type")
		}
		t, ok := vals[0].(ID)
		if !ok {
			return 0, e.errorf("the result type must be an ID, not %T", vals[0])
		}
		resultType = t
		e.pos = 1
		ops = ops[1:]
		if op == OpConstant || op == OpSpecConstant {
			if w := b.ScalarWidth(t); w > 0 {
				e.width = max(1, int(w+31)/32)
			}
		}
	}
	if op == OpSwitch && len(vals) > 0 {
		if sel, ok := vals[0].(ID); ok {
			if w := b.ScalarWidth(b.TypeOf(sel)); w > 0 {
				e.width = max(1, int(w+31)/32)
			}
		}
	}
	hasResult := desc.HasResult()
	if hasResult {
		ops = ops[1:]
	}
	if err := e.list(ops); err != nil {
		return 0, err
	}
	if op == OpSpecConstantOp {
		inner, _ := LookupOp(Op(e.words[0]))
		if inner == nil {
			return 0, e.errorf("unknown opcode %d", e.words[0])
		}
		rest := inner.Operands
		for len(rest) > 0 && (rest[0].Kind == KindIdResultType || rest[0].Kind == KindIdResult) {
			rest = rest[1:]
		}
		if err := e.list(rest); err != nil {
			return 0, err
		}
	}
	if e.pos != len(vals) {
		return 0, e.errorf("%d operands too many", len(vals)-e.pos)
	}
	w := e.words
	switch {
	case op == OpCapability:
		b.Capability(Capability(w[0]))
		return 0, nil
	case op == OpExtension:
		b.Extension(vals[0].(string))
		return 0, nil
	case op == OpExtInstImport:
		return b.ExtInstImport(vals[0].(string)), nil
	case op == OpMemoryModel:
		b.MemoryModel(AddressingModel(w[0]), MemoryModel(w[1]))
		return 0, nil
	case op == OpEntryPoint:
		iface := make([]ID, 0)
		for _, v := range vals[3:] {
			iface = append(iface, v.(ID))
		}
		b.EntryPoint(ExecutionModel(w[0]), ID(w[1]), vals[2].(string), iface...)
		return 0, nil
	case op == OpExecutionMode || op == OpExecutionModeId:
		b.modes = appendInst(b.modes, op, w...)
		return 0, nil
	case op == OpName || op == OpMemberName:
		b.names = appendInst(b.names, op, w...)
		return 0, nil
	case desc.Class == "Debug":
		if hasResult {
			id := b.newDef()
			b.debug = appendInst(b.debug, op, append([]uint32{uint32(id)}, w...)...)
			return id, nil
		}
		b.debug = appendInst(b.debug, op, w...)
		return 0, nil
	case desc.Class == "Annotation":
		if hasResult { // OpDecorationGroup
			id := b.newDef()
			b.annotations = appendInst(b.annotations, op, append([]uint32{uint32(id)}, w...)...)
			return id, nil
		}
		b.annotate(op, w...)
		return 0, nil
	case desc.Class == "Type-Declaration" && hasResult:
		td := typeDesc{}
		switch op {
		case OpTypeInt:
			td.width, td.signed = w[0], w[1] != 0
		case OpTypeFloat:
			td.width = w[0]
		case OpTypeVector, OpTypeMatrix:
			td.elem, td.width = ID(w[0]), w[1]
		case OpTypeArray, OpTypeRuntimeArray, OpTypeSampledImage:
			td.elem = ID(w[0])
		case OpTypePointer:
			td.sc, td.elem = StorageClass(w[0]), ID(w[1])
		}
		return b.simpleType(op, td, w...), nil
	case desc.Class == "Constant-Creation":
		switch op {
		case OpConstantTrue, OpConstantFalse, OpConstant, OpConstantComposite, OpConstantNull, OpConstantSampler:
			return b.constant(op, resultType, w...), nil
		}
		id := b.newDef()
		b.setType(id, resultType)
		b.globals = appendInst(b.globals, op, append([]uint32{uint32(resultType), uint32(id)}, w...)...)
		return id, nil
	case op == OpVariable && StorageClass(w[0]) != StorageClassFunction:
		return b.Variable(resultType, StorageClass(w[0]), optionalID(w[1:])), b.err
	case op == OpVariable:
		if b.cur == nil {
			return 0, e.errorf("a Function variable needs a current block")
		}
		return b.cur.fn.Variable(resultType, optionalID(w[1:])), b.err
	case op == OpUndef && b.cur == nil:
		return b.Undef(resultType), nil
	case op == OpPhi:
		var in []PhiIncoming
		for i := 0; i+1 < len(w); i += 2 {
			in = append(in, PhiIncoming{ID(w[i]), ID(w[i+1])})
		}
		return b.Phi(resultType, in...), b.err
	}
	if op == OpSelectionMerge || op == OpLoopMerge {
		b.setMerge(op, w...)
		return 0, b.err
	}
	blk := b.block(op)
	if blk == nil {
		return 0, b.err
	}
	if op == OpFunctionCall {
		blk.fn.calls = append(blk.fn.calls, ID(w[0]))
	}
	var id ID
	switch {
	case desc.HasResultType():
		id = b.newDef()
		b.setType(id, resultType)
		blk.words = appendInst(blk.words, op, append([]uint32{uint32(resultType), uint32(id)}, w...)...)
	case hasResult:
		id = b.newDef()
		blk.words = appendInst(blk.words, op, append([]uint32{uint32(id)}, w...)...)
	default:
		blk.words = appendInst(blk.words, op, w...)
	}
	if isTerminator(op) {
		// Put the pending merge instruction before the terminator just written.
		if len(blk.merge) > 0 {
			n := len(w) + 1
			term := append([]uint32(nil), blk.words[len(blk.words)-n:]...)
			blk.words = append(append(blk.words[:len(blk.words)-n], blk.merge...), term...)
			blk.merge = nil
		}
		blk.terminated = true
	}
	return id, nil
}

func optionalID(w []uint32) ID {
	if len(w) > 0 {
		return ID(w[0])
	}
	return 0
}
