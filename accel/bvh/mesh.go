package bvh

import (
	"fmt"
	"sync"
)

// Mesh is a bottom-level hierarchy over triangles or over boxes (procedural
// primitives). Nodes[0] is the root; a leaf's entries are
// Prims[LeftFirst : LeftFirst+Count], each the primitive's index in the
// input. Tris (or Boxes, for a procedural mesh) holds the primitives in the
// same leaf order, Tris[i] being input triangle Prims[i], so a GPU kernel
// reads a leaf's primitives contiguously. A mesh of no primitives has no
// nodes and is never hit.
type Mesh struct {
	Nodes []Node
	Prims []uint32
	Tris  []Triangle
	Boxes []AABB
	// Procedural is set for a mesh built by BuildAABBs.
	Procedural bool

	wide *wideLazy // host-only 4-wide form of Nodes, made at first use (wide.go); nil: none
}

// Len returns the number of primitives the mesh was built over.
func (m *Mesh) Len() int { return len(m.Prims) }

// Bounds returns the root's box (an inverted empty box for an empty mesh).
func (m *Mesh) Bounds() AABB {
	if len(m.Nodes) == 0 {
		return emptyBox()
	}
	return m.Nodes[0].Bounds()
}

// CheckTriangle returns the error a build reports for triangle i of its
// input, t, or nil when t is finite.
func CheckTriangle(i int, t Triangle) error { return checkTriangle(i, &t) }

func checkTriangle(i int, t *Triangle) error {
	for j, v := range [3][3]float32{t.A, t.B, t.C} {
		if !finite(v) {
			return fmt.Errorf("bvh: triangle %d: vertex %c = %v is not finite: %w", i, "ABC"[j], v, ErrInvalidArgument)
		}
	}
	return nil
}

func checkBox(i int, b *AABB) error {
	if !finite(b.Min) || !finite(b.Max) {
		return fmt.Errorf("bvh: box %d: %v..%v is not finite: %w", i, b.Min, b.Max, ErrInvalidArgument)
	}
	for k := 0; k < 3; k++ {
		if b.Min[k] > b.Max[k] {
			return fmt.Errorf("bvh: box %d: Min %v exceeds Max %v on axis %d: %w", i, b.Min, b.Max, k, ErrInvalidArgument)
		}
	}
	return nil
}

func checkCount(n int) error {
	if n > maxPrims {
		return fmt.Errorf("bvh: %d primitives, more than the %d one hierarchy holds: %w", n, maxPrims, ErrInvalidArgument)
	}
	return nil
}

// BuildTriangles builds a mesh over tris. A triangle with a NaN or infinite
// coordinate is an error naming it (the first such); no triangles give an
// empty mesh.
func BuildTriangles(tris []Triangle, opt Options) (*Mesh, error) {
	if err := checkCount(len(tris)); err != nil {
		return nil, err
	}
	if opt.FastBuild {
		m, bad := buildMortonTriangles(tris, opt)
		if bad >= 0 {
			return nil, checkTriangle(bad, &tris[bad])
		}
		m.wide = newWide()
		return m, nil
	}
	refs := make([]ref, len(tris))
	if bad := firstBad(len(tris), func(lo, hi int) int {
		for i := lo; i < hi; i++ {
			t := &tris[i]
			if !t.finite() {
				return i
			}
			b := t.bounds()
			refs[i] = ref{min: b.Min, max: b.Max, id: uint32(i)}
		}
		return -1
	}); bad >= 0 {
		return nil, checkTriangle(bad, &tris[bad])
	}
	m := &Mesh{}
	m.Nodes, refs = newBuilder(refs, opt).build()
	m.Prims = make([]uint32, len(refs))
	m.Tris = make([]Triangle, len(refs))
	parallelFor(len(refs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			m.Prims[i] = refs[i].id
			m.Tris[i] = tris[refs[i].id]
		}
	})
	m.wide = newWide()
	return m, nil
}

