package bvh

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkWide holds m's wide form to its binary nodes: every lane is a child
// or grandchild of the binary node its wide node opens, with that node's
// box bit for bit, leaf lanes its leaf range; every binary leaf is one lane.
func checkWide(t *testing.T, m *Mesh) {
	t.Helper()
	wf := m.wideOf()
	if len(m.Nodes) == 0 || m.Nodes[0].Count != 0 || m.Procedural {
		require.Nil(t, wf)
		return
	}
	require.NotNil(t, wf)
	var binLeaves, wideLeaves [][2]uint32
	for i := range m.Nodes {
		if n := &m.Nodes[i]; n.Count != 0 {
			binLeaves = append(binLeaves, [2]uint32{n.LeftFirst, n.Count})
		}
	}
	seen := make([]bool, len(wf.nodes))
	var visit func(wi, bi uint32)
	visit = func(wi, bi uint32) {
		require.False(t, seen[wi], "wide node %d reached twice", wi)
		seen[wi] = true
		wn := &wf.nodes[wi]
		n := &m.Nodes[bi]
		var lanes []uint32
		for c := n.LeftFirst; c <= n.LeftFirst+1; c++ {
			if m.Nodes[c].Count == 0 {
				lanes = append(lanes, m.Nodes[c].LeftFirst, m.Nodes[c].LeftFirst+1)
			} else {
				lanes = append(lanes, c)
			}
		}
		require.Equal(t, uint32(1)<<len(lanes)-1, wn.mask)
		for i, li := range lanes {
			b := &m.Nodes[li]
			for k := 0; k < 3; k++ {
				require.Equal(t, math.Float32bits(b.Min[k]), math.Float32bits(wn.box[k][i]))
				require.Equal(t, math.Float32bits(b.Max[k]), math.Float32bits(wn.box[3+k][i]))
			}
			if b.Count != 0 {
				require.Equal(t, b.Count, uint32(wn.count[i]))
				wideLeaves = append(wideLeaves, [2]uint32{wn.child[i], b.Count})
				continue
			}
			require.Zero(t, wn.count[i])
			require.Greater(t, wn.child[i], wi, "a child after its parent")
			visit(wn.child[i], li)
		}
	}
	visit(0, 0)
	require.NotContains(t, seen, false, "every wide node is reached")
	slices.SortFunc(binLeaves, func(a, b [2]uint32) int { return int(a[0]) - int(b[0]) })
	slices.SortFunc(wideLeaves, func(a, b [2]uint32) int { return int(a[0]) - int(b[0]) })
	require.Equal(t, binLeaves, wideLeaves)
}

// closestWide is Closest through the wide form: the walk Any takes, to
// the nearest hit.
func (s *Scene) closestWide(r Ray) Hit {
	q := query{s: s, world: r, tmax: r.TMax, cull: widen(r.TMax), wide: true}
	q.run()
	return q.best
}

// anyWide is Any through the wide form, also where Any itself keeps the
// binary walk.
func (s *Scene) anyWide(r Ray) bool {
	q := query{s: s, world: r, tmax: r.TMax, anyHit: true, wide: true, cull: widen(r.TMax)}
	q.run()
	return q.have
}

// binaryOnly is s with every mesh copied without its wide form: the binary
// traversal of the same hierarchy.
func binaryOnly(t *testing.T, s *Scene) *Scene {
	copies := map[*Mesh]*Mesh{}
	inst := slices.Clone(s.Instances)
	for i := range inst {
		m := inst[i].Mesh
		if copies[m] == nil {
			c := *m
			c.wide = nil
			copies[m] = &c
		}
		inst[i].Mesh = copies[m]
	}
	b, err := BuildScene(inst, Options{})
	require.NoError(t, err)
	return b
}

