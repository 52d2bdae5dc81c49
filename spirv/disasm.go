package spirv

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Disassemble returns the text of module words in the format of
// `spirv-dis --raw-id`: the header comment, then one instruction a line, every
// id written %<number>, enums by name, literals in decimal (floats as spirv-dis
// prints them). `spirv-as --preserve-numeric-ids` assembles it back to the same
// words (less the generator word, which the assembler sets to its own).
func Disassemble(words []uint32) (string, error) {
	m, err := Read(words)
	if err != nil {
		return "", err
	}
	return m.Disassemble(), nil
}

// Disassemble returns the module's text; see the package-level Disassemble.
func (m *Module) Disassemble() string {
	var sb strings.Builder
	gen := "Unknown"
	if name, ok := generatorNames[m.Header.Generator>>16]; ok {
		gen = name
	}
	fmt.Fprintf(&sb, "; SPIR-V\n; Version: %d.%d\n; Generator: %s; %d\n; Bound: %d\n; Schema: %d\n",
		m.Header.Version.Major(), m.Header.Version.Minor(), gen, m.Header.Generator&0xffff, m.Header.Bound, m.Header.Schema)
	r := newTypeTracker()
	for i := range m.Instructions {
		in := &m.Instructions[i]
		writeInstruction(&sb, in, r)
		r.record(in)
	}
	return sb.String()
}

const resultColumn = 15 // "%id = " ends here, as in spirv-dis

func writeInstruction(sb *strings.Builder, in *Instruction, r *typeTracker) {
	ops := in.Operands
	if res := in.Result(); res != 0 {
		s := "%" + strconv.FormatUint(uint64(res), 10)
		if pad := resultColumn - 3 - len(s); pad > 0 {
			sb.WriteString(strings.Repeat(" ", pad))
		}
		sb.WriteString(s)
		sb.WriteString(" = ")
	} else {
		sb.WriteString(strings.Repeat(" ", resultColumn))
	}
	sb.WriteString(in.Op.String())
	var litType numType // type of context-dependent literals
	switch in.Op {
	case OpConstant, OpSpecConstant:
		litType = r.numeric[in.ResultType()]
	case OpSwitch:
		if len(ops) > 0 {
			litType = r.numeric[r.valueType[ops[0].ID()]]
		}
	}
	var extSet string
	for i, o := range ops {
		if o.Kind == KindIdResult {
			continue
		}
		sb.WriteByte(' ')
		switch o.Kind {
		case KindIdResultType, KindIdRef, KindIdScope, KindIdMemorySemantics:
			sb.WriteString("%" + strconv.FormatUint(uint64(o.ID()), 10))
			if in.Op == OpExtInst && i == 2 {
				extSet = r.extSets[o.ID()]
			}
		case KindLiteralString:
			writeQuoted(sb, o.String())
		case KindLiteralContextDependentNumber:
			sb.WriteString(formatNumber(o.Words, litType))
		case KindLiteralInteger:
			if in.Op == OpSwitch {
				sb.WriteString(formatNumber(o.Words, litType))
			} else {
				sb.WriteString(strconv.FormatUint(uint64(o.Words[0]), 10))
			}
		case KindLiteralExtInstInteger:
			sb.WriteString(extInstName(extSet, o.Words[0]))
		case KindLiteralSpecConstantOpInteger:
			sb.WriteString(strings.TrimPrefix(Op(o.Words[0]).String(), "Op"))
		default:
			d := o.Kind.Desc()
			if d != nil && (d.Category == CategoryValueEnum || d.Category == CategoryBitEnum) {
				sb.WriteString(enumString(o.Kind, o.Words[0]))
			} else {
				sb.WriteString(strconv.FormatUint(o.Literal(), 10))
			}
		}
	}
	sb.WriteByte('\n')
}

func extInstName(set string, n uint32) string {
	if s, ok := LookupExtInstSet(set); ok {
		if d, ok := s.Lookup(n); ok {
			return d.Name
		}
	}
	return strconv.FormatUint(uint64(n), 10)
}

func writeQuoted(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			sb.WriteByte('\\')
		}
		sb.WriteByte(s[i])
	}
	sb.WriteByte('"')
}

// formatNumber prints a context-dependent literal of type t as spirv-dis does.
func formatNumber(words []uint32, t numType) string {
	var v uint64
	for i, w := range words[:min(2, len(words))] {
		v |= uint64(w) << (32 * i)
	}
	width := t.width
	if width == 0 {
		width = 32 * uint32(len(words))
	}
	if t.float {
		switch width {
		case 16:
			return hexFloat(v&0xffff, 10, 5)
		case 32:
			f := math.Float32frombits(uint32(v))
			if f == 0 || isNormal32(uint32(v)) {
				return formatG(float64(f), 9, 32)
			}
			return hexFloat(v&0xffffffff, 23, 8)
		default:
			f := math.Float64frombits(v)
			if f == 0 || isNormal64(v) {
				return formatG(f, 17, 64)
			}
			return hexFloat(v, 52, 11)
		}
	}
	if t.signed && width < 64 {
		// Sign-extend from the type's width.
		shift := 64 - width
		return strconv.FormatInt(int64(v<<shift)>>shift, 10)
	}
	if t.signed {
		return strconv.FormatInt(int64(v), 10)
	}
	if width < 64 {
		v &= 1<<width - 1
	}
	return strconv.FormatUint(v, 10)
}

func isNormal32(bits uint32) bool {
	e := bits >> 23 & 0xff
	return e != 0 && e != 0xff
}

func isNormal64(bits uint64) bool {
	e := bits >> 52 & 0x7ff
	return e != 0 && e != 0x7ff
}

// formatG prints f like a C++ ostream with precision prec in the default
// float field (the %g conversion): both drop trailing zeros and print at least
// two exponent digits, so strconv's 'g' matches.
func formatG(f float64, prec int, bitSize int) string {
	return strconv.FormatFloat(f, 'g', prec, bitSize)
}

// hexFloat prints a non-normal float (zero excepted) the way SPIRV-Tools'
// HexFloat does: 0x1.8p+128 for a quiet NaN, 0x1p+128 for infinity,
// denormals normalised.
func hexFloat(bits uint64, fracBits, expBits uint) string {
	nibbles := (fracBits + 3) / 4
	overflow := nibbles*4 - fracBits
	sign := ""
	if bits>>(fracBits+expBits)&1 != 0 {
		sign = "-"
	}
	exp := bits >> fracBits & (1<<expBits - 1)
	frac := (bits & (1<<fracBits - 1)) << overflow
	bias := int64(1)<<(expBits-1) - 1
	isZero := exp == 0 && frac == 0
	e := int64(exp) - bias
	if isZero {
		e = 0
	}
	if exp == 0 && !isZero {
		top := uint64(1) << (nibbles*4 - 1)
		for frac&top == 0 {
			frac <<= 1
			e--
		}
		frac <<= 1
		frac &= 1<<(nibbles*4) - 1
	}
	for nibbles > 0 && frac&0xf == 0 {
		frac >>= 4
		nibbles--
	}
	var sb strings.Builder
	sb.WriteString(sign + "0x")
	if isZero {
		sb.WriteByte('0')
	} else {
		sb.WriteByte('1')
	}
	if nibbles > 0 {
		fmt.Fprintf(&sb, ".%0*x", nibbles, frac)
	}
	sb.WriteByte('p')
	if e >= 0 {
		sb.WriteByte('+')
	}
	sb.WriteString(strconv.FormatInt(e, 10))
	return sb.String()
}
