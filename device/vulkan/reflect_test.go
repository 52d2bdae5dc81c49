package vulkan

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/stretchr/testify/require"
)

// asm writes SPIR-V words by hand, for modules no builder would write.
type asm struct{ words []uint32 }

func newAsm(bound uint32) *asm {
	return &asm{words: []uint32{spirv.MagicNumber, 0x00010500, 0, bound, 0}}
}

func (a *asm) op(op spirv.Op, operands ...uint32) *asm {
	a.words = append(a.words, uint32(len(operands)+1)<<16|uint32(op))
	a.words = append(a.words, operands...)
	return a
}

// str encodes a nul-terminated literal string.
func str(s string) []uint32 {
	b := append([]byte(s), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// computeHeader starts a module with entry point %1 "main" of the local size.
func computeHeader(bound, x, y, z uint32) *asm {
	a := newAsm(bound)
	a.op(spirv.OpEntryPoint, append([]uint32{uint32(spirv.ExecutionModelGLCompute), 1}, str("main")...)...)
	a.op(spirv.OpExecutionMode, 1, uint32(spirv.ExecutionModeLocalSize), x, y, z)
	return a
}

// pushOf declares a push-constant block %10 { %11 at offset 0 } as variable
// %13; the caller defines %11.
func pushOf(a *asm) *asm {
	a.op(spirv.OpMemberDecorate, 10, 0, uint32(spirv.DecorationOffset), 0)
	a.op(spirv.OpTypeStruct, 10, 11)
	a.op(spirv.OpTypePointer, 12, uint32(spirv.StorageClassPushConstant), 10)
	a.op(spirv.OpVariable, 12, 13, uint32(spirv.StorageClassPushConstant))
	return a
}

// reflectSoon runs reflectSPIRV, failing the test if it takes over limit.
func reflectSoon(t *testing.T, words []uint32, limit time.Duration) (*reflection, error) {
	t.Helper()
	type result struct {
		r   *reflection
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := reflectSPIRV(words, "main")
		done <- result{r, err}
	}()
	select {
	case res := <-done:
		return res.r, res.err
	case <-time.After(limit):
		t.Fatalf("reflection of %d words still running after %v", len(words), limit)
		return nil, nil
	}
}

// Types with operands missing are errors naming the culprit, never panics:
// spirv.Read refuses an instruction short of the operands the grammar
// requires (naming the word, the opcode and the operand), reflection a type
// it cannot size.
func TestReflectTypesWithMissingOperands(t *testing.T) {
	i32 := func(a *asm) { a.op(spirv.OpTypeInt, 14, 32, 1) }
	const missing = "missing operand"
	cases := []struct {
		name string
		def  func(a *asm)
		want string
	}{
		{"int without width", func(a *asm) { a.op(spirv.OpTypeInt, 11) }, missing},
		{"int without signedness", func(a *asm) { a.op(spirv.OpTypeInt, 11, 32) }, missing},
		{"float without width", func(a *asm) { a.op(spirv.OpTypeFloat, 11) }, missing},
		{"vector without component", func(a *asm) { a.op(spirv.OpTypeVector, 11) }, missing},
		{"vector without count", func(a *asm) { i32(a); a.op(spirv.OpTypeVector, 11, 14) }, missing},
		{"matrix without count", func(a *asm) {
			i32(a)
			a.op(spirv.OpTypeVector, 15, 14, 4)
			a.op(spirv.OpTypeMatrix, 11, 15)
		}, missing},
		{"array without length", func(a *asm) { i32(a); a.op(spirv.OpTypeArray, 11, 14) }, missing},
		{"array without element", func(a *asm) { a.op(spirv.OpTypeArray, 11) }, missing},
		{"pointer without class", func(a *asm) { a.op(spirv.OpTypePointer, 11) }, missing},
		{"runtime array", func(a *asm) { i32(a); a.op(spirv.OpTypeRuntimeArray, 11, 14) }, "%11 (OpTypeRuntimeArray) has no size"},
		{"undefined member", func(a *asm) {}, "%11 is not a type"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			a := computeHeader(32, 1, 1, 1)
			c.def(a)
			pushOf(a)
			var err error
			require.NotPanics(t, func() { _, err = reflectSPIRV(a.words, "main") })
			require.ErrorIs(t, err, device.ErrInvalidArgument)
			require.ErrorContains(t, err, c.want)
			if c.want == missing {
				require.ErrorIs(t, err, spirv.ErrMalformed)
			}
		})
	}
	// Resources whose types lack operands.
	res := []struct {
		name string
		def  func(a *asm)
	}{
		{"sampled image without image", func(a *asm) { a.op(spirv.OpTypeSampledImage, 20) }},
		{"sampled image of a short image", func(a *asm) {
			a.op(spirv.OpTypeImage, 21)
			a.op(spirv.OpTypeSampledImage, 20, 21)
		}},
		{"short image", func(a *asm) { a.op(spirv.OpTypeImage, 20, 0, 1) }},
		{"struct of a short runtime array", func(a *asm) {
			a.op(spirv.OpTypeRuntimeArray, 21)
			a.op(spirv.OpTypeStruct, 20, 21)
		}},
	}
	for _, c := range res {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			a := computeHeader(32, 1, 1, 1)
			a.op(spirv.OpDecorate, 23, uint32(spirv.DecorationDescriptorSet), 0)
			a.op(spirv.OpDecorate, 23, uint32(spirv.DecorationBinding), 0)
			c.def(a)
			a.op(spirv.OpTypePointer, 22, uint32(spirv.StorageClassUniformConstant), 20)
			a.op(spirv.OpVariable, 22, 23, uint32(spirv.StorageClassUniformConstant))
			require.NotPanics(t, func() { _, _ = reflectSPIRV(a.words, "main") })
		})
	}
}

