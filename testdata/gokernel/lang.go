package kernels

import (
	"math"

	"github.com/lucent-gpu/lucent/kernel"
)

// Acc accumulates through a pointer parameter (passed &local or &buf[i]).
func Acc(dst *int32, v int32) {
	*dst += v
}

// minmax has named results and a bare return.
func minmax(a, b int32) (lo, hi int32) {
	lo, hi = a, b
	if lo > hi {
		lo, hi = hi, lo
	}
	return
}

// sq has a named single result.
func sq(v int32) (r int32) {
	r = v * v
	return
}

// Counter is a struct updated through a pointer receiver in place in a buffer.
type Counter struct {
	N, Sum int32
}

// Add counts v.
func (c *Counter) Add(v int32) {
	c.N++
	c.Sum += v
}

// Lang exercises lowering paths the other kernels do not: pointer
// parameters (local and buffer element), named results, range over an
// integer, an array, a buffer and shared memory, switches that become
// if/else chains, op-assignment on components, swaps, shifts, bit tricks and
// float classification.
//
//lucent:kernel block=32
func Lang(in []int32, out []int32, counters []Counter, flags []uint32) {
	sh := kernel.Shared[[32]int32]()
	t := kernel.ThreadID().X
	i := kernel.DispatchID().X
	v := in[i]
	sh[t] = v
	kernel.Barrier()

	acc := int32(0)
	Acc(&acc, v)
	Acc(&out[i], 1) // through a temporary, copied back
	lo, hi := minmax(v, 3)
	acc += lo*7 + hi + sq(v&7)
	for k := range 4 {
		acc += int32(k)
	}
	arr := [3]int32{1, 2, 3}
	for _, e := range arr {
		acc += e
	}
	for k, e := range sh {
		if k == int(t) {
			acc += e
		}
	}
	if i == 0 {
		total := int32(0)
		for _, e := range in {
			total += e
		}
		out[0] += total << 8
	}
	switch int64(v) % 4 { // a 64-bit tag: an if/else chain
	case 0, 2:
		acc += 10
	case 1:
		acc += 20
	default:
		acc += 30
	}
	var p kernel.Int2
	p.X += v
	p.Y -= v
	p.X, p.Y = p.Y, p.X
	acc += p.X*2 + p.Y
	u := uint32(v)
	acc += int32(u>>3) + int32(u&^7) + int32(-u>>30)
	counters[i].Add(v) // a pointer-receiver call on a buffer element: through a temporary, copied back
	counters[i].Add(1)
	// Infinities and NaNs made from bits: Vulkan does not promise IEEE
	// results for x/0 without SignedZeroInfNanPreserve.
	f := float32(1)
	if v > 0 {
		f = math.Float32frombits(0x7f800000)
	} else if v == 0 {
		f = math.Float32frombits(0x7fc00000)
	}
	var bits uint32
	if math.IsInf(float64(f), 0) {
		bits |= 1
	}
	if math.IsNaN(float64(f)) {
		bits |= 2
	}
	bits |= math.Float32bits(1.5) & 0xff000000
	flags[i] = bits
	out[i] += acc
}
