package bvh

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// children (4-wide on amd64 for rays with finite reciprocals) gives the
// verdicts of box on each child, and the same entry distances where entered
// (equal as floats: a zero may have either sign), on random rays and boxes:
// boxes touching or containing the origin, faces through it (grazing rays),
// zero, tiny and huge direction components, distances that overflow to ±Inf,
// cull distances of ±Inf and NaN, and whatever lies in the nodes' LeftFirst
// and Count words.
func TestChildrenMatchesBox(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	rng := rand.New(rand.NewPCG(11, 12))
	f := func() float32 { return 4*rng.Float32() - 2 }
	comp := func() float32 {
		switch rng.IntN(12) {
		case 0:
			return 0
		case 1:
			return float32(math.Copysign(1e-37, float64(f()))) // a huge reciprocal
		case 2:
			return float32(math.Copysign(3e38, float64(f())))
		case 3:
			return float32(math.Copysign(0, -1))
		}
		return f()
	}
	box := func(o [3]float32) ([3]float32, [3]float32) {
		var lo, hi [3]float32
		for k := range lo {
			lo[k] = f()
			hi[k] = lo[k] + 2*rng.Float32()
			switch rng.IntN(10) {
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
	finite := 0
	for i := 0; i < 300000; i++ {
		r := Ray{Origin: [3]float32{f(), f(), f()}, Dir: [3]float32{comp(), comp(), comp()}, TMax: 10 * rng.Float32()}
		switch rng.IntN(6) {
		case 0:
			r.TMin = -r.TMax
		case 1:
			r.TMax = inf
		case 2:
			r.TMin = float32(math.Inf(-1))
		case 3:
			r.TMin = r.TMax
		}
		p, ok := prepare(r)
		if !ok {
			continue
		}
		var ns [2]Node
		for c := range ns {
			ns[c].Min, ns[c].Max = box(r.Origin)
			ns[c].LeftFirst, ns[c].Count = rng.Uint32(), rng.Uint32()
		}
		tmax := widen(r.TMax)
		switch rng.IntN(20) {
		case 0:
			tmax = nan
		case 1:
			tmax = inf
		case 2:
			tmax = -inf
		case 3:
			tmax = r.TMin
		}
		t0, h0 := p.box(&ns[0].Min, &ns[0].Max, tmax)
		t1, h1 := p.box(&ns[1].Min, &ns[1].Max, tmax)
		want := uint32(0)
		if h0 {
			want |= 1
		}
		if h1 {
			want |= 2
		}
		hits, u0, u1 := p.children(&ns, tmax)
		require.Equal(t, want, hits, "ray %+v nodes %+v cull %v", r, ns, tmax)
		if h0 {
			require.True(t, u0 == t0, "child 0: %v, box %v; ray %+v nodes %+v", u0, t0, r, ns)
		}
		if h1 {
			require.True(t, u1 == t1, "child 1: %v, box %v; ray %+v nodes %+v", u1, t1, r, ns)
		}
		if p.finite {
			finite++
		}
	}
	require.Greater(t, finite, 50000)
}
