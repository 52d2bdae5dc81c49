package bvh

import (
	"testing"

	"github.com/stretchr/testify/require"
)

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

// Two unit cubes side by side: the root (half area 2·1 + 1·1 + 1·2 = 5)
// costs one visit, each leaf 3/5 for its one box.
func TestSAHCostByHand(t *testing.T) {
	m, err := BuildAABBs([]AABB{{Max: [3]float32{1, 1, 1}}, {Min: [3]float32{1, 0, 0}, Max: [3]float32{2, 1, 1}}}, Options{LeafSize: 1})
	require.NoError(t, err)
	require.Len(t, m.Nodes, 3)
	require.InDelta(t, 1+0.6+0.6, sahCost(m.Nodes), 1e-12)
}

// The SAH build's tree quality on the terrain is held: a faster build must
// not buy its speed with a costlier tree. 28.7209 is the 80k-triangle
// terrain's cost (35.8916 for the 1M one, docs/PERFORMANCE.md).
func TestSAHCostTerrain(t *testing.T) {
	m, err := BuildTriangles(terrain(200), Options{})
	require.NoError(t, err)
	c := sahCost(m.Nodes)
	t.Logf("SAH cost %.6f, %d nodes", c, len(m.Nodes))
	require.LessOrEqual(t, c, 28.7209)
}
