package kernels

import "github.com/lucent-gpu/lucent/kernel"

// Totals is what Atomics accumulates.
type Totals struct {
	Sum      float32
	Count    uint32
	Big      int64
	Max      int32
	Min      uint32
	Bits     uint32
	Xor      uint32
	Last     uint32
	Swapped  int32
	Observed uint32
}

// Atomics updates shared totals from every thread with each atomic operation.
//
//lucent:kernel block=64
func Atomics(vals []int32, t []Totals) {
	i := kernel.DispatchID().X
	if i >= uint32(len(vals)) {
		return
	}
	v := vals[i]
	kernel.AtomicAdd(&t[0].Sum, float32(v)) // small integers: exact in any order
	kernel.AtomicAdd(&t[0].Count, 1)
	kernel.AtomicAdd(&t[0].Big, int64(v)<<33)
	kernel.AtomicMax(&t[0].Max, v)
	kernel.AtomicMin(&t[0].Min, uint32(v+1000))
	kernel.AtomicOr(&t[0].Bits, 1<<(uint32(v)&31))
	kernel.AtomicXor(&t[0].Xor, uint32(v))
	kernel.AtomicAnd(&t[1].Bits, ^(uint32(1) << (i & 31)))
	kernel.AtomicExchange(&t[0].Last, 7)
	kernel.AtomicCompareExchange(&t[0].Swapped, 0, 1) // exactly one thread wins
	kernel.AtomicSub(&t[1].Count, 1)
	if kernel.AtomicLoad(&t[1].Observed) == 0 {
		kernel.AtomicStore(&t[1].Last, 9)
	}
}

// Subgroups exercises every subgroup operation; each thread writes its
// results to its own row of out.
//
//lucent:kernel block=32
func Subgroups(in []int32, out []int32) {
	i := kernel.DispatchID().X
	v := in[i]
	lane := kernel.SubgroupLaneID()
	base := i * 12
	out[base+0] = kernel.SubgroupMin(v)
	out[base+1] = kernel.SubgroupMax(v)
	out[base+2] = kernel.SubgroupInclusiveAdd(v)
	out[base+3] = kernel.SubgroupBroadcast(v, 1)
	out[base+4] = kernel.SubgroupBroadcastFirst(v)
	out[base+5] = kernel.SubgroupShuffle(v, lane^1)
	out[base+6] = int32(kernel.BallotCount(kernel.SubgroupBallot(v > 0)))
	out[base+7] = b2i(kernel.SubgroupAll(v > -100))
	out[base+8] = b2i(kernel.SubgroupAny(v == 3))
	out[base+9] = int32(kernel.SubgroupSize())
	out[base+10] = int32(lane)
	out[base+11] = kernel.SubgroupMul(v%3 + 2)
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// Matrices combines matrix products, transposes and vector methods.
//
//lucent:kernel block=16
func Matrices(a, b kernel.Float3x3, in []kernel.Float3, out []kernel.Float3) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	m := a.Mul(b).Add(a.Transpose()).Scale(0.5)
	v := m.MulVec(in[i])
	w := v.Cross(in[i]).Add(v.Min(in[i])).Sub(v.Max(in[i]).Neg())
	d := v.Distance(in[i]) + v.Dot(w)
	out[i] = w.Mul(kernel.F3(1, 2, 3)).Div(kernel.F3(2, 2, 2)).Add(kernel.F3(d, 0, 0))
}

// BlockStats sums (float32) and takes the maximum (int64) of each block's
// values with atomics on shared memory, then writes them per block.
//
//lucent:kernel block=64
func BlockStats(vals []int32, sums []float32, maxes []int64) {
	sum := kernel.Shared[float32]()
	mx := kernel.Shared[int64]()
	t := kernel.ThreadID().X
	if t == 0 {
		*sum = 0
		*mx = -1 << 62
	}
	kernel.Barrier()
	v := vals[kernel.DispatchID().X]
	kernel.AtomicAdd(sum, float32(v))
	kernel.AtomicMax(mx, int64(v)*1000)
	kernel.Barrier()
	if t == 0 {
		b := kernel.BlockID().X
		sums[b] = *sum
		maxes[b] = *mx
	}
}
