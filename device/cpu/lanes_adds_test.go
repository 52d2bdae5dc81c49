package cpu

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// TestAddOnly: a buffer is added up per worker only where the kernel does
// nothing with it but atomic adds whose old values go nowhere.
func TestAddOnly(t *testing.T) {
	names := func(f *ir.Function) []string {
		var out []string
		for _, v := range f.Params {
			if addOnly(f)[v] {
				out = append(out, v.Name)
			}
		}
		return out
	}
	h, err := programs.Histogram()
	require.NoError(t, err)
	require.Equal(t, []string{h.Params[1].Name}, names(h), "the histogram's bins")

	for _, c := range []struct {
		name string
		body func(k *dsl.K, in, bins dsl.Buf[dsl.U32])
		want []string
	}{
		{"adds and a length", func(k *dsl.K, in, bins dsl.Buf[dsl.U32]) {
			bins.AtomicAdd(in.Read(k.DispatchID().X()).Rem(bins.Len()), dsl.U(1))
		}, []string{"bins"}},
		{"the old value read", func(k *dsl.K, in, bins dsl.Buf[dsl.U32]) {
			in.Write(k.DispatchID().X(), bins.AtomicAdd(dsl.U(0), dsl.U(1)))
		}, nil},
		{"a store too", func(k *dsl.K, in, bins dsl.Buf[dsl.U32]) {
			bins.AtomicAdd(dsl.U(0), dsl.U(1))
			bins.Write(dsl.U(1), dsl.U(7))
		}, nil},
		{"a load too", func(k *dsl.K, in, bins dsl.Buf[dsl.U32]) {
			bins.AtomicAdd(dsl.U(0), in.Read(dsl.U(0)))
			in.Write(dsl.U(1), bins.Read(dsl.U(2)))
		}, nil},
		{"another atomic", func(k *dsl.K, in, bins dsl.Buf[dsl.U32]) {
			bins.AtomicAdd(dsl.U(0), dsl.U(1))
			bins.Atomic(ir.OpAtomicMax, dsl.U(1), dsl.U(3))
		}, nil},
	} {
		f, err := dsl.Kernel1D(64, c.body, "in", "bins")
		require.NoError(t, err, c.name)
		require.Equal(t, c.want, names(f), c.name)
	}
}
