package kernel

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
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
	// concurrently. nil: the print function of Run's context
	// (ContextWithPrint), else the default slog logger.
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

// ceilDiv is a/b rounded up, in 64 bits: a size near 2^32 must not wrap to
// a few blocks (or none).
func ceilDiv(a, b uint32) uint32 { return uint32((uint64(a) + uint64(b) - 1) / uint64(b)) }

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

// PanicError is Run's and RunBlocks's error for a thread that panicked. It
// matches ErrKernelPanic, and unwraps to what the thread panicked with where
// that is an error (an AssertionError, a runtime.Error).
type PanicError struct {
	Thread, Block, Dispatch Uint3 // the thread in its block, the block, the thread's dispatch id
	// Pos is "file:line" of the kernel's statement that panicked, "" where
	// it is not known.
	Pos   string
	Value any // what the thread panicked with
}

func (e *PanicError) Error() string {
	at := ""
	if e.Pos != "" {
		at = e.Pos + ": "
	}
	return fmt.Sprintf("%v: %sthread %v of block %v (dispatch id %v): %v", ErrKernelPanic, at, e.Thread, e.Block, e.Dispatch, e.Value)
}

// Is reports whether target is ErrKernelPanic.
func (e *PanicError) Is(target error) bool { return target == ErrKernelPanic }

// Unwrap returns what the thread panicked with where it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// raceThreads bounds the threads a Run has going at once in a -race build.
const raceThreads = 2048

// maxBlockThreads bounds a block as Vulkan's maxComputeWorkGroupInvocations
// does on common devices.
const maxBlockThreads = 1024

// Run executes body once per thread of the grid on the CPU, as a device would
// dispatch a kernel: blocks run in parallel (up to GOMAXPROCS at a time); a
// block's threads run one after another until one reaches Barrier or a
// subgroup operation, and from then on as goroutines of their own, so that
// Barrier, Shared and the subgroup operations behave as on a device (a
// subgroup operation in a branch some lanes skip runs over the lanes that
// reach it while the others wait at Barrier or have returned; lanes of one
// subgroup waiting at two different operations at once are an error naming
// both, not a reconvergence Run would have to guess). body is
// usually a closure calling the kernel with its arguments:
//
//	err := kernel.Run(ctx, kernel.Grid1(256, n), func() { Saxpy(2, x, y) })
//
// Threads past g.Size do not run (the device's early return). A panicking
// thread does not crash the process: Run returns an error wrapping
// ErrKernelPanic naming the first such thread. Run stops starting blocks when
// ctx is done and returns ctx's error.
//
// In a binary built with -race, every thread of a block runs on a goroutine
// of its own from the start, and nothing of the runner orders the threads
// but Barrier (and the subgroup operations, atomics and printing, which
// synchronise as in Go), so Go's race detector reports a kernel's data
// races (a missing barrier, two threads writing one element) with the
// file:line of both accesses; at most 2048 threads of a Run are live at
// once there (the detector allows 8128 goroutines).
func Run(ctx context.Context, g Grid, body func()) error {
	if body == nil {
		return fmt.Errorf("%w: nil kernel body", ErrGrid)
	}
	g = g.normal().withContextPrint(ctx)
	if raceBuild {
		return runRaced(ctx, g, body)
	}
	return eachBlock(ctx, g, 0, func() (func(id Uint3) error, func()) {
		own, unregister := register()
		return func(id Uint3) error { return runBlock(g, id, own, body, nil) }, unregister
	})
}

// runRaced is Run in a -race build: fewer workers (a goroutine per thread
// must stay well below the detector's limit), and the threads of each
// worker's last block held until every block has run (raceWorker).
func runRaced(ctx context.Context, g Grid, body func()) error {
	bt := uint64(g.Block.X) * uint64(g.Block.Y) * uint64(g.Block.Z)
	blocks := g.Blocks()
	total := uint64(blocks.X) * uint64(blocks.Y) * uint64(blocks.Z)
	// A goroutine per thread: stay well below the detector's limit of 8128
	// live goroutines, with other Runs going on. At least two blocks at
	// once: Go's detector sees races with a goroutine that ended dozens of
	// goroutine starts ago poorly. Each holds two blocks' threads.
	workers := min(total, max(2, min(uint64(runtime.GOMAXPROCS(0)), raceThreads/(2*bt))))
	done := unsafe.Pointer(new(byte)) // what the threads release when they end
	rws := make([]raceWorker, workers)
	var started atomic.Int64
	err := eachBlock(ctx, g, workers, func() (func(id Uint3) error, func()) {
		own, unregister := register()
		rw := &rws[started.Add(1)-1]
		rw.done = done
		return func(id Uint3) error { return runBlock(g, id, own, body, rw) }, unregister
	})
	for i := range rws {
		rws[i].release() // the last blocks' threads, held till every block ran
	}
	raceAcquire(done) // everything the threads did comes before Run's return
	return err
}

