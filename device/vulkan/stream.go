package vulkan

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// A stream is a queue, a command pool and a timeline semaphore. Every
// submission signals the next value of the timeline; a worker goroutine waits
// for the values in order and then finishes each submission on the host:
// downloads are copied out of staging memory, callbacks run, command buffers
// go back to the pool for reuse, and buried resources are released.
//
// Streams may share a VkQueue (lavapipe has one). A submission that waits for
// an event value no submitted work will signal yet would then block the queue
// for everyone, so such a submission is parked, in stream order, until the
// signal is submitted (the wait-before-signal rule of timeline semaphores,
// resolved on the host).
type stream struct {
	d    *Device
	h    device.Handle
	kind device.StreamKind
	q    *queue
	sem  vk.Semaphore // timeline

	semWait semWait     // what a host wait hands the driver (hostSemWait)
	semBusy atomic.Bool // a host wait is using semWait

	mu        sync.Mutex // encoding, the pool, next and parked
	pool      vk.CommandPool
	spare     []vk.CommandBuffer // ready for reuse
	next      uint64             // the last timeline value handed out
	parked    []*submission
	wasParked bool   // s is in d.parked
	lastEager uint64 // the last value handed to a submission with downloads or callbacks
	enc       encoder
	free      []*submission // completed submissions for reuse (under mu)

	// Recorded lists kept for submitting again (replay.go; under mu): the
	// recordings, evicted command buffers still in flight, the key of the
	// list being dispatched (scratch) and the table's removals when its
	// handles were seen alive, the use clock, and the lists replayed (for
	// tests).
	replays  []*replay
	retired  []retiredCmd
	rkey     []byte
	rgone    uint64
	tick     uint64
	replayed int

	spareQueries []*queryPool    // timestamp pools for timed lists (timing.go; under mu)
	spareRings   []*printRing    // print rings for lists that print (print.go; under mu)
	ticks        []uint64        // a completed timed list's timestamps (under procMu)
	stamps       []time.Duration // and as durations

	// What submit hands vkQueueSubmit2, kept here (under mu) so that a
	// submission allocates nothing: the driver copies it before returning.
	subWaits   []vk.SemaphoreSubmitInfo
	subSignals []vk.SemaphoreSubmitInfo
	subInfo    vk.SubmitInfo2
	subCmd     vk.CommandBufferSubmitInfo

	cmu      sync.Mutex    // pending, eager, closing, progress
	wake     chan struct{} // wakes the worker (buffered, never blocks)
	pending  []*submission // submitted, not yet completed on the host
	eager    int           // pending submissions with callbacks or downloads
	closing  bool
	progress chan struct{} // closed and replaced after a completion once watched
	watched  bool          // someone took progress since it was last replaced

	waiters  sync.WaitGroup // host waits in progress; the worker lets them end before releasing
	released bool           // under cmu: the worker is releasing the stream, no new host waits or fences
	fencing  int            // under cmu: fence batches being enqueued; the worker waits for them

	procMu    sync.Mutex    // completions run one at a time, in order
	completed atomic.Uint64 // the last value completed on the host
	nparked   atomic.Int32  // len(parked), readable without mu
	failed    atomic.Pointer[error]
	exited    chan struct{}

	// User callbacks run on the worker: its goroutine id, whether it is in a
	// callback now (so that a callback calling back into the device is
	// recognised), and the first panic of a callback not yet reported by
	// SynchronizeStream.
	workerID   atomic.Uint64
	inCallback atomic.Bool
	panicked   atomic.Pointer[error]
	// faulted is the first fault of a checked kernel (print.go) not yet
	// reported by SynchronizeStream.
	faulted atomic.Pointer[error]
	// abandoned is the first error of work dropped because the event it
	// waited for was destroyed (dropWaitsOn), not yet reported by
	// SynchronizeStream.
	abandoned atomic.Pointer[error]
	// abandonedN counts the submissions dropped so, until SynchronizeStream
	// reports them; Close reports what is left (finished), as the
	// Device's Close destroys events before it closes the backend.
	abandonedN atomic.Int64
}

