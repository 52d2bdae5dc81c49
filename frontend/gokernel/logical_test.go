package gokernel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
)

// TestShortCircuit: x && y and x || y evaluate y only where x does not
// decide, as Go does, when y calls a helper that writes through a pointer,
// does an atomic, or needs statements of its own (a helper given a buffer
// element), in an if and in a loop condition, on both backends.
func TestShortCircuit(t *testing.T) {
	src := `package p

import "github.com/lucent-gpu/lucent/kernel"

func inc(p *int32) bool { *p++; return *p > 2 }

//lucent:kernel block=4
func K(cnt []uint32, x []int32, out []int32) {
	i := kernel.DispatchID().X
	k := int32(0)
	if inc(&k) && inc(&k) {
		k += 100
	}
	if k > 0 || inc(&k) {
		k += 1000
	}
	if i%2 == 0 && kernel.AtomicAdd(&cnt[0], 1) < 100 {
		k += 10000
	}
	if i%2 == 0 || kernel.AtomicAdd(&cnt[1], 1) > 100 {
		k += 100000
	}
	n := int32(0)
	for n < 5 && !inc(&x[i]) {
		n++
	}
	out[i] = k + n*1000000
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			g := compileOn(t, openBackend(t, backend), ks[0])
			cb := upload(g, make([]uint32, 2))
			ob := upload(g, make([]int32, 4))
			xb := upload(g, []int32{0, 1, 2, 3})
			g.submit(g.k.Dispatch([3]uint32{4}, cb, xb, ob))
			// inc runs once in the first if, not in the second; x[i] is
			// incremented until it passes 2, n counting the failures.
			require.Equal(t, []int32{111001 + 2000000, 1001 + 1000000, 111001, 1001}, download(g, ob))
			require.Equal(t, []uint32{2, 2}, download(g, cb))
			require.Equal(t, []int32{3, 3, 3, 4}, download(g, xb))
		})
	}
}

// TestShortCircuitChecked: in the checked mode a division or an index that
// && guards is not evaluated where the guard fails, so it reports no
// fault (d != 0 && n/d > 1, j < 4 && a[j] == 0, i < n && x[i] > 0).
func TestShortCircuitChecked(t *testing.T) {
	src := `package p

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=8
func K(x []int32, d []int32, out []int32) {
	i := kernel.DispatchID().X
	c := int32(0)
	if i < uint32(len(x)) && x[i] > 0 {
		c++
	}
	if d[i%4] != 0 && 12/d[i%4] > 5 {
		c += 10
	}
	var a [4]int32
	if j := i % 8; j < 4 && a[j] == 0 {
		c += 100
	}
	out[i] = c
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			d := openBackend(t, backend)
			k, err := device.Compile(d, ks[0].Func, device.WithChecked())
			require.NoError(t, err)
			t.Cleanup(func() { k.Close() })
			g := &gpu{t, d, k}
			ob := upload(g, make([]int32, 8))
			g.submit(g.k.Dispatch([3]uint32{8}, upload(g, []int32{1, 0, 3}), upload(g, []int32{0, 2, 0, 3}), ob))
			require.Equal(t, []int32{101, 110, 101, 100, 0, 10, 0, 0}, download(g, ob))
		})
	}
}

// TestSwitchCasesInOrder: a switch that is an if/else chain evaluates its
// case values in order, each only where the ones before did not match, as
// Go does, where a value calls a helper that writes through a pointer or
// needs statements of its own (a helper given a buffer element).
func TestSwitchCasesInOrder(t *testing.T) {
	src := `package p

import "github.com/lucent-gpu/lucent/kernel"

func next(k *int32) int32 { *k++; return *k }

//lucent:kernel block=4
func K(x []int32, out []int32) {
	i := kernel.DispatchID().X
	k := int32(0)
	v := int32(i)
	switch v {
	case next(&k), next(&k):
		out[3*i] = 1
	case next(&k):
		out[3*i] = 2
	case next(&x[i]):
		out[3*i] = 3
	}
	out[3*i+1] = k
	switch {
	case v == 0, next(&k) > 10:
		out[3*i+2] = 1
	}
	out[3*i+2] += k * 10
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			g := compileOn(t, openBackend(t, backend), ks[0])
			xb := upload(g, []int32{0, 0, 0, 2})
			ob := upload(g, make([]int32, 12))
			g.submit(g.k.Dispatch([3]uint32{4}, xb, ob))
			// Thread i matches the case whose call first returns i, and
			// thread 0, matching none, is the only one to reach next(&x[0]);
			// v == 0 spares it the last next.
			require.Equal(t, []int32{0, 3, 31, 1, 1, 20, 1, 2, 30, 2, 3, 40}, download(g, ob))
			require.Equal(t, []int32{1, 0, 0, 2}, download(g, xb))
		})
	}
}
