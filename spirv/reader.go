package spirv

import (
	"encoding/binary"
	"fmt"
)

// Header is the five-word header of a module.
type Header struct {
	Version   Version
	Generator uint32 // tool id << 16 | tool version
	Bound     uint32
	Schema    uint32
}

// Instruction is one decoded instruction: its opcode and every operand
// (result type and result id included) typed by the grammar.
type Instruction struct {
	Op       Op
	Operands []Operand
}

// Module is a decoded module.
type Module struct {
	Header       Header
	Instructions []Instruction
}

// ResultType returns the instruction's result type id (0 if it has none).
func (in *Instruction) ResultType() ID {
	if len(in.Operands) > 0 && in.Operands[0].Kind == KindIdResultType {
		return in.Operands[0].ID()
	}
	return 0
}

// Result returns the instruction's result id (0 if it has none).
func (in *Instruction) Result() ID {
	for _, o := range in.Operands[:min(2, len(in.Operands))] {
		if o.Kind == KindIdResult {
			return o.ID()
		}
	}
	return 0
}

// WordCount returns the number of words the instruction encodes to.
func (in *Instruction) WordCount() int {
	n := 1
	for _, o := range in.Operands {
		n += len(o.Words)
	}
	return n
}

// AppendWords appends the instruction's encoding to dst.
func (in *Instruction) AppendWords(dst []uint32) []uint32 {
	dst = append(dst, uint32(in.WordCount())<<16|uint32(in.Op))
	for _, o := range in.Operands {
		dst = append(dst, o.Words...)
	}
	return dst
}

// Words encodes the module.
func (m *Module) Words() []uint32 {
	n := 5
	for i := range m.Instructions {
		n += m.Instructions[i].WordCount()
	}
	out := make([]uint32, 0, n)
	out = append(out, MagicNumber, uint32(m.Header.Version), m.Header.Generator, m.Header.Bound, m.Header.Schema)
	for i := range m.Instructions {
		out = m.Instructions[i].AppendWords(out)
	}
	return out
}

// Bytes encodes the module as little-endian bytes.
func (m *Module) Bytes() []byte { return WordsToBytes(m.Words()) }

// ReadBytes decodes a module from bytes of either endianness.
func ReadBytes(data []byte) (*Module, error) {
	if len(data)%4 != 0 {
		return nil, fmt.Errorf("%w: %d bytes is not a whole number of words", ErrMalformed, len(data))
	}
	if len(data) < 20 {
		return nil, fmt.Errorf("%w: %d bytes is shorter than the header", ErrMalformed, len(data))
	}
	var order binary.ByteOrder = binary.LittleEndian
	if binary.BigEndian.Uint32(data) == MagicNumber {
		order = binary.BigEndian
	}
	words := make([]uint32, len(data)/4)
	for i := range words {
		words[i] = order.Uint32(data[4*i:])
	}
	return Read(words)
}

