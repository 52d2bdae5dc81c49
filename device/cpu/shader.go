package cpu

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/softaccel"
	"github.com/lucent-gpu/lucent/kernel"
)

// program is a compiled kernel.
type program struct {
	name, pos     string
	block         [3]uint32
	barrier       bool
	params        []*ir.Var
	shared        []int // leaves of each shared variable
	entry         *compiledFunc
	nslots, nrefs int
	uniSlots      []int     // per argument: the register of a uniform's first leaf, or -1
	threads       sync.Pool // of *th
	lanes         *laneProg // the kernel for the lane engine (nil: the per-thread engine runs it)
	laneWhy       string    // what kept it off the lane engine
	lanePool      sync.Pool // of *lth

	// The race detector's (race.go): whether the kernel is instrumented,
	// its access sites, the names of its arguments and shared variables,
	// and the leaves of each shared variable's element.
	race       bool
	raceSites  []raceSite
	argWhat    []string
	sharedWhat []string
	sharedElem []int
}

type shader struct {
	prog *program // named as the shader (the kernel's name unless ShaderDesc.Name says otherwise)
	sig  device.Signature
	host device.HostFunc // the kernel as compiled Go (ShaderDesc.Host), run instead of prog
}

func (d *Device) CreateShader(desc device.ShaderDesc) (device.Handle, device.Signature, error) {
	if err := d.enter(); err != nil {
		return 0, device.Signature{}, err
	}
	defer d.exit()
	if desc.Kernel == nil {
		return 0, device.Signature{}, fmt.Errorf("cpu: CreateShader: %w: SPIR-V modules do not run on the cpu backend (it compiles lucent kernels: ShaderDesc.Kernel)", device.ErrUnsupported)
	}
	f := desc.Kernel
	if desc.Signature == nil {
		return 0, device.Signature{}, fmt.Errorf("cpu: CreateShader: %w: kernel %s without its signature", device.ErrInvalidArgument, f.Name)
	}
	if err := f.Validate(); err != nil {
		return 0, device.Signature{}, fmt.Errorf("cpu: CreateShader %s: %w", f.Name, err)
	}
	start := time.Now()
	p, err := compileKernel(f, d.race, desc.KernelOptions.Checked)
	if err != nil {
		return 0, device.Signature{}, fmt.Errorf("cpu: CreateShader %s: %w", f.Name, err)
	}
	sig := *desc.Signature
	if len(sig.Args) != len(f.Params) {
		return 0, device.Signature{}, fmt.Errorf("cpu: CreateShader %s: %w: signature has %d arguments, kernel %d", f.Name, device.ErrInvalidArgument, len(sig.Args), len(f.Params))
	}
	if desc.Host != nil {
		for i, v := range f.Params {
			if k := v.Type.Kind(); k != ir.KindBuffer && v.Type.IsResource() {
				return 0, device.Signature{}, fmt.Errorf("cpu: CreateShader %s: %w: a host function takes buffers and uniforms, not the %s %v", f.Name, device.ErrInvalidArgument, k, argLabel{a: &sig.Args[i], i: i})
			}
		}
	}
	if desc.Report != nil {
		*desc.Report = device.ShaderReport{CodegenTime: time.Since(start)}
	}
	if desc.Name != "" {
		p.name = desc.Name // what faults, races and prints name, as on Vulkan
	}
	return d.add(&shader{prog: p, sig: sig, host: desc.Host}), sig, nil
}

func (d *Device) DestroyShader(h device.Handle) error {
	sh, err := remove[*shader](d, h, "shader")
	if err == nil {
		d.closedKernels.Add(h, sh.prog.name)
	}
	return err
}

