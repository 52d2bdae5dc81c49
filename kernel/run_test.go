package kernel_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lucent-gpu/lucent/kernel"
	"github.com/stretchr/testify/require"
)

func saxpy(a float32, x, y []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(y)) {
		y[i] = a*x[i] + y[i]
	}
}

func TestRunSaxpy(t *testing.T) {
	const n = 1000
	x, y, want := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), float32(2*i+1)
		want[i] = 3*x[i] + y[i]
	}
	require.NoError(t, kernel.Run(context.Background(), kernel.Grid1(64, n), func() { saxpy(3, x, y) }))
	require.Equal(t, want, y)
}

func TestRunIDs(t *testing.T) {
	g := kernel.Grid{Block: kernel.Uint3{4, 2, 2}, Size: kernel.Uint3{10, 5, 3}}
	blocks := g.Blocks()
	require.Equal(t, kernel.Uint3{3, 3, 2}, blocks)
	// Every thread inside the dispatch records its ids; threads past Size must not run.
	seen := make([]int32, 10*5*3)
	ok := make([]int32, len(seen))
	err := kernel.Run(context.Background(), g, func() {
		d, l, b := kernel.DispatchID(), kernel.ThreadID(), kernel.BlockID()
		i := (d.Z*5+d.Y)*10 + d.X
		kernel.AtomicAdd(&seen[i], 1)
		bs := kernel.BlockSize()
		if d == b.Mul(bs).Add(l) && kernel.DispatchSize() == g.Size && bs == g.Block {
			ok[i] = 1
		}
	})
	require.NoError(t, err)
	for i := range seen {
		require.Equal(t, int32(1), seen[i], "thread %d", i)
		require.Equal(t, int32(1), ok[i], "ids of thread %d", i)
	}
}

// reduce sums each block of 64 elements with a tree reduction in shared memory.
func reduce(in, out []float32) {
	s := kernel.Shared[[64]float32]()
	t := kernel.ThreadID().X
	s[t] = in[kernel.DispatchID().X]
	kernel.Barrier()
	for stride := uint32(32); stride > 0; stride /= 2 {
		if t < stride {
			s[t] += s[t+stride]
		}
		kernel.Barrier()
	}
	if t == 0 {
		out[kernel.BlockID().X] = s[0]
	}
}

func TestRunSharedBarrier(t *testing.T) {
	const blocks = 37
	in := make([]float32, 64*blocks)
	want := make([]float32, blocks)
	for i := range in {
		in[i] = float32(i % 17)
		want[i/64] += in[i]
	}
	out := make([]float32, blocks)
	require.NoError(t, kernel.Run(context.Background(), kernel.Grid1(64, uint32(len(in))), func() { reduce(in, out) }))
	require.Equal(t, want, out)
}

func TestRunAtomics(t *testing.T) {
	const n = 4096
	data := make([]uint32, n)
	r := rand.New(rand.NewPCG(1, 2))
	want := make([]uint32, 16)
	var wantF float32
	var wantMax int64 = math.MinInt64
	for i := range data {
		data[i] = r.Uint32N(16)
		want[data[i]]++
		wantF += float32(data[i])
		wantMax = max(wantMax, int64(data[i])*3-20)
	}
	hist := make([]uint32, 16)
	fsum := make([]float32, 1)
	imax := []int64{math.MinInt64}
	u64 := make([]uint64, 1)
	xor := make([]int32, 1)
	err := kernel.Run(context.Background(), kernel.Grid1(128, n), func() {
		i := kernel.DispatchID().X
		kernel.AtomicAdd(&hist[data[i]], 1)
		kernel.AtomicAdd(&fsum[0], float32(data[i]))
		kernel.AtomicMax(&imax[0], int64(data[i])*3-20)
		kernel.AtomicAdd(&u64[0], uint64(i))
		kernel.AtomicXor(&xor[0], int32(i))
	})
	require.NoError(t, err)
	require.Equal(t, want, hist)
	require.Equal(t, wantF, fsum[0]) // small integers: exact in float32 in any order
	require.Equal(t, wantMax, imax[0])
	require.Equal(t, uint64(n*(n-1)/2), u64[0])
	require.Equal(t, int32(0), xor[0]) // xor of 0..4095 is 0

	v := int32(5)
	require.Equal(t, int32(5), kernel.AtomicCompareExchange(&v, 5, 9))
	require.Equal(t, int32(9), kernel.AtomicCompareExchange(&v, 5, 1))
	require.Equal(t, int32(9), kernel.AtomicExchange(&v, 2))
	require.Equal(t, int32(2), kernel.AtomicLoad(&v))
	f := float32(math.Copysign(0, -1))
	require.True(t, math.Signbit(float64(kernel.AtomicLoad(&f))))
	kernel.AtomicStore(&f, 1.5)
	require.Equal(t, float32(1.5), f)
	require.Equal(t, int32(2), kernel.AtomicSub(&v, 1))
	require.Equal(t, int32(1), kernel.AtomicMin(&v, -3))
	require.Equal(t, int32(-3), kernel.AtomicOr(&v, 0))
	require.Equal(t, int32(-3), kernel.AtomicAnd(&v, 1))
	require.Equal(t, int32(1), v)
}

