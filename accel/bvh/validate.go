package bvh

import "fmt"

// Validate checks m's invariants: children follow their parents and lie in
// their boxes, every leaf holds 1..MaxLeafSize entries, every primitive is in
// exactly one leaf and inside its leaf's box, no path is longer than
// StackSize. A mesh built or refitted here always passes; the check is for
// tests and for hierarchies that come from elsewhere.
func (m *Mesh) Validate() error {
	n := len(m.Prims)
	if m.Procedural && len(m.Boxes) != n || !m.Procedural && len(m.Tris) != n {
		return fmt.Errorf("bvh: mesh of %d primitives holds %d triangles and %d boxes", n, len(m.Tris), len(m.Boxes))
	}
	if err := permutation(m.Prims); err != nil {
		return err
	}
	return validateNodes(m.Nodes, m.Prims, func(i int) AABB {
		if m.Procedural {
			return m.Boxes[i]
		}
		return m.Tris[i].bounds()
	})
}

// Validate is Mesh.Validate for the top level: every instance in exactly one
// leaf, its world box inside the leaf's.
func (s *Scene) Validate() error {
	if len(s.Inverse) != len(s.Instances) || len(s.World) != len(s.Instances) {
		return fmt.Errorf("bvh: scene of %d instances holds %d inverses and %d world boxes", len(s.Instances), len(s.Inverse), len(s.World))
	}
	if err := permutation(s.Order); err != nil {
		return err
	}
	return validateNodes(s.Nodes, s.Order, func(i int) AABB { return s.World[s.Order[i]] })
}

// permutation checks that order holds each of 0..len-1 once.
func permutation(order []uint32) error {
	seen := make([]bool, len(order))
	for i, id := range order {
		if int64(id) >= int64(len(order)) || seen[id] {
			return fmt.Errorf("bvh: entry %d names primitive %d twice or out of %d", i, id, len(order))
		}
		seen[id] = true
	}
	return nil
}

func inside(in, out *AABB) bool {
	for k := 0; k < 3; k++ {
		if in.Min[k] < out.Min[k] || in.Max[k] > out.Max[k] {
			return false
		}
	}
	return true
}

func validateNodes(nodes []Node, order []uint32, prim func(i int) AABB) error {
	if len(order) == 0 {
		if len(nodes) != 0 {
			return fmt.Errorf("bvh: %d nodes over no primitives", len(nodes))
		}
		return nil
	}
	if len(nodes) == 0 {
		return fmt.Errorf("bvh: no nodes over %d primitives", len(order))
	}
	seen := make([]bool, len(order))
	depth := make([]int, len(nodes))
	depth[0] = 1
	reached := make([]bool, len(nodes))
	reached[0] = true
	for i := range nodes {
		nd := &nodes[i]
		if !reached[i] {
			return fmt.Errorf("bvh: node %d is not reachable from the root", i)
		}
		if depth[i] > StackSize {
			return fmt.Errorf("bvh: node %d at depth %d, past StackSize %d", i, depth[i], StackSize)
		}
		box := nd.Bounds()
		if nd.Count != 0 {
			if nd.Count > MaxLeafSize || uint64(nd.LeftFirst)+uint64(nd.Count) > uint64(len(order)) {
				return fmt.Errorf("bvh: leaf %d: entries %d+%d out of %d", i, nd.LeftFirst, nd.Count, len(order))
			}
			for j := nd.LeftFirst; j < nd.LeftFirst+nd.Count; j++ {
				if seen[j] {
					return fmt.Errorf("bvh: leaf %d: entry %d in two leaves", i, j)
				}
				seen[j] = true
				pb := prim(int(j))
				if !inside(&pb, &box) {
					return fmt.Errorf("bvh: leaf %d: entry %d's box %v not inside %v", i, j, pb, box)
				}
			}
			continue
		}
		c := uint64(nd.LeftFirst)
		if c <= uint64(i) || c+1 >= uint64(len(nodes)) {
			return fmt.Errorf("bvh: node %d: children %d, %d out of order or range (%d nodes)", i, c, c+1, len(nodes))
		}
		for _, ch := range []uint64{c, c + 1} {
			if reached[ch] {
				return fmt.Errorf("bvh: node %d has two parents", ch)
			}
			reached[ch] = true
			depth[ch] = depth[i] + 1
			cb := nodes[ch].Bounds()
			if !inside(&cb, &box) {
				return fmt.Errorf("bvh: node %d: child %d's box %v not inside %v", i, ch, cb, box)
			}
		}
	}
	for j, s := range seen {
		if !s {
			return fmt.Errorf("bvh: entry %d in no leaf", j)
		}
	}
	return nil
}
