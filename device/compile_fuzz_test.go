package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/frontend/programs"
)

// TestRandomKernelsAgainstCPU is a differential test: random integer
// expression kernels run on the device must match the same expressions
// evaluated in Go, over every pair of the integer edge cases.
func TestRandomKernelsAgainstCPU(t *testing.T) {
	d := openDevice(t)
	var xs, ys []uint32
	for _, x := range programs.IntInputs {
		for _, y := range programs.IntInputs {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	seeds := uint64(40)
	if testing.Short() {
		seeds = 8
	}
	bx, by := upload(t, d, xs), upload(t, d, ys)
	out := upload(t, d, make([]uint32, len(xs)*programs.RandomExprs))
	for seed := range seeds {
		f, ref, err := programs.RandomInt(seed)
		require.NoError(t, err)
		k := compile(t, d, func() (*frontend.Function, error) { return f, nil })
		run(t, d, k.Dispatch([3]uint32{uint32(len(xs))}, bx, by, out))
		got := download(t, d, out)
		for i := range xs {
			want := ref(xs[i], ys[i])
			require.Equal(t, want, got[i*programs.RandomExprs:(i+1)*programs.RandomExprs], "seed %d, x=%#x y=%#x", seed, xs[i], ys[i])
		}
	}
}