// awkwardRay is a random ray, or one along an axis or in an axis plane (zero
// direction components), starting on a face of a box of the hierarchy or at
// a vertex's coordinate.
func awkwardRay(rng *rand.Rand, s *Scene) Ray {
	r := randRay(rng)
	if rng.IntN(3) == 0 {
		return r
	}
	inst := &s.Instances[rng.IntN(len(s.Instances))]
	m := inst.Mesh
	var plane [3]float32 // object-space coordinates to start on
	switch {
	case len(m.Tris) > 0 && rng.IntN(2) == 0:
		tr := &m.Tris[rng.IntN(len(m.Tris))]
		plane = [3][3]float32{tr.A, tr.B, tr.C}[rng.IntN(3)]
	case len(m.Nodes) > 0:
		n := &m.Nodes[rng.IntN(len(m.Nodes))]
		for k := 0; k < 3; k++ {
			plane[k] = [2]float32{n.Min[k], n.Max[k]}[rng.IntN(2)]
		}
	}
	// A ray in object space, moved to world space with the transform.
	o := rv(rng, -1, 2)
	for k := 0; k < 3; k++ {
		if rng.IntN(2) == 0 {
			o[k] = plane[k]
		}
	}
	d := rv(rng, -1, 1)
	for k := 0; k < 3; k++ {
		if rng.IntN(3) != 0 {
			d[k] = 0
		}
	}
	if d == [3]float32{} {
		d[rng.IntN(3)] = []float32{1, -1}[rng.IntN(2)]
	}
	if inst.Transform != Identity && rng.IntN(4) != 0 {
		// The identity keeps the components zero; others make them small.
		return Ray{Origin: o, Dir: d, TMin: r.TMin, TMax: r.TMax, Mask: r.Mask}
	}
	m4 := &inst.Transform
	var wo, wd [3]float32
	for k := 0; k < 3; k++ {
		wo[k] = m4[4*k]*o[0] + m4[4*k+1]*o[1] + m4[4*k+2]*o[2] + m4[4*k+3]
		wd[k] = m4[4*k]*d[0] + m4[4*k+1]*d[1] + m4[4*k+2]*d[2]
	}
	return Ray{Origin: wo, Dir: wd, TMin: r.TMin, TMax: r.TMax, Mask: r.Mask}
}

// Closest and Any through the wide form return bit for bit the hits of the
// binary traversal of the same hierarchy and of the brute-force loop, on
// random scenes and awkward rays.
func TestWideMatchesBinaryAndBruteForce(t *testing.T) {
	for si, opt := range buildOptions {
		t.Run(fmt.Sprintf("%+v", opt), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(si), 41))
			s, rs, _ := randScene(t, rng, opt)
			for _, inst := range s.Instances {
				checkWide(t, inst.Mesh)
			}
			bin := binaryOnly(t, s)
			hits, zero := 0, 0
			for i := 0; i < 6000; i++ {
				r := awkwardRay(rng, s)
				got := s.closestWide(r)
				require.Equal(t, bin.Closest(r), got, "ray %d %+v", i, r)
				requireSameHit(t, rs.query(s, r, nil), got, "ray %d %+v", i, r)
				require.Equal(t, bin.Any(r), s.anyWide(r), "ray %d %+v", i, r)
				require.Equal(t, got.Kind != KindMiss, s.anyWide(r), "ray %d %+v", i, r)
				if got.Kind != KindMiss {
					hits++
				}
				if r.Dir[0] == 0 || r.Dir[1] == 0 || r.Dir[2] == 0 {
					zero++
				}
			}
			require.Greater(t, hits, 1000)
			require.Greater(t, zero, 500)
		})
	}
}

// Refit makes a new wide form of the new boxes; a copy of the mesh taken
// before keeps the old one, and both trace as the brute-force loop does.
func TestWideRefit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, opt := range buildOptions {
		tris := grid(rng, 20, 20)
		m, err := BuildTriangles(tris, opt)
		require.NoError(t, err)
		before := *m
		before.Nodes, before.Tris = slices.Clone(m.Nodes), slices.Clone(m.Tris)
		moved := make([]Triangle, len(tris))
		for i, tr := range tris {
			w := func(p [3]float32) [3]float32 {
				return [3]float32{p[0], p[1] + 0.2*float32(math.Cos(float64(5*p[0]))), p[2] + 0.6*float32(math.Sin(float64(7*p[1])))}
			}
			moved[i] = Triangle{w(tr.A), w(tr.B), w(tr.C)}
		}
		require.NoError(t, m.Refit(moved))
		checkWide(t, m)
		checkWide(t, &before)
		require.NotEqual(t, before.wideOf().nodes[0].box, m.wideOf().nodes[0].box, "the refit moved the boxes")
		for _, c := range []struct {
			m    *Mesh
			tris []Triangle
		}{{m, moved}, {&before, tris}} {
			inst := []Instance{{Mesh: c.m, Transform: Identity, Mask: 1, Opaque: true}}
			s, err := BuildScene(inst, Options{})
			require.NoError(t, err)
			bin := binaryOnly(t, s)
			rs := &refScene{inst: inst, tris: map[*Mesh][]Triangle{c.m: c.tris}}
			for i := 0; i < 2000; i++ {
				r := awkwardRay(rng, s)
				r.Mask = 1
				got := s.closestWide(r)
				require.Equal(t, bin.Closest(r), got, "ray %d %+v", i, r)
				requireSameHit(t, rs.query(s, r, nil), got, "ray %d %+v", i, r)
				require.Equal(t, bin.Any(r), s.anyWide(r), "ray %d %+v", i, r)
			}
		}
	}
}