// launch is one dispatch's arguments and outcome.
type launch struct {
	prog                *program
	bufs                [][]byte
	uni                 [][]uint64
	scalars             []uint64 // where scalar uniforms may keep their value (newDispatch), or nil
	texs                []*texView
	binds               [][]bslot // bindless arrays: their slots when the dispatch was submitted
	accels              []*softaccel.Structure
	scenes              []*bvh.Scene // accels: their top levels when the dispatch runs
	size, block, groups [3]uint32
	indirect            bool

	// Every loop iteration polls failed (a fault in another thread) and
	// stop (the device's: Close gave up waiting), and ends the dispatch.
	stop   *atomic.Bool
	failed atomic.Bool
	mu     sync.Mutex
	err    error
	prints []device.KernelPrint // what the threads printed, in the order they did (under mu)
	race   *raceState           // the race detector's, in race mode
}

// dispatchOp is one dispatch's operation: its launch record, room for up to
// 4 arguments' slices and what running it needs, in one allocation (a
// dispatch's fixed cost is mostly allocations), which is also the runner
// the stream calls.
type dispatchOp struct {
	launch
	d        *Device
	sh       *shader
	c        *device.ShaderDispatch
	host     device.HostFunc
	hostArgs [][]byte
	raceBufs []raceBuffer
	ind      []byte // the indirect dispatch's group counts, or nil

	bufs    [4][]byte
	uni     [4][]uint64
	scalars [4]uint64
}

// dispatchOps recycles the records of dispatches that ran (run): at one
// record a dispatch, a small dispatch otherwise allocates ~640 bytes.
var dispatchOps sync.Pool

func newDispatch(p *program, n int) *dispatchOp {
	o, ok := dispatchOps.Get().(*dispatchOp)
	if !ok {
		o = &dispatchOp{}
	}
	l := &o.launch
	l.prog, l.block = p, p.block
	if n <= 4 {
		l.bufs, l.uni, l.scalars = o.bufs[:n:n], o.uni[:n:n], o.scalars[:n:n]
	} else {
		l.bufs, l.uni = make([][]byte, n), make([][]uint64, n)
	}
	return o
}

func (l *launch) fail(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
	l.failed.Store(true)
}