// semValue is one semaphore wait or signal of a submission.
type semValue struct {
	ev    *event // nil: a stream's timeline
	sem   vk.Semaphore
	value uint64
}

// submission is one vkQueueSubmit2 batch and what completes it on the host.
type submission struct {
	value     uint64
	cmd       vk.CommandBuffer // 0: a batch with no command buffer (event signal or wait)
	waits     []semValue
	signals   []semValue // besides the stream's own timeline
	staging   *rawBuffer
	downloads []download
	callbacks []func()
	timings   *device.Timings // a timed list's, filled on completion (timing.go)
	queries   *queryPool
	ring      *printRing // where the list's kernels print (print.go)
	printers  []*shader  // the printing shaders of the list, by dispatch tag
	kept      bool       // cmd belongs to a kept recording (replay.go), not to spare
}

// download copies staging bytes to host memory once the GPU is done, or
// makes a direct read (directread.go).
type download struct {
	offset uint64
	dst    []byte
	read   *directRead
}

// waitSlice bounds one vkWaitSemaphores call so that a cancelled context is
// noticed promptly.
const waitSlice = 5 * time.Millisecond

// CreateStream creates a stream of the given kind.
func (d *Device) CreateStream(kind device.StreamKind) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	if kind != device.StreamCompute && kind != device.StreamCopy {
		return 0, invalidf("stream kind %v", kind)
	}
	qs := d.queues
	if kind == device.StreamCopy && len(d.copyQueues) > 0 {
		qs = d.copyQueues
	}
	s := &stream{d: d, kind: kind, q: qs[int(d.nextQueue.Add(1))%len(qs)], progress: make(chan struct{}),
		exited: make(chan struct{}), wake: make(chan struct{}, 1)}
	s.enc.init(d, s)
	var err error
	if s.sem, err = d.newTimeline(0); err != nil {
		return 0, err
	}
	pci := vk.CommandPoolCreateInfo{
		SType:            vk.STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		Flags:            vk.COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		QueueFamilyIndex: s.q.family,
	}
	if err := check("vkCreateCommandPool", d.fn.CreateCommandPool(d.vk, &pci, nil, &s.pool)); err != nil {
		d.fn.DestroySemaphore(d.vk, s.sem, nil)
		return 0, err
	}
	h, err := d.add(s)
	if err != nil {
		s.destroyObjects()
		return 0, err
	}
	s.h = h
	d.streams.Store(s, true)
	go s.worker()
	return h, nil
}

// newTimeline creates a timeline semaphore at initial.
func (d *Device) newTimeline(initial uint64) (vk.Semaphore, error) {
	tci := vk.SemaphoreTypeCreateInfo{SType: vk.STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, SemaphoreType: vk.SEMAPHORE_TYPE_TIMELINE, InitialValue: initial}
	sci := vk.SemaphoreCreateInfo{SType: vk.STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, PNext: unsafe.Pointer(&tci)}
	var sem vk.Semaphore
	err := check("vkCreateSemaphore", d.fn.CreateSemaphore(d.vk, &sci, nil, &sem))
	return sem, err
}

// waitSemaphore waits up to timeout for sem to reach value.
func (d *Device) waitSemaphore(sem vk.Semaphore, value uint64, timeout time.Duration) (bool, error) {
	// From a pool: what the driver is handed escapes, and host waits run
	// concurrently (the worker and any number of Synchronize calls).
	w := semWaits.Get().(*semWait)
	ok, err := d.waitSemaphoreIn(w, sem, value, timeout)
	semWaits.Put(w)
	return ok, err
}

// waitSemaphoreIn is waitSemaphore pointing the driver at w.
func (d *Device) waitSemaphoreIn(w *semWait, sem vk.Semaphore, value uint64, timeout time.Duration) (bool, error) {
	w.sem, w.value = sem, value
	w.wi = vk.SemaphoreWaitInfo{
		SType: vk.STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, SemaphoreCount: 1,
		PSemaphores: &w.sem, PValues: &w.value,
	}
	switch r := d.fn.WaitSemaphores(d.vk, &w.wi, uint64(timeout.Nanoseconds())); r {
	case vk.SUCCESS:
		return true, nil
	case vk.TIMEOUT:
		return false, nil
	default:
		return false, check("vkWaitSemaphores", r)
	}
}

