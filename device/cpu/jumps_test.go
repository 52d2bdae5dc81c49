package cpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/jumps"
)

// TestJumpsBothEngines: the kernels of testdata/gokernel/jumps (labelled
// break and continue, breaks out of switches, lowered to flags the
// constructs they leave test) give on the lane engine and on the
// per-thread engine what they give under kernel.Run; Chains (no device
// switch) and Lanes (device switches) run on the lane engine.
func TestJumpsBothEngines(t *testing.T) {
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/jumps")
	require.Empty(t, errs)
	in := make([]int32, 45)
	for i := range in {
		in[i] = int32(i*11%29) + int32(i/29)*3
	}
	arr := []int32{5, 44, -1, 2, 0, 7, 50, 3}
	d := open(t)
	for _, k := range ks {
		var want []int32
		var args []any
		grid := kernel.Grid1(16, uint32(len(in)))
		switch k.Name {
		case "Chains":
			want = make([]int32, len(in)*jumps.ChainCols)
			require.NoError(t, kernel.Run(context.Background(), grid, func() { jumps.Chains(in, arr, want) }))
			args = []any{upload(t, d, in), upload(t, d, arr)}
			on, why, err := cpu.LaneEngine(k.Func)
			require.NoError(t, err)
			require.True(t, on, why)
		case "Switches":
			want = make([]int32, len(in)*jumps.SwitchCols)
			require.NoError(t, kernel.Run(context.Background(), grid, func() { jumps.Switches(in, arr, want) }))
			args = []any{upload(t, d, in), upload(t, d, arr)}
		case "Lanes":
			want = make([]int32, len(in)*jumps.LaneCols)
			require.NoError(t, kernel.Run(context.Background(), grid, func() { jumps.Lanes(in, want) }))
			args = []any{upload(t, d, in)}
			on, why, err := cpu.LaneEngine(k.Func)
			require.NoError(t, err)
			require.True(t, on, why)
		case "Falls":
			want = make([]int32, len(in)*jumps.FallCols)
			require.NoError(t, kernel.Run(context.Background(), grid, func() { jumps.Falls(in, arr, want) }))
			args = []any{upload(t, d, in), upload(t, d, arr)}
		case "Gotos":
			want = make([]int32, len(in)*jumps.GotoCols)
			require.NoError(t, kernel.Run(context.Background(), grid, func() { jumps.Gotos(in, arr, want) }))
			args = []any{upload(t, d, in), upload(t, d, arr)}
		default:
			t.Fatalf("kernel %s", k.Name)
		}
		for _, lanes := range []bool{true, false} {
			old := cpu.SetLaneEngine(lanes)
			dk, err := device.Compile(d, k.Func)
			cpu.SetLaneEngine(old)
			require.NoError(t, err)
			out := upload(t, d, make([]int32, len(want)))
			run(t, d, dk.Dispatch([3]uint32{uint32(len(in))}, append(args, out)...))
			require.Equal(t, want, download(t, d, out), "%s, lane engine %v", k.Name, lanes)
			require.NoError(t, dk.Close())
		}
	}
}