// firstBad runs check over [0, n) in parts on GOMAXPROCS goroutines and
// returns the lowest index a part reports (check returns -1 for none).
func firstBad(n int, check func(lo, hi int) int) int {
	var mu sync.Mutex
	bad := -1
	parallelFor(n, func(lo, hi int) {
		if i := check(lo, hi); i >= 0 {
			mu.Lock()
			if bad < 0 || i < bad {
				bad = i
			}
			mu.Unlock()
		}
	})
	return bad
}

// BuildAABBs builds a procedural mesh over boxes. A box with a non-finite
// coordinate or Min > Max is an error naming it; no boxes give an empty mesh.
func BuildAABBs(boxes []AABB, opt Options) (*Mesh, error) {
	if err := checkCount(len(boxes)); err != nil {
		return nil, err
	}
	refs := make([]ref, len(boxes))
	for i := range boxes {
		b := &boxes[i]
		if err := checkBox(i, b); err != nil {
			return nil, err
		}
		refs[i] = ref{min: b.Min, max: b.Max, id: uint32(i)}
	}
	m := &Mesh{Procedural: true}
	m.Nodes, refs = newBuilder(refs, opt).build()
	m.Prims = make([]uint32, len(refs))
	m.Boxes = make([]AABB, len(refs))
	for i := range refs {
		m.Prims[i] = refs[i].id
		m.Boxes[i] = boxes[refs[i].id]
	}
	return m, nil
}

// Refit keeps the mesh's topology and moves its triangles to tris (in input
// order, as many as the mesh was built over), recomputing every box bottom
// up. Trace speed degrades as the motion departs from the built shape; a
// rebuild restores it. A scene's top level does not see the new bounds until
// Scene.Update is called for each instance of the mesh.
func (m *Mesh) Refit(tris []Triangle) error {
	if m.Procedural {
		return fmt.Errorf("bvh: Refit of a procedural mesh (use RefitAABBs): %w", ErrInvalidArgument)
	}
	if len(tris) != len(m.Prims) {
		return fmt.Errorf("bvh: Refit with %d triangles, the mesh has %d: %w", len(tris), len(m.Prims), ErrInvalidArgument)
	}
	for i := range tris {
		if err := checkTriangle(i, &tris[i]); err != nil {
			return err
		}
	}
	for i, id := range m.Prims {
		m.Tris[i] = tris[id]
	}
	m.refit(func(i int) AABB { return m.Tris[i].bounds() })
	// A new wide form, not the old one changed: a copy of the mesh made
	// before the refit keeps the form of its own boxes.
	m.wide = newWide()
	return nil
}

// RefitAABBs is Refit for a procedural mesh.
func (m *Mesh) RefitAABBs(boxes []AABB) error {
	if !m.Procedural {
		return fmt.Errorf("bvh: RefitAABBs of a triangle mesh (use Refit): %w", ErrInvalidArgument)
	}
	if len(boxes) != len(m.Prims) {
		return fmt.Errorf("bvh: RefitAABBs with %d boxes, the mesh has %d: %w", len(boxes), len(m.Prims), ErrInvalidArgument)
	}
	for i := range boxes {
		if err := checkBox(i, &boxes[i]); err != nil {
			return err
		}
	}
	for i, id := range m.Prims {
		m.Boxes[i] = boxes[id]
	}
	m.refit(func(i int) AABB { return m.Boxes[i] })
	return nil
}

// refit recomputes every node's box from the primitive boxes prim(i) of leaf
// entries; children follow their parents, so one backward pass suffices.
func (m *Mesh) refit(prim func(i int) AABB) {
	refitNodes(m.Nodes, prim)
}

func refitNodes(nodes []Node, prim func(i int) AABB) {
	for i := len(nodes) - 1; i >= 0; i-- {
		n := &nodes[i]
		var b AABB
		if n.Count != 0 {
			b = prim(int(n.LeftFirst))
			for j := 1; j < int(n.Count); j++ {
				pb := prim(int(n.LeftFirst) + j)
				b.union(&pb)
			}
		} else {
			b = nodes[n.LeftFirst].Bounds()
			r := nodes[n.LeftFirst+1].Bounds()
			b.union(&r)
		}
		n.Min, n.Max = b.Min, b.Max
	}
}
