package bvh

import (
	"math"
	"unsafe"
)

// sseParams is binSSE's constants, each in lanes 0-2 (lane 3 unused).
type sseParams struct {
	scale, cmin, top, half [4]float32
	mask                   [4]uint32
}

//go:noescape
func binSSE(refs *ref, n int, b0, b1 *binSet, p *sseParams)

// binSSE's offsets: a bin is 32 bytes, an axis's bins 2048, the counts
// after the boxes.
var _ = [1]struct{}{}[unsafe.Offsetof(binSet{}.n)-6144+unsafe.Sizeof(bin{})-32]

// binLong is binInto2 for amd64: the three axes of a ref binned with
// 4-wide instructions. The bins it fills are those binInto2 would: the bin
// index is the same truncation of the same float32 arithmetic, clamped
// before instead of after it, which gives the same integer for every
// finite value.
func binLong(refs []ref, bins *binSet, scale *[3]float32, cmin *[3]float32, nb int, b1 *binSet) {
	bins.clear(nb)
	if len(refs) < twoSetsMin {
		b1 = bins
	} else {
		b1.clear(nb)
	}
	top := float32(nb - 1)
	p := sseParams{
		scale: [4]float32{scale[0], scale[1], scale[2], 0},
		cmin:  [4]float32{cmin[0], cmin[1], cmin[2], 0},
		top:   [4]float32{top, top, top, top},
		half:  [4]float32{0.5, 0.5, 0.5, 0.5},
		mask:  [4]uint32{^uint32(0), ^uint32(0), ^uint32(0), 0},
	}
	binSSE(&refs[0], len(refs), bins, b1, &p)
	if b1 != bins {
		mergeBins(bins, b1, nb)
	}
}

const maxF = 3.4028234663852886e+38

// partParams is partSSE's constants and results: the scale and the
// centroid box minimum in the lane of the axis, the threshold cut+1 in
// every lane, the lane mask, and the centroid boxes it returns.
type partParams struct {
	scale, cmin, thr [4]float32
	mask             [4]uint32
	lmin, lmax       [4]float32
	rmin, rmax       [4]float32
}

//go:noescape
func partSSE(refs *ref, n int, axisBit int, p *partParams) int

// partLong is partitionGo with 4-wide instructions, giving the same order
// and boxes: a ref goes left when its bin, the clamped truncation of
// f = (c - cmin)·scale, is at most cut, which for cut < nb-1 is f < cut+1;
// partSSE takes the sign of f - (cut+1), exact for distinct floats.
func partLong(refs []ref, axis, cut int, cmin, scale float32, nb int) (int, AABB, AABB) {
	if len(refs) == 0 {
		return 0, emptyBox(), emptyBox()
	}
	thr := float32(cut + 1)
	p := partParams{
		thr:  [4]float32{thr, thr, thr, thr},
		mask: [4]uint32{^uint32(0), ^uint32(0), ^uint32(0), 0},
		lmin: emptySSE4(maxF), lmax: emptySSE4(-maxF),
		rmin: emptySSE4(maxF), rmax: emptySSE4(-maxF),
	}
	p.scale[axis], p.cmin[axis] = scale, cmin
	m := partSSE(&refs[0], len(refs), 1<<axis, &p)
	l := AABB{[3]float32(p.lmin[:3]), [3]float32(p.lmax[:3])}
	r := AABB{[3]float32(p.rmin[:3]), [3]float32(p.rmax[:3])}
	return m, l, r
}

func emptySSE4(v float32) [4]float32 { return [4]float32{v, v, v, v} }

// sweepOut is sweepSSE's result: the cost (+Inf on entry), the cut (-1 on
// entry) and the left box.
type sweepOut struct {
	cost float64
	cut  int64
	lbox bin
}

//go:noescape
func sweepSSE(bs *[64]bin, ns *[64]uint32, nb int, sw *sweepScratch, out *sweepOut)

// sweepSSE's offsets into sweepScratch.
var _ = [1]struct{}{}[unsafe.Offsetof(sweepScratch{}.n)-512+unsafe.Offsetof(sweepScratch{}.box)-1024]

// sweepAxis is sweepGo with each bin's box merged by one 4-wide min and
// max; the areas and costs are the same float64 operations in the same
// order, so the same cut is chosen.
func sweepAxis(bs *[64]bin, ns *[64]uint32, nb int, sw *sweepScratch) (float64, int, AABB, AABB) {
	out := sweepOut{cost: math.Inf(1), cut: -1}
	sweepSSE(bs, ns, nb, sw, &out)
	if out.cut < 0 {
		return out.cost, -1, AABB{}, AABB{}
	}
	r := &sw.box[out.cut+1]
	return out.cost, int(out.cut), AABB{out.lbox.min, out.lbox.max}, AABB{r.min, r.max}
}