// A compacted copy (each slice copied to its length, as the software
// accel's compaction does) keeps the wide form in use and in step; nodes
// changed in number behind the mesh's back are traced binary.
func TestWideCompaction(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	tris := soup(rng, 3000, 0.04)
	m, err := BuildTriangles(tris, Options{})
	require.NoError(t, err)
	c := *m
	c.Nodes, c.Prims, c.Tris = slices.Clip(slices.Clone(m.Nodes)), slices.Clip(slices.Clone(m.Prims)), slices.Clip(slices.Clone(m.Tris))
	require.NotNil(t, c.wideOf())
	checkWide(t, &c)
	inst := []Instance{{Mesh: &c, Transform: Identity, Mask: 1, Opaque: true}}
	s, err := BuildScene(inst, Options{})
	require.NoError(t, err)
	bin := binaryOnly(t, s)
	rs := &refScene{inst: inst, tris: map[*Mesh][]Triangle{&c: tris}}
	for i := 0; i < 3000; i++ {
		r := awkwardRay(rng, s)
		r.Mask = 1
		got := s.closestWide(r)
		require.Equal(t, bin.Closest(r), got, "ray %d %+v", i, r)
		requireSameHit(t, rs.query(s, r, nil), got, "ray %d %+v", i, r)
		require.Equal(t, bin.Any(r), s.anyWide(r), "ray %d %+v", i, r)
	}
	c.Nodes = c.Nodes[:1]
	c.Nodes[0].LeftFirst, c.Nodes[0].Count = 0, uint32(len(c.Prims))
	require.Nil(t, c.wideOf())
	for i := 0; i < 300; i++ {
		r := randRay(rng)
		r.Mask = 1
		requireSameHit(t, rs.query(s, r, nil), s.Closest(r), "ray %d %+v", i, r)
	}
}

// wideLeaves is the leaf lanes the wide walk step visits from the root, in
// order, the cull distance lowered after each to the next of culls, and the
// stack's depth after each step.
func wideLeaves(wf *wideForm, p *ray, cull float32, culls []float32, step func(w *wideWalker, ni int) int) []int {
	var stack [wideStackSize]stackEntry
	w := newWideWalker(wf, &stack, p, cull)
	var out []int
	ni := 0
	for i := 0; ; i++ {
		ni = step(&w, ni)
		out = append(out, ni, int(w.sp))
		if ni < 0 {
			return out
		}
		if i < len(culls) {
			w.cull = min(w.cull, culls[i])
		}
		ni = -1
	}
}

// walkWide (walkWideSSE on amd64 for rays with finite reciprocals) visits
// the same leaf lanes in the same order, with the same stack, as walkWideGo,
// on random meshes and rays and on one-node wide trees of awkward boxes
// (faces through the origin, flat, huge; zero, tiny and huge direction
// components; cull distances of ±Inf and NaN).
func TestWalkWideMatchesWalkWideGo(t *testing.T) {
	inf := float32(math.Inf(1))
	rng := rand.New(rand.NewPCG(13, 14))
	aw := awkward{rng}
	var forms []*wideForm
	for _, tris := range [][]Triangle{soup(rng, 2000, 0.05), soup(rng, 300, 0.3), grid(rng, 30, 20)} {
		for _, opt := range buildOptions {
			m, err := BuildTriangles(tris, opt)
			require.NoError(t, err)
			forms = append(forms, m.wideOf())
		}
	}
	finite, leaves := 0, 0
	for i := 0; i < 100000; i++ {
		var r Ray
		var wf *wideForm
		if i%4 == 0 {
			r = randRay(rng)
			if i%8 == 0 {
				r.Dir[rng.IntN(3)] = aw.comp()
			}
			wf = forms[rng.IntN(len(forms))]
		} else {
			r = Ray{Origin: [3]float32{aw.f(), aw.f(), aw.f()}, Dir: [3]float32{aw.comp(), aw.comp(), aw.comp()}, TMax: 10 * rng.Float32()}
			// A root of two interior children with two leaves each, or
			// of one leaf and one interior child.
			nodes := []Node{{Min: [3]float32{-inf, -inf, -inf}, Max: [3]float32{inf, inf, inf}, LeftFirst: 1}}
			inner := 2 - rng.IntN(2)
			for c := 0; c < 2; c++ {
				n := Node{Min: [3]float32{-inf, -inf, -inf}, Max: [3]float32{inf, inf, inf}}
				if c < inner {
					n.LeftFirst = uint32(3 + 2*c)
				} else {
					n.Min, n.Max = aw.box(r.Origin)
					n.LeftFirst, n.Count = rng.Uint32N(1<<20), 1+rng.Uint32N(255)
				}
				nodes = append(nodes, n)
			}
			for c := 0; c < 2*inner; c++ {
				n := Node{LeftFirst: rng.Uint32N(1 << 20), Count: 1 + rng.Uint32N(255)}
				n.Min, n.Max = aw.box(r.Origin)
				nodes = append(nodes, n)
			}
			wf = collapse(nodes)
		}
		aw.span(&r)
		var p ray
		if !p.init(&r, true) {
			continue
		}
		cull, culls := aw.culls(&r)
		want := wideLeaves(wf, &p, cull, culls, func(w *wideWalker, ni int) int { return w.walkWideGo(wf.nodes, &p, ni) })
		got := wideLeaves(wf, &p, cull, culls, func(w *wideWalker, ni int) int { return w.walkWide(wf.nodes, &p, ni) })
		require.Equal(t, want, got, "ray %+v cull %v root %+v", r, cull, wf.nodes[0])
		if p.finite { // the rays the SSE walk takes
			finite++
			leaves += len(want)/2 - 1
		}
	}
	require.Greater(t, finite, 25000, "finite %d", finite)
	require.Greater(t, leaves, 12000, "leaves %d", leaves)
}