func (d *Device) prepareDispatch(c *device.ShaderDispatch) (runner, error) {
	sh, err := lookup[*shader](d, c.Shader, "shader")
	if err != nil {
		return nil, d.closedKernels.Wrap(c.Shader, err)
	}
	p := sh.prog
	if len(c.Args) != len(p.params) {
		return nil, device.CheckArgCount("kernel "+p.name, &sh.sig, len(c.Args))
	}
	o := newDispatch(p, len(c.Args))
	l := &o.launch
	l.stop = &d.abandon
	var hostArgs [][]byte
	var raceBufs []raceBuffer
	if p.race {
		raceBufs = make([]raceBuffer, len(c.Args))
	}
	host := sh.host
	if p.race {
		host = nil // the detector watches the IR's accesses
	}
	if host != nil {
		hostArgs = make([][]byte, len(c.Args))
	}
	for i, a := range c.Args {
		v := p.params[i]
		want := &sh.sig.Args[i]
		// Errors name the kernel and the argument, and say what is wrong
		// in device.CheckArg's words, as the Vulkan backend's do.
		label := argLabel{want, i, p.name}
		if a.Kind != want.Kind {
			return nil, fmt.Errorf("%v: %w", label, device.CheckArg(*want, a, device.ArgResource{}))
		}
		switch v.Type.Kind() {
		case ir.KindAccel:
			s, err := d.structure(a.Handle, device.KindAccel)
			if err != nil {
				return nil, fmt.Errorf("%v: %w", label, err)
			}
			if l.accels == nil {
				l.accels = make([]*softaccel.Structure, len(c.Args))
				l.scenes = make([]*bvh.Scene, len(c.Args))
			}
			l.accels[i] = s
		case ir.KindBindless:
			arr, err := lookup[*bindless](d, a.Handle, "bindless array")
			if err != nil {
				return nil, fmt.Errorf("%v: %w", label, err)
			}
			if err := arr.check(); err != nil {
				return nil, fmt.Errorf("%v: bindless array %d: %w", label, a.Handle, err)
			}
			if l.binds == nil {
				l.binds = make([][]bslot, len(c.Args))
			}
			l.binds[i] = arr.snapshot()
		case ir.KindTexture:
			tx, err := lookup[*texture](d, a.Handle, "texture")
			if err != nil {
				return nil, fmt.Errorf("%v: %w", label, err)
			}
			if err := device.CheckArg(*want, a, device.ArgResource{Texture: tx.desc}); err != nil {
				return nil, fmt.Errorf("%v: %w", label, err)
			}
			if int(tx.desc.Dim) != v.Type.Len() {
				return nil, fmt.Errorf("%v: %w: kernel expects a %dD texture, texture %d is %dD", label, device.ErrInvalidArgument, v.Type.Len(), a.Handle, tx.desc.Dim)
			}
			if l.texs == nil {
				l.texs = make([]*texView, len(c.Args))
			}
			l.texs[i] = &texView{data: tx.levels[a.Level], ext: tx.desc.LevelExtent(a.Level), format: tx.desc.Format, label: want.Label(i), tex: tx, level: a.Level}
		case ir.KindBuffer:
			b, err := lookup[*buffer](d, a.Handle, "buffer")
			if err != nil {
				return nil, fmt.Errorf("%v: %w", label, err)
			}
			if err := device.CheckArg(*want, a, device.ArgResource{Buffer: b.desc()}); err != nil {
				return nil, fmt.Errorf("%v: %w", label, err)
			}
			size := a.Size // in range (CheckArg)
			if size == device.WholeSize {
				size = uint64(len(b.data)) - a.Offset
			}
			span := b.data[a.Offset : a.Offset+size : a.Offset+size]
			if len(span) > 0 && !v.Type.ByAddress() && a.Offset%granularity != 0 {
				// As the Vulkan backend refuses it (minStorageBufferOffsetAlignment):
				// a program that binds such a view runs on neither.
				return nil, fmt.Errorf("%v: %w: offset %d is not a multiple of %d", label, device.ErrInvalidArgument, a.Offset, granularity)
			}
			l.bufs[i] = span
			if raceBufs != nil && len(span) > 0 {
				raceBufs[i] = raceBuffer{b: b, off: uintptr(unsafe.Pointer(unsafe.SliceData(span))) - uintptr(unsafe.Pointer(unsafe.SliceData(b.data))), leaf: smallestLeaf(v.Type.Elem())}
			}
			if hostArgs != nil {
				hostArgs[i] = span
			}
		default:
			if err := device.CheckArg(*want, a, device.ArgResource{}); err != nil {
				return nil, fmt.Errorf("%v: %w", label, err)
			}
			if v.Type.IsScalar() && v.Type != ir.TBool && len(a.Uniform) == v.Type.Size() && l.scalars != nil {
				l.scalars[i] = getLeaf(a.Uniform, len(a.Uniform)) // the common case, without an allocation
				l.uni[i] = l.scalars[i : i+1 : i+1]
			} else {
				vals, err := decodeUniform(v.Type, a.Uniform)
				if err != nil {
					return nil, fmt.Errorf("%v: %w: %v", label, device.ErrInvalidArgument, err)
				}
				l.uni[i] = vals
			}
			if hostArgs != nil {
				hostArgs[i] = append([]byte(nil), a.Uniform...)
			}
		}
	}
	var ind []byte
	if c.Indirect != 0 {
		ind, err = span(d, c.Indirect, c.IndirectOffset, 12, "indirect buffer")
		if err != nil {
			return nil, err
		}
		l.indirect = true
	} else {
		for i := range 3 {
			s := max(c.Size[i], 1)
			l.size[i] = s
			l.groups[i] = uint32((uint64(s) + uint64(p.block[i]) - 1) / uint64(p.block[i]))
		}
	}
	o.d, o.sh, o.c, o.host, o.hostArgs, o.raceBufs, o.ind = d, sh, c, host, hostArgs, raceBufs, ind
	return o, nil
}