func TestRunSubgroup(t *testing.T) {
	const n = 64 + 5 // a partial last block with a partial subgroup
	in := make([]int32, n)
	for i := range in {
		in[i] = int32(i*7%11) - 5
	}
	type res struct {
		sum, incl, excl, mn, mx, bcast, first, shuf int32
		lane, size, count                           uint32
		elect, all, any                             bool
	}
	got := make([]res, n)
	err := kernel.Run(context.Background(), kernel.Grid1(32, n), func() {
		i := kernel.DispatchID().X
		v := in[i]
		lane := kernel.SubgroupLaneID()
		got[i] = res{
			sum: kernel.SubgroupAdd(v), incl: kernel.SubgroupInclusiveAdd(v), excl: kernel.SubgroupExclusiveAdd(v),
			mn: kernel.SubgroupMin(v), mx: kernel.SubgroupMax(v), bcast: kernel.SubgroupBroadcast(v, 0),
			first: kernel.SubgroupBroadcastFirst(v), shuf: kernel.SubgroupShuffle(v, lane^1),
			lane: lane, size: kernel.SubgroupSize(), count: kernel.BallotCount(kernel.SubgroupBallot(v > 0)),
			elect: kernel.SubgroupElect(), all: kernel.SubgroupAll(v > -6), any: kernel.SubgroupAny(v > 4),
		}
	})
	require.NoError(t, err)
	for i := range n {
		base := i / 8 * 8
		end := min(base+8, n)
		var w res
		w.mn, w.mx = math.MaxInt32, math.MinInt32
		for j := base; j < end; j++ {
			w.sum += in[j]
			if j <= i {
				w.incl += in[j]
			}
			if j < i {
				w.excl += in[j]
			}
			w.mn, w.mx = min(w.mn, in[j]), max(w.mx, in[j])
			if in[j] > 0 {
				w.count++
			}
			w.any = w.any || in[j] > 4
		}
		w.bcast, w.first = in[base], in[base]
		if s := base + (i - base) ^ 1; s < end {
			w.shuf = in[s]
		}
		w.lane, w.size, w.elect, w.all = uint32(i-base), 8, i == base, true
		require.Equal(t, w, got[i], "thread %d", i)
	}
}

// runWithin runs body as Run does, failing the test where Run does not
// return within a minute (a rendezvous that never completes).
func runWithin(t *testing.T, g kernel.Grid, body func()) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- kernel.Run(context.Background(), g, body) }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("kernel.Run hangs")
		return nil
	}
}

// TestRunSubgroupDivergent: a subgroup operation in a branch some lanes of
// the subgroup skip runs over the lanes that take it, as on a device, while
// the others wait at the block's barrier; lanes at two operations at once
// are an error naming both, not a result mixing them.
func TestRunSubgroupDivergent(t *testing.T) {
	const n = 64
	g := kernel.Grid1(32, n)
	g.SubgroupSize = 8
	got := make([]uint32, n)
	require.NoError(t, runWithin(t, g, func() {
		i, lane := kernel.DispatchID().X, kernel.SubgroupLaneID()
		if lane%2 == 1 {
			got[i] = kernel.SubgroupAdd(i)
		}
		kernel.Barrier()
		if lane == 0 {
			got[i] = kernel.SubgroupAdd(i) + 1000
		}
		kernel.Barrier()
	}))
	for i := range uint32(n) {
		base := i / 8 * 8
		var want uint32 // lanes 2, 4 and 6 take neither branch
		switch {
		case i%2 == 1:
			want = 4*base + 1 + 3 + 5 + 7 // the subgroup's odd lanes
		case i == base:
			want = base + 1000 // lane 0 alone
		}
		require.Equal(t, want, got[i], "thread %d", i)
	}

	_, _, line, _ := runtime.Caller(0)
	err := runWithin(t, g, func() {
		i := kernel.DispatchID().X
		if i%2 == 0 {
			got[i] = kernel.SubgroupAdd(i) // line+4
		} else {
			got[i] = kernel.SubgroupAdd(i) // line+6
		}
	})
	require.ErrorIs(t, err, kernel.ErrKernelPanic)
	then, other := line+4, line+6
	require.Regexp(t, fmt.Sprintf(`run_test.go:(%d|%d): .*SubgroupAdd: lane \d+ of the subgroup is at another subgroup operation \(.*run_test.go:(%d|%d)\)`,
		then, other, then, other), err.Error())
}

