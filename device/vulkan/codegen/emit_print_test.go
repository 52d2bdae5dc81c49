package codegen_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/spirv"
)

// printing builds saxpy, printing (in the kernel and in a callable) when
// prints is set.
func printing(t *testing.T, prints bool) *ir.Function {
	t.Helper()
	show := dsl.Callable("show", func(k *dsl.K, x dsl.F32, h dsl.Val[int16]) {
		k.Printf("callable %f %d", x, h)
	})
	f, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		v := a.Mul(x.Read(i)).Add(y.Read(i))
		if prints {
			k.Printf("%d %v %t %d %x %g", i, k.DispatchID(), i.Lt(dsl.U(3)), dsl.Lit(int64(-5)), dsl.Lit(uint64(7)), dsl.Lit(2.5))
			show(k, v, dsl.Lit(int16(-2)))
		}
		y.Write(i, v)
	})
	require.NoError(t, err)
	return f
}

// A kernel that prints passes spirv-val, with the ring's address after its
// uniforms; one that does not has no ring, and its words are what they were
// before printing existed (the golden disassembly holds them).
func TestEmitPrint(t *testing.T) {
	f := printing(t, true)
	emitValid(t, f, codegen.Options{})
	_, lay := codegen.Layout(f, codegen.Options{})
	require.Equal(t, 32, lay.Ring, "after the header (24) and a (4), 8-aligned")
	require.Equal(t, 48, lay.Size)

	g := printing(t, false)
	_, lay = codegen.Layout(g, codegen.Options{})
	require.Equal(t, -1, lay.Ring)
	require.Equal(t, 28, lay.Size)
	words := emitValid(t, g, codegen.Options{})
	for _, c := range []spirv.Capability{spirv.CapabilityPhysicalStorageBufferAddresses, spirv.CapabilityInt64, spirv.CapabilityInt16} {
		require.NotContains(t, capabilities(words), c)
	}
}

// capabilities lists the OpCapability operands of a module.
func capabilities(words []uint32) []spirv.Capability {
	var out []spirv.Capability
	for i := 5; i < len(words); {
		n, op := words[i]>>16, spirv.Op(words[i]&0xffff)
		if n == 0 {
			break
		}
		if op == spirv.OpCapability {
			out = append(out, spirv.Capability(words[i+1]))
		}
		i += int(n)
	}
	return out
}

// The checked mode passes spirv-val on the corpus, adds the print ring, and
// leaves the unchecked module as it was: off, the words are the same as
// those of a build that never heard of checking (the golden disassembly).
func TestEmitChecked(t *testing.T) {
	for _, build := range []func() (*ir.Function, error){programs.Saxpy, programs.Mandelbrot, programs.Reduce, programs.Histogram, programs.SaxpyAddress, programs.Control} {
		f, err := build()
		require.NoError(t, err)
		plain := emitValid(t, f, codegen.Options{})
		checked := emitValid(t, f, codegen.Options{Checked: true})
		emitValid(t, f, codegen.Options{Checked: true, SubgroupVote: true})
		require.NotEqual(t, plain, checked, f.Name)
		require.Contains(t, capabilities(checked), spirv.CapabilityPhysicalStorageBufferAddresses, f.Name)
		again, err := codegen.Emit(f, codegen.Options{Env: spirv.EnvVulkan1_3, Checked: false}) // emitValid returns the 1.3 module
		require.NoError(t, err)
		require.Equal(t, plain, again, f.Name)
		_, lay := codegen.Layout(f, codegen.Options{Checked: true})
		require.Positive(t, lay.Ring, f.Name)
	}
}
