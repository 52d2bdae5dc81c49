package kernel

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
)

// Block is one block of a dispatch run by RunBlocks: the launchers lucentc
// -go writes copy a kernel without collectives into a function that loops
// over the block's threads itself, its thread ids loop variables instead of
// DispatchID and friends, so that Go compiles the kernel to a plain loop.
type Block struct {
	Grid Grid  // the dispatch, with zero components made 1
	ID   Uint3 // BlockID
	Base Uint3 // the DispatchID of the block's thread (0, 0, 0)
	// Thread is the ThreadID of the thread running now: the loop sets it
	// before each thread, and Printf and the error of a panicking thread
	// read it.
	Thread Uint3
}

// Dispatch is the DispatchID of the thread running now.
func (b *Block) Dispatch() Uint3 { return b.Base.Add(b.Thread) }

// Printf is Printf for the thread running now (b.Thread).
func (b *Block) Printf(format string, args ...any) {
	printAt(b.Grid.Print, b.Dispatch(), format, args...)
}

// RunBlocks runs body once per block of the grid, blocks in parallel (up to
// GOMAXPROCS at a time), as Run does for a kernel without Barrier, Shared or
// subgroup operations; body runs the block's threads itself, skipping those
// past g.Size, and sets b.Thread before each. A panic ends its block (the
// block's remaining threads do not run) and RunBlocks returns an error
// wrapping ErrKernelPanic naming the thread, as Run's does. RunBlocks stops
// starting blocks when ctx is done and returns ctx's error.
func RunBlocks(ctx context.Context, g Grid, body func(b *Block)) error {
	if body == nil {
		return fmt.Errorf("%w: nil kernel body", ErrGrid)
	}
	return eachBlock(ctx, g, 0, func() (func(id Uint3) error, func()) {
		b := &Block{Grid: g.normal().withContextPrint(ctx)}
		return func(id Uint3) error {
			b.ID = id
			b.Base = Uint3{id.X * b.Grid.Block.X, id.Y * b.Grid.Block.Y, id.Z * b.Grid.Block.Z}
			b.Thread = Uint3{}
			return runLoop(b, body)
		}, nil
	})
}

// runLoop runs body over block b, turning a panic into the error naming the
// thread that raised it and where (panicSite), as Run's does.
func runLoop(b *Block, body func(*Block)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Thread: b.Thread, Block: b.ID, Dispatch: b.Dispatch(), Pos: panicSite(), Value: r}
		}
	}()
	body(b)
	return nil
}

// eachBlock runs every block of g on up to workers workers (0: GOMAXPROCS),
// which take the next blocks from a shared counter. worker is called on each worker's
// goroutine and returns the function running one block there, and what to
// do when the worker is done (nil: nothing). The first error wins; blocks
// stop being started once ctx is done.
func eachBlock(ctx context.Context, g Grid, workers uint64, worker func() (func(id Uint3) error, func())) error {
	if ctx == nil {
		// Every worker would dereference it, on goroutines of their own:
		// a crash of the program.
		return fmt.Errorf("%w: nil context.Context (pass context.Background())", ErrGrid)
	}
	g = g.normal()
	bt := uint64(g.Block.X) * uint64(g.Block.Y) * uint64(g.Block.Z)
	if bt > maxBlockThreads {
		return fmt.Errorf("%w: block %v has %d threads, more than %d", ErrGrid, g.Block, bt, maxBlockThreads)
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
	if workers == 0 {
		workers = uint64(runtime.GOMAXPROCS(0))
	}
	workers = min(workers, total)
	// Workers take blocks a chunk at a time, 16 chunks a worker: a block of
	// a cheap kernel (saxpy: 256 threads, ~250 ns) costs less than the
	// cache line of a counter shared by every worker moving between cores.
	chunk := max(total/(workers*16), 1)
	work := func() {
		run, done := worker()
		if done != nil {
			defer done()
		}
		for {
			if ctx.Err() != nil {
				fail(ctx.Err())
				return
			}
			first := next.Add(chunk) - chunk
			if first >= total {
				return
			}
			for b := first; b < min(first+chunk, total); b++ {
				id := Uint3{uint32(b % uint64(blocks.X)), uint32(b / uint64(blocks.X) % uint64(blocks.Y)), uint32(b / (uint64(blocks.X) * uint64(blocks.Y)))}
				if err := run(id); err != nil {
					fail(err)
				}
			}
		}
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	wg.Wait()
	return firstErr
}

// printAt formats and prints what thread (a dispatch id) printed, to print
// or, when nil, the default slog logger.
func printAt(print func(Uint3, string), thread Uint3, format string, args ...any) {
	text := fmt.Sprintf(goFormat(format), args...)
	if print != nil {
		print(thread, text)
		return
	}
	slog.Info("kernel print", "thread", [3]uint32{thread.X, thread.Y, thread.Z}, "text", text)
}