// semWait is what one vkWaitSemaphores call points at.
type semWait struct {
	sem   vk.Semaphore
	value uint64
	wi    vk.SemaphoreWaitInfo
}

var semWaits = sync.Pool{New: func() any { return new(semWait) }}

// semaphoreValue reads a timeline semaphore's current value.
func (d *Device) semaphoreValue(sem vk.Semaphore) (uint64, error) {
	var v uint64
	err := check("vkGetSemaphoreCounterValue", d.fn.GetSemaphoreCounterValue(d.vk, sem, &v))
	return v, err
}

// DestroyStream lets the stream finish its work, then releases it.
func (d *Device) DestroyStream(h device.Handle) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	d.live.Lock()
	defer d.live.Unlock()
	if err := d.alive(); err != nil {
		return err
	}
	s, err := lookup[*stream](d, h, "stream")
	if err != nil {
		return err
	}
	delete(d.objects, h)
	// Stopped under d.live: whoever holds it shared (fence) sees the stream
	// either stopping or able to take one more batch before it stops.
	s.stop()
	return nil
}

func lookupStream(d *Device, h device.Handle) (*stream, error) {
	d.live.RLock()
	defer d.live.RUnlock()
	if err := d.alive(); err != nil {
		return nil, err
	}
	return lookup[*stream](d, h, "stream")
}

// commandBuffer returns a recycled or new primary command buffer; s.mu held.
func (s *stream) commandBuffer() (vk.CommandBuffer, error) {
	if n := len(s.spare); n > 0 {
		cb := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return cb, nil
	}
	ai := vk.CommandBufferAllocateInfo{
		SType: vk.STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, CommandPool: s.pool,
		Level: vk.COMMAND_BUFFER_LEVEL_PRIMARY, CommandBufferCount: 1,
	}
	var cb vk.CommandBuffer
	err := check("vkAllocateCommandBuffers", s.d.fn.AllocateCommandBuffers(s.d.vk, &ai, &cb))
	return cb, err
}

// newSubmission returns an empty submission, reusing a completed one; s.mu held.
func (s *stream) newSubmission() *submission {
	if n := len(s.free); n > 0 {
		sub := s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
		return sub
	}
	return &submission{}
}

// recycle keeps a completed submission for reuse; s.mu held. Its slices keep
// their capacity, their elements are dropped.
func (s *stream) recycle(sub *submission) {
	if len(s.free) >= 8 {
		return
	}
	clear(sub.downloads)
	clear(sub.waits)
	clear(sub.signals)
	*sub = submission{waits: sub.waits[:0], signals: sub.signals[:0], downloads: sub.downloads[:0]}
	s.free = append(s.free, sub)
}

// popFront removes q[0]. A short queue is shifted down so that it keeps its
// backing array (one emptied and refilled allocates nothing); a long one is
// resliced (shifting it would cost O(len) per pop).
func popFront(q []*submission) []*submission {
	if len(q) > 16 {
		q[0] = nil
		return q[1:]
	}
	copy(q, q[1:])
	q[len(q)-1] = nil
	return q[:len(q)-1]
}

// enqueue gives sub the next timeline value and submits it, or parks it
// behind earlier parked work; s.mu held.
func (s *stream) enqueue(sub *submission) {
	s.d.inflight.Add(1)
	s.next++
	sub.value = s.next
	if sub.eager() {
		s.lastEager = sub.value
	}
	s.parked = append(s.parked, sub)
	s.flush()
}

// fence enqueues an empty batch and returns its timeline value; ok is false
// when the stream failed or its worker has released it (no batch is
// enqueued). A stream stopping (destroyed, its worker draining) still takes
// one: the worker waits for it (fencing) before it releases the stream.
// Refusing those left the last signal of a stream closed just before its
// event without a later batch on the queue, and lavapipe's submit thread
// crashed on the destroyed timeline (TestEventDestroyAfterStream).
func (s *stream) fence() (value uint64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err() != nil {
		return 0, false
	}
	s.cmu.Lock()
	if s.released {
		s.cmu.Unlock()
		return 0, false
	}
	s.fencing++
	s.cmu.Unlock()
	sub := s.newSubmission()
	s.enqueue(sub)
	s.cmu.Lock()
	s.fencing--
	s.cmu.Unlock()
	s.notify()
	return sub.value, true
}