// workgroup is the state a block's threads share.
type workgroup struct {
	grid     Grid
	id       Uint3
	base     Uint3 // the dispatch id of thread (0, 0, 0)
	barrier  *barrier
	sharedMu sync.Mutex
	shared   map[uintptr]any // Shared call site -> variable
	// In -race builds: Run's token, which the threads release as they
	// end, and the channel they wait on after that (raceWorker).
	done unsafe.Pointer
	hold chan struct{}
	// raceShared is Shared's table in a -race build (sharedRace).
	raceShared *[raceSharedSites]sharedSite

	mu         sync.Mutex
	concurrent bool    // the threads not started when a collective was reached run as goroutines
	cur        *thread // the thread running on the block's own goroutine, while not concurrent
	body       func()

	wg       sync.WaitGroup
	errOnce  sync.Once
	firstErr error
}

// runBlock runs the threads of one block to completion on the calling
// goroutine, registered as own. Threads run one after another, in one
// thread record (no allocation, registration or deferred call per thread),
// until one of them reaches a collective operation (Barrier or a subgroup
// operation); then every thread not started yet gets a goroutine of its
// own, so that all of them can meet. Kernels without collectives never pay
// for a goroutine per thread, nor for the barriers' bookkeeping.
func runBlock(g Grid, id Uint3, own *slot, body func(), rw *raceWorker) error {
	grp := &workgroup{grid: g, id: id, base: Uint3{id.X * g.Block.X, id.Y * g.Block.Y, id.Z * g.Block.Z}, body: body}
	if raceBuild {
		// Every thread on a goroutine of its own from the start, and the
		// wait for them hidden from the detector, so that nothing but
		// barriers orders the threads of a block, nor the blocks a worker
		// runs one after another.
		grp.concurrent, grp.done, grp.hold = true, rw.done, make(chan struct{})
		grp.raceShared = new([raceSharedSites]sharedSite)
		grp.spawn(nil)
		raceOff()
		grp.wg.Wait()
		raceOn()
		rw.release()
		rw.held = grp.hold
		raceAcquire(unsafe.Pointer(grp)) // a failing thread's error
		return grp.firstErr
	}
	t := &thread{group: grp}
	grp.cur = t
	own.t = t
	n := g.Block.X * g.Block.Y * g.Block.Z
	for i := uint32(0); i < n && !grp.concurrent; { // concurrent is set by this goroutine, in t's collective
		i = grp.runSequential(t, i)
	}
	own.t = nil
	grp.wg.Wait()
	return grp.firstErr
}

// runSequential runs the block's threads from linear index from on, one
// after another in t, until a collective made the threads concurrent or one
// panicked (recorded); it returns the index to go on from.
func (grp *workgroup) runSequential(t *thread, from uint32) (next uint32) {
	defer func() {
		if t.sub != nil { // it took part in the concurrent threads' rendezvous
			t.sub.barrier.leave()
			grp.barrier.leave()
		}
		if r := recover(); r != nil {
			grp.fail(t, r)
		}
	}()
	g := grp.grid
	b, sz, n := g.Block, g.SubgroupSize, g.Block.X*g.Block.Y*g.Block.Z
	x, y, z := from%b.X, from/b.X%b.Y, from/(b.X*b.Y)
	lane := from % sz
	for i := from; i < n; i++ {
		next = i + 1
		d := Uint3{grp.base.X + x, grp.base.Y + y, grp.base.Z + z}
		if d.X < g.Size.X && d.Y < g.Size.Y && d.Z < g.Size.Z {
			t.local, t.dispatch, t.index, t.lane = Uint3{x, y, z}, d, i, lane
			grp.body()
			if grp.concurrent {
				return next
			}
		}
		if lane++; lane == sz {
			lane = 0
		}
		if x++; x == b.X {
			x = 0
			if y++; y == b.Y {
				y = 0
				z++
			}
		}
	}
	return next
}

