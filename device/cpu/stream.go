package cpu

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
)

func bytesOf(w []uint64) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*8)
}

// runner is one operation of a command list. A dispatch's is its launch
// record itself (one allocation for the record and what runs it); the
// other commands' are closures (runFunc).
type runner interface{ run() error }

// runFunc is an operation as a closure.
type runFunc func() error

func (f runFunc) run() error { return f() }

// fnRunner is f as a runner, nil for a nil f (a command with nothing to run).
func fnRunner(f func() error, err error) (runner, error) {
	if f == nil || err != nil {
		return nil, err
	}
	return runFunc(f), nil
}

// item is one unit of a stream's queue: a command list (its operations, then
// its callbacks), an event signal or an event wait.
type item struct {
	op0       runner   // the list's first operation, kept inline: most lists have one
	ops       []runner // the ones after it
	callbacks []func()
	timings   *device.Timings // a timed list's: one op per command, each timed
	onWorker  bool            // it has a Custom command: only the worker runs it
	signal    *event
	wait      *event
	value     uint64
	seq       uint64
}

func (it *item) nops() int {
	if it.op0 == nil {
		return 0
	}
	return 1 + len(it.ops)
}

func (it *item) op(i int) runner {
	if i == 0 {
		return it.op0
	}
	return it.ops[i-1]
}

func (it *item) add(op runner) {
	if it.op0 == nil {
		it.op0 = op
	} else {
		it.ops = append(it.ops, op)
	}
}

// stream runs its items in order on its own goroutine.
type stream struct {
	d    *Device
	h    device.Handle
	kind device.StreamKind

	mu        sync.Mutex
	q         []item
	submitted uint64
	done      timeline      // the seq of the last item completed
	wakeup    chan struct{} // the worker's doorbell (buffered, 1)
	errs      []error       // reported by the next SynchronizeStream
	pending   map[*event]uint64
	dropped   int // items dropped behind a hopeless event wait at Close (awaitEvent)
	stopping  bool
	exited    chan struct{}
	// running says an item is being run, by the worker or by a
	// Synchronize that found the worker parked (help): one at a time, in
	// the queue's order.
	running bool

	workerID   atomic.Uint64
	inCallback atomic.Bool

	stamps []time.Duration // a timed list's instants (the worker's)
}

func (d *Device) CreateStream(kind device.StreamKind) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	if kind != device.StreamCompute && kind != device.StreamCopy {
		return 0, fmt.Errorf("cpu: CreateStream: %w: kind %v", device.ErrInvalidArgument, kind)
	}
	s := &stream{d: d, kind: kind, wakeup: make(chan struct{}, 1),
		pending: map[*event]uint64{}, exited: make(chan struct{})}
	s.h = d.add(s)
	d.mu.Lock()
	d.streams = append(d.streams, s)
	d.mu.Unlock()
	go s.worker()
	return s.h, nil
}

func (d *Device) DestroyStream(h device.Handle) error {
	s, err := remove[*stream](d, h, "stream")
	if err != nil {
		return err
	}
	// The stream finishes what was submitted, then its worker ends.
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.ring()
	return nil
}

func (s *stream) ring() {
	select {
	case s.wakeup <- struct{}{}:
	default:
	}
}

// enqueue appends it, or fails once the stream is destroyed (its worker
// may have ended: the item would never run).
func (s *stream) enqueue(it item) error {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return fmt.Errorf("stream %d: %w", s.h, device.ErrClosed)
	}
	s.submitted++
	it.seq = s.submitted
	if it.signal != nil {
		s.pending[it.signal] = max(s.pending[it.signal], it.value)
	}
	s.q = append(s.q, it)
	s.mu.Unlock()
	s.ring()
	return nil
}