func TestRunPanicIsError(t *testing.T) {
	y := make([]float32, 10)
	var line int
	err := kernel.Run(context.Background(), kernel.Grid1(8, 16), func() {
		kernel.Barrier() // the panicking thread must not deadlock the others
		if kernel.DispatchID().X == 0 {
			_, _, line, _ = runtime.Caller(0)
		} // one writer: a race otherwise
		y[kernel.DispatchID().X] = 1
		kernel.Barrier()
	})
	require.ErrorIs(t, err, kernel.ErrKernelPanic)
	require.Contains(t, err.Error(), "index out of range")
	require.Contains(t, err.Error(), fmt.Sprintf("run_test.go:%d: thread", line+2), "the position of the access")
}

// A failed kernel.Assert fails kernel.Run with its message and position;
// one that holds does nothing.
func TestRunAssert(t *testing.T) {
	var line int
	err := kernel.Run(context.Background(), kernel.Grid1(8, 16), func() {
		i := kernel.DispatchID().X
		kernel.Assert(i < 16, "never")
		if i == 0 {
			_, _, line, _ = runtime.Caller(0)
		} // one writer: a race otherwise
		kernel.Assert(i != 11, "i is not 11")
	})
	require.ErrorIs(t, err, kernel.ErrKernelPanic)
	require.Contains(t, err.Error(), "assertion failed: i is not 11")
	require.Contains(t, err.Error(), fmt.Sprintf("run_test.go:%d: thread", line+2))
	require.Contains(t, err.Error(), "(dispatch id {11 0 0})")
	var ae kernel.AssertionError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "i is not 11", ae.Msg)
	// The thread and position as fields, for a caller reporting it (the cpu
	// backend makes its device.KernelFault of them).
	var pe *kernel.PanicError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, kernel.Uint3{X: 11}, pe.Dispatch)
	require.Equal(t, kernel.Uint3{X: 3}, pe.Thread)
	require.Equal(t, kernel.Uint3{X: 1}, pe.Block)
	require.True(t, strings.HasSuffix(pe.Pos, fmt.Sprintf("run_test.go:%d", line+2)), pe.Pos)
	require.Equal(t, kernel.AssertionError{Msg: "i is not 11"}, pe.Value)
}

func TestRunBadGrid(t *testing.T) {
	err := kernel.Run(context.Background(), kernel.Grid1(2048, 4), func() {})
	require.ErrorIs(t, err, kernel.ErrGrid)
	require.ErrorIs(t, kernel.Run(context.Background(), kernel.Grid1(1, 1), nil), kernel.ErrGrid)
}

func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	err := kernel.Run(ctx, kernel.Grid1(1, 4), func() { ran = true })
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, ran)
}

func TestOutsideRunPanics(t *testing.T) {
	require.PanicsWithValue(t,
		"kernel.DispatchID called outside a kernel: run the kernel with kernel.Run, or compile it with the gokernel front end",
		func() { kernel.DispatchID() })
}

