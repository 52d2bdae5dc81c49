package gokernel_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/jumps"
)

func jumpsInput() (in, arr []int32) {
	in = make([]int32, 40)
	for i := range in {
		in[i] = int32(i*7%23) + int32(i/23)
	}
	return in, []int32{3, -2, 7, 0, 41, 5, -9, 8, 45, 2, 6}
}

// jumpsKernels runs the kernels of testdata/gokernel/jumps under
// kernel.Run: each one's name, the results it wrote and how many a thread
// writes, with its arguments.
func jumpsKernels(t *testing.T) []jumpsRun {
	in, arr := jumpsInput()
	g := kernel.Grid1(16, uint32(len(in)))
	chains := make([]int32, len(in)*jumps.ChainCols)
	cpu(t, g, func() { jumps.Chains(in, arr, chains) })
	switches := make([]int32, len(in)*jumps.SwitchCols)
	cpu(t, g, func() { jumps.Switches(in, arr, switches) })
	return []jumpsRun{
		{"Chains", chains, jumps.ChainCols, []any{in, arr}},
		{"Switches", switches, jumps.SwitchCols, []any{in, arr}},
	}
}

type jumpsRun struct {
	name string
	want []int32
	cols int
	args []any // the input slices
}

// TestLabelledJumps: labelled break and continue out of nested for and
// range loops, break inside switches (device switches and if/else chains),
// inside and outside loops, and labelled break from a switch or from a
// loop inside a labelled switch compute on the devices and in the
// interpreter what the same Go functions compute under kernel.Run.
func TestLabelledJumps(t *testing.T) {
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/jumps")
	require.Empty(t, errs)
	byName := map[string]*gokernel.Kernel{}
	for _, k := range ks {
		require.NoError(t, k.Func.Validate(), k.Name)
		byName[k.Name] = k
	}
	runs := jumpsKernels(t)
	require.Len(t, byName, len(runs))
	for _, r := range runs {
		k := byName[r.name]
		require.NotNil(t, k, r.name)
		in := r.args[0].([]int32)
		t.Run(r.name, func(t *testing.T) {
			out := interp.NewBuffer(ir.TI32, len(r.want))
			var args []any
			for _, a := range r.args {
				args = append(args, ibuf(ir.TI32, a.([]int32)))
			}
			require.NoError(t, interp.Run(k.Func, [3]uint32{uint32(len(in)), 1, 1}, append(args, out)...))
			got := make([]int32, len(r.want))
			require.NoError(t, binary.Read(bytes.NewReader(out.Data), binary.LittleEndian, got))
			requireJumps(t, r, got)

			for _, backend := range []string{"vulkan", "cpu"} {
				t.Run(backend, func(t *testing.T) {
					g := compileOn(t, openBackend(t, backend), k)
					ob := upload(g, make([]int32, len(r.want)))
					var args []any
					for _, a := range r.args {
						args = append(args, upload(g, a.([]int32)))
					}
					g.submit(g.k.Dispatch([3]uint32{uint32(len(in))}, append(args, ob)...))
					requireJumps(t, r, download(g, ob))
				})
			}
		})
	}
}

func requireJumps(t *testing.T, r jumpsRun, got []int32) {
	t.Helper()
	in := r.args[0].([]int32)
	require.Len(t, got, len(r.want))
	for i := range r.want {
		require.Equal(t, r.want[i], got[i], "%s: thread %d (in %d) column %d", r.name, i/r.cols, in[i/r.cols], i%r.cols)
	}
}