func (s *stream) worker() {
	s.workerID.Store(goid())
	defer func() {
		s.d.mu.Lock()
		for i, o := range s.d.streams { // a finished stream needs no waiting for
			if o == s {
				s.d.streams = append(s.d.streams[:i], s.d.streams[i+1:]...)
				break
			}
		}
		s.d.mu.Unlock()
		close(s.exited)
	}()
	for {
		s.mu.Lock()
		for len(s.q) == 0 || s.running {
			if s.stopping && len(s.q) == 0 && !s.running {
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
			<-s.wakeup
			s.mu.Lock()
		}
		it := s.pop()
		s.mu.Unlock()
		errs := s.run(&it)
		if len(errs) == 1 && errors.Is(errs[0], errHopeless) {
			s.dropRest(&it, true)
			errs = nil // Close reports them
		}
		var gone *goneError
		if len(errs) == 1 && errors.As(errs[0], &gone) {
			// Synchronize reports them, else Close (as hopeless waits):
			// Device.Close destroys events before it closes the backend.
			gone.dropped = s.dropRest(&it, true)
		}
		s.finish(&it, errs)
	}
}

// dropRest drops, with the hopeless wait it, every item queued after it:
// they were to run after the signal that never comes. Close reports them
// (unless Synchronize did) where count is set. It returns how many it
// dropped.
func (s *stream) dropRest(it *item, count bool) int {
	s.mu.Lock()
	n := len(s.q)
	if n > 0 {
		it.seq = s.q[n-1].seq // finish completes them all
	}
	if count {
		s.dropped += 1 + n
	}
	clear(s.q)
	s.q = s.q[:0]
	clear(s.pending) // their signals will not run
	s.mu.Unlock()
	s.d.dropMu.Lock()
	close(s.d.dropCh)
	s.d.dropCh = make(chan struct{})
	s.d.dropMu.Unlock()
	return 1 + n
}

// errHopeless is a stream's event wait that can no longer be satisfied.
var errHopeless = errors.New("no signal for the value will run")

// awaitEvent waits for e to reach v, a stream's event wait. Once Close has
// begun and no call is in flight (d.quiet) no signal can be enqueued: a wait
// that no signal queued on another stream can satisfy is hopeless, and the
// stream drops it with what is queued after it, as the Vulkan backend drops
// work parked on a signal never submitted. Such a wait used to hold Close
// for closeTimeout and end it as a lost device.
func (s *stream) awaitEvent(e *event, v uint64) error {
	err := e.awaitOr(context.Background(), s.d.quiet, e.gone, v)
	if err != errClosed && err != errEventGone {
		return err
	}
	gone := err == errEventGone
	for {
		s.d.dropMu.Lock()
		dropped := s.d.dropCh
		s.d.dropMu.Unlock()
		// A signal leaves pending after it raised e: look at pending first.
		reachable := s.d.signalQueued(s, e, v)
		e.mu.Lock()
		if e.value >= v {
			e.mu.Unlock()
			return nil
		}
		if !reachable {
			e.mu.Unlock()
			if gone {
				// Destroyed: no signal can be submitted any more, and
				// none queued reaches v. The stream would wait for ever.
				return &goneError{event: e.h, value: v}
			}
			return fmt.Errorf("value %d: %w", v, errHopeless)
		}
		if e.changed == nil {
			e.changed = make(chan struct{})
		}
		changed := e.changed
		e.mu.Unlock()
		select {
		case <-changed:
		case <-dropped:
		case <-s.d.done:
			return errClosed
		}
	}
}

// signalQueued reports whether a stream other than self has a signal of e
// to v or beyond still to run.
func (d *Device) signalQueued(self *stream, e *event, v uint64) bool {
	d.mu.Lock()
	streams := append([]*stream(nil), d.streams...)
	d.mu.Unlock()
	for _, o := range streams {
		if o == self {
			continue
		}
		o.mu.Lock()
		p := o.pending[e]
		o.mu.Unlock()
		if p >= v {
			return true
		}
	}
	return false
}

// pop takes the queue's first item to run (under s.mu).
func (s *stream) pop() item {
	it := s.q[0]
	s.q[0] = item{}
	if len(s.q) == 1 {
		s.q = s.q[:0] // emptied: the next append reuses the same memory
	} else {
		s.q = s.q[1:]
	}
	s.running = true
	return it
}

// finish records what running it gave and completes it.
func (s *stream) finish(it *item, errs []error) {
	s.mu.Lock()
	s.errs = append(s.errs, errs...)
	if it.signal != nil && s.pending[it.signal] <= it.value {
		delete(s.pending, it.signal)
	}
	s.running = false
	s.done.raise(it.seq)
	s.mu.Unlock()
}

// help runs on the calling goroutine the items up to seq v that nothing
// runs yet, while the worker is parked or not yet awake: a Synchronize
// that would wake the worker and then be woken by it runs them itself,
// in the queue's order, one at a time with the worker. It takes command
// lists without callbacks or Custom commands (those run on the worker,
// which is how the device recognises a call from one) and signals, never
// event waits;
// whatever is left, the worker takes, rung again since it may have gone
// back to sleep while this ran.
func (s *stream) help(v uint64) {
	s.mu.Lock()
	took := false
	for !s.running && len(s.q) > 0 && s.q[0].seq <= v && s.q[0].wait == nil && len(s.q[0].callbacks) == 0 && !s.q[0].onWorker {
		it := s.pop()
		took = true
		s.mu.Unlock()
		s.finish(&it, s.run(&it))
		s.mu.Lock()
	}
	ring := took && (len(s.q) > 0 || s.stopping)
	s.mu.Unlock()
	if ring {
		s.ring()
	}
}

// run executes one item and returns the errors to report.
func (s *stream) run(it *item) []error {
	var errs []error
	switch {
	case it.signal != nil:
		it.signal.raise(it.value)
	case it.wait != nil:
		if err := s.awaitEvent(it.wait, it.value); err != nil {
			if _, ok := err.(*goneError); ok {
				return []error{err} // the worker counts what it drops, then reports it
			}
			return []error{fmt.Errorf("cpu: stream %d: waiting for event: %w", s.h, err)}
		}
	}
	if it.timings != nil {
		errs = s.runTimed(it)
	} else {
		for i := range it.nops() {
			if err := it.op(i).run(); err != nil {
				// The error names its culprit (the kernel, the command),
				// as the Vulkan backend's do; the stream is the caller's.
				errs = append(errs, fmt.Errorf("cpu: %w", err))
				break // the list's later commands depend on this one
			}
		}
	}
	for i, cb := range it.callbacks {
		if err := s.callback(i, cb); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// runTimed runs a timed list's operations, one per command, taking the
// wall-clock instant before the first and after each; a failed command
// ends the list, and the commands it leaves out take no time.
func (s *stream) runTimed(it *item) []error {
	var errs []error
	t0 := time.Now()
	s.stamps = append(s.stamps[:0], 0)
	for i := range it.nops() {
		if err := it.op(i).run(); err != nil {
			errs = append(errs, fmt.Errorf("cpu: %w", err))
			break
		}
		s.stamps = append(s.stamps, time.Since(t0))
	}
	for len(s.stamps) < it.nops()+1 {
		s.stamps = append(s.stamps, s.stamps[len(s.stamps)-1])
	}
	it.timings.Record(s.stamps)
	return errs
}

func (s *stream) callback(i int, cb func()) (err error) {
	s.d.inCallback.Add(1)
	s.inCallback.Store(true)
	defer func() {
		s.inCallback.Store(false)
		s.d.inCallback.Add(-1)
		if r := recover(); r != nil {
			s.d.log.Error("cpu: a command list callback panicked", "stream", s.h, "callback", i, "panic", r)
			err = fmt.Errorf("cpu: stream %d: callback %d: %w: %v", s.h, i, device.ErrPanicked, r)
		}
	}()
	cb()
	return nil
}

// customOp is a Custom command's operation: its Func, called on the
// stream's worker once the list's earlier commands are done, with no
// native command buffer (0). The worker counts as in a callback while it
// runs, so that the device refuses the calls that would wait for it
// (SynchronizeStream of this stream, Close).
type customOp struct {
	s *stream
	c *device.Custom
}

func (o customOp) run() (err error) {
	s, c := o.s, o.c
	s.d.inCallback.Add(1)
	s.inCallback.Store(true)
	defer func() {
		s.inCallback.Store(false)
		s.d.inCallback.Add(-1)
		if r := recover(); r != nil {
			s.d.log.Error("cpu: a custom command panicked", "stream", s.h, "command", c.Name, "panic", fmt.Sprint(r))
			err = fmt.Errorf("custom command %q: %w: %v", c.Name, device.ErrPanicked, r)
		}
	}()
	if err := c.Func(0); err != nil {
		return fmt.Errorf("custom command %q: %w", c.Name, err)
	}
	return nil
}

// waitFor blocks until the stream completed value, ctx is done or closing is.
func (s *stream) waitFor(ctx context.Context, value uint64, closing <-chan struct{}) error {
	return s.done.await(ctx, closing, value)
}

// idle waits until everything submitted has completed, or deadline.
func (s *stream) idle(deadline time.Time) bool {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	s.mu.Lock()
	v := s.submitted
	s.mu.Unlock()
	return s.waitFor(ctx, v, nil) == nil
}

func (s *stream) stop() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.ring()
}

// goid returns the current goroutine's id ("goroutine 123 [running]:"), to
// recognise a stream's worker calling back into the device.
func goid() uint64 {
	var buf [40]byte
	b := buf[:runtime.Stack(buf[:], false)]
	var id uint64
	for i := len("goroutine "); i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		id = id*10 + uint64(b[i]-'0')
	}
	return id
}

// callbackStream returns the stream whose callback is calling, or nil.
func (d *Device) callbackStream() *stream {
	if d.inCallback.Load() == 0 {
		return nil
	}
	id := goid()
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range d.streams {
		if s.inCallback.Load() && s.workerID.Load() == id {
			return s
		}
	}
	return nil
}

func (d *Device) SynchronizeStream(ctx context.Context, h device.Handle) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	s, err := lookup[*stream](d, h, "stream")
	if err != nil {
		return fmt.Errorf("cpu: SynchronizeStream: %w", err)
	}
	if s.inCallback.Load() && s.workerID.Load() == goid() {
		return fmt.Errorf("cpu: SynchronizeStream: %w: called from a callback of stream %d, it would wait for that callback", device.ErrInvalidArgument, h)
	}
	s.mu.Lock()
	v := s.submitted
	s.mu.Unlock()
	if ctx.Done() == nil {
		// A wait that cannot be cancelled may as well run the work: it ends
		// when the work does either way (a kernel that never ends stops at
		// Close's timeout, as on the worker).
		s.help(v)
	}
	if err := s.waitFor(ctx, v, d.hostDone); err != nil {
		return fmt.Errorf("cpu: SynchronizeStream %d: %w", h, err)
	}
	s.mu.Lock()
	errs := s.errs
	s.errs = nil
	for _, err := range errs {
		if g, ok := err.(*goneError); ok {
			s.dropped -= g.dropped // reported here: Close does not repeat it
		}
	}
	s.mu.Unlock()
	if len(errs) > 0 {
		return joinErrs(errs)
	}
	return nil
}