// run runs the dispatch on the stream.
func (o *dispatchOp) run() error {
	d, sh, c, host, hostArgs, raceBufs, ind := o.d, o.sh, o.c, o.host, o.hostArgs, o.raceBufs, o.ind
	l, p := &o.launch, o.prog
	// An accel is read when the dispatch runs, after the builds before
	// it on the stream.
	for i, s := range l.accels {
		if s == nil {
			continue
		}
		sc := s.Scene()
		if sc == nil {
			return fmt.Errorf("%v: %w: accel %d has not been built", argLabel{&sh.sig.Args[i], i, p.name}, device.ErrInvalidArgument, c.Args[i].Handle)
		}
		l.scenes[i] = sc
	}
	if ind != nil {
		for i := range 3 {
			l.groups[i] = binary.LittleEndian.Uint32(ind[4*i:])
			l.size[i] = uint32(min(uint64(l.groups[i])*uint64(p.block[i]), 1<<32-1))
		}
	}
	if l.stop.Load() {
		return fmt.Errorf("kernel %s: %w: the device was closed", p.name, device.ErrDeviceLost)
	}
	var err error
	if host != nil {
		err = p.execHost(d.hostCtx, host, l, hostArgs)
	} else {
		if p.race {
			l.race = newRaceState(l, raceBufs)
		}
		err = p.exec(l)
		if err == nil {
			err = l.raceErr()
		}
	}
	d.deliverPrints(l)
	if err == nil && host == nil && !p.race && !p.barrier {
		// Nothing holds the record any more: exec's workers have
		// returned, and its threads were freed. (A compiled Go kernel's
		// goroutines, the race detector's state and a barrier kernel's
		// coroutines are not followed that far: those records are left
		// to the collector, as is any failed dispatch's.)
		*o = dispatchOp{}
		dispatchOps.Put(o)
	}
	return err
}

// execHost runs the kernel's compiled Go function over the dispatch. Its
// checks are Go's: an index past a buffer's bound range or an integer
// division by zero panics the thread, and kernel.Run returns that as an
// error, which becomes the dispatch's fault naming the kernel; a panic
// outside the threads is caught here the same way.
func (p *program) execHost(ctx context.Context, host device.HostFunc, l *launch, args [][]byte) (err error) {
	at := ""
	if p.pos != "" {
		at = " (" + p.pos + ")"
	}
	defer func() {
		if r := recover(); r != nil {
			err = &faultError{fmt.Errorf("%w: kernel %s%s, as compiled Go: panic: %v", device.ErrInvalidArgument, p.name, at, r)}
		}
	}()
	// What the threads print goes to the device's handler, as the
	// compiled AST's prints do (kernel.Run's Grid.Print is left nil by the
	// function, so it takes the context's).
	pctx := kernel.ContextWithPrint(ctx, func(th kernel.Uint3, text string) {
		l.mu.Lock()
		l.prints = append(l.prints, device.KernelPrint{Kernel: p.name, Thread: [3]uint32{th.X, th.Y, th.Z}, Text: text})
		l.mu.Unlock()
	})
	if err = host(pctx, l.size, args); err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("kernel %s: %w: the device was closed: %w", p.name, device.ErrDeviceLost, err)
	}
	if errors.Is(err, device.ErrInvalidArgument) {
		return fmt.Errorf("kernel %s%s, as compiled Go: %w", p.name, at, err)
	}
	// A failed kernel.Assert is the fault the compiled AST records for it.
	var pe *kernel.PanicError
	var ae kernel.AssertionError
	if errors.As(err, &pe) && errors.As(err, &ae) {
		return &faultError{&device.KernelFault{Kernel: p.name, Kind: device.FaultAssert, Msg: ae.Msg,
			Thread: [3]uint32{pe.Dispatch.X, pe.Dispatch.Y, pe.Dispatch.Z}, Pos: pe.Pos, Count: 1}}
	}
	return &faultError{fmt.Errorf("%w: kernel %s%s, as compiled Go: %w", device.ErrInvalidArgument, p.name, at, err)}
}

// argLabel names argument i in errors, formatted only when one is printed
// (every submission checks its dispatches' arguments).
type argLabel struct {
	a      *device.Argument
	i      int
	kernel string // "": the argument alone
}