func TestTexturesAndBindless(t *testing.T) {
	tex, err := kernel.NewTexture2D[kernel.Float4](5, 3)
	require.NoError(t, err)
	_, err = kernel.NewTexture2D[kernel.Float4](0, 3)
	require.ErrorIs(t, err, kernel.ErrTexture)
	b := kernel.NewBindless(2)
	buf := []float32{1, 2, 3, 4, 5}
	require.NoError(t, kernel.SetBindlessBuffer(b, 0, buf))
	require.ErrorIs(t, kernel.SetBindlessTexture2D(b, 1, tex, kernel.Sampler{Filter: 7}), kernel.ErrBindless)
	require.NoError(t, kernel.SetBindlessTexture2D(b, 1, tex, kernel.Bilinear))
	require.ErrorIs(t, kernel.SetBindlessBuffer(b, 2, buf), kernel.ErrBindless)
	err = kernel.Run(context.Background(), kernel.Grid2(4, 4, 5, 3), func() {
		d := kernel.DispatchID()
		src := kernel.BindlessBuffer[float32](b, 0)
		tex.Write(d.X, d.Y, kernel.Float4{src[d.X], float32(d.Y), 0, 1})
	})
	require.NoError(t, err)
	got := make([]kernel.Float4, 15)
	err = kernel.Run(context.Background(), kernel.Grid2(4, 4, 5, 3), func() {
		d := kernel.DispatchID()
		bt := b.Texture2D(1)
		got[d.Y*5+d.X] = bt.Read(d.X, d.Y)
		if bt.Size() != (kernel.Uint2{5, 3}) {
			panic("size")
		}
	})
	require.NoError(t, err)
	for y := range uint32(3) {
		for x := range uint32(5) {
			require.Equal(t, kernel.Float4{buf[x], float32(y), 0, 1}, tex.Read(x, y))
			require.Equal(t, tex.Read(x, y), got[y*5+x])
		}
	}
	err = kernel.Run(context.Background(), kernel.Grid1(1, 1), func() { b.Texture2D(0) })
	require.ErrorIs(t, err, kernel.ErrKernelPanic, "slot 0 holds a buffer")
	require.Equal(t, kernel.Float4{}, tex.Read(5, 0))
	require.Equal(t, kernel.Uint2{5, 3}, tex.Size())
	t3, err := kernel.NewTexture3D[kernel.Uint4](2, 2, 2)
	require.NoError(t, err)
	t3.Write(1, 1, 1, kernel.Uint4{1, 2, 3, 4})
	require.Equal(t, kernel.Uint4{1, 2, 3, 4}, t3.Texels()[7])
}

// TestTextureTooLarge: a texture of more texels than a uint32 indexes is
// refused with ErrTexture, where the allocation panicked ("makeslice: len
// out of range") out of a constructor that returns an error.
func TestTextureTooLarge(t *testing.T) {
	_, err := kernel.NewTexture2D[kernel.Float4](1<<31, 1<<31)
	require.ErrorIs(t, err, kernel.ErrTexture)
	require.ErrorContains(t, err, "2147483648×2147483648 is more than 2³² texels")
	_, err = kernel.NewTexture3D[kernel.Uint4](1<<16, 1<<16, 1<<16)
	require.ErrorIs(t, err, kernel.ErrTexture)
	_, err = kernel.NewTexture3D[kernel.Uint4](1<<31, 1<<31, 1<<31)
	require.ErrorIs(t, err, kernel.ErrTexture)
}

// TestBindlessSlotOutOfRange: a kernel indexing a slot past the array fails
// its thread naming the slot and the slots there are, as a checked kernel
// does on a device, not with Go's bare "index out of range [9] with length 4".
func TestBindlessSlotOutOfRange(t *testing.T) {
	b := kernel.NewBindless(4)
	require.NoError(t, kernel.SetBindlessBuffer(b, 0, []float32{1}))
	for name, body := range map[string]func(){
		"buffer":  func() { kernel.BindlessBuffer[float32](b, 9) },
		"texture": func() { b.Texture2D(9).Size() },
	} {
		err := kernel.Run(context.Background(), kernel.Grid1(1, 1), body)
		require.ErrorIs(t, err, kernel.ErrKernelPanic, name)
		require.ErrorContains(t, err, "bindless slot 9 out of range [0, 4)", name)
	}
	var zero kernel.Bindless
	err := kernel.Run(context.Background(), kernel.Grid1(1, 1), func() { zero.Texture2D(0) })
	require.ErrorContains(t, err, "bindless slot 0 out of range [0, 0)")
}

