package bvh

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// ordOf orders every float that is not NaN as < does (−0 just below +0),
// and floatOf undoes it bit for bit.
func TestOrdOfOrdersFloats(t *testing.T) {
	inf := float32(math.Inf(1))
	fs := []float32{-inf, -math.MaxFloat32, -1, -math.SmallestNonzeroFloat32, float32(math.Copysign(0, -1)), 0,
		math.SmallestNonzeroFloat32, 1, math.MaxFloat32, inf}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		f := math.Float32frombits(rng.Uint32())
		if f == f {
			fs = append(fs, f)
		}
	}
	for _, a := range fs {
		require.Equal(t, math.Float32bits(a), math.Float32bits(floatOf(ordOf(a))), "%v", a)
		for _, b := range fs[:10] {
			if a < b {
				require.Less(t, ordOf(a), ordOf(b), "%v < %v", a, b)
			}
		}
	}
	require.Less(t, ordOf(float32(math.Copysign(0, -1))), ordOf(0))
}

// lastClear finds the last key without the bit, as a linear scan does, for
// every length and split point up to 70 keys.
func TestLastClear(t *testing.T) {
	for n := 2; n <= 70; n++ {
		for split := 1; split < n; split++ {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = uint64(i) // a low index part
				if i >= split {
					keys[i] |= 1 << 40
				}
			}
			require.Equal(t, split-1, lastClear(keys, 40), "%d keys split at %d", n, split)
		}
	}
}

// Every node of a fast build is the tight box of what it holds, exactly:
// the builder's boxes go through integer images of the floats and back.
func TestFastBuildBoxesTight(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 5, 300, 40000} {
		tris := make([]Triangle, n)
		for i := range tris {
			c := [3]float32{20*rng.Float32() - 10, 20*rng.Float32() - 10, 20*rng.Float32() - 10}
			v := func() [3]float32 {
				return [3]float32{c[0] + rng.Float32() - 0.5, c[1] + rng.Float32() - 0.5, c[2] + rng.Float32() - 0.5}
			}
			tris[i] = Triangle{v(), v(), v()}
		}
		for _, leaf := range []int{0, 1, 7} {
			m, err := BuildTriangles(tris, Options{FastBuild: true, LeafSize: leaf})
			require.NoError(t, err)
			require.NoError(t, m.Validate())
			var tight func(i int) AABB
			tight = func(i int) AABB {
				nd := &m.Nodes[i]
				b := emptyBox()
				if nd.Leaf() {
					for _, tr := range m.Tris[nd.LeftFirst : nd.LeftFirst+nd.Count] {
						tb := tr.bounds()
						b.union(&tb)
					}
				} else {
					l, r := tight(int(nd.LeftFirst)), tight(int(nd.LeftFirst)+1)
					b.union(&l)
					b.union(&r)
				}
				require.Equal(t, b, nd.Bounds(), "node %d of %d (%d triangles, leaf size %d)", i, len(m.Nodes), n, leaf)
				return b
			}
			tight(0)
		}
	}
}

// The slab test's branch-free path (every reciprocal finite) gives exactly
// the entry distance and verdict of the compares that skip NaN distances,
// on random boxes and rays, some boxes touching or containing the origin.
func TestBoxBranchFreeMatchesCompares(t *testing.T) {
	same := func(r Ray, lo, hi [3]float32, tmax float32) {
		p, ok := prepare(r)
		require.True(t, ok)
		require.True(t, p.finite)
		tn, in := p.box(&lo, &hi, tmax)
		q := p
		q.finite = false
		tn2, in2 := q.box(&lo, &hi, tmax)
		require.Equal(t, in2, in, "ray %+v box %v..%v", r, lo, hi)
		if in {
			require.Equal(t, tn2, tn, "ray %+v box %v..%v", r, lo, hi)
		}
	}
	// Distances that overflow: a far distance of −∞ widens to NaN.
	const m = math.MaxFloat32
	same(Ray{Origin: [3]float32{m, 0, 0}, Dir: [3]float32{1, 1, 1}, TMax: 1},
		[3]float32{-m, -1, -1}, [3]float32{-m, 1, 1}, 1)
	same(Ray{Origin: [3]float32{-m, 0, 0}, Dir: [3]float32{1, 1, 1}, TMax: float32(math.Inf(1))},
		[3]float32{m, -1, -1}, [3]float32{m, 1, 1}, float32(math.Inf(1)))
	rng := rand.New(rand.NewPCG(9, 10))
	f := func() float32 { return 4*rng.Float32() - 2 }
	for i := 0; i < 200000; i++ {
		r := Ray{Origin: [3]float32{f(), f(), f()}, Dir: [3]float32{f(), f(), f()}, TMin: 0, TMax: 10 * rng.Float32()}
		if i%5 == 0 {
			r.TMin = r.TMax * rng.Float32()
		}
		lo := [3]float32{f(), f(), f()}
		hi := lo
		for k := range hi {
			hi[k] += 2 * rng.Float32()
			if i%7 == 0 {
				lo[k] = min(lo[k], r.Origin[k])
				if i%14 == 0 {
					lo[k] = r.Origin[k] // the origin on a face
				}
			}
		}
		same(r, lo, hi, widen(r.TMax))
	}
}
