package frontend_test

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/frontend/programs"
)

// TestProgramsValidate emits every program of the corpus and runs spirv-val
// on it for Vulkan 1.2 and 1.3, with and without native float atomics.
func TestProgramsValidate(t *testing.T) {
	all := programs.All()
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			f, err := all[name]()
			require.NoError(t, err)
			require.NoError(t, f.Validate())
			emitValid(t, f, frontend.Options{})
			emitValid(t, f, frontend.Options{FloatAtomicAdd: true, Names: true})
		})
	}
}
