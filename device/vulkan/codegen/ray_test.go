package codegen_test

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/spirv"
)

// TestRayKernelValidates emits a kernel tracing closest and any-hit rays
// for both paths and has spirv-val check it.
func TestRayKernelValidates(t *testing.T) {
	f := programs.RayTrace()
	require.NoError(t, f.Validate())
	native := emitValid(t, f, codegen.Options{NativeRayQuery: true})
	soft := emitValid(t, f, codegen.Options{})
	m, err := spirv.Read(native)
	require.NoError(t, err)
	require.Contains(t, m.Disassemble(), "OpRayQueryProceedKHR")
	m, err = spirv.Read(soft)
	require.NoError(t, err)
	require.NotContains(t, m.Disassemble(), "RayQuery", "the software path needs no ray-query support")
	// Reading by address only, the traversal is emitted once, not twice.
	byAddr := emitValid(t, f, codegen.Options{SoftAccelByAddress: true})
	require.Less(t, len(byAddr), len(soft)*2/3)
	m, err = spirv.Read(byAddr)
	require.NoError(t, err)
	require.Contains(t, m.Disassemble(), "PhysicalStorageBuffer")
}

// TestRayAccelLayout places an accel argument: 16 push-constant bytes at an
// 8-aligned offset (its two words) on both paths; with the software
// traversal also a binding in argument order (its buffer), which moves the
// later resources' bindings, natively none.
func TestRayAccelLayout(t *testing.T) {
	args, lay := codegen.Layout(programs.RayTrace(), codegen.Options{})
	require.Equal(t, -1, args[0].Binding)
	require.Equal(t, 0, args[0].Bound, "the accel's buffer")
	require.Equal(t, 24, args[0].Offset)
	require.Equal(t, 1, args[1].Binding, "buffers take the bindings after it")
	require.Equal(t, -1, args[1].Bound)
	require.Equal(t, 40, args[4].Offset, "the uniform after the accel")
	require.Equal(t, 44, lay.Size)

	args, lay = codegen.Layout(programs.RayTrace(), codegen.Options{NativeRayQuery: true})
	require.Equal(t, -1, args[0].Binding)
	require.Equal(t, -1, args[0].Bound, "no binding natively")
	require.Equal(t, 24, args[0].Offset)
	require.Equal(t, 0, args[1].Binding, "buffers take bindings from 0")
	require.Equal(t, 40, args[4].Offset, "the uniform after the accel")
	require.Equal(t, 44, lay.Size)
}

// TestNoTraceUnchangedByRayOption: a kernel that does not trace emits the
// same words whichever ray path the device takes.
func TestNoTraceUnchangedByRayOption(t *testing.T) {
	all := programs.All()
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		f, err := all[name]()
		require.NoError(t, err)
		a, err := codegen.Emit(f, codegen.Options{Names: true})
		require.NoError(t, err, name)
		b, err := codegen.Emit(f, codegen.Options{Names: true, NativeRayQuery: true})
		require.NoError(t, err, name)
		require.Equal(t, a, b, name)
	}
}

// TestRayOnNonArgument refuses a ray query whose accel is not a kernel
// argument, naming it, rather than crashing.
func TestRayOnNonArgument(t *testing.T) {
	f := programs.RayTrace()
	call := f.Body.Stmts[0].(*ir.Assign).Src.(*ir.Call)
	call.Args[0] = &ir.Ref{Var: &ir.Var{Name: "stray", Type: ir.Accel, Kind: ir.VarLocal}}
	_, err := codegen.Emit(f, codegen.Options{NativeRayQuery: true})
	require.Error(t, err)
	require.ErrorContains(t, err, "stray")
}