// Read decodes a module from words, checking every instruction against the
// grammar. Malformed input gives an error wrapping [ErrMalformed], never a panic.
func Read(words []uint32) (*Module, error) {
	// Every operand takes at least one word, so one arena of a slot per
	// word holds them all, and the instructions are counted first: two
	// allocations for the module, not two per instruction.
	count := countInstructions(words)
	m := &Module{Instructions: make([]Instruction, 0, count)}
	arena := make([]Operand, 0, max(0, len(words)-5))
	h, err := Scan(words, func(in *Instruction) error {
		start := len(arena)
		arena = append(arena, in.Operands...)
		// The full slice expression: an append to one instruction's
		// operands never reaches the next's.
		m.Instructions = append(m.Instructions, Instruction{Op: in.Op, Operands: arena[start:len(arena):len(arena)]})
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.Header = h
	return m, nil
}

// Scan decodes module words as [Read] does, the same checks and errors,
// calling f with each instruction in turn instead of keeping them: the
// instruction is valid until f returns (its operands' words alias words), so
// a consumer that keeps a few facts of a module allocates nothing per
// instruction. An error of f stops the scan and is returned.
func Scan(words []uint32, f func(in *Instruction) error) (Header, error) {
	if len(words) < 5 {
		return Header{}, fmt.Errorf("%w: %d words is shorter than the header", ErrMalformed, len(words))
	}
	if words[0] != MagicNumber {
		return Header{}, fmt.Errorf("%w: magic number %#08x", ErrMalformed, words[0])
	}
	h := Header{Version(words[1]), words[2], words[3], words[4]}
	r := newTypeTracker()
	// One closure for the module, reading the instruction it is called for.
	var curOp Op
	var curBody []uint32
	litWords := func() (int, error) { return r.litWords(curOp, curBody) }
	buf := make([]Operand, 0, 16) // reused, grown to the longest instruction
	in := new(Instruction)        // one for the scan: f's argument escapes
	for pos := 5; pos < len(words); {
		n := int(words[pos] >> 16)
		op := Op(words[pos] & 0xffff)
		if n == 0 {
			return Header{}, fmt.Errorf("%w: word %d: %v with word count 0", ErrMalformed, pos, op)
		}
		if pos+n > len(words) {
			return Header{}, fmt.Errorf("%w: word %d: %v runs past the end of the module", ErrMalformed, pos, op)
		}
		body := words[pos+1 : pos+n]
		var lit func() (int, error) // only these opcodes have context-dependent literals
		if op == OpConstant || op == OpSpecConstant || op == OpSwitch {
			curOp, curBody, lit = op, body, litWords
		}
		ops, err := decodeOperandsInto(buf, op, body, lit)
		if err == nil && op == OpExtInst {
			ops, err = r.typeExtInst(ops, body)
		}
		if err != nil {
			return Header{}, fmt.Errorf("word %d: %w", pos, err)
		}
		buf = ops[:0]
		*in = Instruction{Op: op, Operands: ops}
		r.record(in)
		if err := f(in); err != nil {
			return Header{}, err
		}
		pos += n
	}
	return h, nil
}

// countInstructions counts the instructions of module words by their word
// counts, up to the first malformed one.
func countInstructions(words []uint32) int {
	n := 0
	for pos := 5; pos < len(words) && words[pos]>>16 != 0; pos += int(words[pos] >> 16) {
		n++
	}
	return n
}

// typeTracker remembers the numeric types and the types of numeric values,
// which the widths of context-dependent literals depend on.
type typeTracker struct {
	numeric   map[ID]numType
	valueType map[ID]ID
	extSets   map[ID]string
}

type numType struct {
	width  uint32
	float  bool
	signed bool
}

func newTypeTracker() *typeTracker {
	return &typeTracker{numeric: map[ID]numType{}, valueType: map[ID]ID{}, extSets: map[ID]string{}}
}

// litWords returns the number of words of the context-dependent literal of
// an instruction of opcode op and operand words body: the decoder asks once
// it has decoded the operands before it, so body[0] is there.
func (r *typeTracker) litWords(op Op, body []uint32) (int, error) {
	var t ID
	switch op {
	case OpConstant, OpSpecConstant:
		t = ID(body[0])
	case OpSwitch:
		var ok bool
		if t, ok = r.valueType[ID(body[0])]; !ok {
			return 0, fmt.Errorf("selector %d of a type that is not a numeric scalar type", body[0])
		}
	default:
		return 1, nil
	}
	nt, ok := r.numeric[t]
	if !ok {
		return 0, fmt.Errorf("literal of type %d, not a numeric scalar type", t)
	}
	if nt.width > 32 {
		return 2, nil
	}
	return 1, nil
}

func (r *typeTracker) record(in *Instruction) {
	switch in.Op {
	case OpTypeInt:
		r.numeric[in.Result()] = numType{width: uint32(in.Operands[1].Literal()), signed: in.Operands[2].Literal() != 0}
	case OpTypeFloat:
		r.numeric[in.Result()] = numType{width: uint32(in.Operands[1].Literal()), float: true}
	case OpExtInstImport:
		r.extSets[in.Result()] = in.Operands[1].String()
	}
	// Only a numeric value's type decides a literal's width (a switch
	// selector's): values of other types are not kept.
	if t := in.ResultType(); t != 0 {
		if _, ok := r.numeric[t]; ok {
			r.valueType[in.Result()] = t
		}
	}
}

// typeExtInst re-decodes the operands of an OpExtInst of a known set by that
// set's grammar (the core grammar only says IdRef*).
func (r *typeTracker) typeExtInst(ops []Operand, body []uint32) ([]Operand, error) {
	name := r.extSets[ops[2].ID()]
	set, ok := LookupExtInstSet(name)
	if !ok {
		return ops, nil
	}
	n := ops[3].Words[0]
	desc, ok := set.Lookup(n)
	if !ok {
		return nil, fmt.Errorf("%w: OpExtInst: %d is not an instruction of %s", ErrMalformed, n, name)
	}
	d := &decoder{op: OpExtInst, words: body, pos: 4, out: ops[:4]}
	if err := d.list(desc.Operands); err != nil {
		return nil, fmt.Errorf("%s %s: %w", name, desc.Name, err)
	}
	if d.pos != len(body) {
		return nil, fmt.Errorf("%w: %s %s: %d words left after the last operand", ErrMalformed, name, desc.Name, len(body)-d.pos)
	}
	return d.out, nil
}