func joinErrs(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return fmt.Errorf("%w (and %d more error(s))", errs[0], len(errs)-1)
}

// event is a timeline streams raise; assigned is the last value a
// SignalEvent asked for (values must increase, as on Vulkan's timeline
// semaphores), set under signalMu.
type event struct {
	timeline
	signalMu sync.Mutex
	assigned uint64
	h        device.Handle
	gone     chan struct{} // closed by DestroyEvent: no signal can be submitted any more
}

// timeline is a value that only grows, with its waiters: an event's value,
// and the last item a stream completed. The zero value is at 0.
type timeline struct {
	mu      sync.Mutex
	value   uint64
	changed chan struct{} // closed when value grows; nil until someone waits
}

func (t *timeline) raise(v uint64) {
	t.mu.Lock()
	if v > t.value {
		t.value = v
		if t.changed != nil {
			close(t.changed)
			t.changed = nil
		}
	}
	t.mu.Unlock()
}

func (t *timeline) reached(v uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.value >= v
}

// await blocks until the value reaches v, ctx is done or closing is.
func (t *timeline) await(ctx context.Context, closing <-chan struct{}, v uint64) error {
	return t.awaitOr(ctx, closing, nil, v)
}

// awaitOr is await that also returns errEventGone once gone is closed.
func (t *timeline) awaitOr(ctx context.Context, closing, gone <-chan struct{}, v uint64) error {
	for {
		t.mu.Lock()
		if t.value >= v {
			t.mu.Unlock()
			return nil
		}
		if t.changed == nil {
			t.changed = make(chan struct{})
		}
		ch := t.changed
		t.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-closing:
			return errClosed
		case <-gone:
			return errEventGone
		}
	}
}

