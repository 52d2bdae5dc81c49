package gokernel_test

import (
	"bytes"
	"encoding/binary"
	"strings"
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
	lanes := make([]int32, len(in)*jumps.LaneCols)
	cpu(t, g, func() { jumps.Lanes(in, lanes) })
	falls := make([]int32, len(in)*jumps.FallCols)
	cpu(t, g, func() { jumps.Falls(in, arr, falls) })
	gotos := make([]int32, len(in)*jumps.GotoCols)
	cpu(t, g, func() { jumps.Gotos(in, arr, gotos) })
	return []jumpsRun{
		{"Gotos", gotos, jumps.GotoCols, []any{in, arr}},
		{"Falls", falls, jumps.FallCols, []any{in, arr}},
		{"Chains", chains, jumps.ChainCols, []any{in, arr}},
		{"Switches", switches, jumps.SwitchCols, []any{in, arr}},
		{"Lanes", lanes, jumps.LaneCols, []any{in}},
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
// loop inside a labelled switch, and fallthrough (into the next clause,
// the default, a chain of them, left by break, continue and labelled
// break), and goto forward (out of loops and switches, over statements,
// to labels whose spans overlap) compute on the devices and in the
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

// TestSwitchTrailingBreak: a break ending a clause of a switch lowered to
// an if/else chain does nothing and costs nothing (no loop around the
// chain, as C habits write it); one inside the clause leaves the switch
// through a loop that runs once, and both give Go's results.
func TestSwitchTrailingBreak(t *testing.T) {
	src := `package p

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=4
func K(out []int64) {
	i := int64(kernel.DispatchID().X)
	switch {
	case i == 1:
		out[i] = 10
		break
	case i > 1:
		out[i] = 20
	default:
		out[i] = 30
		break
	}
	for j := range int64(3) {
		switch j + i {
		case 2:
			if i == 2 {
				break
			}
			out[i] += 100
		case 3:
			out[i] += 1000
			break
		}
		out[i] += 1
	}
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	ir := ks[0].Func.String()
	require.Equal(t, 1, strings.Count(ir, "loop {"), "one loop that runs once, for the second switch's inner break:\n%s", ir)
	// The kernel's body, for thread i, in Go.
	want := make([]int64, 4)
	for i := range int64(4) {
		out := want
		switch {
		case i == 1:
			out[i] = 10
			break
		case i > 1:
			out[i] = 20
		default:
			out[i] = 30
			break
		}
		for j := range int64(3) {
			switch j + i {
			case 2:
				if i == 2 {
					break
				}
				out[i] += 100
			case 3:
				out[i] += 1000
				break
			}
			out[i] += 1
		}
	}
	require.Equal(t, []int64{133, 1113, 1023, 1023}, want)
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			g := compileOn(t, openBackend(t, backend), ks[0])
			ob := upload(g, make([]int64, 4))
			g.submit(g.k.Dispatch([3]uint32{4}, ob))
			require.Equal(t, want, download(g, ob))
		})
	}
}
