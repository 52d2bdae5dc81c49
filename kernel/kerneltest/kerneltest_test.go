package kerneltest_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/kernel/kerneltest"
)

func mismatch(t *testing.T, err error) *kerneltest.Mismatch {
	t.Helper()
	require.ErrorIs(t, err, kerneltest.ErrMismatch)
	var m *kerneltest.Mismatch
	require.ErrorAs(t, err, &m)
	return m
}

// TestCompareFloats: floats are equal within the tolerance in ULPs, counted
// across zero and the sign; ±0 are equal, NaNs equal each other only.
func TestCompareFloats(t *testing.T) {
	one := float32(1)
	next := math.Nextafter32(one, 2)
	require.NoError(t, kerneltest.Compare([]float32{0, one}, []float32{0, one}, 0))
	require.NoError(t, kerneltest.Compare([]float32{0, next}, []float32{0, one}, 1))
	m := mismatch(t, kerneltest.Compare([]float32{0, next}, []float32{0, one}, 0))
	require.Equal(t, 1, m.Index)
	require.Equal(t, next, m.Got)
	require.Equal(t, one, m.Want)
	require.Equal(t, uint64(1), m.ULPs)
	require.Contains(t, m.Error(), "element 1: got 1.0000001, want 1 (1 ULPs apart, tolerance 0)")

	negZero := float32(math.Copysign(0, -1))
	require.NoError(t, kerneltest.Compare([]float32{negZero}, []float32{0}, 0))
	tiny := math.Float32frombits(1) // the smallest denormal
	m = mismatch(t, kerneltest.Compare([]float32{-tiny}, []float32{tiny}, 1))
	require.Equal(t, uint64(2), m.ULPs)

	nan := float32(math.NaN())
	require.NoError(t, kerneltest.Compare([]float32{nan}, []float32{nan}, 0))
	m = mismatch(t, kerneltest.Compare([]float32{nan}, []float32{1}, 1000))
	require.Contains(t, m.Error(), "one is NaN")

	require.NoError(t, kerneltest.Compare([]float64{1}, []float64{math.Nextafter(1, 0)}, 1))
	m = mismatch(t, kerneltest.Compare([]float64{math.Inf(-1)}, []float64{math.Inf(1)}, 1<<62))
	require.Equal(t, uint64(2*0x7ff0000000000000), m.ULPs)
}

// TestCompareElements: the first difference names the element and the field
// inside it; integers are exact; lengths must match; a type that is not plain
// data is refused.
func TestCompareElements(t *testing.T) {
	type pair struct {
		A kernel.Float2
		B [2]int32
	}
	want := []pair{{kernel.Float2{X: 1, Y: 2}, [2]int32{3, 4}}, {kernel.Float2{X: 5, Y: 6}, [2]int32{7, 8}}}
	got := append([]pair(nil), want...)
	require.NoError(t, kerneltest.Compare(got, want, 0))
	got[1].B[1] = 9
	got[1].A.Y = 6.5 // earlier in the element: reported first
	m := mismatch(t, kerneltest.Compare(got, want, 4))
	require.Equal(t, 1, m.Index)
	require.Equal(t, ".A.Y", m.Field)
	got[1].A.Y = 6
	m = mismatch(t, kerneltest.Compare(got, want, 1<<40))
	require.Equal(t, ".B[1]", m.Field)
	require.Equal(t, int32(9), m.Got)
	require.Equal(t, "kerneltest: mismatch: element 1.B[1]: got 9, want 8", m.Error())

	m = mismatch(t, kerneltest.Compare([]uint32{1, 2}, []uint32{1}, 0))
	require.Equal(t, -1, m.Index)
	require.Contains(t, m.Error(), "got 2 elements, want 1")

	err := kerneltest.Compare([]*int{nil}, []*int{nil}, 0)
	require.Error(t, err)
	require.NotErrorIs(t, err, kerneltest.ErrMismatch)
	require.Contains(t, err.Error(), "*int is not a number")
}

// ExampleCompare checks a kernel run on the CPU with kernel.Run (or results
// read back from a device) against a float64 reference, allowing 1 ULP.
func ExampleCompare() {
	xs := []float32{0, 1, 2, 3, 4, 5, 6, 7}
	ys := make([]float32, len(xs))
	// The kernel: ys[i] = xs[i]*xs[i]/3.
	err := kernel.Run(context.Background(), kernel.Grid1(4, uint32(len(xs))), func() {
		i := kernel.DispatchID().X
		ys[i] = xs[i] * xs[i] / 3
	})
	if err != nil {
		panic(err)
	}
	want := make([]float32, len(xs))
	for i, x := range xs {
		want[i] = float32(float64(x) * float64(x) / 3)
	}
	fmt.Println(kerneltest.Compare(ys, want, 1))
	want[5] = 8
	fmt.Println(kerneltest.Compare(ys, want, 1))
	// Output:
	// <nil>
	// kerneltest: mismatch: element 5: got 8.333333, want 8 (349525 ULPs apart, tolerance 1)
}
