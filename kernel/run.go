package kernel

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Grid describes a dispatch: the block (workgroup) size and the number of
// threads asked for. A zero component counts as 1.
type Grid struct {
	Block Uint3 // threads per block, the kernel's block= directive
	Size  Uint3 // threads in the whole dispatch
	// SubgroupSize is the number of consecutive threads of a block (by
	// linear index x + y*bx + z*bx*by) that form a subgroup; 0 means 8, the
	// subgroup size of the test device. It must divide into the block or the
	// last subgroup is partial, as on a device.
	SubgroupSize uint32
	// Print receives what the threads print (Printf), with the printing
	// thread's dispatch id; it is called from the threads themselves, so
	// concurrently. nil: the default slog logger.
	Print func(thread Uint3, text string)
}

// Grid1 is the grid of n threads in blocks of block threads.
func Grid1(block, n uint32) Grid { return Grid{Block: Uint3{block, 1, 1}, Size: Uint3{n, 1, 1}} }

// Grid2 is the grid of w×h threads in blocks of bw×bh threads.
func Grid2(bw, bh, w, h uint32) Grid { return Grid{Block: Uint3{bw, bh, 1}, Size: Uint3{w, h, 1}} }

// Blocks returns the number of blocks in each dimension (rounded up).
func (g Grid) Blocks() Uint3 {
	return Uint3{ceilDiv(g.Size.X, g.Block.X), ceilDiv(g.Size.Y, g.Block.Y), ceilDiv(g.Size.Z, g.Block.Z)}
}

func ceilDiv(a, b uint32) uint32 { return (a + b - 1) / b }

func (g Grid) normal() Grid {
	one := func(v *uint32) {
		if *v == 0 {
			*v = 1
		}
	}
	for _, v := range []*uint32{&g.Block.X, &g.Block.Y, &g.Block.Z, &g.Size.X, &g.Size.Y, &g.Size.Z} {
		one(v)
	}
	if g.SubgroupSize == 0 {
		g.SubgroupSize = 8
	}
	return g
}

// ErrGrid is wrapped by Run's errors about an impossible grid.
var ErrGrid = errors.New("kernel: invalid grid")

// ErrKernelPanic is wrapped by Run's error when a kernel thread panicked (an
// index out of range, a division by zero, …).
var ErrKernelPanic = errors.New("kernel: thread panicked")

// maxBlockThreads bounds a block as Vulkan's maxComputeWorkGroupInvocations
// does on common devices.
const maxBlockThreads = 1024

// Run executes body once per thread of the grid on the CPU, as a device would
// dispatch a kernel: blocks run in parallel (up to GOMAXPROCS at a time); a
// block's threads run one after another until one reaches Barrier or a
// subgroup operation, and from then on as goroutines of their own, so that
// Barrier, Shared and the subgroup operations behave as on a device. body is
// usually a closure calling the kernel with its arguments:
//
//	err := kernel.Run(ctx, kernel.Grid1(256, n), func() { Saxpy(2, x, y) })
//
// Threads past g.Size do not run (the device's early return). A panicking
// thread does not crash the process: Run returns an error wrapping
// ErrKernelPanic naming the first such thread. Run stops starting blocks when
// ctx is done and returns ctx's error.
func Run(ctx context.Context, g Grid, body func()) error {
	g = g.normal()
	bt := uint64(g.Block.X) * uint64(g.Block.Y) * uint64(g.Block.Z)
	if bt > maxBlockThreads {
		return fmt.Errorf("%w: block %v has %d threads, more than %d", ErrGrid, g.Block, bt, maxBlockThreads)
	}
	if body == nil {
		return fmt.Errorf("%w: nil kernel body", ErrGrid)
	}
	blocks := g.Blocks()
	total := uint64(blocks.X) * uint64(blocks.Y) * uint64(blocks.Z)

	var (
		next     atomic.Uint64
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
	workers := min(uint64(runtime.GOMAXPROCS(0)), total)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if ctx.Err() != nil {
					fail(ctx.Err())
					return
				}
				b := next.Add(1) - 1
				if b >= total {
					return
				}
				id := Uint3{uint32(b % uint64(blocks.X)), uint32(b / uint64(blocks.X) % uint64(blocks.Y)), uint32(b / (uint64(blocks.X) * uint64(blocks.Y)))}
				if err := runBlock(g, id, body); err != nil {
					fail(err)
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// workgroup is the state a block's threads share.
type workgroup struct {
	grid     Grid
	id       Uint3
	barrier  *barrier
	sharedMu sync.Mutex
	shared   map[uintptr]any // Shared call site -> variable

	mu         sync.Mutex
	next       int  // the next thread to start
	concurrent bool // the threads not started when a collective was reached run as goroutines
	spawnRest  func()
}

// runBlock runs the threads of one block to completion.
func runBlock(g Grid, id Uint3, body func()) error {
	base := Uint3{id.X * g.Block.X, id.Y * g.Block.Y, id.Z * g.Block.Z}
	var ts []*thread
	grp := &workgroup{grid: g, id: id, shared: map[uintptr]any{}}
	var subs []*subgroup
	index := uint32(0)
	for z := range g.Block.Z {
		for y := range g.Block.Y {
			for x := range g.Block.X {
				local := Uint3{x, y, z}
				d := base.Add(local)
				i := index
				index++
				if d.X >= g.Size.X || d.Y >= g.Size.Y || d.Z >= g.Size.Z {
					continue
				}
				s := i / g.SubgroupSize
				for uint32(len(subs)) <= s {
					subs = append(subs, &subgroup{size: g.SubgroupSize})
				}
				subs[s].live++
				ts = append(ts, &thread{group: grp, local: local, dispatch: d, index: i, sub: subs[s], lane: i % g.SubgroupSize})
			}
		}
	}
	grp.barrier = newBarrier(len(ts))
	for _, s := range subs {
		s.init()
	}
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	// runThread runs t on the calling goroutine, whose registered slot is s.
	runThread := func(s *slot, t *thread) {
		s.t = t
		defer func() {
			s.t = nil
			t.sub.barrier.leave()
			grp.barrier.leave()
			if r := recover(); r != nil {
				errOnce.Do(func() {
					firstErr = fmt.Errorf("%w: thread %v of block %v (dispatch id %v): %v", ErrKernelPanic, t.local, grp.id, t.dispatch, r)
				})
			}
		}()
		body()
	}
	// Threads run one after another on this goroutine until one of them
	// reaches a collective operation (Barrier or a subgroup operation); then
	// every thread not started yet gets a goroutine of its own, so that all
	// of them can meet. Kernels without collectives never pay for a
	// goroutine per thread.
	grp.spawnRest = func() {
		grp.mu.Lock()
		from := grp.next
		grp.next, grp.concurrent = len(ts), true
		grp.mu.Unlock()
		for _, t := range ts[from:] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, unregister := register()
				defer unregister()
				runThread(s, t)
			}()
		}
	}
	own, unregister := register()
	for {
		grp.mu.Lock()
		if grp.concurrent || grp.next == len(ts) {
			grp.mu.Unlock()
			break
		}
		t := ts[grp.next]
		grp.next++
		grp.mu.Unlock()
		runThread(own, t)
	}
	unregister()
	wg.Wait()
	return firstErr
}

// collective makes sure every thread of the block runs concurrently before
// a thread waits for the others.
func (g *workgroup) collective() {
	g.mu.Lock()
	c := g.concurrent
	g.mu.Unlock()
	if !c {
		g.spawnRest()
	}
}
