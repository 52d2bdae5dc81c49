package kernel

// Ray queries.
//
// A kernel takes an acceleration structure as a parameter of type Accel and
// traces rays against it: TraceClosest returns the closest hit, TraceAny
// whether anything is hit (a shadow ray). On a device the parameter is an
// accel (package accel, docs/accel.md); on the CPU, an Accel wraps a host
// implementation of Tracer, which package accel provides (accel.Host), so
// that this package imports nothing of lucent.

// Ray is a ray of a query: the points Origin + t·Dir for t in [TMin, TMax].
// Dir need not be normalised (t is in units of Dir). The ray skips every
// instance whose 8-bit mask shares no bit with Mask. A ray with a
// non-finite origin or direction, a zero direction, a negative or infinite
// TMin or TMin > TMax misses everything, on every path.
type Ray struct {
	Origin Float3
	TMin   float32
	Dir    Float3
	TMax   float32
	Mask   uint32
}

// Hit is the closest hit of a ray (TraceClosest). Instance is the hit
// instance's user id, Prim the primitive's index in its mesh or procedural,
// Bary the triangle's barycentrics (u, v), the hit point being
// (1-u-v)·A + u·B + v·C, T the distance along the ray and Kind one of
// HitMiss, HitTriangle and HitProcedural. A miss has every field zero. Its
// layout (24 bytes) is the device's.
type Hit struct {
	Instance uint32
	Prim     uint32
	Bary     Float2
	T        float32
	Kind     uint32
}

// The kinds of a Hit.
const (
	HitMiss       = 0
	HitTriangle   = 1
	HitProcedural = 2 // a procedural box, hit where the ray enters it (or at TMin when it starts inside)
)

// Tracer is the host implementation of an Accel: the ray queries of a scene
// on the CPU. Package accel provides one over accel/bvh (accel.Host).
// Implementations must be safe for concurrent use: every kernel thread of
// Run may trace at once.
type Tracer interface {
	TraceClosest(r Ray) Hit
	TraceAny(r Ray) bool
	// Query traverses r as a ray query (RayQuery), calling visit for each
	// candidate: visit returns the commit (commitT for a procedural
	// candidate) and whether to stop. It returns what was committed.
	Query(r Ray, visit func(c Candidate) (commitT float32, commit, stop bool)) QueryResult
}

// Accel is an acceleration structure a kernel traces rays against. A
// kernel takes it by value (it is a handle). On the CPU it wraps a Tracer;
// the zero value traces nothing and panics when used, which Run reports as
// a failed thread.
type Accel struct {
	t Tracer
}

// NewAccel returns the Accel tracing with t on the CPU.
func NewAccel(t Tracer) Accel { return Accel{t} }

// Valid reports whether a has a tracer (was made by NewAccel with one).
func (a Accel) Valid() bool { return a.t != nil }

func (a Accel) tracer() Tracer {
	if a.t == nil {
		panic("kernel: ray query on a zero Accel: make it with kernel.NewAccel (accel.Host gives one over a host scene)")
	}
	return a.t
}

// TraceClosest returns the closest hit of r in [r.TMin, r.TMax]: triangles
// are hit from both sides, a procedural box where r enters it; a miss is
// the zero Hit (Kind HitMiss).
func (a Accel) TraceClosest(r Ray) Hit { return a.tracer().TraceClosest(r) }

// TraceAny reports whether r hits anything in [r.TMin, r.TMax], stopping at
// the first hit it finds.
func (a Accel) TraceAny(r Ray) bool { return a.tracer().TraceAny(r) }
