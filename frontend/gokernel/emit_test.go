package gokernel_test

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// TestEmitCorpus lowers every corpus kernel to SPIR-V with frontend's
// codegen and checks each module with spirv-val (Vulkan 1.2, scalar layout).
func TestEmitCorpus(t *testing.T) {
	ks := corpus(t)
	names := make([]string, 0, len(ks))
	for n := range ks {
		names = append(names, n)
	}
	sort.Strings(names)
	if _, err := spvtools.Path(); err != nil {
		testenv.Need(t, "SPIRV-Tools", err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			words, err := codegen.Emit(ks[name].Func, codegen.Options{Env: spirv.EnvVulkan1_2, FloatAtomicAdd: true})
			require.NoError(t, err)
			require.Equal(t, uint32(0x07230203), words[0], "SPIR-V magic")
			err = spvtools.ValidateWith(words, spirv.EnvVulkan1_2, spvtools.ValidateOptions{ScalarBlockLayout: true})
			if err != nil {
				dis, _ := spvtools.Disassemble(words, spirv.EnvVulkan1_2)
				t.Log(dis)
			}
			require.NoError(t, err)
		})
	}
}