// A struct graph of 16 levels, each struct holding the one below ten times,
// is 200 words; sizing it member by member takes 10^16 steps. Sizes are
// memoized, and a size past 4 GiB is an error.
func TestReflectDeepStructGraphIsLinear(t *testing.T) {
	build := func(levels, fan int) []uint32 {
		a := computeHeader(uint32(levels+40), 1, 1, 1)
		a.op(spirv.OpTypeInt, 20, 32, 0)
		prev := uint32(20)
		for l := 1; l <= levels; l++ {
			id := uint32(20 + l)
			members := []uint32{id}
			for range fan {
				members = append(members, prev)
			}
			a.op(spirv.OpTypeStruct, members...)
			prev = id
		}
		a.op(spirv.OpMemberDecorate, 10, 0, uint32(spirv.DecorationOffset), 0)
		a.op(spirv.OpTypeStruct, 10, prev)
		a.op(spirv.OpTypePointer, 12, uint32(spirv.StorageClassPushConstant), 10)
		a.op(spirv.OpVariable, 12, 13, uint32(spirv.StorageClassPushConstant))
		return a.words
	}
	words := build(16, 10)
	require.LessOrEqual(t, len(words), 230)
	_, err := reflectSoon(t, words, 5*time.Second)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.Contains(t, err.Error(), "GiB")

	// Memoized sizes are the sizes: 2^16 int32s.
	r, err := reflectSoon(t, build(16, 2), 5*time.Second)
	require.NoError(t, err)
	require.Equal(t, uint32(4<<16), r.sig.Args[0].Size)
}

// A type that contains itself is an error, not a stack overflow.
func TestReflectTypeCycle(t *testing.T) {
	a := computeHeader(32, 1, 1, 1)
	a.op(spirv.OpTypeStruct, 11, 15)
	a.op(spirv.OpTypeArray, 15, 11, 16)
	a.op(spirv.OpTypeInt, 17, 32, 0)
	a.op(spirv.OpConstant, 17, 16, 2)
	pushOf(a)
	_, err := reflectSoon(t, a.words, 5*time.Second)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.Contains(t, err.Error(), "contains itself")
}

// The id bound is checked: spirv-val's own limit, 0x3FFFFF.
func TestReflectRejectsHugeBound(t *testing.T) {
	a := computeHeader(0xffffffff, 8, 1, 1)
	_, err := reflectSPIRV(a.words, "main")
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.Contains(t, err.Error(), "bound")
	a = computeHeader(maxIDBound, 8, 1, 1)
	_, err = reflectSPIRV(a.words, "main")
	require.NoError(t, err)
}

