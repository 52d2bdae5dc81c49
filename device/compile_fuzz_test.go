package device_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// TestRandomKernelsAgainstCPU is a differential test: random integer
// expression kernels run on the device must match the same expressions
// evaluated in Go, over every pair of the integer edge cases; some of the
// expressions are computed by helpers that take the buffers.
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
	helpers := 0
	for seed := range seeds {
		f, ref, err := programs.RandomInt(seed)
		require.NoError(t, err)
		helpers += len(f.Callees())
		k := compile(t, d, func() (*ir.Function, error) { return f, nil })
		run(t, d, k.Dispatch([3]uint32{uint32(len(xs))}, bx, by, out))
		got := download(t, d, out)
		for i := range xs {
			want := ref(xs[i], ys[i])
			require.Equal(t, want, got[i*programs.RandomExprs:(i+1)*programs.RandomExprs], "seed %d, x=%#x y=%#x", seed, xs[i], ys[i])
		}
	}
	require.NotZero(t, helpers, "no expression went through a helper taking the buffers")
}

// TestRandomFloatKernelsAgainstInterp diffs random float kernels on the
// device against the CPU interpreter running the same AST. Operations are
// chosen to stay positive and well conditioned, so a relative tolerance of
// 1e-5 covers the device's freedom (fused multiply-adds, GLSL.std.450 error
// bounds) without hiding real bugs, which give wrong values, not ULPs.
func TestRandomFloatKernelsAgainstInterp(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(11, 12))
	const n = 64
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = 0.01+r.Float32()*10, 0.01+r.Float32()*10
	}
	bx, by := upload(t, d, xs), upload(t, d, ys)
	out := upload(t, d, make([]float32, n*programs.RandomExprs))
	for seed := range uint64(20) {
		f, err := programs.RandomFloat(seed)
		require.NoError(t, err)
		k := compile(t, d, func() (*ir.Function, error) { return f, nil })
		run(t, d, k.Dispatch([3]uint32{n}, bx, by, out))
		got := download(t, d, out)
		ref := interp.NewBuffer(ir.TF32, n*programs.RandomExprs)
		require.NoError(t, interp.Run(f, [3]uint32{n, 1, 1},
			&interp.Buffer{Elem: ir.TF32, Data: f32bytes(xs)}, &interp.Buffer{Elem: ir.TF32, Data: f32bytes(ys)}, ref))
		want := bytesF32(ref.Data)
		for i := range want {
			require.InDelta(t, want[i], got[i], 1e-5*math.Max(1, math.Abs(float64(want[i]))), "seed %d element %d", seed, i)
		}
	}
}

func f32bytes(v []float32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}

func bytesF32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