func (l argLabel) String() string {
	if l.kernel != "" {
		return "kernel " + l.kernel + " " + l.a.Label(l.i)
	}
	return l.a.Label(l.i)
}

func decodeUniform(t *ir.Type, b []byte) ([]uint64, error) {
	if t == ir.TBool {
		if len(b) != 1 && len(b) != 4 {
			return nil, fmt.Errorf("%d bytes for a bool", len(b))
		}
		return []uint64{b2u(b[0] != 0)}, nil
	}
	if len(b) != t.Size() {
		return nil, fmt.Errorf("%d bytes for %s of %d", len(b), t, t.Size())
	}
	lay := layout(t)
	out := make([]uint64, len(lay))
	for i, l := range lay {
		out[i] = getLeaf(b[l.off:], l.size)
	}
	return out, nil
}

func (p *program) newThread(l *launch) *th {
	t, ok := p.threads.Get().(*th)
	if ok {
		t.run, t.blk = l, nil
	} else {
		t = &th{r: make([]uint64, p.nslots), refs: make([][]uint64, p.nrefs), run: l}
	}
	p.loadUniforms(t, l)
	return t
}

// loadUniforms copies the dispatch's uniform arguments into t's registers.
func (p *program) loadUniforms(t *th, l *launch) {
	for i, o := range p.uniSlots {
		if o >= 0 {
			copy(t.r[o:], l.uni[i])
		}
	}
}

func (p *program) freeThread(t *th) {
	t.run, t.blk = nil, nil
	clear(t.refs)
	p.threads.Put(t)
}

// exec runs every block of the dispatch, spread over GOMAXPROCS workers.
func (p *program) exec(l *launch) error {
	g := p.grid(l) // assigned once: the workers' closure copies it, on the stack
	total := uint64(g[0]) * uint64(g[1]) * uint64(g[2])
	if total == 0 {
		return nil
	}
	workers := uint64(runtime.GOMAXPROCS(0))
	workers = min(workers, total)
	if p.race {
		// The detector's shadow orders nothing between blocks, so one
		// worker finds the same races as many (and reports them in block
		// order); blocks running at once would make a racy kernel a data
		// race of this process's own memory.
		workers = 1
	}
	if workers == 1 {
		e := execBlocks{chunk: blockChunk(total, 1)} // on the stack: the common small dispatch allocates nothing here
		e.work(p, l, g, total)
	} else {
		e := &execBlocks{chunk: blockChunk(total, workers)}
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() { defer wg.Done(); e.work(p, l, g, total) }()
		}
		wg.Wait()
	}
	return l.err
}

// grid is the blocks exec hands out: the dispatch's, or where the lane
// engine merges blocks (laneProg.merge), the merged ones.
func (p *program) grid(l *launch) [3]uint32 {
	g := l.groups
	if p.lanes != nil && p.lanes.merge > 1 {
		g[0] = uint32((uint64(g[0]) + uint64(p.lanes.merge) - 1) / uint64(p.lanes.merge))
	}
	return g
}

// execBlocks hands a dispatch's blocks out to exec's workers, chunk
// consecutive blocks at a time.
type execBlocks struct {
	next  atomic.Uint64
	chunk uint64
}

// blockChunk is how many consecutive blocks a worker takes at once: one
// shared counter's increment (a cache line moving between cores) and the
// division of the block's index into its id a chunk rather than a block,
// while the last chunks still leave each worker at most 1/64 of the work
// more than another.
func blockChunk(total, workers uint64) uint64 {
	return max(1, min(maxBlockChunk, total/(workers*64)))
}

const maxBlockChunk = 16

// claim takes the next chunk of blocks: those from lo to hi, and the id
// of lo; ok is false where none is left.
func (e *execBlocks) claim(g [3]uint32, total uint64) (lo, hi uint64, bid [3]uint32, ok bool) {
	lo = e.next.Add(e.chunk) - e.chunk
	if lo >= total {
		return 0, 0, bid, false
	}
	hi = min(lo+e.chunk, total)
	if g[1] == 1 && g[2] == 1 {
		return lo, hi, [3]uint32{uint32(lo), 0, 0}, true
	}
	return lo, hi, [3]uint32{uint32(lo % uint64(g[0])), uint32(lo / uint64(g[0]) % uint64(g[1])), uint32(lo / (uint64(g[0]) * uint64(g[1])))}, true
}

