package bvh

// Traversal: a fixed stack of StackSize entries per level, near child first.
// At an interior node both children's boxes are tested; when both are
// entered the farther is pushed with its entry distance and the nearer is
// visited; a popped entry whose distance now lies past the committed hit is
// dropped. A top-level leaf moves the ray into each of its instances' object
// space and traverses that instance's mesh the same way.

type stackEntry struct {
	node uint32
	t    float32
}

// query is one traversal in flight.
type query struct {
	s      *Scene
	world  Ray
	best   Hit
	tmax   float32 // the committed distance (the ray's TMax before a hit)
	cull   float32 // widen(tmax): boxes entered past it are culled
	have   bool
	anyHit bool
	wide   bool // the bottom level takes a mesh's wide form (wide.go)
	stop   bool
	cb     func(Candidate) (float32, bool, bool)
}

// better says whether a hit at t on (inst, prim) replaces the committed one:
// nearer, or as near with a lower instance index, then primitive id.
func (q *query) better(t float32, inst, prim uint32) bool {
	if !q.have {
		return t <= q.tmax
	}
	if t != q.tmax {
		return t < q.tmax
	}
	return inst < q.best.Instance || inst == q.best.Instance && prim < q.best.Prim
}

func (q *query) commit(h Hit) {
	q.best, q.tmax, q.cull, q.have = h, h.T, widen(h.T), true
	if q.anyHit {
		q.stop = true
	}
}

// Closest returns the nearest hit of r on a triangle, every triangle
// committed as if opaque; procedural primitives are not hit (they need
// Query). A ray with a non-finite origin or direction, a zero direction, a
// TMin below zero or infinite, TMin > TMax or a NaN TMax misses (as on the
// Vulkan paths).
func (s *Scene) Closest(r Ray) Hit {
	q := query{s: s, world: r, tmax: r.TMax, cull: widen(r.TMax)}
	q.run()
	return q.best
}

// Any reports whether r hits any triangle, stopping at the first it finds.
// On amd64 its bottom level walks a mesh's 4-wide form (docs/bvh.md §9).
func (s *Scene) Any(r Ray) bool {
	q := query{s: s, world: r, tmax: r.TMax, anyHit: true, wide: wideAny, cull: widen(r.TMax)}
	q.run()
	return q.have
}

// Query traverses r as a ray query does. Triangles of opaque instances are
// committed as they are found; onCandidate is called for each triangle of a
// non-opaque instance the ray hits before the committed hit, and for each
// procedural primitive whose box it enters before it. For a triangle,
// commit accepts the candidate at its own T (commitT is ignored); for a
// procedural primitive, commit accepts a hit at commitT when commitT lies in
// [r.TMin, Candidate.Committed] (a tie goes to the lower instance, then
// primitive). stop ends the traversal after the commit, if any. A nil
// onCandidate makes Query Closest. The committed hit is returned.
func (s *Scene) Query(r Ray, onCandidate func(c Candidate) (commitT float32, commit bool, stop bool)) Hit {
	q := query{s: s, world: r, tmax: r.TMax, cb: onCandidate, cull: widen(r.TMax)}
	q.run()
	return q.best
}

func (q *query) run() {
	s := q.s
	if len(s.Nodes) == 0 {
		return
	}
	var p ray
	if !p.init(&q.world, false) {
		return
	}
	nodes := s.Nodes
	if _, in := p.box(&nodes[0].Min, &nodes[0].Max, q.cull); !in {
		return
	}
	var stack [StackSize]stackEntry
	w := newWalker(nodes, &stack, &p, q.cull)
	ni := 0
	for {
		if ni = w.walk(nodes, &p, ni); ni == walkDone {
			return
		}
		n := &nodes[ni]
		for j := n.LeftFirst; j < n.LeftFirst+n.Count; j++ {
			q.instance(s.Order[j])
			if q.stop {
				return
			}
		}
		w.cull, ni = q.cull, -1
	}
}

// instance traverses instance ii's mesh.
func (q *query) instance(ii uint32) {
	inst := &q.s.Instances[ii]
	if inst.Mask&q.world.Mask == 0 {
		return
	}
	m := inst.Mesh
	if len(m.Nodes) == 0 || m.Procedural && q.cb == nil {
		return
	}
	or := objectRay(&q.s.Inverse[ii], &q.world)
	var p ray
	if !p.init(&or, true) {
		return
	}
	nodes := m.Nodes
	if _, in := p.box(&nodes[0].Min, &nodes[0].Max, q.cull); !in {
		return
	}
	if q.wide && !m.Procedural && (p.finite || !wideAny) {
		if wf := m.wideOf(); wf != nil {
			q.instanceWide(inst, ii, m, wf, &p, &or)
			return
		}
	}
	var stack [StackSize]stackEntry
	w := newWalker(nodes, &stack, &p, q.cull)
	if len(m.Tris) > 0 {
		w.tris = &m.Tris[0]
	}
	ni := 0
	for {
		if ni = w.walk(nodes, &p, ni); ni == walkDone {
			return
		}
		n := &nodes[ni]
		if m.Procedural {
			for j := n.LeftFirst; j < n.LeftFirst+n.Count; j++ {
				q.procedural(inst, ii, m, j, &p, &or)
				if q.stop {
					return
				}
			}
		} else {
			tris := m.Tris[n.LeftFirst : n.LeftFirst+n.Count]
			for k := range tris {
				// The watertight test first, here: most triangles miss.
				t, u, v, ok := p.watertight(&tris[k], q.tmax)
				if !ok {
					continue
				}
				if q.triangle(inst, ii, m, n.LeftFirst+uint32(k), &p, &or, t, u, v); q.stop {
					return
				}
			}
		}
		w.cull, ni = q.cull, -1
	}
}

// triangle commits or offers triangle j, which the watertight test hits at
// t, (u, v), when the ray enters its box by widen(t) (the rest of tri).
func (q *query) triangle(inst *Instance, ii uint32, m *Mesh, j uint32, p *ray, or *Ray, t, u, v float32) {
	if !p.entersBox(&m.Tris[j], t) {
		return
	}
	prim := m.Prims[j]
	if !q.better(t, ii, prim) {
		return
	}
	h := Hit{Instance: ii, Prim: prim, Bary: [2]float32{u, v}, T: t, Kind: KindTriangle, ID: inst.ID}
	if inst.Opaque || q.cb == nil {
		q.commit(h)
		return
	}
	_, commit, stop := q.cb(Candidate{
		Instance: ii, Prim: prim, ID: inst.ID, Kind: KindTriangle,
		T: t, Bary: h.Bary, ObjectRay: *or, Committed: q.tmax,
	})
	if commit {
		q.commit(h)
	}
	q.stop = q.stop || stop
}

func (q *query) procedural(inst *Instance, ii uint32, m *Mesh, j uint32, p *ray, or *Ray) {
	b := &m.Boxes[j]
	tn, in := p.box(&b.Min, &b.Max, q.cull)
	if !in {
		return
	}
	prim := m.Prims[j]
	ct, commit, stop := q.cb(Candidate{
		Instance: ii, Prim: prim, ID: inst.ID, Kind: KindProcedural,
		T: tn, ObjectRay: *or, Committed: q.tmax, Box: *b,
	})
	if commit && ct >= q.world.TMin && q.better(ct, ii, prim) {
		q.commit(Hit{Instance: ii, Prim: prim, T: ct, Kind: KindProcedural, ID: inst.ID})
	}
	q.stop = q.stop || stop
}
