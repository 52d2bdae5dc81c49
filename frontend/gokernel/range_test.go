package gokernel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
)

// TestRangeOverArrayCopies: ranging over an array value visits a copy of it,
// as Go does, so the body's writes to the array (directly, or through a
// pointer parameter) do not change the elements it visits; ranging over a
// buffer reads the elements as they are, on both backends.
func TestRangeOverArrayCopies(t *testing.T) {
	src := `package p

import "github.com/lucent-gpu/lucent/kernel"

func rotate(a *[3]int32) int32 {
	s := int32(0)
	for k, e := range *a {
		a[(k+1)%3] += e
		s = s*10 + a[k]
	}
	return s
}

//lucent:kernel block=4
func K(x, y []int32, out []int32) {
	i := kernel.DispatchID().X
	arr := [3]int32{x[i], -x[i], 2 * x[i]}
	for k, e := range arr {
		arr[2-k] += e
	}
	out[3*i] = arr[0] + arr[1]*10 + arr[2]*100
	b := [3]int32{1, 2, 3}
	out[3*i+1] = rotate(&b)
	s := int32(0)
	for _, e := range y[2*i : 2*i+2] {
		y[2*i+1] = 5
		s += e
	}
	out[3*i+2] = s
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	x := []int32{1, 2, 3, 4}
	y := []int32{10, 0, 20, 0, 30, 0, 40, 0}
	want := make([]int32, 12)
	for i, v := range x {
		// Go visits v, -v, 2v: arr becomes {3v, -2v, 3v}.
		want[3*i] = 3*v - 2*v*10 + 3*v*100
		// rotate visits 1, 2, 3: a becomes {1, 3, 3}, {1, 3, 5}, {4, 3, 5},
		// and s reads a[k] after each write: 1, 13, 135.
		want[3*i+1] = 135
		// A buffer is not copied: the loop reads the 5 written before.
		want[3*i+2] = y[2*i] + 5
	}
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			g := compileOn(t, openBackend(t, backend), ks[0])
			ob := upload(g, make([]int32, 12))
			g.submit(g.k.Dispatch([3]uint32{4}, upload(g, x), upload(g, y), ob))
			require.Equal(t, want, download(g, ob))
		})
	}
}
