package gokernel_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/kernel"
	kernels "github.com/lucent-gpu/lucent/testdata/gokernel"
)

func genericsInput(n int) ([]float32, []int32) {
	r := rand.New(rand.NewPCG(15, 3))
	ints := make([]int32, n)
	for i := range ints {
		ints[i] = r.Int32N(21) - 10
	}
	return randFloats(r, n, -2, 2), ints
}

func TestCPUGenerics(t *testing.T) {
	in, ints := genericsInput(100)
	out, iout := make([]float32, 3*len(in)), make([]int32, 3*len(in))
	run(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.Generics(in, ints, out, iout) })
	clamp := func(x, lo, hi float32) float32 { return max(lo, min(x, hi)) }
	for i, x := range in {
		a, b := x+(1-x)*0.25, x+(-1-x)*0.5
		require.InDelta(t, b-a, out[3*i], 1e-6)
		require.InDelta(t, x+a+b+1, out[3*i+1], 1e-5)
		require.InDelta(t, clamp(x, -0.5, 0.5)+clamp(b, -0.5, 0.5)+clamp(-x, -0.5, 0.5)+0.5, out[3*i+2], 1e-5)
		n := ints[i]
		c := max(-3, min(n, 3))
		require.Equal(t, []int32{5 - n, int32(n&7) + 6, max(-4, min(n, 4)) + max(-4, min(c, 4))}, iout[3*i:3*i+3])
	}
}

func TestDeviceGenerics(t *testing.T) {
	g := compileOn(t, openDevice(t), corpus(t)["Generics"])
	in, ints := genericsInput(100)
	ob, ib := upload(g, make([]float32, 3*len(in))), upload(g, make([]int32, 3*len(in)))
	g.submit(g.k.Dispatch([3]uint32{uint32(len(in))}, upload(g, in), upload(g, ints), ob, ib))
	out, iout := make([]float32, 3*len(in)), make([]int32, 3*len(in))
	cpu(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.Generics(in, ints, out, iout) })
	requireClose(t, out, download(g, ob), 1e-5)
	require.Equal(t, iout, download(g, ib))
}
