package vulkan

import "sync"

// Lifetimes. A resource remembers, per stream, the timeline value of the last
// submission that used it. Destroying it buries it in the graveyard with those
// values; it is released once every one of those streams has completed them
// (checked each time a stream completes work, and at device close).

// tracked is embedded in every resource that submissions use.
type tracked struct {
	mu   sync.Mutex
	last map[*stream]uint64
}

func (t *tracked) use(s *stream, value uint64) {
	t.mu.Lock()
	if t.last == nil {
		t.last = map[*stream]uint64{}
	}
	if value > t.last[s] {
		t.last[s] = value
	}
	t.mu.Unlock()
}

func (t *tracked) waits() map[*stream]uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[*stream]uint64, len(t.last))
	for s, v := range t.last {
		out[s] = v
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