// ready reports whether every event sub waits for has a submitted signal.
func (sub *submission) ready() bool {
	for _, w := range sub.waits {
		if w.ev != nil && w.ev.submitted.Load() < w.value {
			return false
		}
	}
	return true
}

// flush submits parked work in order while it is ready; s.mu held.
//
// A stream left with parked work joins d.parked, whose members every
// submitted signal retries (parkedSet.wake). It joins before it checks its
// first parked submission one last time: a signal submitted after that check
// then finds it in the set. Checking first and joining after lost the wake-up
// of a signal submitted in between, and the stream stayed parked for good
// (TestParkRaceWithSignal).
func (s *stream) flush() {
	raised := false
	for {
		raised = s.submitReady() || raised
		if len(s.parked) == 0 {
			break
		}
		s.wasParked = true
		s.d.parked.add(s)
		if !s.parked[0].ready() {
			break
		}
	}
	s.nparked.Store(int32(len(s.parked)))
	if len(s.parked) == 0 && s.wasParked {
		s.wasParked = false
		s.d.parked.remove(s)
		s.notify() // a stopping worker may now exit
	}
	if raised {
		s.d.parked.wake(s)
	}
}

// submitReady submits parked work in order while it is ready and reports
// whether it submitted an event signal; s.mu held.
func (s *stream) submitReady() (raised bool) {
	for len(s.parked) > 0 && s.parked[0].ready() {
		sub := s.parked[0]
		s.parked = popFront(s.parked)
		submitted, err := s.submit(sub)
		if err != nil {
			s.fail(err)
		}
		for _, sg := range sub.signals {
			// A signal that never reached the queue must not release the
			// waits of other streams: their batches would block the queue
			// (shared by every stream on lavapipe) for good.
			if sg.ev != nil && submitted {
				sg.ev.raise(sg.value)
				raised = true
			}
		}
		s.cmu.Lock()
		s.pending = append(s.pending, sub)
		if sub.eager() {
			s.eager++
			s.notify()
		}
		s.cmu.Unlock()
	}
	return raised
}

// submit hands sub to the queue; submitted is false when it did not reach it.
func (s *stream) submit(sub *submission) (submitted bool, err error) {
	if s.failed.Load() != nil {
		return false, nil // the stream is dead: complete on the host without the GPU
	}
	info := func(sem vk.Semaphore, value uint64) vk.SemaphoreSubmitInfo {
		return vk.SemaphoreSubmitInfo{SType: vk.STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, Semaphore: sem, Value: value, StageMask: vk.PIPELINE_STAGE_2_ALL_COMMANDS_BIT}
	}
	waits := s.subWaits[:0]
	for _, w := range sub.waits {
		value := w.value
		if w.ev != nil {
			// sub is ready: a submitted signal reaches the value.
			value, _, _ = w.ev.exact(value)
		}
		waits = append(waits, info(w.sem, value))
	}
	signals := append(s.subSignals[:0], info(s.sem, sub.value))
	for _, sg := range sub.signals {
		signals = append(signals, info(sg.sem, sg.value))
	}
	s.subWaits, s.subSignals = waits, signals
	si := &s.subInfo
	*si = vk.SubmitInfo2{
		SType:                    vk.STRUCTURE_TYPE_SUBMIT_INFO_2,
		WaitSemaphoreInfoCount:   uint32(len(waits)),
		SignalSemaphoreInfoCount: uint32(len(signals)),
		PSignalSemaphoreInfos:    &signals[0],
	}
	if len(waits) > 0 {
		si.PWaitSemaphoreInfos = &waits[0]
	}
	if sub.cmd != 0 {
		s.subCmd = vk.CommandBufferSubmitInfo{SType: vk.STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, CommandBuffer: sub.cmd}
		si.CommandBufferInfoCount = 1
		si.PCommandBufferInfos = &s.subCmd
	}
	s.q.mu.Lock()
	r := s.d.fn.QueueSubmit2(s.q.handle, 1, si, 0)
	s.q.mu.Unlock()
	if err := check("vkQueueSubmit2", r); err != nil {
		return false, err
	}
	return true, nil
}

