package gokernel_test

import (
	"sync"
	"testing"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/stretchr/testify/require"
)

const corpusPath = "github.com/lucent-gpu/lucent/testdata/gokernel"

var (
	corpusOnce    sync.Once
	corpusKernels map[string]*gokernel.Kernel
	corpusErrs    []error
)

// corpus loads the positive corpus once per test binary.
func corpus(t testing.TB) map[string]*gokernel.Kernel {
	corpusOnce.Do(func() {
		ks, errs := gokernel.Load(corpusPath)
		corpusErrs = errs
		corpusKernels = map[string]*gokernel.Kernel{}
		for _, k := range ks {
			corpusKernels[k.Name] = k
		}
	})
	require.Empty(t, corpusErrs)
	return corpusKernels
}

func TestLoadCorpus(t *testing.T) {
	ks := corpus(t)
	want := []string{"Saxpy", "Mandelbrot", "Waves", "Reduce", "PrefixSum", "Histogram", "MatMul", "SubgroupSum",
		"NBody", "Life", "Particles", "Corners", "Transform", "Lang", "Gradient", "Trace", "Blur", "Gather", "Atomics", "Subgroups", "Matrices", "BlockStats",
		"SampleBlur", "TextureGather", "FloatMath", "FloatAtomics", "Generics", "ClosestHits", "TextureLife", "BindlessLoad",
		"PointerStep", "StackEval", "Windows", "Axes"}
	for _, name := range want {
		k, ok := ks[name]
		require.True(t, ok, "kernel %s not found", name)
		require.NoError(t, k.Func.Validate(), name)
		require.Equal(t, corpusPath, k.Package)
	}
	require.Len(t, ks, len(want))
	require.Equal(t, [3]uint32{16, 16, 1}, ks["Mandelbrot"].Block)
	require.Equal(t, 2, ks["Mandelbrot"].Dim)
	require.Equal(t, [3]uint32{256, 1, 1}, ks["Saxpy"].Block)
}
