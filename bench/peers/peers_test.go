package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestBothSidesCompute opens both libraries on the machine's Vulkan driver
// and checks that each computes every operation right (the harness's own
// check before it times anything).
func TestBothSidesCompute(t *testing.T) {
	l, err := newLucent()
	testenv.Need(t, "a Vulkan device", err)
	defer l.close()
	w, err := newWGPU()
	require.NoError(t, err, "gogpu/wgpu on the same driver")
	defer w.close()
	require.NoError(t, l.check())
	require.NoError(t, w.check())
	for _, n := range ops {
		if n == "chain" || n == "saxpy" {
			continue // checked above; the timed loop is what run covers
		}
		_, err := sample(l, n)
		require.NoError(t, err, "lucent %s", n)
	}
}

// TestChecksCatchWrongResults: the result checks name the first wrong
// element, so a side that computes wrong cannot be timed.
func TestChecksCatchWrongResults(t *testing.T) {
	ys := make([]float32, 8)
	for i := range ys {
		x, y := saxpyInput(i)
		ys[i] = saxpyA*x + y
	}
	require.NoError(t, checkSaxpy("x", ys))
	ys[5]++
	require.ErrorContains(t, checkSaxpy("x", ys), "element 5")

	chain := []float32{chainLength, chainLength - 1}
	require.ErrorContains(t, checkChain("x", chain), "element 1")

	tr := transferData()[:10]
	require.NoError(t, checkTransfer("x", tr))
	tr[3] = -1
	require.ErrorContains(t, checkTransfer("x", tr), "element 3")
}

func TestUnknownOperation(t *testing.T) {
	require.ErrorContains(t, run(1, []string{"chain", "mandelbrot"}), `unknown operation "mandelbrot"`)
}
