package vulkan

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

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

	destroyed atomic.Bool    // DestroyEvent was called: host waits end
	waiters   sync.WaitGroup // host waits in progress
}

func (e *event) setName(n string) { e.name = n }

// release destroys the semaphore once host waits on it have ended (they
// notice destroyed within one wait slice).
func (e *event) release() {
	e.waiters.Wait()
	e.d.fn.DestroySemaphore(e.d.vk, e.sem, nil)
}

// raise records that a batch signalling value has been submitted.
func (e *event) raise(value uint64) {
	for {
		cur := e.submitted.Load()
		if value <= cur || e.submitted.CompareAndSwap(cur, value) {
			return
		}
	}
}

// CreateEvent creates an event at value 0.
func (d *Device) CreateEvent() (device.Handle, error) {
	if err := d.alive(); err != nil {
		return 0, err
	}
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
	e, err := remove[*event](d, h, "event")
	if err != nil {
		return err
	}
	e.destroyed.Store(true)
	d.graveyard.bury(e.waits(), e.release)
	return nil
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
	sub := &submission{signals: []semValue{{ev: e, sem: e.sem, value: value}}}
	s.enqueue(sub)
	e.use(s, sub.value)
	return nil
}

// WaitEvent makes the stream's later work wait until the event reaches value.
func (d *Device) WaitEvent(eh, sh device.Handle, value uint64) error {
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
	e, err := d.lookupEvent(eh)
	if err != nil {
		return false, err
	}
	defer e.waiters.Done()
	v, err := d.semaphoreValue(e.sem)
	return v >= value, err
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
// noticed within a few milliseconds.
func (d *Device) SynchronizeEvent(ctx context.Context, eh device.Handle, value uint64) error {
	e, err := d.lookupEvent(eh)
	if err != nil {
		return err
	}
	defer e.waiters.Done()
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("vulkan: waiting for event %d to reach %d: %w", eh, value, err)
		}
		if d.closed.Load() || e.destroyed.Load() {
			return fmt.Errorf("vulkan: event %d: %w", eh, device.ErrClosed)
		}
		ok, err := d.waitSemaphore(e.sem, value, waitSlice)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
	}
}