// goneError is a stream's wait for an event destroyed before any signal
// that reaches the value was submitted: the stream drops the wait and the
// work queued after it, and its Synchronize returns this.
type goneError struct {
	event   device.Handle
	value   uint64
	dropped int // the items dropped, the wait's included (set by the worker)
}

func (e *goneError) Error() string {
	return fmt.Sprintf("cpu: event %d was closed before a signal reaching value %d was submitted: the work waiting for it was dropped (%d item(s)): %v",
		e.event, e.value, e.dropped, device.ErrInvalidArgument)
}

func (e *goneError) Unwrap() error { return device.ErrInvalidArgument }

// errEventGone is an event wait's: the event was destroyed.
var errEventGone = errors.New("event destroyed")

func (d *Device) CreateEvent() (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	e := &event{gone: make(chan struct{})}
	d.mu.Lock()
	h := d.handles.New()
	e.h = h
	d.objs[h] = e
	d.mu.Unlock()
	return h, nil
}

func (d *Device) DestroyEvent(h device.Handle) error {
	e, err := remove[*event](d, h, "event")
	if err == nil {
		close(e.gone) // waits no queued signal satisfies fail (awaitEvent)
	}
	return err
}

func (d *Device) eventAndStream(op string, eh, sh device.Handle) (*event, *stream, error) {
	e, err := lookup[*event](d, eh, "event")
	if err != nil {
		return nil, nil, fmt.Errorf("cpu: %s: %w", op, err)
	}
	s, err := lookup[*stream](d, sh, "stream")
	if err != nil {
		return nil, nil, fmt.Errorf("cpu: %s: %w", op, err)
	}
	return e, s, nil
}

