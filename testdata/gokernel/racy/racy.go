// Package racy holds kernels for the race detectors: a shared-memory tile
// with and without its barrier, two threads writing one element, and
// atomics, which do not race.
package racy

import "github.com/lucent-gpu/lucent/kernel"

// Block is the block size of Reverse and ReverseNoBarrier.
const Block = 128

// Reverse reverses each block of in into out through a shared tile.
//
//lucent:kernel block=128
func Reverse(in, out []float32) {
	tile := kernel.Shared[[Block]float32]()
	t := kernel.ThreadID().X
	i := kernel.DispatchID().X
	tile[t] = in[i]
	kernel.Barrier()
	out[i] = tile[Block-1-t]
}

// ReverseNoBarrier is Reverse without its barrier: a thread may read its
// tile element before the thread that writes it has.
//
//lucent:kernel block=128
func ReverseNoBarrier(in, out []float32) {
	tile := kernel.Shared[[Block]float32]()
	t := kernel.ThreadID().X
	i := kernel.DispatchID().X
	tile[t] = in[i]
	out[i] = tile[Block-1-t]
}

// Pairs writes in[i] to out[i/2]: two threads write each element.
//
//lucent:kernel block=64
func Pairs(in, out []float32) {
	i := kernel.DispatchID().X
	out[i/2] = in[i]
}

// Histogram counts in's values modulo 4 into bins with atomic additions,
// in shared memory and then in the buffer.
//
//lucent:kernel block=64
func Histogram(in, bins []uint32) {
	local := kernel.Shared[[4]uint32]()
	t := kernel.ThreadID().X
	if t < 4 {
		local[t] = 0
	}
	kernel.Barrier()
	i := kernel.DispatchID().X
	kernel.AtomicAdd(&local[in[i]%4], 1)
	kernel.Barrier()
	if t < 4 {
		kernel.AtomicAdd(&bins[t], local[t])
	}
}

// store writes v through p.
func store(p *float32, v float32) { *p = v }

// ViaHelper is ReverseNoBarrier over 64 threads, writing its tile through
// a helper's pointer parameter.
//
//lucent:kernel block=64
func ViaHelper(in, out []float32) {
	tile := kernel.Shared[[64]float32]()
	t := kernel.ThreadID().X
	i := kernel.DispatchID().X
	store(&tile[t], in[i])
	out[i] = tile[63-t]
}

// Shift writes each block's in, shifted left by one, to out: each thread
// reads its neighbour's tile element and then overwrites its own, with a
// barrier between the neighbour's write and the read and another between
// the read and the neighbour's overwrite.
//
//lucent:kernel block=64
func Shift(in, out []float32) {
	tile := kernel.Shared[[64]float32]()
	t := kernel.ThreadID().X
	i := kernel.DispatchID().X
	tile[t] = in[i]
	kernel.Barrier()
	v := tile[(t+1)%64]
	kernel.Barrier()
	tile[t] = 2 * v
	out[i] = v
}

// ShiftOneBarrier is Shift without its second barrier: the neighbour may
// overwrite its element before this thread has read it.
//
//lucent:kernel block=64
func ShiftOneBarrier(in, out []float32) {
	tile := kernel.Shared[[64]float32]()
	t := kernel.ThreadID().X
	i := kernel.DispatchID().X
	tile[t] = in[i]
	kernel.Barrier()
	w := tile[(t+1)%64]
	tile[t] = 2 * w
	out[i] = w
}
