package bvh

import "testing"

// sahCost is the surface area heuristic's cost of a hierarchy: the expected
// node visits (costTraverse each) and primitive tests of a ray through the
// root box, each node weighted by its area over the root's.
func sahCost(nodes []Node) float64 {
	if len(nodes) == 0 {
		return 0
	}
	root := nodes[0].Bounds()
	ra := root.halfArea()
	c := 0.0
	for i := range nodes {
		b := nodes[i].Bounds()
		a := b.halfArea() / ra
		if nodes[i].Leaf() {
			c += a * float64(nodes[i].Count)
		} else {
			c += a * costTraverse
		}
	}
	return c
}

func TestTreeStats(t *testing.T) {
	tris := terrain(724)
	m, err := BuildTriangles(tris, Options{})
	if err != nil {
		t.Fatal(err)
	}
	leaves, sum := 0, 0
	hist := map[uint32]int{}
	for _, n := range m.Nodes {
		if n.Leaf() {
			leaves++
			sum += int(n.Count)
			hist[n.Count]++
		}
	}
	t.Logf("nodes %d leaves %d avg %.2f hist %v sah %.4f", len(m.Nodes), leaves, float64(sum)/float64(leaves), hist, sahCost(m.Nodes))
}