// fail marks the stream dead (device lost, failed submit): its pending work
// completes on the host and every later wait returns err.
func (s *stream) fail(err error) {
	s.failed.CompareAndSwap(nil, &err)
	s.notify()
}

func (s *stream) err() error {
	if p := s.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// lazyPoll is how often the worker completes work nobody waits for (no
// callbacks, no downloads): its command buffers and buried resources are
// recycled within this delay, and a host wait completes it at once itself.
// Waking the worker for every submission would put a second thread in
// vkWaitSemaphores next to the one waiting in SynchronizeStream.
const lazyPoll = 20 * time.Millisecond

// notify wakes the worker.
func (s *stream) notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// eager reports whether sub must be completed as soon as the GPU is done:
// its callbacks must run, and its downloads and timings must be visible to
// whoever synchronizes an event signalled after it.
func (sub *submission) eager() bool {
	return len(sub.callbacks) > 0 || len(sub.downloads) > 0 || sub.timings != nil || sub.ring != nil
}

// userCode reports whether completing sub runs user code (callbacks, the
// print handler), which runs on the worker.
func (sub *submission) userCode() bool { return len(sub.callbacks) > 0 || sub.ring != nil }

// worker completes submissions in order as the GPU finishes them, and
// releases the stream once it is stopped and idle.
func (s *stream) worker() {
	s.workerID.Store(goid())
	for {
		if s.d.abandoned.Load() {
			// Close gave up on the device: touch nothing of it.
			close(s.exited)
			return
		}
		s.cmu.Lock()
		if len(s.pending) == 0 {
			done := s.closing && s.nparked.Load() == 0 && s.fencing == 0
			// Decided under cmu: a fence sees the stream released, or
			// the worker sees its batch.
			s.released = done
			s.cmu.Unlock()
			if done {
				break
			}
			// Submissions nobody waits for do not wake the worker: look
			// again after lazyPoll.
			select {
			case <-s.wake:
			case <-time.After(lazyPoll):
			}
			continue
		}
		eager := s.eager > 0 || s.closing || s.failed.Load() != nil
		target := s.pending[0].value
		s.cmu.Unlock()
		if !eager {
			select {
			case <-s.wake:
				continue
			case <-time.After(lazyPoll):
			}
		}
		if s.failed.Load() == nil {
			ok, err := s.d.waitSemaphore(s.sem, target, 100*time.Millisecond)
			if err != nil {
				s.fail(err)
			} else if !ok {
				continue
			}
		}
		s.procMu.Lock()
		s.process(true)
		s.procMu.Unlock()
	}
	// Host waits still in a vkWaitSemaphores slice see the stream drained
	// within one slice; the semaphore must outlive them.
	s.waiters.Wait()
	s.destroyObjects()
	close(s.exited)
}

// process completes the pending submissions the GPU has finished; procMu
// held. With callbacks false it stops before a submission with callbacks
// (those run on the worker).
func (s *stream) process(callbacks bool) { s.processUpTo(callbacks, 0) }

// processUpTo is process with reached, a value the semaphore is known to
// have reached (0: ask the driver).
func (s *stream) processUpTo(callbacks bool, reached uint64) {
	cur := ^uint64(0)
	if reached != 0 && s.failed.Load() == nil {
		cur = reached
	} else if s.failed.Load() == nil {
		v, err := s.d.semaphoreValue(s.sem)
		if err != nil {
			s.fail(err)
		} else {
			cur = v
		}
	}
	n := 0
	for {
		s.cmu.Lock()
		if len(s.pending) == 0 || s.pending[0].value > cur || (!callbacks && s.pending[0].userCode()) {
			s.cmu.Unlock()
			break
		}
		sub := s.pending[0]
		s.pending = popFront(s.pending)
		if sub.eager() {
			s.eager--
		}
		s.cmu.Unlock()
		s.complete(sub)
		n++
	}
	if n > 0 {
		s.d.graveyard.reap()
	}
}

// complete finishes sub on the host.
func (s *stream) complete(sub *submission) {
	defer s.d.inflight.Add(-1)
	var src []byte
	if sub.staging != nil {
		src = sub.staging.bytes()
	}
	for _, dl := range sub.downloads {
		if dl.read != nil {
			dl.read.read()
		} else {
			hostCopy(dl.dst, src[dl.offset:])
		}
	}
	if sub.timings != nil {
		s.recordTimings(sub)
	}
	if sub.ring != nil {
		s.d.inCallback.Add(1)
		s.inCallback.Store(true)
		s.deliverPrints(sub)
		s.inCallback.Store(false)
		s.d.inCallback.Add(-1)
	}
	if len(sub.callbacks) > 0 {
		s.d.inCallback.Add(1)
		s.inCallback.Store(true)
		for i, cb := range sub.callbacks {
			s.runCallback(i, cb)
		}
		s.inCallback.Store(false)
		s.d.inCallback.Add(-1)
	}
	if sub.staging != nil {
		s.d.mem.releaseStaging(sub.staging)
	}
	s.completed.Store(sub.value)
	s.mu.Lock()
	if sub.cmd != 0 && !sub.kept {
		s.spare = append(s.spare, sub.cmd)
	}
	if len(s.retired) > 0 {
		s.reclaim()
	}
	s.releaseQueries(sub)
	s.releaseRing(sub)
	s.recycle(sub)
	s.mu.Unlock()
	s.cmu.Lock()
	if s.watched {
		// Replaced only when watched: a round trip whose waiter completed it
		// itself allocates no channel.
		close(s.progress)
		s.progress = make(chan struct{})
		s.watched = false
	}
	s.cmu.Unlock()
}

// progressChan returns a channel closed at the next completion; s.cmu held.
func (s *stream) progressChan() chan struct{} {
	s.watched = true
	return s.progress
}

// runCallback runs a user callback; a panic in it is logged and kept for the
// stream's next SynchronizeStream, and the stream goes on.
func (s *stream) runCallback(i int, cb func()) {
	defer func() {
		if r := recover(); r != nil {
			err := fmt.Errorf("vulkan: stream %d: callback %d of a command list panicked: %v: %w", s.h, i, r, device.ErrPanicked)
			s.d.log.Error("vulkan: a stream callback panicked", "stream", uint64(s.h), "panic", fmt.Sprint(r))
			s.panicked.CompareAndSwap(nil, &err)
		}
	}()
	cb()
}

// waitFor blocks until the host has completed value (callbacks included), the
// stream failed, or ctx is done.
func (s *stream) waitFor(ctx context.Context, value uint64) error {
	for {
		if s.completed.Load() >= value {
			return s.err()
		}
		if err := s.err(); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("vulkan: waiting for stream %d: %w", s.h, err)
		}
		if s.d.closed.Load() {
			return fmt.Errorf("vulkan: waiting for stream %d: the device is closing: %w", s.h, device.ErrClosed)
		}
		if s.drained() && s.completed.Load() < value {
			// The stream was stopped with work that can never run.
			return fmt.Errorf("vulkan: stream %d: %w before value %d was reached", s.h, device.ErrClosed, value)
		}
		ok, err := s.hostSemWait(value)
		if err != nil {
			s.fail(err)
			continue
		}
		if !ok {
			continue
		}
		// The GPU is done: finish what needs no callback here rather than
		// waiting for the worker to wake up.
		if s.procMu.TryLock() {
			s.processUpTo(false, value)
			s.procMu.Unlock()
		}
		if s.completed.Load() >= value {
			continue
		}
		s.cmu.Lock()
		ch := s.progressChan()
		s.cmu.Unlock()
		if s.completed.Load() >= value {
			continue
		}
		select {
		case <-ch:
		case <-ctx.Done():
		case <-time.After(waitSlice):
		}
	}
}

