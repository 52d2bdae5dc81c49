package spirv

import (
	"fmt"
	"sort"
	"strings"
)

// ID is a SPIR-V result id. Zero is never a valid id.
type ID uint32

// Op is a SPIR-V opcode.
type Op uint16

// OperandKind is a kind of operand in the SPIR-V grammar (IdRef, LiteralInteger, Decoration, …).
type OperandKind uint8

// Quantifier says how many times an operand may appear.
type Quantifier uint8

// Operand quantifiers of the grammar.
const (
	QuantOne      Quantifier = iota // exactly once
	QuantOptional                   // "?": zero or one time
	QuantVariadic                   // "*": zero or more times
)

// KindCategory is the category of an operand kind.
type KindCategory uint8

// Operand-kind categories of the grammar.
const (
	CategoryId KindCategory = iota + 1
	CategoryLiteral
	CategoryValueEnum
	CategoryBitEnum
	CategoryComposite
)

// OperandDesc describes one operand of an instruction or of an enumerant's parameters.
type OperandDesc struct {
	Kind  OperandKind
	Quant Quantifier
	Name  string
}

// InstructionDesc describes an instruction of the grammar.
type InstructionDesc struct {
	Op       Op
	Name     string
	Class    string
	Operands []OperandDesc
}

// Enumerant is one named value of an enum operand kind, with the operands that follow it.
type Enumerant struct {
	Name   string
	Value  uint32
	Params []OperandDesc
}

// OperandKindDesc describes an operand kind.
type OperandKindDesc struct {
	Name       string
	Category   KindCategory
	Bases      []OperandKind // the parts of a composite kind
	Enumerants []Enumerant
}

// ExtInstDesc describes an instruction of an extended instruction set.
type ExtInstDesc struct {
	Number   uint32
	Name     string
	Operands []OperandDesc
}

// GLSLInst is an instruction number of the GLSL.std.450 extended instruction set.
type GLSLInst uint32

// LookupOp returns the grammar's description of op.
func LookupOp(op Op) (*InstructionDesc, bool) {
	i := sort.Search(len(instructionTable), func(i int) bool { return instructionTable[i].Op >= op })
	if i < len(instructionTable) && instructionTable[i].Op == op {
		return &instructionTable[i], true
	}
	return nil, false
}

// String returns the grammar's name of op, e.g. "OpFAdd".
func (op Op) String() string {
	if d, ok := LookupOp(op); ok {
		return d.Name
	}
	return fmt.Sprintf("Op(%d)", uint16(op))
}

// HasResultType reports whether instructions of op carry a result type id.
func (d *InstructionDesc) HasResultType() bool {
	return len(d.Operands) > 0 && d.Operands[0].Kind == KindIdResultType
}

// HasResult reports whether instructions of op define a result id.
func (d *InstructionDesc) HasResult() bool {
	for _, o := range d.Operands[:min(2, len(d.Operands))] {
		if o.Kind == KindIdResult {
			return true
		}
	}
	return false
}

// Desc returns the description of operand kind k.
func (k OperandKind) Desc() *OperandKindDesc {
	if int(k) <= 0 || int(k) >= len(operandKindTable) {
		return nil
	}
	return &operandKindTable[k]
}

// String returns the grammar's name of k.
func (k OperandKind) String() string {
	if d := k.Desc(); d != nil {
		return d.Name
	}
	return fmt.Sprintf("OperandKind(%d)", uint8(k))
}

// Enumerant returns the enumerant of an enum kind with the given value (the
// first spelling when the grammar has aliases).
func (k OperandKind) Enumerant(v uint32) (*Enumerant, bool) {
	d := k.Desc()
	if d == nil {
		return nil, false
	}
	for i := range d.Enumerants {
		if d.Enumerants[i].Value == v {
			return &d.Enumerants[i], true
		}
	}
	return nil, false
}

// EnumerantByName returns the enumerant of an enum kind named name.
func (k OperandKind) EnumerantByName(name string) (*Enumerant, bool) {
	d := k.Desc()
	if d == nil {
		return nil, false
	}
	for i := range d.Enumerants {
		if d.Enumerants[i].Name == name {
			return &d.Enumerants[i], true
		}
	}
	return nil, false
}

// maskParts returns, in ascending bit order, the enumerants whose bits are set
// in v, and the bits no enumerant names.
func (k OperandKind) maskParts(v uint32) (parts []*Enumerant, unknown uint32) {
	for bit := uint32(1); bit != 0; bit <<= 1 {
		if v&bit == 0 {
			continue
		}
		if e, ok := k.Enumerant(bit); ok {
			parts = append(parts, e)
		} else {
			unknown |= bit
		}
	}
	return parts, unknown
}

func enumString(k OperandKind, v uint32) string {
	d := k.Desc()
	if d.Category == CategoryBitEnum && v != 0 {
		parts, unknown := k.maskParts(v)
		names := make([]string, 0, len(parts)+1)
		for _, e := range parts {
			names = append(names, e.Name)
		}
		if unknown != 0 {
			names = append(names, fmt.Sprintf("%#x", unknown))
		}
		return strings.Join(names, "|")
	}
	if e, ok := k.Enumerant(v); ok {
		return e.Name
	}
	return fmt.Sprintf("%s(%d)", d.Name, v)
}

// LookupGLSL returns the description of a GLSL.std.450 instruction.
func LookupGLSL(n GLSLInst) (*ExtInstDesc, bool) {
	i := sort.Search(len(glslTable), func(i int) bool { return glslTable[i].Number >= uint32(n) })
	if i < len(glslTable) && glslTable[i].Number == uint32(n) {
		return &glslTable[i], true
	}
	return nil, false
}

// String returns the instruction's name in GLSL.std.450, e.g. "FAbs".
func (n GLSLInst) String() string {
	if d, ok := LookupGLSL(n); ok {
		return d.Name
	}
	return fmt.Sprintf("GLSLInst(%d)", uint32(n))
}