// nextBlock is the id of the block after bid in the dispatch's order.
func nextBlock(bid [3]uint32, g [3]uint32) [3]uint32 {
	if bid[0]++; bid[0] == g[0] {
		bid[0] = 0
		if bid[1]++; bid[1] == g[1] {
			bid[1] = 0
			bid[2]++
		}
	}
	return bid
}

// work runs blocks until none is left, the dispatch failed or the device stops.
func (e *execBlocks) work(p *program, l *launch, g [3]uint32, total uint64) {
	if p.lanes != nil {
		t := p.newLanes(l)
		defer p.freeLanes(t)
		p.laneBlocks(e, l, g, total, t)
		return
	}
	t := p.newThread(l)
	defer p.freeThread(t)
	var bs *blockState
	if len(p.shared) > 0 || p.barrier || p.race {
		bs = &blockState{}
		for _, n := range p.shared {
			bs.shared = append(bs.shared, make([]uint64, n))
		}
		if p.race {
			p.raceShared(bs)
		}
	}
	t.blk = bs
	var cw *coWorker
	if p.barrier {
		cw = &coWorker{}
		defer cw.release()
	}
	for {
		lo, hi, bid, ok := e.claim(g, total)
		if !ok {
			return
		}
		for b := lo; b < hi; b, bid = b+1, nextBlock(bid, g) {
			if l.failed.Load() || l.stop.Load() {
				return
			}
			if bs != nil {
				for _, s := range bs.shared {
					clear(s)
				}
			}
			if p.barrier {
				p.blockCoroutines(l, bid, bs, cw)
			} else {
				p.blockLoop(l, bid, t)
			}
		}
	}
}

// recoverFault turns a panic in a thread into the launch's error.
func (p *program) recoverFault(l *launch, t *th) {
	if r := recover(); r != nil {
		p.fault(l, t, r)
	}
}

// fault records panic r of thread t as the launch's error (errAbort, the
// unwinding of a dispatch already ending, is not one).
func (p *program) fault(l *launch, t *th, r any) {
	if r == errAbort {
		return
	}
	if kf, ok := r.(kernelFault); ok {
		f := kf.f
		f.Kernel, f.Thread, f.Count = p.name, t.id, 1
		l.fail(&faultError{&f})
		return
	}
	at := ""
	if p.pos != "" {
		at = " (" + p.pos + ")"
	}
	l.fail(&faultError{fmt.Errorf("%w: kernel %s%s: %v, in thread %v (block %v, thread %v of the block)",
		device.ErrInvalidArgument, p.name, at, r, t.id, t.bid, t.tid)})
}

// faultError is a kernel fault: the dispatch stopped, and the stream's
// work went on, so a Synchronize reporting it did wait for that work.
type faultError struct{ err error }

func (e *faultError) Error() string      { return e.err.Error() }
func (e *faultError) Unwrap() error      { return e.err }
func (e *faultError) WorkFinished() bool { return true }

// blockLoop runs the threads of a block without barriers one after another.
func (p *program) blockLoop(l *launch, bid [3]uint32, t *th) {
	defer p.recoverFault(l, t)
	t.bid = bid
	if t.blk != nil {
		t.blk.epoch++ // a new block: nothing it does is ordered with the last one's shared memory
	}
	body, lo, hi := p.entry.body, p.entry.lo, p.entry.hi
	var base [3]uint64
	for i := range 3 {
		base[i] = uint64(bid[i]) * uint64(p.block[i])
	}
	for z := uint32(0); z < p.block[2]; z++ {
		if base[2]+uint64(z) >= uint64(l.size[2]) {
			break
		}
		for y := uint32(0); y < p.block[1]; y++ {
			if base[1]+uint64(y) >= uint64(l.size[1]) {
				break
			}
			for x := uint32(0); x < p.block[0]; x++ {
				if base[0]+uint64(x) >= uint64(l.size[0]) {
					break
				}
				t.tid = [3]uint32{x, y, z}
				t.id = [3]uint32{uint32(base[0]) + x, uint32(base[1]) + y, uint32(base[2]) + z}
				clear(t.r[lo:hi])
				body(t)
			}
		}
	}
}

