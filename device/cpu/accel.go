package cpu

// Ray tracing in software (device.RayTracing, Capabilities().RayTracing =
// emulated): internal/softaccel's hierarchies, built on the stream's
// goroutine from the buffers' bytes when the command runs (so a build sees
// what earlier commands wrote). The node arrays stay in Go memory, where
// the kernels' ray queries (rayOp) traverse them. Faults the Vulkan backend turns into defined
// results are errors here, where the geometry is read: an index past the
// vertices, a NaN or infinite vertex or box; the stream's next Synchronize
// returns them.

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/softaccel"
)

// Extension implements device.Extender: the cpu backend builds
// acceleration structures in software.
func (d *Device) Extension(t reflect.Type) any {
	if t == reflect.TypeFor[device.RayTracing]() {
		return d
	}
	return nil
}

var _ device.RayTracing = (*Device)(nil)

func (d *Device) createStructure(kind device.ResourceKind, opt device.AccelOptions) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	if err := opt.Check(); err != nil {
		return 0, fmt.Errorf("cpu: Create %v: %w", kind, err)
	}
	h := d.handles.New()
	d.mu.Lock()
	d.objs[h] = softaccel.New(h, kind, opt)
	d.mu.Unlock()
	return h, nil
}

func (d *Device) CreateMesh(opt device.AccelOptions) (device.Handle, error) {
	return d.createStructure(device.KindMesh, opt)
}

func (d *Device) CreateProcedural(opt device.AccelOptions) (device.Handle, error) {
	return d.createStructure(device.KindProcedural, opt)
}

func (d *Device) CreateAccel(opt device.AccelOptions) (device.Handle, error) {
	return d.createStructure(device.KindAccel, opt)
}

func (d *Device) destroyStructure(h device.Handle, kind device.ResourceKind) error {
	if _, err := d.structure(h, kind); err != nil {
		return fmt.Errorf("cpu: Destroy: %w", err)
	}
	s, err := remove[*softaccel.Structure](d, h, kind.String())
	if err != nil {
		return err
	}
	// Work in flight that holds it still runs, accel builds submitted before
	// included; those submitted after fail.
	s.Destroy(d.accelSeq.Load())
	return nil
}

func (d *Device) DestroyMesh(h device.Handle) error { return d.destroyStructure(h, device.KindMesh) }
func (d *Device) DestroyProcedural(h device.Handle) error {
	return d.destroyStructure(h, device.KindProcedural)
}
func (d *Device) DestroyAccel(h device.Handle) error { return d.destroyStructure(h, device.KindAccel) }

// structure looks up a structure of the kind (KindInvalid: any).
func (d *Device) structure(h device.Handle, kind device.ResourceKind) (*softaccel.Structure, error) {
	want := kind.String()
	if kind == device.KindInvalid {
		want = "mesh, procedural or accel"
	}
	s, err := lookup[*softaccel.Structure](d, h, want)
	if err != nil {
		return nil, err
	}
	if kind != device.KindInvalid && s.Kind() != kind {
		return nil, fmt.Errorf("%w: handle %d is a %s, not a %s", device.ErrInvalidArgument, h, s.Kind(), kind)
	}
	return s, nil
}

func (d *Device) AccelSize(h device.Handle) (device.AccelSize, error) {
	if err := d.enter(); err != nil {
		return device.AccelSize{}, err
	}
	defer d.exit()
	s, err := d.structure(h, device.KindInvalid)
	if err != nil {
		return device.AccelSize{}, fmt.Errorf("cpu: AccelSize: %w", err)
	}
	return s.Size(), nil
}

