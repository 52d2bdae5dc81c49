// Package accel is the typed API of ray tracing: triangle meshes and
// procedural primitives (axis-aligned boxes) over device buffers, and
// instance accels placing them in a scene. Each is built, updated (refit)
// and compacted by a command put in a stream's command list like any other,
// so that the reads of its geometry and the writes of the structure are
// ordered by the stream's derived barriers and hazard-checked by the
// validation wrapper.
//
// The one design choice to know: everything goes through the device's
// RayTracing extension (device.Extension), which a backend offers where it
// can build acceleration structures (Capabilities().RayTracing says how);
// New functions give an error wrapping device.ErrUnsupported where it
// cannot. docs/accel.md has the contract and what is checked where.
//
// A mesh reads its positions in place: NewMesh from a buffer of [3]float32,
// NewMeshOf from a buffer of any vertex type (interleaved attributes) with
// the position three float32 at a byte offset of it, the stride the type's
// size; triangles are [3]uint32 or [3]uint16 (Index). HostTriangles reads
// the same vertices and triangles from host memory for the scenes Host
// traces.
//
// Hits at exactly the same t: the software path (a Vulkan device without
// native ray queries, or LUCENT_ACCEL=software), the cpu backend, kernel.Run
// (Host) and the interpreter return the hit of the lower instance index (the
// instance's place in the accel, not its user id), then of the lower
// primitive index, whatever order the hierarchy is visited in; a candidate
// loop's commits follow the same rule. They agree with each other on every
// tie. The native path (VK_KHR_ray_query) returns what the driver returns:
// Vulkan leaves the order of candidates at one t undefined (Mesa 25's
// lavapipe picked the rule's hit on every tie of the tests, which promises
// nothing for another driver).
package accel

import (
	"errors"
	"fmt"
	"sync"

	"github.com/lucent-gpu/lucent/device"
)

// Options are fixed when a structure is made (see device.AccelOptions).
type Options = device.AccelOptions

// Build hints (see device.AccelHint).
const (
	FastTrace = device.FastTrace
	FastBuild = device.FastBuild
)

// Size is a structure's memory (see device.AccelSize).
type Size = device.AccelSize

// resource is the part every structure shares: its handle on the device's
// RayTracing extension and an idempotent Close.
type resource struct {
	rt   device.RayTracing
	h    device.Handle
	kind device.ResourceKind

	mu     sync.Mutex
	closed bool
}

func zeroErr(what string) error {
	return fmt.Errorf("accel: %w: nil or zero-value %s (make one with its New function)", device.ErrInvalidArgument, what)
}

// rayTracing returns the device's extension, with an error naming op.
func rayTracing(d *device.Device, op string) (device.RayTracing, error) {
	if d == nil {
		return nil, fmt.Errorf("accel: %s: %w: nil device", op, device.ErrInvalidArgument)
	}
	rt, err := device.Extension[device.RayTracing](d)
	if err != nil {
		return nil, fmt.Errorf("accel: %s: %w", op, err)
	}
	return rt, nil
}

func newResource(d *device.Device, kind device.ResourceKind, op string, opt Options,
	create func(device.RayTracing, Options) (device.Handle, error)) (*resource, error) {
	rt, err := rayTracing(d, op)
	if err != nil {
		return nil, err
	}
	if err := opt.Check(); err != nil {
		return nil, fmt.Errorf("accel: %s: %w", op, err)
	}
	h, err := create(rt, opt)
	if err != nil {
		return nil, fmt.Errorf("accel: %s: %w", op, err)
	}
	return &resource{rt: rt, h: h, kind: kind}, nil
}

// foreign returns an error naming what, of op, when h belongs to another
// device than r, and closes r (just made by op).
func (r *resource) foreign(op, what string, h device.Handle) error {
	if h.Device() == r.h.Device() {
		return nil
	}
	_ = r.Close()
	return fmt.Errorf("accel: %s: %w: %s: buffer %d belongs to another device", op, device.ErrInvalidArgument, what, h)
}

// usable returns nil for a live resource.
func (r *resource) usable(what string) error {
	if r == nil || r.rt == nil {
		return zeroErr(what)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("accel: %s %d: %w", r.kind, r.h, device.ErrClosed)
	}
	return nil
}

// Close destroys the structure once the work using it has finished; later
// calls, calls on a nil or zero value, and calls after the device closed
// (which released it) return nil.
func (r *resource) Close() error {
	if r == nil || r.rt == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	var err error
	switch r.kind {
	case device.KindMesh:
		err = r.rt.DestroyMesh(r.h)
	case device.KindProcedural:
		err = r.rt.DestroyProcedural(r.h)
	default:
		err = r.rt.DestroyAccel(r.h)
	}
	if errors.Is(err, device.ErrClosed) {
		return nil
	}
	return err
}

// Handle returns the backend handle (0 for a nil or zero value).
func (r *resource) Handle() device.Handle {
	if r == nil {
		return 0
	}
	return r.h
}

// Size reports the structure's memory now and, once a build with
// AllowCompaction has finished, its compacted size.
func (r *resource) Size() (Size, error) {
	if err := r.usable("structure"); err != nil {
		return Size{}, err
	}
	return r.rt.AccelSize(r.h)
}

// compact is the compaction command of a structure.
func (r *resource) compact(what string) device.Command {
	if err := r.usable(what); err != nil {
		return device.FailedCommand("compaction", err)
	}
	return &device.AccelCompact{Handle: r.h, Kind: r.kind}
}