func TestVectorMath(t *testing.T) {
	a, b := kernel.Float3{1, 2, 3}, kernel.Float3{4, 5, 6}
	require.Equal(t, kernel.Float3{5, 7, 9}, a.Add(b))
	require.Equal(t, float32(32), a.Dot(b))
	require.Equal(t, kernel.Float3{-3, 6, -3}, a.Cross(b))
	require.InDelta(t, 1, float64(b.Normalize().Length()), 1e-6)
	m := kernel.Float3x3{{1, 0, 0}, {0, 2, 0}, {1, 0, 1}} // columns
	require.Equal(t, kernel.Float3{4, 4, 3}, m.MulVec(a))
	require.Equal(t, m.Transpose().Transpose(), m)
	require.Equal(t, kernel.Float3{4, 4, 3}, m.Mul(kernel.Float3x3{a, {}, {}})[0])
	require.Equal(t, kernel.Int2{-1, 2}, kernel.Int2{1, -2}.Neg())
	require.Equal(t, kernel.Uint4{1, 2, 3, 4}, kernel.Uint4{1, 5, 3, 9}.Min(kernel.Uint4{2, 2, 7, 4}))
}

// TestRunAllocationsPerBlock: threads of a block without collectives run in
// one thread record, so a dispatch allocates per block, not per thread.
func TestRunAllocationsPerBlock(t *testing.T) {
	if raceBuild {
		t.Skip("a -race build runs every thread on a goroutine of its own")
	}
	const n, block = 1 << 16, 256
	out := make([]uint32, n)
	allocs := testing.AllocsPerRun(3, func() {
		err := kernel.Run(context.Background(), kernel.Grid1(block, n), func() {
			i := kernel.DispatchID().X
			out[i] = i
		})
		require.NoError(t, err)
	})
	require.Less(t, allocs, float64(16*n/block), "allocations for %d threads in %d blocks", n, n/block)
	require.Equal(t, uint32(n-1), out[n-1])
}

// TestRunBarrierAfterEarlyReturns: threads that returned before the first
// barrier, while the block still ran its threads one after another, are not
// waited for; threads past the size do not run.
func TestRunBarrierAfterEarlyReturns(t *testing.T) {
	const block = 64
	out := make([]uint32, 2*block)
	err := kernel.Run(context.Background(), kernel.Grid1(block, 2*block-5), func() {
		tile := kernel.Shared[[block]uint32]()
		tid, i := kernel.ThreadID().X, kernel.DispatchID().X
		if tid < 10 {
			out[i] = 1000 + tid
			return
		}
		tile[tid] = i
		kernel.Barrier()
		out[i] = tile[10+(tid-10+1)%(block-10)] // a neighbour's, after the barrier
		kernel.Barrier()
	})
	require.NoError(t, err)
	for i := range out {
		tid := uint32(i % block)
		switch {
		case i >= 2*block-5:
			require.Zero(t, out[i], "thread %d is past the size", i)
		case tid < 10:
			require.Equal(t, 1000+tid, out[i])
		case i >= block && 10+(tid-10+1)%(block-10)+block >= 2*block-5:
			require.Zero(t, out[i], "thread %d read the tile of a thread past the size", i)
		default:
			require.Equal(t, uint32(i/block*block)+10+(tid-10+1)%(block-10), out[i], "thread %d", i)
		}
	}
}

// TestGridBlocksNear4G: a size near 2^32 is a whole number of blocks, not
// the few (or none) the rounding-up sum wrapped to in 32 bits: Run of such a
// grid returned nil having run no thread.
func TestGridBlocksNear4G(t *testing.T) {
	g := kernel.Grid1(256, math.MaxUint32-254)
	require.Equal(t, uint32(1<<24), g.Blocks().X)
	require.Equal(t, uint32(math.MaxUint32), kernel.Grid1(1, math.MaxUint32).Blocks().X)
	require.Equal(t, uint32(1<<28), kernel.Grid2(16, 16, 1<<10, math.MaxUint32).Blocks().Y)

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // stops Run before its first block: the grid's size is not run
	err := kernel.Run(ctx, g, func() {})
	require.ErrorIs(t, err, context.Canceled, "Run of a 2^32-255-thread grid")
}

// TestRunNilContext: Run refuses a nil context; its workers dereferenced
// it on goroutines of their own, which crashed the program.
func TestRunNilContext(t *testing.T) {
	var none context.Context
	require.ErrorIs(t, kernel.Run(none, kernel.Grid1(4, 8), func() {}), kernel.ErrGrid)
	require.ErrorIs(t, kernel.RunBlocks(none, kernel.Grid1(4, 8), func(*kernel.Block) {}), kernel.ErrGrid)
}
