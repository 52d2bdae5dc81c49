package device

import (
	"context"
	"fmt"
)

// Stream is a queue of commands that run in order.
type Stream struct {
	*resource
	kind StreamKind
}

// NewStream creates a stream of the given kind.
func (d *Device) NewStream(kind StreamKind) (*Stream, error) {
	if kind != StreamCompute && kind != StreamCopy {
		return nil, fmt.Errorf("device: NewStream: %w: kind %v", ErrInvalidArgument, kind)
	}
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	h, err := d.iface.CreateStream(kind)
	if err != nil {
		return nil, fmt.Errorf("device: NewStream(%v): %w", kind, err)
	}
	r, err := d.track(h, KindStream)
	if err != nil {
		return nil, err
	}
	return &Stream{resource: r, kind: kind}, nil
}

// Kind returns the stream's kind.
func (s *Stream) Kind() StreamKind {
	if s == nil {
		return StreamCompute
	}
	return s.kind
}

func (s *Stream) base() *resource {
	if s == nil {
		return nil
	}
	return s.resource
}

// Close destroys the stream once the work using it has finished; later calls,
// and calls on a nil Stream, return nil. It does not wait for that work: a
// download still in flight lands in its slice after Close returns, so
// Synchronize first to read it. (Waiting would hang a program that closes
// a stream whose work waits for an event it signals later, on another
// stream.)
func (s *Stream) Close() error { return s.base().Close() }

// Handle returns the backend handle (0 for a nil Stream).
func (s *Stream) Handle() Handle { return s.base().Handle() }

// SetName gives the stream a debug name.
func (s *Stream) SetName(name string) error { return s.base().SetName(name) }

// Submit runs cmds in order after the stream's earlier work and returns
// without waiting. When a command could not be built (see CommandError) or
// needs a compute stream on a copy stream, nothing is submitted and the error
// names the command.
func (s *Stream) Submit(cmds ...Command) error {
	return s.SubmitList(&CommandList{Commands: cmds})
}

// SubmitList submits a command list; its callbacks run once its GPU work has
// finished.
func (s *Stream) SubmitList(l *CommandList) error {
	if l == nil {
		return fmt.Errorf("device: Submit: %w: nil command list", ErrInvalidArgument)
	}
	if err := s.base().usable("Stream"); err != nil {
		return fmt.Errorf("device: Submit: %w", err)
	}
	for i, c := range l.Commands {
		if err := CommandError(c); err != nil {
			return fmt.Errorf("device: Submit: command %d: %w", i, err)
		}
		if err := c.Check(); err != nil {
			return fmt.Errorf("device: Submit: command %d (%s): %w", i, c.CommandName(), err)
		}
		if s.kind == StreamCopy && c.Queue() == StreamCompute {
			return fmt.Errorf("device: Submit: command %d (%s): %w: needs a compute stream, stream %d is a copy stream",
				i, c.CommandName(), ErrInvalidArgument, s.h)
		}
	}
	for i, f := range l.Callbacks {
		if f == nil {
			return fmt.Errorf("device: Submit: %w: callback %d is nil", ErrInvalidArgument, i)
		}
	}
	if l.Timings != nil && !s.dev.caps.Timings {
		return fmt.Errorf("device: Submit: %w: timed command list: the %s backend's device reports no timestamps (Capabilities.Timings)",
			ErrUnsupported, s.dev.backend)
	}
	if len(l.Commands) == 0 && len(l.Callbacks) == 0 {
		if l.Timings != nil {
			l.Timings.Reset(l)
		}
		return nil
	}
	if err := s.dev.iface.Dispatch(s.h, l); err != nil {
		return fmt.Errorf("device: Submit: %w", err)
	}
	for _, c := range l.Commands {
		if d, ok := c.(delta); ok {
			d.accept()
		}
	}
	return nil
}

// Synchronize waits until all work submitted so far has finished and its
// callbacks have run, or ctx is done.
func (s *Stream) Synchronize(ctx context.Context) error {
	if err := checkCtx(ctx); err != nil {
		return fmt.Errorf("device: Synchronize: %w", err)
	}
	if err := s.base().usable("Stream"); err != nil {
		return fmt.Errorf("device: Synchronize: %w", err)
	}
	return s.dev.iface.SynchronizeStream(ctx, s.h)
}