// A wide child outside its array or a stack overflow is refused, not read.
func TestWalkWideCorrupt(t *testing.T) {
	r := Ray{Dir: [3]float32{1, 1, 1}, Origin: [3]float32{-5, -5, -5}, TMax: inf32}
	var p ray
	require.True(t, p.init(&r, true))
	all := [6][4]float32{}
	for k := 0; k < 3; k++ {
		all[k] = [4]float32{-1, -1, -1, -1}
		all[3+k] = [4]float32{1, 1, 1, 1}
	}
	out := []wideNode{{box: all, child: [4]uint32{7, 0, 0, 0}, mask: 1}}
	cycle := []wideNode{{box: all, mask: 15}} // every lane is node 0 again
	for _, nodes := range [][]wideNode{out, cycle} {
		wf := &wideForm{nodes: nodes}
		var stack [wideStackSize]stackEntry
		w := newWideWalker(wf, &stack, &p, inf32)
		require.Equal(t, walkCorrupt, walkWideRaw(&w, nodes, &p))
		w = newWideWalker(wf, &stack, &p, inf32)
		require.Equal(t, walkCorrupt, w.walkWideGo(nodes, &p, 0))
		w = newWideWalker(wf, &stack, &p, inf32)
		require.Panics(t, func() { w.walkWide(nodes, &p, 0) })
	}
}

// The wide form is made at a mesh's first wide traversal, not at its build:
// a mesh only the GPU traverses (the Vulkan backend's host copies) never
// pays for it.
func TestWideMadeAtFirstUse(t *testing.T) {
	old := makeWide
	makeWide = true
	t.Cleanup(func() { makeWide = old })
	tris := grid(rand.New(rand.NewPCG(3, 4)), 8, 8)
	m, err := BuildTriangles(tris, Options{})
	require.NoError(t, err)
	require.NotNil(t, m.wide)
	require.Nil(t, m.wide.f, "no wide form before a traversal asks for one")
	require.NotNil(t, m.wideOf())
	require.NotNil(t, m.wide.f)
	require.NoError(t, m.Refit(tris))
	require.Nil(t, m.wide.f, "a refit starts a new one, made at its first use")
}

// The first wide traversals of a mesh may come from many goroutines at once
// (kernel.Run's threads): each gets the one form, and their hits are the
// binary walk's (run under -race to check the first use).
func TestWideConcurrentFirstUse(t *testing.T) {
	old := makeWide
	makeWide = true
	t.Cleanup(func() { makeWide = old })
	rng := rand.New(rand.NewPCG(11, 12))
	m, err := BuildTriangles(soup(rng, 2000, 0.05), Options{})
	require.NoError(t, err)
	s, err := BuildScene([]Instance{{Mesh: m, Transform: Identity, Mask: 1, Opaque: true}}, Options{})
	require.NoError(t, err)
	bin := binaryOnly(t, s)
	rays := make([]Ray, 256)
	for i := range rays {
		rays[i] = randRay(rng)
		rays[i].Mask = 1
	}
	var wg sync.WaitGroup
	got := make([]bool, len(rays))
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(rays); i += 8 {
				got[i] = s.anyWide(rays[i])
			}
		}()
	}
	wg.Wait()
	for i, r := range rays {
		require.Equal(t, bin.Any(r), got[i], "ray %d", i)
	}
	require.NotNil(t, m.wide.f)
}
