package device

import (
	"fmt"
	"os"
)

// EnvRace switches the race detector on for every device opened while it
// is "1", as WithRaceDetector does: a whole test suite can run with it.
const EnvRace = "LUCENT_RACE"

// WithRaceDetector runs the device's kernels with the race detector, where
// the backend has one (the cpu backend; other backends ignore it): two
// threads touching the same shared-memory or buffer element, or the same
// texel of a texture level, with no barrier between them, one of them
// writing and not both atomically, make the stream's Synchronize return a
// *KernelRace. Buffers and textures reached through a bindless array's
// slots are watched as the ones bound as arguments (one buffer or texture
// is one memory however it is reached), and a filtered read (a sample)
// reads every texel its filter fetches. Kernels run on the
// per-thread engine, a dispatch's blocks one after another, several times
// slower; the results are the ones the kernel computes on that engine.
func WithRaceDetector() Option { return func(o *Options) { o.RaceDetector = true } }

// RaceAccess is one of the two accesses of a KernelRace.
type RaceAccess struct {
	Thread [3]uint32 // the dispatch id of the thread
	Write  bool      // a store (or an atomic), else a load
	Atomic bool
	// Via is how this access named the memory where that differs from
	// KernelRace.What (the same buffer or texture bound as an argument
	// and in a bindless slot): "argument 1 (out)"; empty otherwise.
	Via string
	// Pos is where the kernel's source made the access ("file:line:col"
	// for Go kernels, the DSL call site for DSL kernels); empty where the
	// kernel carries no positions.
	Pos string
}

func (a RaceAccess) verb() string {
	switch {
	case a.Atomic:
		return "atomically updated"
	case a.Write:
		return "wrote"
	}
	return "read"
}

func (a RaceAccess) String() string {
	s := fmt.Sprintf("thread %v %s it", a.Thread, a.verb())
	if a.Via != "" {
		s += " through " + a.Via
	}
	if a.Pos != "" {
		s += " at " + a.Pos
	}
	return s
}

// KernelRace is the error a stream's Synchronize returns when the race
// detector (WithRaceDetector) saw a data race in a dispatch: the first one
// seen, and how many conflicting pairs of accesses there were. Within a
// block the first is the earliest in the order the threads ran; across
// blocks, which is first depends on the schedule. It wraps
// ErrInvalidArgument, as the cpu backend's checked accesses do.
type KernelRace struct {
	Kernel string
	// What names the memory as the first access reached it: "shared
	// variable tile (file:line:col)", "argument 1 (out)" or, through a
	// bindless array, "argument 0 (arr) slot 3".
	What string
	// Index is the element: the array index in a shared variable, the
	// element index in a buffer, the texel's index in its level (x
	// fastest) in a texture.
	Index uint64
	// Texel is the texel's coordinates (x, y[, z]) in a texture, nil
	// otherwise; Level is the texture's mip level.
	Texel []uint32
	Level uint32
	// First is the earlier access, Second the one that found it.
	First, Second RaceAccess
	Count         int // conflicting pairs seen in the dispatch (at least 1)
}

func (r *KernelRace) Error() string {
	more := ""
	if r.Count > 1 {
		more = fmt.Sprintf(" (and %d more)", r.Count-1)
	}
	at := fmt.Sprintf("element %d", r.Index)
	if r.Texel != nil {
		at = fmt.Sprintf("level %d texel %v", r.Level, r.Texel)
	}
	return fmt.Sprintf("kernel %s: data race on %s %s: %v, then %v, with no barrier between%s: %v",
		r.Kernel, r.What, at, r.First, r.Second, more, ErrInvalidArgument)
}

func (r *KernelRace) Unwrap() error { return ErrInvalidArgument }

func raceFromEnv(o *Options) {
	if os.Getenv(EnvRace) == "1" {
		o.RaceDetector = true
	}
}