func (d *Device) SignalEvent(eh, sh device.Handle, value uint64) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	e, s, err := d.eventAndStream("SignalEvent", eh, sh)
	if err != nil {
		return err
	}
	e.signalMu.Lock()
	defer e.signalMu.Unlock()
	if value <= e.assigned {
		return fmt.Errorf("cpu: SignalEvent: %w: event %d: signal value %d does not exceed the last signalled value %d",
			device.ErrInvalidArgument, eh, value, e.assigned)
	}
	if err := s.enqueue(item{signal: e, value: value}); err != nil {
		return fmt.Errorf("cpu: SignalEvent: %w", err)
	}
	e.assigned = value
	return nil
}

func (d *Device) WaitEvent(eh, sh device.Handle, value uint64) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	e, s, err := d.eventAndStream("WaitEvent", eh, sh)
	if err != nil {
		return err
	}
	if err := s.enqueue(item{wait: e, value: value}); err != nil {
		return fmt.Errorf("cpu: WaitEvent: %w", err)
	}
	return nil
}

func (d *Device) EventCompleted(eh device.Handle, value uint64) (bool, error) {
	if err := d.enter(); err != nil {
		return false, err
	}
	defer d.exit()
	e, err := lookup[*event](d, eh, "event")
	if err != nil {
		return false, fmt.Errorf("cpu: EventCompleted: %w", err)
	}
	return e.reached(value), nil
}

