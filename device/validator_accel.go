package device

import (
	"fmt"
	"slices"
)

// What the validation wrapper checks of ray tracing (docs/accel.md has the
// table): handles and kinds; every geometry range against its buffer;
// updates against the last full build (AllowUpdate, same counts); every
// instance of an accel, the ones a list leaves alone included, against a
// live, built primitive of the kind it names; compaction against
// AllowCompaction and a build the host has waited for. What needs device
// memory (index values, NaN vertices) is not checked here: the backends
// define those results.

// accelRec is what the validator knows of a mesh, procedural or accel.
type accelRec struct {
	opt      AccelOptions
	built    bool
	count    uint32 // triangles, boxes or instances of the last full build
	vertices uint32 // meshes: the vertex count of the last full build
	builtAt  tick   // the last build (stream 0: in the list being checked)
	insts    []Instance
	set      []bool // accels: instances set at least once
}

func (r *accelRec) clone() *accelRec {
	c := *r
	c.insts = slices.Clone(r.insts)
	c.set = slices.Clone(r.set)
	return &c
}

// validRayTracing is the validator's RayTracing.
type validRayTracing struct {
	v     *Validator
	inner RayTracing
}

func (x *validRayTracing) make(kind ResourceKind, opt AccelOptions, f func(AccelOptions) (Handle, error)) (Handle, error) {
	if err := opt.Check(); err != nil {
		return 0, fmt.Errorf("validation: Create %v: %w", kind, err)
	}
	return x.v.create(&vres{kind: kind, accel: &accelRec{opt: opt}}, func() (Handle, error) { return f(opt) })
}

func (x *validRayTracing) CreateMesh(opt AccelOptions) (Handle, error) {
	return x.make(KindMesh, opt, x.inner.CreateMesh)
}

func (x *validRayTracing) CreateProcedural(opt AccelOptions) (Handle, error) {
	return x.make(KindProcedural, opt, x.inner.CreateProcedural)
}

func (x *validRayTracing) CreateAccel(opt AccelOptions) (Handle, error) {
	return x.make(KindAccel, opt, x.inner.CreateAccel)
}

func (x *validRayTracing) DestroyMesh(h Handle) error {
	return x.v.destroy(h, KindMesh, x.inner.DestroyMesh)
}

func (x *validRayTracing) DestroyProcedural(h Handle) error {
	return x.v.destroy(h, KindProcedural, x.inner.DestroyProcedural)
}

func (x *validRayTracing) DestroyAccel(h Handle) error {
	return x.v.destroy(h, KindAccel, x.inner.DestroyAccel)
}

func (x *validRayTracing) AccelSize(h Handle) (AccelSize, error) {
	v := x.v
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return AccelSize{}, v.errClosed()
	}
	r, err := v.lookup(h, KindInvalid)
	if err == nil && r.accel == nil {
		err = vinvalid("handle %d is a %s, not a mesh, procedural or accel", h, r.kind)
	}
	v.mu.Unlock()
	if err != nil {
		return AccelSize{}, fmt.Errorf("AccelSize: %w", err)
	}
	return x.inner.AccelSize(h)
}

// pending returns the record of h as the list being checked leaves it.
func (v *Validator) pending(h Handle, r *vres) *accelRec {
	if p := v.pend[h]; p != nil {
		return p
	}
	p := r.accel.clone()
	if v.pend == nil {
		v.pend = map[Handle]*accelRec{}
	}
	v.pend[h] = p
	return p
}

// commitAccels keeps what the checked list did, built at tick t of stream.
func (v *Validator) commitAccels(stream Handle, t uint64) {
	for h, p := range v.pend {
		if p.built && p.builtAt.stream == 0 {
			p.builtAt = tick{stream, t}
		}
		v.res[h].accel = p
	}
	clear(v.pend)
}

