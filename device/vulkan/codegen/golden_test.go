package codegen_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

var update = flag.Bool("update", false, "rewrite the golden disassembly in testdata/golden")

// TestGoldenDisassembly compares the disassembly of a few kernels with
// testdata/golden/<name>.spvasm; run with -update after an intended
// codegen change (and bump Version).
func TestGoldenDisassembly(t *testing.T) {
	for _, name := range []string{"saxpy", "mandelbrot", "reduce", "callables", "blur"} {
		t.Run(name, func(t *testing.T) {
			f, err := programs.All()[name]()
			require.NoError(t, err)
			w, err := codegen.Emit(f, codegen.Options{Env: spirv.EnvVulkan1_2, Names: true})
			require.NoError(t, err)
			got, err := spvtools.Disassemble(w, spirv.EnvVulkan1_2)
			if _, lerr := spvtools.Path(); lerr != nil {
				testenv.Need(t, "SPIRV-Tools", lerr)
			}
			require.NoError(t, err)
			path := filepath.Join("testdata", "golden", name+".spvasm")
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -update to create it")
			require.Equal(t, string(want), got, "codegen of %s changed; run go test -update if intended", name)
		})
	}
}

// TestEmitAfterRoundTrip: a kernel read back from its serialised form
// (ir.MarshalKernel) compiles to the very same words, debug names
// included.
func TestEmitAfterRoundTrip(t *testing.T) {
	for name, build := range programs.All() {
		f, err := build()
		require.NoError(t, err, name)
		data, err := ir.MarshalKernel(f)
		require.NoError(t, err, name)
		g, err := ir.UnmarshalKernel(data)
		require.NoError(t, err, name)
		want, err := codegen.Emit(f, codegen.Options{Names: true})
		require.NoError(t, err, name)
		got, err := codegen.Emit(g, codegen.Options{Names: true})
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
	}
}
