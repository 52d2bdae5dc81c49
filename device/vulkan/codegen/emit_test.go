package codegen_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// emitValid emits f and checks the module with spirv-val for Vulkan 1.2 and 1.3.
func emitValid(t *testing.T, f *ir.Function, opts codegen.Options) []uint32 {
	t.Helper()
	var words []uint32
	for _, env := range []spirv.TargetEnv{spirv.EnvVulkan1_2, spirv.EnvVulkan1_3} {
		opts.Env = env
		w, err := codegen.Emit(f, opts)
		require.NoError(t, err)
		err = spvtools.ValidateWith(w, env, spvtools.ValidateOptions{ScalarBlockLayout: true})
		if err != nil {
			if _, lerr := spvtools.Path(); lerr != nil {
				testenv.Need(t, "SPIRV-Tools", lerr)
			}
			dis, _ := spvtools.Disassemble(w, env)
			t.Log(dis)
		}
		require.NoError(t, err, "spirv-val %v", env)
		words = w
	}
	return words
}

func TestEmitSaxpy(t *testing.T) {
	f, err := dsl.Kernel1D(256, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		y.Write(i, a.Mul(x.Read(i)).Add(y.Read(i)))
	})
	require.NoError(t, err)
	emitValid(t, f, codegen.Options{})
}
