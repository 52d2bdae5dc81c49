package bvh

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// walkLeaves is the leaves walk visits from the root, in order, the cull
// distance lowered after each leaf to the next of culls (as commits lower
// it), and the depth of the stack after each step.
func walkLeaves(nodes []Node, p *ray, cull float32, culls []float32, step func(w *walker, ni int) int) []int {
	var stack [StackSize]stackEntry
	w := newWalker(nodes, &stack, p, cull)
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

// awkward draws the values the walk tests feed both walks: coordinates,
// direction components that are zero, signed zero, tiny or huge, boxes
// with faces through the ray's origin, flat or huge, ray spans and cull
// distances at their limits.
type awkward struct{ rng *rand.Rand }

func (a awkward) f() float32 { return 4*a.rng.Float32() - 2 }

func (a awkward) comp() float32 {
	switch a.rng.IntN(12) {
	case 0:
		return 0
	case 1:
		return float32(math.Copysign(1e-37, float64(a.f()))) // a huge reciprocal
	case 2:
		return float32(math.Copysign(3e38, float64(a.f())))
	case 3:
		return float32(math.Copysign(0, -1))
	}
	return a.f()
}

func (a awkward) box(o [3]float32) ([3]float32, [3]float32) {
	var lo, hi [3]float32
	for k := range lo {
		lo[k] = a.f()
		hi[k] = lo[k] + 2*a.rng.Float32()
		switch a.rng.IntN(10) {
		case 0:
			lo[k] = o[k] // a face through the origin
		case 1:
			hi[k] = o[k]
			lo[k] = min(lo[k], hi[k])
		case 2:
			lo[k], hi[k] = o[k], o[k] // flat, through the origin
		case 3:
			lo[k], hi[k] = -3e38, 3e38
		case 4:
			hi[k] = lo[k] // flat
		}
	}
	return lo, hi
}

// span moves r's TMin or TMax to a limit now and then.
func (a awkward) span(r *Ray) {
	switch a.rng.IntN(6) {
	case 0:
		r.TMin = r.TMax * a.rng.Float32()
	case 1:
		r.TMax = inf32
	case 2:
		r.TMin = 0x1p-149 // the least TMin above zero
	case 3:
		r.TMin = r.TMax
	}
}

// culls is a cull distance for r, sometimes NaN or infinite, and the four
// it is lowered to after each leaf.
func (a awkward) culls(r *Ray) (float32, []float32) {
	cull := widen(r.TMax)
	switch a.rng.IntN(20) {
	case 0:
		cull = float32(math.NaN())
	case 1:
		cull = inf32
	case 2:
		cull = -inf32
	case 3:
		cull = r.TMin
	}
	culls := make([]float32, 4)
	for k := range culls {
		culls[k] = cull * a.rng.Float32()
		if a.rng.IntN(3) == 0 {
			culls[k] = inf32
		}
	}
	return cull, culls
}

// walk (walkSSE on amd64 for rays with finite reciprocals) visits the same
// leaves in the same order as walkGo, with the slab test of box, on random
// hierarchies and rays and on two-leaf trees of awkward boxes: faces
// through the origin (grazing rays), flat boxes, zero, tiny and huge
// direction components, distances that overflow to ±Inf, cull distances of
// ±Inf and NaN, and random LeftFirst words in the leaves.
func TestWalkMatchesWalkGo(t *testing.T) {
	inf := float32(math.Inf(1))
	rng := rand.New(rand.NewPCG(11, 12))
	aw := awkward{rng}
	var meshes []*Mesh
	for _, tris := range [][]Triangle{soup(rng, 2000, 0.05), soup(rng, 300, 0.3), grid(rng, 30, 20)} {
		m, err := BuildTriangles(tris, Options{})
		require.NoError(t, err)
		meshes = append(meshes, m)
	}
	finite, leaves := 0, 0
	for i := 0; i < 200000; i++ {
		var r Ray
		var nodes []Node
		if i%4 == 0 {
			r = randRay(rng)
			if i%8 == 0 {
				r.Dir[rng.IntN(3)] = aw.comp()
			}
			nodes = meshes[rng.IntN(len(meshes))].Nodes
		} else {
			r = Ray{Origin: [3]float32{aw.f(), aw.f(), aw.f()}, Dir: [3]float32{aw.comp(), aw.comp(), aw.comp()}, TMax: 10 * rng.Float32()}
			nodes = make([]Node, 3)
			nodes[0] = Node{Min: [3]float32{-inf, -inf, -inf}, Max: [3]float32{inf, inf, inf}, LeftFirst: 1}
			for c := 1; c < 3; c++ {
				nodes[c].Min, nodes[c].Max = aw.box(r.Origin)
				nodes[c].LeftFirst, nodes[c].Count = rng.Uint32(), 1+rng.Uint32N(255)
			}
		}
		aw.span(&r)
		var p ray
		if !p.init(&r, true) {
			continue
		}
		cull, culls := aw.culls(&r)
		want := walkLeaves(nodes, &p, cull, culls, func(w *walker, ni int) int { return w.walkGo(nodes, &p, ni) })
		got := walkLeaves(nodes, &p, cull, culls, func(w *walker, ni int) int { return w.walk(nodes, &p, ni) })
		require.Equal(t, want, got, "ray %+v cull %v nodes %+v", r, cull, nodes[:min(3, len(nodes))])
		if p.finite { // the rays the SSE walk takes
			finite++
			leaves += len(want)/2 - 1
		}
	}
	require.Greater(t, finite, 50000, "finite %d", finite)
	require.Greater(t, leaves, 20000, "leaves %d", leaves)
}

// A child index or a stack outside its array is refused, not read.
func TestWalkCorrupt(t *testing.T) {
	r := Ray{Dir: [3]float32{1, 1, 1}, Origin: [3]float32{-5, -5, -5}, TMax: float32(math.Inf(1))}
	var p ray
	require.True(t, p.init(&r, true))
	big := AABB{Min: [3]float32{-1, -1, -1}, Max: [3]float32{1, 1, 1}}
	out := []Node{{Min: big.Min, Max: big.Max, LeftFirst: 1}, {Min: big.Min, Max: big.Max, LeftFirst: 7}, {Min: big.Min, Max: big.Max, LeftFirst: 1, Count: 1}}
	// A cycle: every node's children are nodes 1 and 2, the stack overflows.
	cycle := []Node{{Min: big.Min, Max: big.Max, LeftFirst: 1}, {Min: big.Min, Max: big.Max, LeftFirst: 1}, {Min: big.Min, Max: big.Max, LeftFirst: 1}}
	for _, nodes := range [][]Node{out, cycle} {
		var stack [StackSize]stackEntry
		w := newWalker(nodes, &stack, &p, inf32)
		require.Equal(t, walkCorrupt, walkSSEOrGo(&w, nodes, &p))
		w = newWalker(nodes, &stack, &p, inf32)
		require.Panics(t, func() { w.walk(nodes, &p, 0) })
	}
}

var inf32 = float32(math.Inf(1))