// checkAccelCommand checks a ray-tracing command (c.Check has passed).
func (v *Validator) checkAccelCommand(c Command) error {
	switch c := c.(type) {
	case *MeshBuild:
		r, err := v.lookup(c.Mesh, KindMesh)
		if err != nil {
			return err
		}
		g := c.Geometry
		if err := v.bufRange(g.Vertices, g.VertexOffset, g.vertexBytes()); err != nil {
			return fmt.Errorf("Vertices (%d vertices, stride %d): %w", g.VertexCount, g.VertexStride, err)
		}
		if err := v.bufRange(g.Indices, g.IndexOffset, g.indexBytes()); err != nil {
			return fmt.Errorf("Indices (%d triangles): %w", g.Triangles, err)
		}
		p := v.pending(c.Mesh, r)
		if c.Mode == BuildUpdate {
			if err := v.checkUpdate(c.Mesh, r, p, g.Triangles, "triangles"); err != nil {
				return err
			}
			if g.VertexCount != p.vertices {
				return vinvalid("update of %s: %d vertices, its build had %d", r.label(c.Mesh), g.VertexCount, p.vertices)
			}
		}
		p.built, p.count, p.vertices, p.builtAt = true, g.Triangles, g.VertexCount, tick{}
	case *ProceduralBuild:
		r, err := v.lookup(c.Procedural, KindProcedural)
		if err != nil {
			return err
		}
		if err := v.bufRange(c.AABBs, c.Offset, 24*uint64(c.Count)); err != nil {
			return fmt.Errorf("AABBs (%d boxes): %w", c.Count, err)
		}
		p := v.pending(c.Procedural, r)
		if c.Mode == BuildUpdate {
			if err := v.checkUpdate(c.Procedural, r, p, c.Count, "boxes"); err != nil {
				return err
			}
		}
		p.built, p.count, p.builtAt = true, c.Count, tick{}
	case *AccelBuild:
		return v.checkAccelBuild(c)
	case *AccelCompact:
		r, err := v.lookup(c.Handle, c.Kind)
		if err != nil {
			return err
		}
		p := v.pending(c.Handle, r)
		switch {
		case !p.opt.AllowCompaction:
			return vinvalid("%s was made without AllowCompaction", r.label(c.Handle))
		case !p.built:
			return vinvalid("%s has not been built", r.label(c.Handle))
		case p.builtAt.stream == 0:
			return vinvalid("%s is built in the same list: its build must have finished (synchronize) before it is compacted", r.label(c.Handle))
		case v.host[p.builtAt.stream] < p.builtAt.t:
			return vinvalid("the build of %s on stream %d has not been waited for: synchronize with it before compacting",
				r.label(c.Handle), p.builtAt.stream)
		}
	}
	return nil
}

func (v *Validator) checkUpdate(h Handle, r *vres, p *accelRec, n uint32, what string) error {
	switch {
	case !p.opt.AllowUpdate:
		return vinvalid("update of %s, made without AllowUpdate", r.label(h))
	case !p.built:
		return vinvalid("update of %s, which has not been built", r.label(h))
	case n != p.count:
		return vinvalid("update of %s with %d %s, its build had %d", r.label(h), n, what, p.count)
	}
	return nil
}

func (v *Validator) checkAccelBuild(c *AccelBuild) error {
	r, err := v.lookup(c.Accel, KindAccel)
	if err != nil {
		return err
	}
	p := v.pending(c.Accel, r)
	if c.Mode == BuildUpdate {
		if err := v.checkUpdate(c.Accel, r, p, c.Count, "instances"); err != nil {
			return err
		}
	}
	if int(c.Count) > len(p.insts) {
		p.insts = append(p.insts, make([]Instance, int(c.Count)-len(p.insts))...)
		p.set = append(p.set, make([]bool, int(c.Count)-len(p.set))...)
	}
	for i, u := range c.Updates {
		in := &p.insts[u.Index]
		if !p.set[u.Index] && u.Change != ChangeAll {
			return vinvalid("update %d sets instance %d, never set before, only in part (Change %#x; a new instance needs ChangeAll)",
				i, u.Index, u.Change)
		}
		p.set[u.Index] = true
		if u.Change&ChangePrimitive != 0 {
			in.Primitive, in.Kind = u.Instance.Primitive, u.Instance.Kind
		}
		if u.Change&ChangeTransform != 0 {
			in.Transform = u.Instance.Transform
		}
		if u.Change&ChangeMask != 0 {
			in.Mask = u.Instance.Mask
		}
		if u.Change&ChangeOpaque != 0 {
			in.Opaque = u.Instance.Opaque
		}
		if u.Change&ChangeID != 0 {
			in.ID = u.Instance.ID
		}
	}
	if i := slices.Index(p.set[:c.Count], false); i >= 0 {
		return vinvalid("instance %d of %d of %s was never set", i, c.Count, r.label(c.Accel))
	}
	for i := range c.Count {
		in := p.insts[i]
		pr, err := v.lookup(in.Primitive, in.Kind)
		if err != nil {
			return fmt.Errorf("instance %d: %w", i, err)
		}
		if !v.pending(in.Primitive, pr).built {
			return vinvalid("instance %d: %s has not been built", i, pr.label(in.Primitive))
		}
	}
	p.built, p.count, p.builtAt = true, c.Count, tick{}
	return nil
}

// accelUsages are the reads an accel build makes beyond its Usages: the
// primitives of the instances the list leaves alone.
func (v *Validator) accelUsages(c Command) []Usage {
	b, ok := c.(*AccelBuild)
	if !ok {
		return nil
	}
	p := v.pend[b.Accel]
	if p == nil {
		return nil
	}
	u := make([]Usage, 0, b.Count)
	for _, in := range p.insts[:b.Count] {
		u = append(u, Usage{Handle: in.Primitive, Kind: in.Kind, Access: Read})
	}
	return u
}