// runThread runs t, a thread of a block running concurrently, on the
// calling goroutine, whose registered slot is s.
func (grp *workgroup) runThread(s *slot, t *thread, body func()) {
	s.t = t
	defer func() {
		s.t = nil
		t.sub.barrier.leave()
		grp.barrier.leave()
		if r := recover(); r != nil {
			grp.fail(t, r)
		}
		raceRelease(grp.done)
	}()
	body()
}

// fail records thread t's panic r as the block's error (the first one),
// with the position of the kernel code that panicked. It runs in the
// deferred recover of the panicking goroutine.
func (grp *workgroup) fail(t *thread, r any) {
	at := panicSite()
	grp.errOnce.Do(func() {
		grp.firstErr = &PanicError{Thread: t.local, Block: grp.id, Dispatch: t.dispatch, Pos: at, Value: r}
	})
	raceRelease(unsafe.Pointer(grp))
}

// panicSite is "file:line" of the innermost frame of the panic being
// recovered outside the runtime and this package (an index out of range,
// a failed Assert: the kernel's line), or "" when none is found.
func panicSite() string {
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	panicking := false
	for {
		fr, more := frames.Next()
		switch {
		case fr.Function == "runtime.gopanic":
			panicking = true
		case panicking && !strings.HasPrefix(fr.Function, "runtime.") && !strings.HasPrefix(fr.Function, kernelPkg):
			return fmt.Sprintf("%s:%d", fr.File, fr.Line)
		}
		if !more {
			return ""
		}
	}
}

// kernelPkg is the prefix of this package's function names.
const kernelPkg = "github.com/lucent-gpu/lucent/kernel."

// collective makes sure every thread of the block runs concurrently before
// a thread waits for the others. Before that only one thread of the block
// runs (the one on the block's goroutine), so only it can get here first.
func (g *workgroup) collective() {
	if raceBuild {
		return // the threads run concurrently from the start
	}
	g.mu.Lock()
	c := g.concurrent
	if !c {
		g.concurrent = true
	}
	g.mu.Unlock()
	if !c {
		g.spawn(g.cur)
	}
}

// spawn starts a goroutine for each thread after cur (every thread, if cur
// is nil) and sets up the barriers of the threads still to finish: cur and
// those.
func (g *workgroup) spawn(cur *thread) {
	b, sz := g.grid.Block, g.grid.SubgroupSize
	n := b.X * b.Y * b.Z
	var subs []*subgroup
	var rest []*thread
	parties := 0
	from := uint32(0)
	if cur != nil {
		from = cur.index
	}
	for i := from; i < n; i++ {
		local := Uint3{i % b.X, i / b.X % b.Y, i / (b.X * b.Y)}
		d := g.base.Add(local)
		if d.X >= g.grid.Size.X || d.Y >= g.grid.Size.Y || d.Z >= g.grid.Size.Z {
			continue
		}
		k := i / sz
		for uint32(len(subs)) <= k {
			subs = append(subs, &subgroup{size: sz})
		}
		subs[k].live++
		parties++
		if cur != nil && i == cur.index {
			cur.sub = subs[k]
			continue
		}
		rest = append(rest, &thread{group: g, local: local, dispatch: d, index: i, sub: subs[k], lane: i % sz})
	}
	g.barrier = newBarrier(parties)
	for _, s := range subs {
		if s.live > 0 {
			s.init()
		}
	}
	// The lanes waiting at the block's barrier are out of their subgroups'
	// rendezvous (Barrier); all of them are back before any leaves it.
	g.barrier.onRelease = func() {
		for _, s := range subs {
			if n := s.suspended.Swap(0); n > 0 {
				s.barrier.rejoin(n)
			}
		}
	}
	body := g.body
	for _, t := range rest {
		g.wg.Add(1)
		go func() {
			s, unregister := register()
			defer unregister()
			func() {
				defer g.wg.Done()
				g.runThread(s, t, body)
			}()
			if g.hold != nil {
				raceOff()
				<-g.hold // see raceWorker
				raceOn()
			}
		}()
	}
}