// The workgroup size is LocalSize, LocalSizeId's constants, or a
// WorkgroupSize built-in constant, which overrides both; Workgroup variables
// add up to the shared memory.
func TestReflectWorkgroupSizeAndSharedMemory(t *testing.T) {
	a := computeHeader(64, 8, 1, 1)
	a.op(spirv.OpDecorate, 30, uint32(spirv.DecorationBuiltIn), uint32(spirv.BuiltInWorkgroupSize))
	a.op(spirv.OpTypeInt, 20, 32, 0)
	a.op(spirv.OpTypeVector, 21, 20, 3)
	a.op(spirv.OpConstant, 20, 22, 64)
	a.op(spirv.OpSpecConstant, 20, 23, 2)
	a.op(spirv.OpConstant, 20, 24, 1)
	a.op(spirv.OpSpecConstantComposite, 21, 30, 22, 23, 24)
	a.op(spirv.OpTypeFloat, 25, 32)
	a.op(spirv.OpTypeArray, 26, 25, 22) // float[64]
	a.op(spirv.OpTypePointer, 27, uint32(spirv.StorageClassWorkgroup), 26)
	a.op(spirv.OpVariable, 27, 28, uint32(spirv.StorageClassWorkgroup))
	a.op(spirv.OpVariable, 27, 29, uint32(spirv.StorageClassWorkgroup))
	m, err := parseSPIRV(a.words, "main")
	require.NoError(t, err)
	require.Equal(t, [3]uint32{64, 2, 1}, m.localSize)
	shared, err := m.sharedMemory()
	require.NoError(t, err)
	require.Equal(t, uint64(2*64*4), shared)
}

// Reflection reads modules with spirv.Read: an instruction the grammar does
// not know, or one with words left over, is refused with the word it is at,
// rather than skipped.
func TestReflectRefusesWhatTheReaderRefuses(t *testing.T) {
	for name, in := range map[string][]uint32{
		"unknown opcode": {1<<16 | 0xfffe},
		"extra words":    {3<<16 | uint32(spirv.OpTypeVoid), 20, 21},
		"bad enumerant":  {2<<16 | uint32(spirv.OpCapability), 0xdead},
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			a := computeHeader(32, 8, 1, 1)
			a.words = append(a.words, in...)
			_, err := reflectSPIRV(a.words, "main")
			require.ErrorIs(t, err, device.ErrInvalidArgument)
			require.ErrorIs(t, err, spirv.ErrMalformed)
			require.ErrorContains(t, err, "word 16")
		})
	}
}

// Constants that size things are integers of their full width: a 64-bit
// LocalSizeId dimension past 32 bits is no device's size (not its low word),
// and a float constant is no array length.
func TestReflectConstantsAreTypedIntegers(t *testing.T) {
	a := newAsm(64)
	a.op(spirv.OpEntryPoint, append([]uint32{uint32(spirv.ExecutionModelGLCompute), 1}, str("main")...)...)
	a.op(spirv.OpExecutionModeId, 1, uint32(spirv.ExecutionModeLocalSizeId), 22, 23, 23)
	a.op(spirv.OpTypeInt, 20, 64, 0)
	a.op(spirv.OpTypeInt, 21, 32, 0)
	a.op(spirv.OpConstant, 20, 22, 8, 1) // 1<<32 | 8
	a.op(spirv.OpConstant, 21, 23, 1)
	m, err := parseSPIRV(a.words, "main")
	require.NoError(t, err)
	require.Equal(t, [3]uint32{math.MaxUint32, 1, 1}, m.localSize)

	a = computeHeader(32, 1, 1, 1)
	a.op(spirv.OpTypeFloat, 14, 32)
	a.op(spirv.OpConstant, 14, 15, math.Float32bits(4))
	a.op(spirv.OpTypeArray, 11, 14, 15)
	pushOf(a)
	_, err = reflectSPIRV(a.words, "main")
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "length %15 of array type %11 is not an integer constant")
}

// FuzzReflect feeds arbitrary words to the reflection parser: it returns a
// signature or an error, never panics, in time linear in the module.
func FuzzReflect(f *testing.F) {
	for _, w := range reflectSeeds(f) {
		f.Add(bytesOfU32(w))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		words := u32s(data)
		start := time.Now()
		if m, err := parseSPIRV(words, "main"); err == nil {
			_, _ = m.sharedMemory()
		}
		_, _ = reflectSPIRV(words, "main")
		if d := time.Since(start); d > time.Second {
			t.Fatalf("%d words took %v", len(words), d)
		}
	})
}

// reflectSeeds are real modules: the device tests' GLSL shaders as glslang
// compiled them (committed under testdata/modules, so fuzzing needs no
// glslang), and the hand-written ones above.
func reflectSeeds(tb testing.TB) [][]uint32 {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "testdata", "modules")
	ents, err := os.ReadDir(dir)
	require.NoError(tb, err)
	var out [][]uint32
	for _, e := range ents {
		if filepath.Ext(e.Name()) != ".spv" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(tb, err)
		out = append(out, u32s(b))
	}
	require.NotEmpty(tb, out)
	a := computeHeader(32, 1, 1, 1)
	a.op(spirv.OpTypeInt, 11, 32, 1)
	out = append(out, pushOf(a).words)
	return out
}