// prepareAccel turns a ray-tracing command into the operation its stream runs.
func (d *Device) prepareAccel(c device.Command) (func() error, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	switch c := c.(type) {
	case *device.MeshBuild:
		g := c.Geometry
		verts, err := span(d, g.Vertices, g.VertexOffset, uint64(g.VertexCount-1)*uint64(g.VertexStride)+12, "Vertices")
		if err != nil {
			return nil, err
		}
		idx, err := span(d, g.Indices, g.IndexOffset, g.IndexBytes(), "Indices")
		if err != nil {
			return nil, err
		}
		s, err := d.structure(c.Mesh, device.KindMesh)
		if err != nil {
			return nil, err
		}
		return func() error { return s.BuildMesh(c.Mode, g, verts, idx) }, nil
	case *device.ProceduralBuild:
		boxes, err := span(d, c.AABBs, c.Offset, 24*uint64(c.Count), "AABBs")
		if err != nil {
			return nil, err
		}
		s, err := d.structure(c.Procedural, device.KindProcedural)
		if err != nil {
			return nil, err
		}
		return func() error { return s.BuildProcedural(c.Mode, c.Count, boxes) }, nil
	case *device.AccelBuild:
		s, err := d.structure(c.Accel, device.KindAccel)
		if err != nil {
			return nil, err
		}
		prims := make([]*softaccel.Structure, len(c.Updates))
		for i, u := range c.Updates {
			if u.Change&device.ChangePrimitive == 0 {
				continue
			}
			if prims[i], err = d.structure(u.Instance.Primitive, u.Instance.Kind); err != nil {
				return nil, fmt.Errorf("update %d (instance %d): %w", i, u.Index, err)
			}
		}
		updates := slices.Clone(c.Updates)
		seq := d.accelSeq.Add(1)
		return func() error { return s.BuildAccel(c.Mode, c.Count, updates, prims, seq) }, nil
	case *device.AccelCompact:
		s, err := d.structure(c.Handle, c.Kind)
		if err != nil {
			return nil, err
		}
		return s.Compact, nil
	}
	return nil, fmt.Errorf("%w: command %T", device.ErrUnsupported, c)
}

// rayOp compiles OpRayClosest and OpRayAny: bvh.Scene.Trace over the
// accel's top level as the dispatch found it (docs/accel.md has the
// semantics). The mask's low 8 bits are the ray's: instance masks have 8.
func (c *compiler) rayOp(e *ir.Call) ex {
	k, ray := c.rayOf(e.Args)
	if e.Op == ir.OpRayAny {
		return scalarEx(func(t *th) uint64 {
			return b2u(t.run.scenes[k].Trace(ray(t), true).Kind != bvh.KindMiss)
		})
	}
	return ex{n: 6, v: func(t *th, d []uint64) {
		h := t.run.scenes[k].Trace(ray(t), false)
		if h.Kind == bvh.KindMiss {
			clear(d[:6])
			return
		}
		d[0], d[1], d[2], d[3], d[4], d[5] = uint64(h.ID), uint64(h.Prim), uf32(h.Bary[0]), uf32(h.Bary[1]), uf32(h.T), uint64(h.Kind)
	}}
}

// rayOf compiles a ray query's operands (accel, origin, tmin, dir, tmax,
// mask): the accel's argument index and the ray.
func (c *compiler) rayOf(args []ir.Expr) (int, func(t *th) bvh.Ray) {
	r, ok := args[0].(*ir.Ref)
	if !ok || r.Var.Kind != ir.VarArg {
		refuse(unsupported("a ray query on an accel that is not a kernel argument"))
	}
	k := c.params[r.Var]
	oo, oe := c.agg(c.expr(args[1]))
	tmin := c.expr(args[2]).s
	do, de := c.agg(c.expr(args[3]))
	tmax := c.expr(args[4]).s
	mask := c.expr(args[5]).s
	return k, func(t *th) bvh.Ray {
		oe(t)
		de(t)
		return bvh.Ray{
			Origin: [3]float32{f32(t.r[oo]), f32(t.r[oo+1]), f32(t.r[oo+2])}, TMin: f32(tmin(t)),
			Dir: [3]float32{f32(t.r[do]), f32(t.r[do+1]), f32(t.r[do+2])}, TMax: f32(tmax(t)),
			Mask: uint8(mask(t)),
		}
	}
}
