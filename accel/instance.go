package accel

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/lucent-gpu/lucent/device"
)

// Primitive is what an instance places: a *Mesh or a *Procedural.
type Primitive interface {
	primitive() (device.Handle, device.ResourceKind, error)
}

// Instance places a primitive in an accel.
type Instance struct {
	Primitive Primitive
	// Transform is row-major 3×4, object to world; the zero value is taken
	// as the identity.
	Transform [12]float32
	Mask      uint8 // rays see the instance when their mask shares a bit with it
	Opaque    bool
	ID        uint32 // reported by hits, 24 bits
}

// Identity is the transform that leaves an instance in place.
var Identity = device.IdentityTransform

// Accel is an instance accel: the scene rays are traced against. It keeps
// its instances on the host and sends the backend only what changed since
// the last Build or Update command a Submit took. Safe for concurrent use.
type Accel struct {
	r *resource

	mu      sync.Mutex
	insts   []device.Instance
	changed map[uint32]device.InstanceChange
	sent    *device.AccelBuild // the last build command made
}

// NewAccel makes an empty accel; Add instances, then submit Build.
func NewAccel(d *device.Device, opt Options) (*Accel, error) {
	r, err := newResource(d, device.KindAccel, "NewAccel", opt, device.RayTracing.CreateAccel)
	if err != nil {
		return nil, err
	}
	return &Accel{r: r, changed: map[uint32]device.InstanceChange{}}, nil
}

func (a *Accel) base() *resource {
	if a == nil {
		return nil
	}
	return a.r
}

// instance checks in, placed in a, and returns it as the contract has it.
func (a *Accel) instance(in Instance) (device.Instance, error) {
	if in.Primitive == nil {
		return device.Instance{}, fmt.Errorf("accel: %w: instance without a primitive", device.ErrInvalidArgument)
	}
	h, kind, err := in.Primitive.primitive()
	if err != nil {
		return device.Instance{}, err
	}
	if h.Device() != a.r.h.Device() {
		return device.Instance{}, fmt.Errorf("accel: %w: the instance's %s %d belongs to another device than accel %d", device.ErrInvalidArgument, kind, h, a.r.h)
	}
	t := in.Transform
	if t == ([12]float32{}) {
		t = Identity
	}
	out := device.Instance{Primitive: h, Kind: kind, Transform: t, Mask: in.Mask, Opaque: in.Opaque, ID: in.ID}
	if err := (device.InstanceUpdate{Change: device.ChangeAll, Instance: out}).Check(); err != nil {
		return device.Instance{}, fmt.Errorf("accel: %w", err)
	}
	return out, nil
}

// Add appends an instance and returns its index.
func (a *Accel) Add(in Instance) (int, error) {
	if err := a.base().usable("Accel"); err != nil {
		return 0, err
	}
	di, err := a.instance(in)
	if err != nil {
		return 0, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.insts) >= device.MaxAccelPrimitives {
		return 0, fmt.Errorf("accel: %w: more than %d instances", device.ErrInvalidArgument, device.MaxAccelPrimitives)
	}
	a.insts = append(a.insts, di)
	a.changed[uint32(len(a.insts)-1)] = device.ChangeAll
	return len(a.insts) - 1, nil
}

// Set replaces instance i.
func (a *Accel) Set(i int, in Instance) error {
	if err := a.base().usable("Accel"); err != nil {
		return err
	}
	di, err := a.instance(in)
	if err != nil {
		return err
	}
	return a.change(i, device.ChangeAll, func(p *device.Instance) { *p = di })
}

// SetTransform moves instance i.
func (a *Accel) SetTransform(i int, t [12]float32) error {
	check := device.InstanceUpdate{Change: device.ChangeTransform, Instance: device.Instance{Transform: t}}
	if err := check.Check(); err != nil {
		return fmt.Errorf("accel: SetTransform %d: %w", i, err)
	}
	return a.change(i, device.ChangeTransform, func(p *device.Instance) { p.Transform = t })
}

// SetMask sets instance i's visibility mask.
func (a *Accel) SetMask(i int, mask uint8) error {
	return a.change(i, device.ChangeMask, func(p *device.Instance) { p.Mask = mask })
}

func (a *Accel) change(i int, c device.InstanceChange, f func(*device.Instance)) error {
	if err := a.base().usable("Accel"); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if i < 0 || i >= len(a.insts) {
		return fmt.Errorf("accel: %w: instance %d of %d", device.ErrInvalidArgument, i, len(a.insts))
	}
	f(&a.insts[i])
	a.changed[uint32(i)] |= c
	return nil
}

// Len returns the instance count (0 for a nil Accel).
func (a *Accel) Len() int {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.insts)
}

func (a *Accel) build(mode device.BuildMode) device.Command {
	what := "accel " + mode.String()
	if err := a.base().usable("Accel"); err != nil {
		return device.FailedCommand(what, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.insts) == 0 {
		return device.FailedCommand(what, fmt.Errorf("accel: %w: accel %d has no instances", device.ErrInvalidArgument, a.r.h))
	}
	// The changes of earlier commands no Submit took (refused, or never
	// submitted) go again: each update carries the instance's current
	// fields, so sending one twice changes nothing.
	if o := a.sent; o != nil && !o.Accepted() {
		for _, u := range o.Updates {
			a.changed[u.Index] |= u.Change
		}
	}
	c := &device.AccelBuild{Accel: a.r.h, Mode: mode, Count: uint32(len(a.insts))}
	for _, i := range slices.Sorted(maps.Keys(a.changed)) {
		c.Updates = append(c.Updates, device.InstanceUpdate{Index: i, Change: a.changed[i], Instance: a.insts[i]})
	}
	clear(a.changed)
	a.sent = c
	return c
}

// Build returns the command that builds the accel over its instances,
// sending the ones changed since the last Build or Update command a Submit
// took: the changes of a command refused or never submitted are sent again
// by the next one. Every instance's primitive must be built first, in this
// list or an earlier one.
func (a *Accel) Build() device.Command { return a.build(device.BuildFull) }

// Update returns the command that refits the accel to moved instances
// (AllowUpdate; the instance count of the last build).
func (a *Accel) Update() device.Command { return a.build(device.BuildUpdate) }

// Compact returns the command that compacts the accel (see Mesh.Compact).
func (a *Accel) Compact() device.Command { return a.base().compact("Accel") }

// Size reports the accel's memory (see Size).
func (a *Accel) Size() (Size, error) { return a.base().Size() }

// Handle returns the backend handle (0 for a nil Accel).
func (a *Accel) Handle() device.Handle { return a.base().Handle() }

// Close destroys the accel once the work using it has finished.
func (a *Accel) Close() error { return a.base().Close() }

// AccelArgHandle implements device.AccelArg: an accel is a dispatch
// argument of kernels taking one (ray queries). A nil, zero or closed accel
// is an error; the validation wrapper refuses one that has not been built.
func (a *Accel) AccelArgHandle() (device.Handle, error) {
	if err := a.base().usable("Accel"); err != nil {
		return 0, err
	}
	return a.r.h, nil
}

var _ device.AccelArg = (*Accel)(nil)
