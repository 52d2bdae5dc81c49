package bvh

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomRefs is n refs with boxes on a coarse grid, so that centroids tie
// and fall on bin edges, over an extent that may be flat on some axes.
func randomRefs(rng *rand.Rand, n int, flat [3]bool) []ref {
	refs := make([]ref, n)
	for i := range refs {
		for k := 0; k < 3; k++ {
			if flat[k] {
				refs[i].min[k], refs[i].max[k] = 1.5, 1.5
				continue
			}
			a := float32(rng.IntN(64))/8 - 4
			refs[i].min[k], refs[i].max[k] = a, a+float32(rng.IntN(8))/4
		}
		refs[i].id = uint32(i)
	}
	return refs
}

func centroidBox(refs []ref) AABB {
	b := emptyBox()
	for i := range refs {
		b.grow([3]float32{refs[i].centroid(0), refs[i].centroid(1), refs[i].centroid(2)})
	}
	return b
}

// binBoxes is the boxes of the first nb bins of axis k, without the pads.
func binBoxes(s *binSet, k, nb int) []AABB {
	out := make([]AABB, nb)
	for i := range out {
		out[i] = AABB{s.box[k][i].min, s.box[k][i].max}
	}
	return out
}

// The long-run binning, the sweep and the partition (assembly on amd64)
// give the bins, cuts, costs, order and boxes of the plain loops, on every
// bin count.
func TestLongKernelsMatchPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 4, 5, 31, 64, 65, 1000} {
		for _, flat := range [][3]bool{{}, {false, true, false}, {true, true, false}} {
			for _, nb := range []int{4, 7, 16, 64} {
				refs := randomRefs(rng, n, flat)
				cbox := centroidBox(refs)
				var scale [3]float32
				for k := range scale {
					scale[k] = binScale(&cbox, k, nb)
				}
				var want, got, two binSet
				want.clear(nb)
				binInto(refs, &want, &scale, &cbox.Min, nb)
				binLong(refs, &got, &scale, &cbox.Min, nb, new(binSet))
				b1 := new(binSet)
				two.clear(nb)
				b1.clear(nb)
				binInto2(refs, &two, b1, &scale, &cbox.Min, nb)
				mergeBins(&two, b1, nb)
				for k := 0; k < 3; k++ {
					if scale[k] != 0 {
						w := binBoxes(&want, k, nb)
						require.Equal(t, w, binBoxes(&got, k, nb), "n %d nb %d axis %d", n, nb, k)
						require.Equal(t, want.n[k][:nb], got.n[k][:nb], "n %d nb %d axis %d", n, nb, k)
						require.Equal(t, w, binBoxes(&two, k, nb), "two sets: n %d nb %d axis %d", n, nb, k)
						require.Equal(t, want.n[k][:nb], two.n[k][:nb], "two sets: n %d nb %d axis %d", n, nb, k)
						cw, iw, lw, rw := sweepGo(&want.box[k], &want.n[k], nb, new(sweepScratch))
						cg, ig, lg, rg := sweepAxis(&want.box[k], &want.n[k], nb, new(sweepScratch))
						require.Equal(t, iw, ig, "sweep: n %d nb %d axis %d", n, nb, k)
						require.Equal(t, cw, cg, "sweep: n %d nb %d axis %d", n, nb, k)
						if iw >= 0 {
							require.Equal(t, lw, lg)
							require.Equal(t, rw, rg)
						}
					}
				}
				for axis := 0; axis < 3; axis++ {
					if scale[axis] == 0 {
						continue
					}
					for cut := 0; cut < nb-1; cut++ {
						a, b := slices.Clone(refs), slices.Clone(refs)
						mw, lw, rw := partitionGo(a, axis, cut, cbox.Min[axis], scale[axis], nb)
						mg, lg, rg := partLong(b, axis, cut, cbox.Min[axis], scale[axis], nb)
						require.Equal(t, mw, mg, "n %d nb %d axis %d cut %d", n, nb, axis, cut)
						require.Equal(t, a, b, "order: n %d nb %d axis %d cut %d", n, nb, axis, cut)
						if mw > 0 {
							require.Equal(t, lw, lg)
						}
						if mw < n {
							require.Equal(t, rw, rg)
						}
						for i := range a {
							left := binOf(a[i].centroid(axis), cbox.Min[axis], scale[axis], nb) <= cut
							require.Equal(t, i < mw, left)
						}
					}
				}
			}
		}
	}
}