// hostSemWait is one slice of a host wait for value, in the stream's own
// semWait when no other host wait holds it (a round trip then takes nothing
// from the pool: ~90 instructions), else in one from the pool.
func (s *stream) hostSemWait(value uint64) (bool, error) {
	if !s.semBusy.CompareAndSwap(false, true) {
		return s.d.waitSemaphore(s.sem, value, waitSlice)
	}
	ok, err := s.d.waitSemaphoreIn(&s.semWait, s.sem, value, waitSlice)
	s.semBusy.Store(false)
	return ok, err
}

// drained reports whether the stream is stopping with nothing left to run.
func (s *stream) drained() bool {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	return s.closing && len(s.pending) == 0 && s.nparked.Load() == 0
}

// SynchronizeStream waits for all work submitted to the stream so far.
func (d *Device) SynchronizeStream(ctx context.Context, h device.Handle) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	s, err := lookupStream(d, h)
	if err != nil {
		return err
	}
	if cs := d.callbackStream(); cs == s {
		return invalidf("stream %d synchronized from one of its own callbacks: it would wait for that callback to return", h)
	}
	s.mu.Lock()
	target := s.next
	s.mu.Unlock()
	if err := s.hostWait(ctx, target); err != nil {
		return err
	}
	if p := s.panicked.Swap(nil); p != nil {
		return *p
	}
	if p := s.faulted.Swap(nil); p != nil {
		return *p
	}
	if p := s.abandoned.Swap(nil); p != nil {
		s.abandonedN.Store(0)
		return *p
	}
	return nil
}

