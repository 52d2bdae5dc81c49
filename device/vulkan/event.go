package vulkan

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// event is a timeline semaphore. Streams signal it at a value after their
// earlier work and wait for values before their later work; the host polls it
// or waits with a context.
type event struct {
	tracked
	d   *Device
	sem vk.Semaphore

	mu        sync.Mutex
	assigned  uint64        // the largest value a SignalEvent asked for
	submitted atomic.Uint64 // the largest value a submitted batch will signal
	name      string

	// The values submitted batches signal, for exact: every wait, on a
	// stream or on the host, is for one of them (see exact).
	smu      sync.Mutex
	signals  []uint64      // increasing, above floor
	floor    uint64        // a signalled value the semaphore is known to have reached
	raisedCh chan struct{} // closed and replaced when a signal is submitted

	destroyed atomic.Bool    // DestroyEvent was called: host waits end
	waiters   sync.WaitGroup // host waits in progress

	// What the host must have finished before a wait for a signal returns
	// (under mu): per signal with downloads or callbacks ordered before it
	// on its stream, the last such submission. The GPU reaching the signal
	// says nothing of them: the worker copies downloads out and runs
	// callbacks once it sees the GPU done.
	hostMarks []hostMark
}

// hostMark says that the event reaching value is observable only once
// stream s has completed submission sub on the host.
type hostMark struct {
	value uint64
	s     *stream
	sub   uint64
}

// mark records that signal value on s follows host work up to s's last
// submission with downloads or callbacks; e.mu and s.mu held.
func (e *event) mark(value uint64, s *stream) {
	if s.lastEager == 0 || s.completed.Load() >= s.lastEager {
		return
	}
	kept := e.hostMarks[:0]
	for _, m := range e.hostMarks {
		if m.s.completed.Load() < m.sub {
			kept = append(kept, m)
		}
	}
	clear(e.hostMarks[len(kept):])
	e.hostMarks = append(kept, hostMark{value, s, s.lastEager})
}

// hostPending returns the marks of signals up to value whose host work is
// not complete yet.
func (e *event) hostPending(value uint64) []hostMark {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []hostMark
	for _, m := range e.hostMarks {
		if m.value <= value && m.s.completed.Load() < m.sub {
			out = append(out, m)
		}
	}
	return out
}

// hostComplete waits until the host work ordered before the event's signals
// up to value is done: downloads copied out, callbacks run.
func (d *Device) hostComplete(ctx context.Context, eh device.Handle, e *event, value uint64) error {
	for _, m := range e.hostPending(value) {
		if cs := d.callbackStream(); cs == m.s {
			return invalidf("event %d synchronized from a callback of stream %d, whose later work signals it: it would wait for that callback to return", eh, m.s.h)
		}
		if err := m.s.hostWait(ctx, m.sub); err != nil {
			return fmt.Errorf("vulkan: event %d: %w", eh, err)
		}
	}
	return nil
}

func (e *event) setName(n string) { e.name = n }

// release destroys the semaphore once host waits on it have ended (they
// notice destroyed within one wait slice).
func (e *event) release() {
	e.waiters.Wait()
	e.d.fn.DestroySemaphore(e.d.vk, e.sem, nil)
}

// maxSignals bounds the list of submitted signal values: beyond it, the
// values the semaphore has reached are dropped.
const maxSignals = 64

// raise records that a batch signalling value has been submitted.
func (e *event) raise(value uint64) {
	e.smu.Lock()
	if len(e.signals) >= maxSignals {
		if cur, err := e.d.semaphoreValue(e.sem); err == nil && cur > e.floor {
			// cur is a value some signal set, so it stays a valid target.
			e.floor = cur
			i := 0
			for i < len(e.signals) && e.signals[i] <= cur {
				i++
			}
			e.signals = append(e.signals[:0], e.signals[i:]...)
		}
	}
	// Signals of one event are submitted in increasing order, except when a
	// stream parks a signal behind another stream's later one: keep the
	// list sorted.
	i := len(e.signals)
	for i > 0 && e.signals[i-1] > value {
		i--
	}
	if value > e.floor && (i == 0 || e.signals[i-1] != value) {
		e.signals = append(e.signals, 0)
		copy(e.signals[i+1:], e.signals[i:])
		e.signals[i] = value
	}
	if e.raisedCh != nil {
		close(e.raisedCh)
		e.raisedCh = nil
	}
	e.smu.Unlock()
	for {
		cur := e.submitted.Load()
		if value <= cur || e.submitted.CompareAndSwap(cur, value) {
			return
		}
	}
}

// exact returns the value to wait for instead of value: the smallest
// submitted signal value at or above it. The semaphore reaches value exactly
// when it reaches that signal (signals take increasing values), and waiting
// for a value some batch signals exactly is what the validation layer's
// timeline tracking needs: a wait for a value between two signals, or beyond
// every submitted one, leaves it waiting for its own bookkeeping (10 s, then
// UNASSIGNED-VkSemaphore-state-timeout). ok is false when no submitted
// signal reaches value yet; raised is then closed at the next submission.
func (e *event) exact(value uint64) (target uint64, ok bool, raised <-chan struct{}) {
	e.smu.Lock()
	defer e.smu.Unlock()
	if value <= e.floor {
		return e.floor, true, nil
	}
	for _, v := range e.signals {
		if v >= value {
			return v, true, nil
		}
	}
	if e.raisedCh == nil {
		e.raisedCh = make(chan struct{})
	}
	return 0, false, e.raisedCh
}

// CreateEvent creates an event at value 0.
func (d *Device) CreateEvent() (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	sem, err := d.newTimeline(0)
	if err != nil {
		return 0, err
	}
	e := &event{d: d, sem: sem}
	h, err := d.add(e)
	if err != nil {
		e.release()
		return 0, err
	}
	return h, nil
}

