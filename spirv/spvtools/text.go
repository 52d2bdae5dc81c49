package spvtools

import (
	"fmt"
	"unsafe"

	"github.com/lucent-gpu/lucent/spirv"
)

// spv_binary_to_text_options_t and spv_text_to_binary_options_t bits.
const (
	disIndent        = 1 << 3
	disFriendlyNames = 1 << 6
	asmPreserveIDs   = 1 << 1
)

// textT mirrors spv_text_t.
type textT struct {
	str    *byte
	length uintptr
}

// Disassemble returns the text spirv-dis prints by default (header comment,
// %name friendly names, indented) for the module words.
func Disassemble(words []uint32, env spirv.TargetEnv) (string, error) {
	return disassemble(words, env, disIndent|disFriendlyNames)
}

// DisassembleRaw is Disassemble without friendly names: every id is %<number>,
// so the text assembles back to the same words.
func DisassembleRaw(words []uint32, env spirv.TargetEnv) (string, error) {
	return disassemble(words, env, disIndent)
}

func disassemble(words []uint32, env spirv.TargetEnv, options uint32) (string, error) {
	l, err := load()
	if err != nil {
		return "", err
	}
	e, err := targetEnv(env)
	if err != nil {
		return "", err
	}
	if len(words) == 0 {
		return "", &Error{Op: "disassemble", Message: "empty module", kind: ErrInvalid}
	}
	ctx := l.contextCreate(e)
	defer l.contextDestroy(ctx)
	var text, diag uintptr
	if r := l.binaryToText(ctx, &words[0], uintptr(len(words)), options, &text, &diag); r != 0 {
		return "", l.newError("disassemble", ErrInvalid, r, diag)
	}
	defer l.textDestroy(text)
	t := (*textT)(ptr(text))
	return string(unsafe.Slice(t.str, t.length)), nil
}

// Assemble turns SPIR-V assembly into words. Numeric ids (%12) keep their
// numbers; named ids are numbered after them, as spirv-as does with
// --preserve-numeric-ids.
func Assemble(text string, env spirv.TargetEnv) ([]uint32, error) {
	l, err := load()
	if err != nil {
		return nil, err
	}
	e, err := targetEnv(env)
	if err != nil {
		return nil, err
	}
	ctx := l.contextCreate(e)
	defer l.contextDestroy(ctx)
	src := []byte(text)
	if len(src) == 0 {
		src = []byte{0}
	}
	var bin, diag uintptr
	if r := l.textToBinary(ctx, &src[0], uintptr(len(text)), asmPreserveIDs, &bin, &diag); r != 0 {
		return nil, l.newError("assemble", ErrAssemble, r, diag)
	}
	if bin == 0 {
		return nil, fmt.Errorf("%w: no binary returned", ErrAssemble)
	}
	defer l.binaryDestroy(bin)
	b := (*binaryT)(ptr(bin))
	return append([]uint32(nil), unsafe.Slice(b.code, b.count)...), nil
}