// Blocks with barriers run their threads as coroutines (iter.Pull) on the
// worker's goroutine: each thread runs to its next barrier, then the next
// thread does; when every live thread has reached it, the round starts
// again. Barriers are in uniform control flow (the language's rule, as
// Vulkan's), so all threads of a block meet the same barriers in the same
// order; a thread that returns leaves the rounds. A switch between
// coroutines is a direct hand-off, not a wake-up through the scheduler, and
// a worker keeps its coroutines from block to block.

// coThread is one thread's coroutine: next runs it to its next barrier
// (false) or to its end (true).
type coThread struct {
	t    *th
	next func() (bool, bool)
	stop func()
}

type coWorker struct{ threads []*coThread }

func (w *coWorker) release() {
	for _, c := range w.threads {
		if c != nil {
			func() {
				defer func() { _ = recover() }() // a coroutine stopped at a barrier unwinds with errAbort
				c.stop()
			}()
		}
	}
}

func (p *program) newCoThread(l *launch, bs *blockState) *coThread {
	t := &th{r: make([]uint64, p.nslots), refs: make([][]uint64, p.nrefs), run: l, blk: bs}
	p.loadUniforms(t, l)
	body, lo, hi := p.entry.body, p.entry.lo, p.entry.hi
	c := &coThread{t: t}
	c.next, c.stop = iter.Pull(func(yield func(bool) bool) {
		t.yield = yield
		for {
			clear(t.r[lo:hi])
			body(t)
			if !yield(true) {
				return
			}
		}
	})
	return c
}

// blockCoroutines runs a block with barriers.
func (p *program) blockCoroutines(l *launch, bid [3]uint32, bs *blockState, w *coWorker) {
	var live []*coThread
	for z := uint32(0); z < p.block[2]; z++ {
		for y := uint32(0); y < p.block[1]; y++ {
			for x := uint32(0); x < p.block[0]; x++ {
				id := [3]uint64{uint64(bid[0])*uint64(p.block[0]) + uint64(x), uint64(bid[1])*uint64(p.block[1]) + uint64(y), uint64(bid[2])*uint64(p.block[2]) + uint64(z)}
				if id[0] >= uint64(l.size[0]) || id[1] >= uint64(l.size[1]) || id[2] >= uint64(l.size[2]) {
					continue
				}
				j := len(live)
				if j == len(w.threads) {
					w.threads = append(w.threads, p.newCoThread(l, bs))
				}
				c := w.threads[j]
				c.t.bid, c.t.tid = bid, [3]uint32{x, y, z}
				c.t.id = [3]uint32{uint32(id[0]), uint32(id[1]), uint32(id[2])}
				live = append(live, c)
			}
		}
	}
	var cur *coThread
	defer func() {
		if r := recover(); r != nil {
			p.fault(l, cur.t, r)
			// The panicking coroutine is done; the worker's others are
			// stopped when it ends (the dispatch has failed).
		}
	}()
	for len(live) > 0 {
		bs.epoch++ // a barrier round: what comes before it is ordered before what follows
		n := 0
		for _, c := range live {
			cur = c
			done, ok := c.next()
			if ok && !done {
				live[n] = c
				n++
			}
		}
		live = live[:n]
	}
}

// blockState is what the threads of one block share.
type blockState struct {
	shared [][]uint64
	// In race mode: the shadows of shared, and the epoch, counting the
	// block starts and barrier rounds of the worker (race.go).
	race  []*raceRegion
	epoch uint32
}

type abortT struct{}

func (abortT) String() string { return "aborted" }

var errAbort any = abortT{}
