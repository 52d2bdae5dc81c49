package device

import (
	"context"
	"fmt"
)

// Event is a timeline: a uint64 that streams signal (raise to a value once
// their earlier work is done) and wait on, and the host polls or waits on.
// Values must increase.
type Event struct {
	*resource
}

// NewEvent creates an event at value 0.
func (d *Device) NewEvent() (*Event, error) {
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	h, err := d.iface.CreateEvent()
	if err != nil {
		return nil, fmt.Errorf("device: NewEvent: %w", err)
	}
	r, err := d.track(h, KindEvent)
	if err != nil {
		return nil, err
	}
	return &Event{resource: r}, nil
}

func (e *Event) use(s *Stream) error {
	if err := e.base().usable("Event"); err != nil {
		return err
	}
	if err := s.base().usable("Stream"); err != nil {
		return err
	}
	if s.dev != e.dev {
		return invalidf("stream %d belongs to another device than event %d", s.h, e.h)
	}
	return nil
}

func (e *Event) base() *resource {
	if e == nil {
		return nil
	}
	return e.resource
}

// Close destroys the event once the work using it has finished; later calls,
// and calls on a nil Event, return nil. No signal can be submitted after
// Close, so a stream's wait for a value that no signal submitted before it
// reaches can never end: that stream drops the wait and the work it
// submitted after it (downloads and callbacks included), and its next
// Synchronize returns an error wrapping ErrInvalidArgument that names the
// event and the value. Waits that a submitted signal satisfies run as usual.
// A host wait in flight (Synchronize) ends with ErrClosed.
func (e *Event) Close() error { return e.base().Close() }

// Handle returns the backend handle (0 for a nil Event).
func (e *Event) Handle() Handle { return e.base().Handle() }

// SetName gives the event a debug name.
func (e *Event) SetName(name string) error { return e.base().SetName(name) }

// Signal raises the event to v once the stream's work submitted so far is done.
func (e *Event) Signal(s *Stream, v uint64) error {
	if err := e.use(s); err != nil {
		return fmt.Errorf("device: Event.Signal: %w", err)
	}
	return e.dev.iface.SignalEvent(e.h, s.h, v)
}

// Wait makes the stream's later work wait until the event reaches v.
func (e *Event) Wait(s *Stream, v uint64) error {
	if err := e.use(s); err != nil {
		return fmt.Errorf("device: Event.Wait: %w", err)
	}
	return e.dev.iface.WaitEvent(e.h, s.h, v)
}

// Completed reports whether the event has reached v.
func (e *Event) Completed(v uint64) (bool, error) {
	if err := e.base().usable("Event"); err != nil {
		return false, fmt.Errorf("device: Event.Completed: %w", err)
	}
	return e.dev.iface.EventCompleted(e.h, v)
}

// Synchronize blocks until the event reaches v or ctx is done.
func (e *Event) Synchronize(ctx context.Context, v uint64) error {
	if err := checkCtx(ctx); err != nil {
		return fmt.Errorf("device: Event.Synchronize: %w", err)
	}
	if err := e.base().usable("Event"); err != nil {
		return fmt.Errorf("device: Event.Synchronize: %w", err)
	}
	return e.dev.iface.SynchronizeEvent(ctx, e.h, v)
}