// DestroyEvent releases the event once the work using it has finished.
func (d *Device) DestroyEvent(h device.Handle) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	e, err := remove[*event](d, h, "event")
	if err != nil {
		return err
	}
	e.destroyed.Store(true)
	d.dropWaitsOn(e, h)
	d.graveyard.bury(d.fenced(e.waits()), e.release)
	return nil
}

// fenced moves each live stream's value in waits to an empty batch enqueued
// on it now, for a semaphore about to be destroyed. Reaching the value of a
// batch that used the semaphore is not enough: Mesa's common queue (lavapipe
// emulates timelines with it) hands a batch to the driver, installs its
// signals, and only then drops its references to the timelines it waited
// for, on its submit thread. A host that saw the batch's stream value and
// destroyed the event at once could free a timeline that thread was about
// to lock (a SIGSEGV in libvulkan_lvp, TestEventDestroyAfterWait). A later
// batch on the same queue is processed after that clean-up. A stream
// destroyed but still draining takes the batch too (stream.fence); one its
// worker released, or a device closing, keeps its value (Close waits for
// the device to idle before releasing what remains).
func (d *Device) fenced(waits map[*stream]uint64) map[*stream]uint64 {
	d.live.RLock()
	defer d.live.RUnlock()
	if d.alive() != nil {
		return waits
	}
	for s := range waits {
		if v, ok := s.fence(); ok {
			waits[s] = v
		}
	}
	return waits
}

func (d *Device) eventAndStream(eh, sh device.Handle) (*event, *stream, error) {
	if err := d.alive(); err != nil {
		return nil, nil, err
	}
	e, err := lookup[*event](d, eh, "event")
	if err != nil {
		return nil, nil, err
	}
	s, err := lookup[*stream](d, sh, "stream")
	if err != nil {
		return nil, nil, err
	}
	return e, s, nil
}

// SignalEvent makes the event reach value once the stream's earlier work is
// done. Values must increase from one signal to the next.
func (d *Device) SignalEvent(eh, sh device.Handle, value uint64) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	d.live.RLock()
	defer d.live.RUnlock()
	e, s, err := d.eventAndStream(eh, sh)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if value <= e.assigned {
		return invalidf("event %d: signal value %d does not exceed the last signalled value %d", eh, value, e.assigned)
	}
	e.assigned = value
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.err(); err != nil {
		return err
	}
	e.mark(value, s)
	sub := &submission{signals: []semValue{{ev: e, sem: e.sem, value: value}}}
	s.enqueue(sub)
	e.use(s, sub.value)
	return nil
}

// WaitEvent makes the stream's later work wait until the event reaches value.
func (d *Device) WaitEvent(eh, sh device.Handle, value uint64) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	d.live.RLock()
	defer d.live.RUnlock()
	e, s, err := d.eventAndStream(eh, sh)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.err(); err != nil {
		return err
	}
	sub := &submission{waits: []semValue{{ev: e, sem: e.sem, value: value}}}
	s.enqueue(sub)
	e.use(s, sub.value)
	return nil
}

// EventCompleted reports whether the event has reached value.
func (d *Device) EventCompleted(eh device.Handle, value uint64) (bool, error) {
	if err := d.enter(); err != nil {
		return false, err
	}
	defer d.exit()
	e, err := d.lookupEvent(eh)
	if err != nil {
		return false, err
	}
	defer e.waiters.Done()
	v, err := d.semaphoreValue(e.sem)
	if err != nil || v < value {
		return false, err
	}
	// Reached on the GPU; complete only once what the host does for the
	// signals up to v is done too.
	for _, m := range e.hostPending(v) {
		m.s.poll()
		if m.s.completed.Load() < m.sub {
			return false, nil
		}
	}
	return true, nil
}

// lookupEvent finds an event for a host wait and registers the wait (the
// caller calls e.waiters.Done). Registration happens under d.live, before
// DestroyEvent or Close can take the event out of the table.
func (d *Device) lookupEvent(eh device.Handle) (*event, error) {
	d.live.RLock()
	defer d.live.RUnlock()
	if err := d.alive(); err != nil {
		return nil, err
	}
	e, err := lookup[*event](d, eh, "event")
	if err != nil {
		return nil, err
	}
	e.waiters.Add(1)
	return e, nil
}

// SynchronizeEvent blocks until the event reaches value or ctx is done; the
// wait is a series of short vkWaitSemaphores calls so that cancellation is
// noticed within a few milliseconds. Until a signal reaching value has been
// submitted it waits on the host, without the driver.
func (d *Device) SynchronizeEvent(ctx context.Context, eh device.Handle, value uint64) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	e, err := d.lookupEvent(eh)
	if err != nil {
		return err
	}
	defer e.waiters.Done()
	if value == 0 {
		return nil // events start at 0
	}
	var timer *time.Timer
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("vulkan: waiting for event %d to reach %d: %w", eh, value, err)
		}
		if d.closed.Load() || e.destroyed.Load() {
			return fmt.Errorf("vulkan: event %d: %w", eh, device.ErrClosed)
		}
		target, submitted, raised := e.exact(value)
		if !submitted {
			if timer == nil {
				timer = time.NewTimer(waitSlice)
				defer timer.Stop()
			} else {
				timer.Reset(waitSlice)
			}
			select {
			case <-raised:
			case <-ctx.Done():
			case <-timer.C:
			}
			continue
		}
		ok, err := d.waitSemaphore(e.sem, target, waitSlice)
		if err != nil {
			return err
		}
		if ok {
			return d.hostComplete(ctx, eh, e, target)
		}
	}
}
