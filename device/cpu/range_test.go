package cpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
)

// TestRangeOverBufferOnLanes: a Go-subset kernel ranging over a buffer and
// over a view of one, its key an int, runs on the lane engine (its count
// a uint32, as every buffer length is; a 64-bit one kept such kernels on
// the per-thread engine, 26x the time of an indexed loop) and computes
// what Go does, a write to the key included.
func TestRangeOverBufferOnLanes(t *testing.T) {
	src := `package p

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func K(buf []int32, out []int32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(out)) {
		return
	}
	s := int32(0)
	for k, v := range buf {
		s += v * int32(k%3+1)
		k += 100 // the next key is the next index all the same
		if k == 100+int(i)%7 {
			s++
		}
	}
	for k, v := range buf[i%5 : i%5+4] {
		s += int32(k) * v
	}
	out[i] = s
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	on, why, err := cpu.LaneEngine(ks[0].Func)
	require.NoError(t, err)
	require.True(t, on, why)

	buf := []int32{3, -1, 4, 1, -5, 9, 2, -6, 5, 3}
	const n = 70
	want := make([]int32, n)
	for i := range want { // the kernel's body in Go
		s := int32(0)
		for k, v := range buf {
			s += v * int32(k%3+1)
			k += 100
			if k == 100+i%7 {
				s++
			}
		}
		for k, v := range buf[i%5 : i%5+4] {
			s += int32(k) * v
		}
		want[i] = s
	}
	d := open(t)
	k, err := device.Compile(d, ks[0].Func)
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	out := upload(t, d, make([]int32, n))
	run(t, d, k.Dispatch([3]uint32{n}, upload(t, d, buf), out))
	require.Equal(t, want, download(t, d, out))
}