func (d *Device) SynchronizeEvent(ctx context.Context, eh device.Handle, value uint64) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	e, err := lookup[*event](d, eh, "event")
	if err != nil {
		return fmt.Errorf("cpu: SynchronizeEvent: %w", err)
	}
	if !e.reached(value) {
		if s := d.callbackStream(); s != nil {
			s.mu.Lock()
			p, ok := s.pending[e]
			s.mu.Unlock()
			if ok && p >= value {
				return fmt.Errorf("cpu: SynchronizeEvent: %w: called from a callback of stream %d, whose later work signals value %d", device.ErrInvalidArgument, s.h, value)
			}
		}
	}
	if err := e.awaitOr(ctx, d.hostDone, e.gone, value); err != nil {
		if err == errEventGone {
			// As on Vulkan: a host wait ends when its event is destroyed.
			return fmt.Errorf("cpu: SynchronizeEvent: event %d: %w before value %d was reached", eh, device.ErrClosed, value)
		}
		return fmt.Errorf("cpu: SynchronizeEvent %d: %w", eh, err)
	}
	return nil
}

// Dispatch checks list against the device's resources, turns each command
// into an operation and queues them on the stream.
func (d *Device) Dispatch(sh device.Handle, list *device.CommandList) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	var undo bindlessUndo
	err := d.dispatch(sh, list, &undo)
	if err != nil {
		undo.undo() // the list's bindless updates are refused with it
	}
	return err
}

func (d *Device) dispatch(sh device.Handle, list *device.CommandList, undo *bindlessUndo) error {
	s, err := lookup[*stream](d, sh, "stream")
	if err != nil {
		return fmt.Errorf("cpu: Dispatch: %w", err)
	}
	if list == nil {
		return fmt.Errorf("cpu: Dispatch: %w: nil command list", device.ErrInvalidArgument)
	}
	it := item{callbacks: append([]func(){}, list.Callbacks...), timings: list.Timings}
	if it.timings != nil {
		it.timings.Reset(list)
	}
	for i, cb := range it.callbacks {
		if cb == nil {
			return fmt.Errorf("cpu: Dispatch: %w: callback %d is nil", device.ErrInvalidArgument, i)
		}
	}
	for i, c := range list.Commands {
		if c == nil {
			return fmt.Errorf("cpu: Dispatch: command %d: %w: nil command", i, device.ErrInvalidArgument)
		}
		if s.kind == device.StreamCopy && c.Queue() == device.StreamCompute {
			return fmt.Errorf("cpu: Dispatch: command %d (%s): %w: needs a compute stream, stream %d is a copy stream",
				i, c.CommandName(), device.ErrInvalidArgument, sh)
		}
		op, err := d.prepare(s, c, undo)
		if _, ok := c.(*device.Custom); ok {
			it.onWorker = true
		}
		if err != nil {
			return fmt.Errorf("cpu: Dispatch: command %d (%s): %w", i, c.CommandName(), err)
		}
		if it.timings != nil {
			// One op per command, so that op i is command i.
			if op == nil {
				op = runFunc(noop)
			}
			if sd, ok := c.(*device.ShaderDispatch); ok {
				if sh, err := lookup[*shader](d, sd.Shader, "shader"); err == nil {
					it.timings.Commands[i].Kernel = sh.prog.name
				}
			}
		}
		if op != nil {
			it.add(op)
		}
	}
	if err := s.enqueue(it); err != nil {
		return fmt.Errorf("cpu: Dispatch: %w", err)
	}
	return nil
}

func noop() error { return nil }