// hostWait is waitFor registered as a host wait, so that the worker does not
// destroy the semaphore under it; ErrClosed once the stream is released.
func (s *stream) hostWait(ctx context.Context, value uint64) error {
	s.cmu.Lock()
	if s.released {
		s.cmu.Unlock()
		if s.completed.Load() >= value {
			return s.err()
		}
		return fmt.Errorf("vulkan: stream %d: %w", s.h, device.ErrClosed)
	}
	s.waiters.Add(1)
	s.cmu.Unlock()
	defer s.waiters.Done()
	return s.waitFor(ctx, value)
}

// poll completes on the host what the GPU has finished and needs no
// callback, unless another completion is under way or the stream is released.
func (s *stream) poll() {
	s.cmu.Lock()
	if s.released {
		s.cmu.Unlock()
		return
	}
	s.waiters.Add(1)
	s.cmu.Unlock()
	defer s.waiters.Done()
	if s.procMu.TryLock() {
		s.process(false)
		s.procMu.Unlock()
	}
}

// stop lets the worker drain the stream and release it.
func (s *stream) stop() {
	s.cmu.Lock()
	s.closing = true
	s.cmu.Unlock()
	s.notify()
}

// dropWaitsOn drops, on every stream, the parked work from the first
// submission that waits for e at a value no signal asked for reaches: e
// is being destroyed (DestroyEvent, e.destroyed set), so no signal can be
// submitted any more, and the stream would wait for ever (its Synchronize
// with it). The stream's SynchronizeStream reports it; an empty batch
// then takes the timeline past the dropped values.
func (d *Device) dropWaitsOn(e *event, h device.Handle) {
	// The last value asked for, submitted or parked: final, since e is out
	// of the table and SignalEvent looks it up under d.live.
	e.mu.Lock()
	assigned := e.assigned
	e.mu.Unlock()
	d.parked.mu.Lock()
	var list []*stream
	for s := range d.parked.m {
		list = append(list, s)
	}
	d.parked.mu.Unlock()
	for _, s := range list {
		s.mu.Lock()
		n, value := s.dropFrom(e, assigned)
		s.mu.Unlock()
		if n == 0 {
			continue
		}
		err := fmt.Errorf("vulkan: event %d was closed before a signal reaching value %d was submitted: the work waiting for it was dropped (%d submission(s)): %w",
			h, value, n, device.ErrInvalidArgument)
		s.abandoned.CompareAndSwap(nil, &err)
		s.abandonedN.Add(int64(n))
		s.fence()
	}
}

