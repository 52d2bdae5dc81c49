package spirv_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

func needTools(t testing.TB) {
	t.Helper()
	_, err := spvtools.Path()
	testenv.Need(t, "SPIRV-Tools", err)
}

// TestShapesValidate builds each shape for Vulkan 1.1, 1.2 and 1.3 and runs
// spirv-val on it, then checks the reader and disassembler on it: the module
// reads and writes back to the same words, our disassembly is the text
// spirv-dis --raw-id prints, and SPIRV-Tools assembles our text back to the
// same words.
func TestShapesValidate(t *testing.T) {
	needTools(t)
	for _, sh := range shapes {
		for _, env := range []spirv.TargetEnv{spirv.EnvVulkan1_1, spirv.EnvVulkan1_2, spirv.EnvVulkan1_3} {
			t.Run(sh.name+"/"+env.String(), func(t *testing.T) {
				b := sh.build(env)
				words, err := b.Words()
				require.NoError(t, err)
				require.Equal(t, uint32(env.SPIRVVersion()), words[1])
				opts := spvtools.ValidateOptions{ScalarBlockLayout: sh.scalar}
				require.NoError(t, spvtools.ValidateWith(words, env, opts))
				checkRoundTrips(t, words, env)
			})
		}
	}
}

func checkRoundTrips(t *testing.T, words []uint32, env spirv.TargetEnv) {
	t.Helper()
	m, err := spirv.Read(words)
	require.NoError(t, err)
	require.Equal(t, words, m.Words(), "read(write(m)) changed the words")
	m2, err := spirv.Read(m.Words())
	require.NoError(t, err)
	require.Equal(t, m, m2)

	ours := m.Disassemble()
	theirs, err := spvtools.DisassembleRaw(words, env)
	require.NoError(t, err)
	require.Equal(t, theirs, ours, "disassembly differs from spirv-dis --raw-id")
	back, err := spvtools.Assemble(ours, env)
	require.NoError(t, err)
	require.Equal(t, words[:2], back[:2])
	require.Equal(t, words[3:], back[3:], "assembling our disassembly gave other words")
}