// span checks [off, off+n) against a buffer and returns its bytes.
// what names the bytes in the error; generic so that a caller's label
// (an argLabel) is formatted, and boxed, only on the error path.
func span[W any](d *Device, h device.Handle, off, n uint64, what W) ([]byte, error) {
	b, err := lookup[*buffer](d, h, "buffer")
	if err != nil {
		return nil, fmt.Errorf("%v: %w", what, err)
	}
	size := uint64(len(b.data))
	if off > size || n > size-off {
		return nil, fmt.Errorf("%w: %v: bytes [%d, %d+%d) out of buffer %d's %d bytes", device.ErrInvalidArgument, what, off, off, n, h, size)
	}
	return b.data[off : off+n : off+n], nil
}

func (d *Device) prepare(s *stream, c device.Command, undo *bindlessUndo) (runner, error) {
	switch c := c.(type) {
	case *device.Custom:
		if err := d.checkCustom(c); err != nil {
			return nil, err
		}
		return customOp{s, c}, nil
	case *device.ShaderDispatch:
		return d.prepareDispatch(c)
	case *device.BufferToTexture, *device.TextureToBuffer, *device.TextureUpload, *device.TextureDownload, *device.TextureCopy:
		return fnRunner(d.prepareTexture(c))
	case *device.BindlessUpdate:
		return fnRunner(d.prepareBindless(c, undo))
	case *device.MeshBuild, *device.ProceduralBuild, *device.AccelBuild, *device.AccelCompact:
		return fnRunner(d.prepareAccel(c))
	}
	return fnRunner(d.prepareCopy(c))
}

// prepareCopy turns a buffer command into its operation.
func (d *Device) prepareCopy(c device.Command) (func() error, error) {
	switch c := c.(type) {
	case *device.BufferUpload:
		dst, err := span(d, c.Buffer, c.Offset, uint64(len(c.Data)), "buffer")
		if err != nil {
			return nil, err
		}
		data := append([]byte(nil), c.Data...)
		return func() error { copy(dst, data); return nil }, nil
	case *device.BufferDownload:
		src, err := span(d, c.Buffer, c.Offset, uint64(len(c.Data)), "buffer")
		if err != nil {
			return nil, err
		}
		out := c.Data
		return func() error { copy(out, src); return nil }, nil
	case *device.BufferCopy:
		src, err := span(d, c.Src, c.SrcOffset, c.Size, "source")
		if err != nil {
			return nil, err
		}
		dst, err := span(d, c.Dst, c.DstOffset, c.Size, "destination")
		if err != nil {
			return nil, err
		}
		return func() error { copy(dst, src); return nil }, nil
	case *device.BufferFill:
		dst, err := span(d, c.Buffer, c.Offset, c.Size, "buffer")
		if err != nil {
			return nil, err
		}
		v := c.Value
		return func() error {
			for i := 0; i+4 <= len(dst); i += 4 {
				binary.LittleEndian.PutUint32(dst[i:], v)
			}
			return nil
		}, nil
	}
	if err := device.CommandError(c); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: command %T", device.ErrUnsupported, c)
}

// checkCustom checks a Custom command at Dispatch: its Func, and that the
// buffers and textures it declares exist (a buffer's range within the
// buffer). The backend needs no barriers: its commands run one after
// another.
func (d *Device) checkCustom(c *device.Custom) error {
	if c.Func == nil {
		return fmt.Errorf("%w: custom command %q has no Func", device.ErrInvalidArgument, c.Name)
	}
	for i, u := range c.Resources {
		what := fmt.Sprintf("custom command %q: resource %d", c.Name, i)
		switch u.Kind {
		case device.KindBuffer:
			b, err := lookup[*buffer](d, u.Handle, "buffer")
			if err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			size := u.Size
			if size == 0 || size == device.WholeSize { // to the end
				size = uint64(len(b.data)) - min(u.Offset, uint64(len(b.data)))
			}
			if _, err := span(d, u.Handle, u.Offset, size, what); err != nil {
				return err
			}
		case device.KindTexture:
			if _, err := lookup[*texture](d, u.Handle, "texture"); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
		}
	}
	return nil
}
