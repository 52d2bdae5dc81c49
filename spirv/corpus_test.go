package spirv_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// compileCorpus compiles every GLSL compute shader of testdata/spirv with
// glslangValidator for env into a temporary directory and returns the
// modules by file name.
func compileCorpus(t testing.TB, env spirv.TargetEnv) map[string][]byte {
	t.Helper()
	glslang, err := exec.LookPath("glslangValidator")
	testenv.Need(t, "glslangValidator", err)
	sources, err := filepath.Glob("../testdata/spirv/*.comp")
	require.NoError(t, err)
	require.NotEmpty(t, sources)
	dir := t.TempDir()
	out := map[string][]byte{}
	for _, src := range sources {
		dst := filepath.Join(dir, filepath.Base(src)+".spv")
		// -gVS adds NonSemantic.Shader.DebugInfo.100 instructions, exercising a
		// second extended set; glslang 11 emits an invalid debug type (id 0) for
		// buffer references, so that shader gets plain -g.
		debug := "-gVS"
		if filepath.Base(src) == "bda.comp" {
			debug = "-g"
		}
		cmd := exec.Command(glslang, "-V", "--target-env", env.String(), debug, "-o", dst, src)
		msg, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", src, msg)
		data, err := os.ReadFile(dst)
		require.NoError(t, err)
		out[filepath.Base(src)] = data
	}
	return out
}

// TestCorpus reads glslang's modules, writes them back byte for byte,
// disassembles them to the text spirv-dis --raw-id prints, and has SPIRV-Tools
// assemble that text back to the same words.
func TestCorpus(t *testing.T) {
	needTools(t)
	for _, env := range []spirv.TargetEnv{spirv.EnvVulkan1_2, spirv.EnvVulkan1_3} {
		for name, data := range compileCorpus(t, env) {
			t.Run(env.String()+"/"+name, func(t *testing.T) {
				m, err := spirv.ReadBytes(data)
				require.NoError(t, err)
				require.Equal(t, data, m.Bytes())
				words := m.Words()
				require.NoError(t, spvtools.ValidateWith(words, env, spvtools.ValidateOptions{ScalarBlockLayout: true}))
				checkRoundTrips(t, words, env)
				require.True(t, strings.HasPrefix(m.Disassemble(), "; SPIR-V\n; Version: "))
			})
		}
	}
}

// TestAliasesDisassembleLikeSpirvDis assembles instructions and enumerants
// that have several spellings in the grammar and checks that we print the
// spelling spirv-dis prints.
func TestAliasesDisassembleLikeSpirvDis(t *testing.T) {
	needTools(t)
	const text = `OpCapability Shader
OpCapability StorageBuffer16BitAccess
OpCapability ShadingRateNV
OpCapability FragmentBarycentricNV
OpMemoryModel PhysicalStorageBuffer64 VulkanKHR
OpEntryPoint RayGenerationKHR %1 "main"
OpExecutionMode %1 OutputLinesEXT
OpDecorate %2 NonUniformEXT
OpDecorate %3 BuiltIn SubgroupEqMaskKHR
OpDecorateStringGOOGLE %2 UserSemantic "x"
OpDecorate %2 PerPrimitiveEXT
%4 = OpTypeAccelerationStructureNV
%5 = OpTypeInt 32 0
%6 = OpTypePointer CallableDataKHR %5
%7 = OpConstant %5 5
%8 = OpSDotKHR %5 %7 %7
%9 = OpReportIntersectionNV %5 %7 %7
OpDemoteToHelperInvocationEXT
`
	words, err := spvtools.Assemble(text, spirv.EnvUniversal1_6)
	require.NoError(t, err)
	theirs, err := spvtools.DisassembleRaw(words, spirv.EnvUniversal1_6)
	require.NoError(t, err)
	ours, err := spirv.Disassemble(words)
	require.NoError(t, err)
	require.Equal(t, theirs, ours)
}

// TestExtInstOperandsTyped checks that OpExtInst operands of a known set are
// typed by that set's grammar (OpenCL.std vloadn takes a literal count,
// vstore_half_r a rounding mode) and print as spirv-dis prints them.
func TestExtInstOperandsTyped(t *testing.T) {
	needTools(t)
	const text = `OpCapability Addresses
OpCapability Kernel
OpCapability Vector16
OpCapability Int64
%1 = OpExtInstImport "OpenCL.std"
OpMemoryModel Physical64 OpenCL
%2 = OpTypeFloat 32
%3 = OpTypeInt 64 0
%4 = OpTypeVector %2 4
%5 = OpTypePointer CrossWorkgroup %2
%6 = OpTypeFloat 16
%7 = OpTypePointer CrossWorkgroup %6
%8 = OpUndef %3
%9 = OpUndef %5
%10 = OpUndef %7
%11 = OpUndef %2
%12 = OpTypeVoid
%13 = OpTypeFunction %12
%14 = OpFunction %12 None %13
%15 = OpLabel
%16 = OpExtInst %4 %1 vloadn %8 %9 4
%17 = OpExtInst %12 %1 vstore_half_r %11 %8 %10 RTE
%18 = OpExtInst %2 %1 fmax %11 %11
OpReturn
OpFunctionEnd
`
	words, err := spvtools.Assemble(text, spirv.EnvUniversal1_2)
	require.NoError(t, err)
	m, err := spirv.Read(words)
	require.NoError(t, err)
	var kinds [][]spirv.OperandKind
	for _, in := range m.Instructions {
		if in.Op == spirv.OpExtInst {
			var k []spirv.OperandKind
			for _, o := range in.Operands[4:] {
				k = append(k, o.Kind)
			}
			kinds = append(kinds, k)
		}
	}
	require.Equal(t, [][]spirv.OperandKind{
		{spirv.KindIdRef, spirv.KindIdRef, spirv.KindLiteralInteger},
		{spirv.KindIdRef, spirv.KindIdRef, spirv.KindIdRef, spirv.KindFPRoundingMode},
		{spirv.KindIdRef, spirv.KindIdRef},
	}, kinds)
	theirs, err := spvtools.DisassembleRaw(words, spirv.EnvUniversal1_2)
	require.NoError(t, err)
	require.Equal(t, theirs, m.Disassemble())
	require.Equal(t, words, m.Words())

	// An instruction number the set does not have is malformed.
	bad := append([]uint32(nil), words...)
	for i := 5; i < len(bad); i += int(bad[i] >> 16) {
		if spirv.Op(bad[i]&0xffff) == spirv.OpExtInst {
			bad[i+4] = 9999
			break
		}
	}
	_, err = spirv.Read(bad)
	require.ErrorIs(t, err, spirv.ErrMalformed)
	require.ErrorContains(t, err, "not an instruction of OpenCL.std")
}
