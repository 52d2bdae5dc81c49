package raytest

import (
	"errors"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/device"
)

// OnDevice is a Scene made on a device: its buffers, primitives and accel.
type OnDevice struct {
	Accel   *accel.Accel
	Meshes  []*accel.Mesh
	Procs   []*accel.Procedural
	closers []interface{ Close() error }
}

// Close releases everything OnDevice made.
func (o *OnDevice) Close() error {
	var errs []error
	for i := len(o.closers) - 1; i >= 0; i-- {
		errs = append(errs, o.closers[i].Close())
	}
	return errors.Join(errs...)
}

// Build returns the commands that build every primitive, then the accel.
func (o *OnDevice) Build() []device.Command {
	var out []device.Command
	for _, m := range o.Meshes {
		out = append(out, m.Build())
	}
	for _, p := range o.Procs {
		out = append(out, p.Build())
	}
	return append(out, o.Accel.Build())
}

// Make makes the scene's geometry buffers, primitives and accel (with opt)
// on d; nothing is built yet (Build).
func (s *Scene) Make(d *device.Device, opt accel.Options) (o *OnDevice, err error) {
	o = &OnDevice{}
	defer func() {
		if err != nil {
			o.Close()
			o = nil
		}
	}()
	keep := func(c interface{ Close() error }) { o.closers = append(o.closers, c) }
	for _, tris := range s.Meshes {
		verts := make([][3]float32, 0, 3*len(tris))
		idx := make([][3]uint32, len(tris))
		for i, t := range tris {
			verts = append(verts, t.A, t.B, t.C)
			idx[i] = [3]uint32{uint32(3 * i), uint32(3*i + 1), uint32(3*i + 2)}
		}
		vb, err := device.NewBufferFrom(d, verts)
		if err != nil {
			return nil, err
		}
		keep(vb)
		ib, err := device.NewBufferFrom(d, idx)
		if err != nil {
			return nil, err
		}
		keep(ib)
		m, err := accel.NewMesh(d, vb.All(), ib.All(), opt)
		if err != nil {
			return nil, err
		}
		keep(m)
		o.Meshes = append(o.Meshes, m)
	}
	for _, boxes := range s.Procs {
		ab := make([]accel.AABB, len(boxes))
		for i, b := range boxes {
			ab[i] = accel.AABB{Min: b.Min, Max: b.Max}
		}
		bb, err := device.NewBufferFrom(d, ab)
		if err != nil {
			return nil, err
		}
		keep(bb)
		p, err := accel.NewProcedural(d, bb.All(), opt)
		if err != nil {
			return nil, err
		}
		keep(p)
		o.Procs = append(o.Procs, p)
	}
	if o.Accel, err = accel.NewAccel(d, opt); err != nil {
		return nil, err
	}
	keep(o.Accel)
	for _, in := range s.Insts {
		var p accel.Primitive
		if in.Procedural {
			p = o.Procs[in.Prim]
		} else {
			p = o.Meshes[in.Prim]
		}
		if _, err := o.Accel.Add(accel.Instance{Primitive: p, Transform: in.Transform, Mask: in.Mask, Opaque: in.Opaque, ID: in.ID}); err != nil {
			return nil, err
		}
	}
	return o, nil
}
