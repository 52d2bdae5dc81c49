package programs

import (
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// AtomicOps are the read-modify-write atomics whose combined effect does not
// depend on the order threads run in.
var AtomicOps = []ir.Op{ir.OpAtomicAdd, ir.OpAtomicSub, ir.OpAtomicAnd, ir.OpAtomicOr, ir.OpAtomicXor, ir.OpAtomicMin, ir.OpAtomicMax}

// AtomicBlock is the block size (and thread count) of Atomics.
const AtomicBlock = 64

// Atomics applies every op of AtomicOps with operand in[i] from each
// thread i to bufOut[op] (a buffer) and to a shared array, whose final
// values the block's first threads copy to sharedOut[op]; init holds each
// op's starting value.
func Atomics[E int32 | uint32 | int64 | uint64]() (*ir.Function, error) {
	return dsl.Kernel1D(AtomicBlock, func(k *dsl.K, in, init, bufOut, sharedOut dsl.Buf[dsl.Val[E]]) {
		s := dsl.NewShared[dsl.Val[E]](k, len(AtomicOps))
		tid := k.ThreadID().X()
		n := dsl.U(uint32(len(AtomicOps)))
		k.If(tid.Lt(n), func() { s.Write(tid, init.Read(tid)) })
		k.Barrier()
		v := in.Read(k.DispatchID().X())
		for j, op := range AtomicOps {
			bufOut.Atomic(op, dsl.U(uint32(j)), v)
			s.Atomic(op, dsl.U(uint32(j)), v)
		}
		k.Barrier()
		k.If(tid.Lt(n), func() { sharedOut.Write(tid, s.Read(tid)) })
	})
}

// AtomicsRef folds in into each op's starting value.
func AtomicsRef[E int32 | uint32 | int64 | uint64](in, init []E) []E {
	out := append([]E(nil), init...)
	for _, v := range in {
		for j, op := range AtomicOps {
			switch op {
			case ir.OpAtomicAdd:
				out[j] += v
			case ir.OpAtomicSub:
				out[j] -= v
			case ir.OpAtomicAnd:
				out[j] &= v
			case ir.OpAtomicOr:
				out[j] |= v
			case ir.OpAtomicXor:
				out[j] ^= v
			case ir.OpAtomicMin:
				out[j] = min(out[j], v)
			case ir.OpAtomicMax:
				out[j] = max(out[j], v)
			}
		}
	}
	return out
}

// AtomicSwap has every thread exchange its id+1 into slot id%4 of ex
// (recording the old value in old[id]) and compare-and-swap id+1 into slot
// id%4 of cas when it still holds 0 (recording the old value in won[id]).
func AtomicSwap() (*ir.Function, error) {
	return dsl.Kernel1D(AtomicBlock, func(k *dsl.K, ex, old, cas, won dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		slot := i.Rem(dsl.U(4))
		me := i.Add(dsl.U(1))
		old.Write(i, ex.Atomic(ir.OpAtomicExchange, slot, me))
		won.Write(i, cas.Atomic(ir.OpAtomicCAS, slot, dsl.U(0), me))
	})
}

// FloatAtomicAdd adds in[i] into sum[0] from every thread (native float
// atomics) and into a shared accumulator copied to sum[1].
func FloatAtomicAdd() (*ir.Function, error) {
	return dsl.Kernel1D(AtomicBlock, func(k *dsl.K, in, sum dsl.Buf[dsl.F32]) {
		s := dsl.NewShared[dsl.F32](k, 1)
		tid := k.ThreadID().X()
		k.If(tid.Eq(dsl.U(0)), func() { s.Write(dsl.U(0), dsl.F(0)) })
		k.Barrier()
		v := in.Read(k.DispatchID().X())
		sum.AtomicAdd(dsl.U(0), v)
		s.Atomic(ir.OpAtomicAdd, dsl.U(0), v)
		k.Barrier()
		k.If(tid.Eq(dsl.U(0)), func() { sum.AtomicAdd(dsl.U(1), s.Read(dsl.U(0))) })
	})
}

// Subgroups computes per thread: the subgroup sum, inclusive and exclusive
// prefix sums, min and max of in, the ballot's popcount of in[i] odd, whether
// all/any lanes are odd, the value of lane 0 (broadcast) and of the next lane
// (shuffle), and the lane and subgroup size, into out[i*11 + …].
func Subgroups() (*ir.Function, error) {
	return dsl.Kernel1D(AtomicBlock, func(k *dsl.K, in, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		v := in.Read(i)
		lane, size := k.SubgroupLane(), k.SubgroupSize()
		odd := v.And(dsl.U(1)).Eq(dsl.U(1))
		ballot := dsl.SubgroupBallot(odd)
		bits := dsl.PopCount(ballot.X()).Add(dsl.PopCount(ballot.Y())).Add(dsl.PopCount(ballot.Z())).Add(dsl.PopCount(ballot.W()))
		next := lane.Add(dsl.U(1)).Rem(size)
		vals := []dsl.U32{
			dsl.SubgroupAdd(v), dsl.SubgroupInclusiveAdd(v), dsl.SubgroupExclusiveAdd(v), dsl.SubgroupMin(v), dsl.SubgroupMax(v),
			bits, dsl.Convert[uint32](dsl.SubgroupAll(odd)), dsl.Convert[uint32](dsl.SubgroupAny(odd)),
			dsl.SubgroupBroadcast(v, 0), dsl.SubgroupShuffle(v, next), lane.Add(size.Shl(dsl.U(16))),
		}
		for j, x := range vals {
			out.Write(i.Mul(dsl.U(uint32(len(vals)))).Add(dsl.U(uint32(j))), x)
		}
	})
}

// SubgroupsRef is Subgroups on the CPU for subgroups of size lanes.
func SubgroupsRef(in []uint32, size int) []uint32 {
	out := make([]uint32, 11*len(in))
	for base := 0; base < len(in); base += size {
		g := in[base:min(base+size, len(in))]
		var sum, ballot uint32
		lo, hi := g[0], g[0]
		all, anyOdd := uint32(1), uint32(0)
		for _, v := range g {
			sum += v
			lo, hi = min(lo, v), max(hi, v)
			if v&1 == 1 {
				ballot++
				anyOdd = 1
			} else {
				all = 0
			}
		}
		var pre uint32
		for l, v := range g {
			o := out[(base+l)*11:]
			o[0], o[1], o[2], o[3], o[4] = sum, pre+v, pre, lo, hi
			o[5], o[6], o[7], o[8], o[9] = ballot, all, anyOdd, g[0], g[(l+1)%len(g)]
			o[10] = uint32(l) | uint32(size)<<16
			pre += v
		}
	}
	return out
}

// FloatAtomics applies add, sub, min and max of in[i] from every thread to
// out[0..3], exchanges in[i] into out[4] (recording the old value in
// olds[i]), and compare-and-swaps 1 into out[5] where it holds 0.
func FloatAtomics() (*ir.Function, error) {
	return dsl.Kernel1D(AtomicBlock, func(k *dsl.K, in, out, olds dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		v := in.Read(i)
		out.Atomic(ir.OpAtomicAdd, dsl.U(0), v)
		out.Atomic(ir.OpAtomicSub, dsl.U(1), v)
		out.Atomic(ir.OpAtomicMin, dsl.U(2), v)
		out.Atomic(ir.OpAtomicMax, dsl.U(3), v)
		olds.Write(i, out.Atomic(ir.OpAtomicExchange, dsl.U(4), v))
		out.Atomic(ir.OpAtomicCAS, dsl.U(5), dsl.F(0), dsl.F(1))
	})
}

// FloatAtomicsShared applies add, sub, min and max of in[i] to a shared
// array starting at {0, 0, 100, -100} and copies it to out (one block).
func FloatAtomicsShared() (*ir.Function, error) {
	return dsl.Kernel1D(AtomicBlock, func(k *dsl.K, in, out dsl.Buf[dsl.F32]) {
		s := dsl.NewShared[dsl.F32](k, 4)
		tid := k.ThreadID().X()
		init := dsl.ConstTable[float32](0, 0, 100, -100)
		k.If(tid.Lt(dsl.U(4)), func() { s.Write(tid, init.At(tid)) })
		k.Barrier()
		v := in.Read(k.DispatchID().X())
		s.Atomic(ir.OpAtomicAdd, dsl.U(0), v)
		s.Atomic(ir.OpAtomicSub, dsl.U(1), v)
		s.Atomic(ir.OpAtomicMin, dsl.U(2), v)
		s.Atomic(ir.OpAtomicMax, dsl.U(3), v)
		k.Barrier()
		k.If(tid.Lt(dsl.U(4)), func() { out.Write(tid, s.Read(tid)) })
	})
}
