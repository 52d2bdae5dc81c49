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
		cmd := exec.Command(glslang, "-V", "--target-env", env.String(), "-g", "-o", dst, src)
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
