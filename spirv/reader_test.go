package spirv_test

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/spirv"
)

func header(bound uint32) []uint32 {
	return []uint32{spirv.MagicNumber, uint32(spirv.MakeVersion(1, 5)), 0, bound, 0}
}

func inst(op spirv.Op, operands ...uint32) []uint32 {
	return append([]uint32{uint32(len(operands)+1)<<16 | uint32(op)}, operands...)
}

func module(parts ...[]uint32) []uint32 {
	w := header(100)
	for _, p := range parts {
		w = append(w, p...)
	}
	return w
}

func TestReadMalformed(t *testing.T) {
	str := func(s string) []uint32 { // a literal string's words
		b := append([]byte(s), 0)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		w := make([]uint32, len(b)/4)
		for i := range w {
			w[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		return w
	}
	cases := []struct {
		name  string
		words []uint32
		want  string
	}{
		{"empty", nil, "shorter than the header"},
		{"short header", []uint32{spirv.MagicNumber, 0x10000}, "shorter than the header"},
		{"bad magic", []uint32{0x12345678, 0, 0, 0, 0}, "magic number"},
		{"zero word count", module([]uint32{uint32(spirv.OpNop)}), "word count 0"},
		{"past the end", module([]uint32{5<<16 | uint32(spirv.OpCapability), 1}), "past the end"},
		{"unknown opcode", module(inst(spirv.Op(0xfffe))), "unknown opcode"},
		{"missing operand", module(inst(spirv.OpTypeInt, 1, 32)), "missing operand"},
		{"extra words", module(inst(spirv.OpTypeVoid, 1, 2)), "words left"},
		{"unterminated string", module(inst(spirv.OpExtension, 0x41414141)), "terminating nul"},
		{"bad enum", module(inst(spirv.OpCapability, 0xdead)), "is not a Capability"},
		{"bad mask", module(inst(spirv.OpTypeInt, 1, 32, 0), inst(spirv.OpTypePointer, 2, uint32(spirv.StorageClassFunction), 1),
			inst(spirv.OpFunction, 1, 3, 0x40000000, 4)), "not FunctionControl"},
		{"constant of unknown type", module(inst(spirv.OpConstant, 7, 8, 1)), "not a numeric scalar type"},
		{"switch on a bool", module(inst(spirv.OpTypeBool, 1), inst(spirv.OpConstantTrue, 1, 2), inst(spirv.OpSwitch, 2, 3, 1, 4)),
			"selector 2 of a type that is not a numeric scalar type"},
		{"64-bit constant too short", module(inst(spirv.OpTypeInt, 1, 64, 0), inst(spirv.OpConstant, 1, 2, 5)), "past the end"},
		{"missing enum parameter", module(inst(spirv.OpDecorate, 1, uint32(spirv.DecorationBinding))), "missing operand"},
		{"bad spec constant op", module(inst(spirv.OpTypeInt, 1, 32, 0), inst(spirv.OpSpecConstantOp, 1, 2, 0xfffe)), "unknown opcode"},
		{"entry point name", module(inst(spirv.OpEntryPoint, uint32(spirv.ExecutionModelGLCompute), 1, 0x41414141)), "terminating nul"},
		{"ok string then junk enum", module(inst(spirv.OpExtInstImport, append([]uint32{1}, str("GLSL.std.450")...)...), inst(spirv.OpMemoryModel, 9, 9)), "is not a AddressingModel"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := spirv.Read(c.words)
			require.ErrorIs(t, err, spirv.ErrMalformed)
			require.ErrorContains(t, err, c.want)
			_, err = spirv.Disassemble(c.words)
			require.ErrorIs(t, err, spirv.ErrMalformed)
			_, err = spirv.Scan(c.words, func(*spirv.Instruction) error { return nil })
			require.ErrorIs(t, err, spirv.ErrMalformed)
			require.ErrorContains(t, err, c.want)
		})
	}
	_, err := spirv.ReadBytes([]byte{1, 2, 3})
	require.ErrorIs(t, err, spirv.ErrMalformed)
}

func TestReadBothEndians(t *testing.T) {
	w, err := saxpy(spirv.EnvVulkan1_2).Words()
	require.NoError(t, err)
	le := spirv.WordsToBytes(w)
	be := make([]byte, len(le))
	for i, x := range w {
		binary.BigEndian.PutUint32(be[4*i:], x)
	}
	a, err := spirv.ReadBytes(le)
	require.NoError(t, err)
	b, err := spirv.ReadBytes(be)
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.Equal(t, le, b.Bytes(), "modules are written little-endian")
}

func TestReadTypesOperands(t *testing.T) {
	w, err := control(spirv.EnvVulkan1_2).Words()
	require.NoError(t, err)
	m, err := spirv.Read(w)
	require.NoError(t, err)
	var sawSwitch, sawName bool
	for _, in := range m.Instructions {
		switch in.Op {
		case spirv.OpSwitch:
			sawSwitch = true
			// selector, default, then (literal, label) pairs flattened.
			require.Len(t, in.Operands, 2+2*3)
			require.Equal(t, spirv.KindLiteralInteger, in.Operands[2].Kind)
			require.Equal(t, uint64(1), in.Operands[4].Literal())
			require.Equal(t, spirv.KindIdRef, in.Operands[5].Kind)
		case spirv.OpName:
			if in.Operands[1].String() == "main" {
				sawName = true
				require.Equal(t, spirv.KindLiteralString, in.Operands[1].Kind)
			}
		case spirv.OpExecutionMode:
			require.Equal(t, spirv.KindExecutionMode, in.Operands[1].Kind)
			require.Equal(t, []uint32{64}, in.Operands[2].Words)
		case spirv.OpIAdd:
			require.NotZero(t, in.ResultType())
			require.NotZero(t, in.Result())
		}
	}
	require.True(t, sawSwitch)
	require.True(t, sawName)
}

// Read decodes a module in a few allocations, not a few per instruction:
// the operands of every instruction share one arena, and one appended to
// never runs into the next instruction's.
func TestReadAllocatesPerModule(t *testing.T) {
	w, err := control(spirv.EnvVulkan1_2).Words()
	require.NoError(t, err)
	m, err := spirv.Read(w)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(20, func() { _, _ = spirv.Read(w) })
	require.Less(t, allocs, float64(len(m.Instructions))/3, "%d instructions", len(m.Instructions))

	m.Instructions[0].Operands = append(m.Instructions[0].Operands, spirv.Operand{Kind: spirv.KindIdRef, Words: []uint32{7}})
	require.Equal(t, w[5+m.Instructions[0].WordCount()-1:], m.Words()[5+m.Instructions[0].WordCount():])
}

// Scan hands over the instructions Read keeps, one at a time, allocating
// nothing per instruction; an error of its function stops it.
func TestScan(t *testing.T) {
	for _, sh := range shapes {
		w, err := sh.build(spirv.EnvVulkan1_2).Words()
		require.NoError(t, err)
		m, err := spirv.Read(w)
		require.NoError(t, err)
		var got []spirv.Instruction
		h, err := spirv.Scan(w, func(in *spirv.Instruction) error {
			c := *in
			c.Operands = slices.Clone(in.Operands)
			got = append(got, c)
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, m.Header, h, sh.name)
		require.Equal(t, m.Instructions, got, sh.name)
	}

	decorations := func(n int) []uint32 {
		var parts [][]uint32
		for i := range n {
			parts = append(parts, inst(spirv.OpDecorate, uint32(i%50+1), uint32(spirv.DecorationBinding), uint32(i)))
		}
		return module(parts...)
	}
	nothing := func(*spirv.Instruction) error { return nil }
	small, large := decorations(10), decorations(2000)
	allocs := func(w []uint32) float64 {
		return testing.AllocsPerRun(10, func() { _, _ = spirv.Scan(w, nothing) })
	}
	require.Equal(t, allocs(small), allocs(large), "allocations grow with the module")

	stop := errors.New("stop")
	seen := 0
	_, err := spirv.Scan(large, func(*spirv.Instruction) error {
		if seen++; seen == 3 {
			return stop
		}
		return nil
	})
	require.ErrorIs(t, err, stop)
	require.Equal(t, 3, seen)
}

// FuzzRead feeds arbitrary bytes to the reader and the disassembler: they
// must return an error or a module that writes back to the same words (the
// same bytes, little-endian), never panic.
func FuzzRead(f *testing.F) {
	for _, sh := range shapes {
		w, err := sh.build(spirv.EnvVulkan1_2).Words()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(spirv.WordsToBytes(w))
	}
	f.Add(spirv.WordsToBytes(module(inst(spirv.OpTypeInt, 1, 64, 1), inst(spirv.OpConstant, 1, 2, 5, 6))))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := spirv.ReadBytes(data)
		if err != nil {
			return
		}
		_ = m.Disassemble()
		w := m.Words()
		if in := spirv.WordsToBytes(w); binary.BigEndian.Uint32(data) != spirv.MagicNumber && string(in) != string(data) {
			t.Fatalf("written module differs from the one read")
		}
		m2, err := spirv.Read(w)
		if err != nil {
			t.Fatalf("re-reading written module: %v", err)
		}
		if len(m2.Instructions) != len(m.Instructions) {
			t.Fatalf("instruction count changed: %d → %d", len(m.Instructions), len(m2.Instructions))
		}
	})
}
