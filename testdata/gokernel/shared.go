package kernels

import "github.com/lucent-gpu/lucent/kernel"

// ReduceBlock is the block size of Reduce and PrefixSum.
const ReduceBlock = 256

// Reduce sums each block of ReduceBlock elements of in into out[block] with
// a tree reduction in shared memory.
//
//lucent:kernel block=256
func Reduce(in, out []float32) {
	s := kernel.Shared[[ReduceBlock]float32]()
	t := kernel.ThreadID().X
	i := kernel.DispatchID().X
	s[t] = 0
	if i < uint32(len(in)) {
		s[t] = in[i]
	}
	kernel.Barrier()
	for stride := uint32(ReduceBlock / 2); stride > 0; stride >>= 1 {
		if t < stride {
			s[t] += s[t+stride]
		}
		kernel.Barrier()
	}
	if t == 0 {
		out[kernel.BlockID().X] = s[0]
	}
}

// PrefixSum writes the inclusive prefix sum of each block of ReduceBlock
// elements (Hillis–Steele scan, double-buffered in shared memory).
//
//lucent:kernel block=256
func PrefixSum(in, out []int32) {
	a := kernel.Shared[[ReduceBlock]int32]()
	b := kernel.Shared[[ReduceBlock]int32]()
	t := kernel.ThreadID().X
	i := kernel.DispatchID().X
	a[t] = 0
	if i < uint32(len(in)) {
		a[t] = in[i]
	}
	kernel.Barrier()
	src := 0
	for off := uint32(1); off < ReduceBlock; off *= 2 {
		if src == 0 {
			b[t] = a[t]
			if t >= off {
				b[t] += a[t-off]
			}
		} else {
			a[t] = b[t]
			if t >= off {
				a[t] += b[t-off]
			}
		}
		src = 1 - src
		kernel.Barrier()
	}
	if i < uint32(len(out)) {
		if src == 0 {
			out[i] = a[t]
		} else {
			out[i] = b[t]
		}
	}
}

// Bins is the number of histogram bins.
const Bins = 16

// Histogram counts values (taken modulo Bins) into bins, first in shared
// memory per block, then into the global bins with atomics. Dispatch whole
// blocks: every thread of a block takes part in its barriers.
//
//lucent:kernel block=128
func Histogram(values []uint32, bins []uint32) {
	local := kernel.Shared[[Bins]uint32]()
	t := kernel.ThreadID().X
	if t < Bins {
		local[t] = 0
	}
	kernel.Barrier()
	i := kernel.DispatchID().X
	if i < uint32(len(values)) {
		kernel.AtomicAdd(&local[values[i]%Bins], 1)
	}
	kernel.Barrier()
	if t < Bins {
		kernel.AtomicAdd(&bins[t], local[t])
	}
}

// Tile is the tile edge of MatMul.
const Tile = 8

// MatMul computes c = a·b for n×n row-major matrices with Tile×Tile tiles
// staged in shared memory. Dispatch whole tiles (n rounded up to Tile).
//
//lucent:kernel block=8,8
func MatMul(n uint32, a, b, c []float32) {
	ta := kernel.Shared[[Tile][Tile]float32]()
	tb := kernel.Shared[[Tile][Tile]float32]()
	tx, ty := kernel.ThreadID().X, kernel.ThreadID().Y
	col := kernel.BlockID().X*Tile + tx
	row := kernel.BlockID().Y*Tile + ty
	var acc float32
	for t := uint32(0); t < (n+Tile-1)/Tile; t++ {
		ta[ty][tx] = 0
		tb[ty][tx] = 0
		if row < n && t*Tile+tx < n {
			ta[ty][tx] = a[row*n+t*Tile+tx]
		}
		if col < n && t*Tile+ty < n {
			tb[ty][tx] = b[(t*Tile+ty)*n+col]
		}
		kernel.Barrier()
		for k := range Tile {
			acc += ta[ty][k] * tb[k][tx]
		}
		kernel.Barrier()
	}
	if row < n && col < n {
		c[row*n+col] = acc
	}
}

// SubgroupSum adds each subgroup's values and writes the sum at the
// subgroup's first lane (others write 0), plus each lane's exclusive prefix.
//
//lucent:kernel block=64
func SubgroupSum(in, sums, prefix []int32) {
	i := kernel.DispatchID().X
	v := in[i]
	s := kernel.SubgroupAdd(v)
	p := kernel.SubgroupExclusiveAdd(v)
	sums[i] = 0
	if kernel.SubgroupElect() {
		sums[i] = s
	}
	prefix[i] = p
}
