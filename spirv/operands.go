package spirv

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every error about a module that does not decode.
var ErrMalformed = errors.New("spirv: malformed module")

// Operand is one decoded operand: its kind in the grammar and its words. An
// enumerant's parameters, and the parts of a composite (the literal and label
// of a switch case), follow as operands of their own.
type Operand struct {
	Kind  OperandKind
	Words []uint32
}

// ID returns the operand as an id (its first word).
func (o Operand) ID() ID {
	if len(o.Words) == 0 {
		return 0
	}
	return ID(o.Words[0])
}

// Literal returns the operand's value as an unsigned integer of up to 64 bits.
func (o Operand) Literal() uint64 {
	var v uint64
	for i, w := range o.Words[:min(2, len(o.Words))] {
		v |= uint64(w) << (32 * i)
	}
	return v
}

// String returns a literal string operand's text.
func (o Operand) String() string {
	s, _, _ := decodeString(o.Words)
	return s
}

// IsID reports whether the operand is an id of any kind.
func (o Operand) IsID() bool {
	d := o.Kind.Desc()
	return d != nil && d.Category == CategoryId
}

// decoder walks the operand words of one instruction per the grammar.
type decoder struct {
	op    Op
	words []uint32
	pos   int
	out   []Operand
	// litWords returns the number of words of a context-dependent literal
	// (OpConstant, OpSpecConstant and OpSwitch case values).
	litWords func() (int, error)
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %v: %s", ErrMalformed, d.op, fmt.Sprintf(format, args...))
}

func (d *decoder) take(kind OperandKind, n int) error {
	if d.pos+n > len(d.words) {
		return d.errorf("operand %v runs past the end of the instruction", kind)
	}
	d.out = append(d.out, Operand{kind, d.words[d.pos : d.pos+n : d.pos+n]})
	d.pos += n
	return nil
}

func (d *decoder) list(ops []OperandDesc) error {
	for _, od := range ops {
		switch od.Quant {
		case QuantOne:
			if d.pos >= len(d.words) {
				return d.errorf("missing operand %v %s", od.Kind, od.Name)
			}
			if err := d.one(od.Kind, false); err != nil {
				return err
			}
		case QuantOptional:
			if d.pos < len(d.words) {
				if err := d.one(od.Kind, false); err != nil {
					return err
				}
			}
		case QuantVariadic:
			for d.pos < len(d.words) {
				if err := d.one(od.Kind, false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (d *decoder) one(kind OperandKind, contextual bool) error {
	kd := kind.Desc()
	if kd == nil {
		return d.errorf("unknown operand kind %d", kind)
	}
	if d.pos >= len(d.words) {
		return d.errorf("missing operand %v", kind)
	}
	switch kd.Category {
	case CategoryId:
		return d.take(kind, 1)
	case CategoryLiteral:
		switch {
		case kind == KindLiteralString:
			s, n, ok := decodeString(d.words[d.pos:])
			if !ok {
				return d.errorf("literal string without a terminating nul")
			}
			_ = s
			return d.take(kind, n)
		case kind == KindLiteralContextDependentNumber || contextual:
			n := 1
			if d.litWords != nil {
				var err error
				if n, err = d.litWords(); err != nil {
					return d.errorf("%v", err)
				}
			}
			return d.take(kind, n)
		default:
			return d.take(kind, 1)
		}
	case CategoryComposite:
		for i, base := range kd.Bases {
			// The literal of a switch case has the selector's width.
			ctx := d.op == OpSwitch && i == 0 && base == KindLiteralInteger
			if err := d.one(base, ctx); err != nil {
				return err
			}
		}
		return nil
	case CategoryValueEnum:
		v := d.words[d.pos]
		if err := d.take(kind, 1); err != nil {
			return err
		}
		e, ok := kind.Enumerant(v)
		if !ok {
			return d.errorf("%d is not a %v", v, kind)
		}
		return d.list(e.Params)
	case CategoryBitEnum:
		v := d.words[d.pos]
		if err := d.take(kind, 1); err != nil {
			return err
		}
		parts, unknown := kind.maskParts(v)
		if unknown != 0 {
			return d.errorf("%#x has bits that are not %v", unknown, kind)
		}
		for _, e := range parts {
			if err := d.list(e.Params); err != nil {
				return err
			}
		}
		return nil
	}
	return d.errorf("operand kind %v of unknown category", kind)
}

// decodeOperandsInto decodes the operand words of one instruction of opcode op,
// appending to out[:0] (callers reuse the slice).
func decodeOperandsInto(out []Operand, op Op, words []uint32, litWords func() (int, error)) ([]Operand, error) {
	desc, ok := LookupOp(op)
	if !ok {
		return nil, fmt.Errorf("%w: unknown opcode %d", ErrMalformed, uint16(op))
	}
	if out == nil {
		out = make([]Operand, 0, len(desc.Operands))
	}
	d := &decoder{op: op, words: words, litWords: litWords, out: out[:0]}
	if err := d.list(desc.Operands); err != nil {
		return nil, err
	}
	if op == OpSpecConstantOp && len(d.out) == 3 {
		inner, ok := LookupOp(Op(d.out[2].Words[0]))
		if !ok {
			return nil, d.errorf("unknown opcode %d in OpSpecConstantOp", d.out[2].Words[0])
		}
		ops := inner.Operands
		for len(ops) > 0 && (ops[0].Kind == KindIdResultType || ops[0].Kind == KindIdResult) {
			ops = ops[1:]
		}
		if err := d.list(ops); err != nil {
			return nil, err
		}
	}
	if d.pos != len(words) {
		return nil, d.errorf("%d words left after the last operand", len(words)-d.pos)
	}
	return d.out, nil
}
