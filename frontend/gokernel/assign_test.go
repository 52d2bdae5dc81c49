package gokernel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
)

// TestUpdateEvaluatesPlaceOnce: x op= y and x++ evaluate x's indices once,
// as Go does, where an index calls a helper that writes through a pointer
// or does an atomic, on both backends.
func TestUpdateEvaluatesPlaceOnce(t *testing.T) {
	src := `package p

import "github.com/lucent-gpu/lucent/kernel"

func bump(k *uint32) uint32 { *k++; return *k }

//lucent:kernel block=4
func K(slots []uint32, out []uint32) {
	i := kernel.DispatchID().X
	k := uint32(0)
	var arr [4]uint32
	arr[bump(&k)%4] += 7
	arr[bump(&k)%4]++
	out[4*i] = k*100 + arr[1] + arr[2]*10
	out[4*i+1+kernel.AtomicAdd(&slots[i], 1)%3] += 5
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			g := compileOn(t, openBackend(t, backend), ks[0])
			sb := upload(g, make([]uint32, 4))
			ob := upload(g, make([]uint32, 16))
			g.submit(g.k.Dispatch([3]uint32{4}, sb, ob))
			// k reaches 2; arr[1] gets 7 and arr[2] 1; out[4i+1] gets 5.
			require.Equal(t, []uint32{217, 5, 0, 0, 217, 5, 0, 0, 217, 5, 0, 0, 217, 5, 0, 0}, download(g, ob))
			require.Equal(t, []uint32{1, 1, 1, 1}, download(g, sb))
		})
	}
}
