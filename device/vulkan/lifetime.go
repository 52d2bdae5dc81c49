package vulkan

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/lucent-gpu/lucent/device"
)

// The device's lifetime. Every entry point of Device holds the gate for its
// whole call (enter, then exit on return): Close marks the device closed,
// which makes every later enter fail with ErrClosed, and waits for the calls
// in flight to leave before it touches anything. So a call either completes
// before Close releases anything, or fails with ErrClosed; what a call
// releases itself (a failure path, a graveyard reap, a resource it could not
// register) happens inside the gate, and what is left when Close begins is
// released by Close. The gate is a counter, not a lock: entering never
// blocks, so a callback that calls the device while Close waits for its
// stream gets ErrClosed instead of a deadlock. Background goroutines that
// call Vulkan (stream workers) are waited for by Close itself; the ones that
// only submit (parkedSet.wake) enter the gate like a call.
//
// Host waits in flight notice the closed mark within one wait slice and
// return ErrClosed. Close waits at most closeTimeout in all for the calls in
// flight and the streams' work (see Device.Close); a device whose work does
// not finish in time is abandoned: nothing of it is destroyed.

// closeTimeout bounds how long Close waits for submitted work to finish.
// A variable so that tests of hung kernels can shorten it.
var closeTimeout = 10 * time.Second

// enter admits a call into the device, or returns ErrClosed.
func (d *Device) enter() error {
	d.calls.Add(1)
	if d.closed.Load() {
		d.exit()
		return fmt.Errorf("vulkan: device: %w", device.ErrClosed)
	}
	return nil
}

// exit ends a call admitted by enter.
func (d *Device) exit() {
	if d.calls.Add(-1) == 0 && d.closed.Load() {
		select {
		case d.drained <- struct{}{}:
		default:
		}
	}
}

// drain waits, until deadline, for the calls in flight to leave.
func (d *Device) drain(deadline time.Time) bool {
	for d.calls.Load() > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		select {
		case <-d.drained:
		case <-time.After(min(left, time.Millisecond)):
		}
	}
	return true
}

// goid returns the current goroutine's id, from the first line of its stack
// ("goroutine 123 [running]:"). It serves only to recognise a stream's
// worker calling back into the device from a user callback.
func goid() uint64 {
	var buf [40]byte
	b := buf[:runtime.Stack(buf[:], false)]
	var id uint64
	for i := len("goroutine "); i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		id = id*10 + uint64(b[i]-'0')
	}
	return id
}

// callbackStream returns the stream whose worker is running the caller (a
// user callback calling the device), or nil.
func (d *Device) callbackStream() *stream {
	if d.inCallback.Load() == 0 {
		return nil // the common case: no callback runs anywhere
	}
	id := goid()
	var found *stream
	d.streams.Range(func(k, _ any) bool {
		if s := k.(*stream); s.workerID.Load() == id && s.inCallback.Load() {
			found = s
			return false
		}
		return true
	})
	return found
}

// Lifetimes. A resource remembers, per stream, the timeline value of the last
// submission that used it. Destroying it buries it in the graveyard with those
// values; it is released once every one of those streams has completed them
// (checked each time a stream completes work, and at device close).

// tracked is embedded in every resource that submissions use. The first
// stream to use it is kept beside the map: most resources are used on one
// stream, and a list's every use then costs no map assignment.
type tracked struct {
	mu    sync.Mutex
	first *stream // nil: none yet
	value uint64  // first's value
	last  map[*stream]uint64
}

func (t *tracked) use(s *stream, value uint64) {
	t.mu.Lock()
	switch {
	case t.first == nil || t.first == s:
		t.first = s
		t.value = max(t.value, value)
	case value > t.last[s]:
		if t.last == nil {
			t.last = map[*stream]uint64{}
		}
		t.last[s] = value
	}
	t.mu.Unlock()
}

func (t *tracked) waits() map[*stream]uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[*stream]uint64, len(t.last)+1)
	for s, v := range t.last {
		out[s] = v
	}
	if t.first != nil {
		out[t.first] = t.value
	}
	return out
}

type grave struct {
	waits   map[*stream]uint64
	release func()
}

type graveyard struct {
	mu     sync.Mutex
	graves []grave
}

func done(waits map[*stream]uint64) bool {
	for s, v := range waits {
		if s.completed.Load() < v {
			return false
		}
	}
	return true
}

// bury releases at once when the GPU is done with the resource, or later.
func (g *graveyard) bury(waits map[*stream]uint64, release func()) {
	if done(waits) {
		release()
		return
	}
	g.mu.Lock()
	g.graves = append(g.graves, grave{waits, release})
	g.mu.Unlock()
	g.reap() // a stream may have completed in between
}

// reap releases every buried resource whose work has completed.
func (g *graveyard) reap() {
	g.mu.Lock()
	var ready []func()
	kept := g.graves[:0]
	for _, gr := range g.graves {
		if done(gr.waits) {
			ready = append(ready, gr.release)
		} else {
			kept = append(kept, gr)
		}
	}
	for i := len(kept); i < len(g.graves); i++ {
		g.graves[i] = grave{}
	}
	g.graves = kept
	g.mu.Unlock()
	for _, r := range ready {
		r()
	}
}

// reapAll releases everything (the device is idle).
func (g *graveyard) reapAll() {
	g.mu.Lock()
	graves := g.graves
	g.graves = nil
	g.mu.Unlock()
	for _, gr := range graves {
		gr.release()
	}
}