// dropFrom drops the parked submissions from the first that waits for e
// at a value above assigned (no signal asked for reaches it), and returns
// how many it dropped and that value; s.mu held.
func (s *stream) dropFrom(e *event, assigned uint64) (n int, value uint64) {
	at := -1
	for i, sub := range s.parked {
		for _, w := range sub.waits {
			if w.ev == e && w.value > assigned {
				at, value = i, w.value
				break
			}
		}
		if at >= 0 {
			break
		}
	}
	if at < 0 {
		return 0, 0
	}
	dropped := s.parked[at:]
	for _, sub := range dropped {
		if sub.staging != nil {
			s.d.mem.releaseStaging(sub.staging)
		}
		if sub.cmd != 0 {
			s.spare = append(s.spare, sub.cmd)
		}
		s.releaseQueries(sub)
	}
	n = len(dropped)
	s.d.inflight.Add(-int64(n))
	clear(dropped)
	s.parked = s.parked[:at]
	s.nparked.Store(int32(len(s.parked)))
	if len(s.parked) == 0 && s.wasParked {
		s.wasParked = false
		s.d.parked.remove(s)
		s.notify() // a stopping worker may now exit
	}
	return n, value
}

// finish stops the stream: parked work that can never be submitted (it
// waits for a signal nobody submitted) is dropped, and the worker drains the
// rest and releases the stream. It returns how many submissions it dropped.
func (s *stream) finish() (dropped int) {
	s.mu.Lock()
	dropped = len(s.parked)
	for _, sub := range s.parked {
		if sub.staging != nil {
			s.d.mem.releaseStaging(sub.staging)
		}
		if sub.cmd != 0 {
			s.spare = append(s.spare, sub.cmd)
		}
		s.releaseQueries(sub)
	}
	s.d.inflight.Add(-int64(len(s.parked)))
	s.parked = nil
	s.nparked.Store(0)
	s.mu.Unlock()
	s.d.parked.remove(s)
	s.stop()
	return dropped
}

// finished waits until the stream finish stopped has been released, or
// until deadline (done is then false), and reports what went wrong on it:
// a failure, a callback's panic nobody synchronized for, dropped work.
func (s *stream) finished(deadline time.Time, dropped int) (done bool, err error) {
	select {
	case <-s.exited:
	default:
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		select {
		case <-s.exited:
		case <-timer.C:
			return false, nil
		}
	}
	if err := s.err(); err != nil {
		return true, err
	}
	if p := s.panicked.Load(); p != nil {
		return true, *p
	}
	dropped += int(s.abandonedN.Load())
	if dropped > 0 {
		return true, fmt.Errorf("vulkan: stream %d: %w: %d submission(s) waited for event signals never submitted",
			s.h, device.ErrInvalidArgument, dropped)
	}
	return true, nil
}

// destroyObjects releases the pool and the semaphore (the stream is idle).
func (s *stream) destroyObjects() {
	s.enc.release()
	s.destroyQueries()
	s.destroyRings()
	s.d.fn.DestroyCommandPool(s.d.vk, s.pool, nil)
	s.d.fn.DestroySemaphore(s.d.vk, s.sem, nil)
	s.d.streams.Delete(s)
}

// parkedSet is the streams with parked submissions.
type parkedSet struct {
	mu sync.Mutex
	m  map[*stream]bool
}

func (p *parkedSet) add(s *stream) {
	p.mu.Lock()
	if p.m == nil {
		p.m = map[*stream]bool{}
	}
	p.m[s] = true
	p.mu.Unlock()
}

// empty reports whether no stream has parked work.
func (p *parkedSet) empty() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.m) == 0
}

func (p *parkedSet) remove(s *stream) {
	p.mu.Lock()
	delete(p.m, s)
	p.mu.Unlock()
}

// wake retries the parked streams other than from (whose s.mu is held).
func (p *parkedSet) wake(from *stream) {
	p.mu.Lock()
	var list []*stream
	for s := range p.m {
		if s != from {
			list = append(list, s)
		}
	}
	p.mu.Unlock()
	for _, s := range list {
		// On a goroutine: this one holds from.mu, and lock order between
		// streams is not fixed.
		go func() {
			// It submits: inside the device's gate, like a call.
			if s.d.enter() != nil {
				return // closing: Close drops what stays parked
			}
			defer s.d.exit()
			s.mu.Lock()
			s.flush()
			s.mu.Unlock()
		}()
	}
}
