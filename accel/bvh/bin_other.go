//go:build !amd64

package bvh

// binLong is binRefs for long runs: from twoSetsMin refs on, even refs
// binned into bins, odd ones into b1, merged.
func binLong(refs []ref, bins *binSet, scale *[3]float32, cmin *[3]float32, nb int, b1 *binSet) {
	bins.clear(nb)
	if len(refs) < twoSetsMin {
		binInto(refs, bins, scale, cmin, nb)
		return
	}
	b1.clear(nb)
	binInto2(refs, bins, b1, scale, cmin, nb)
	mergeBins(bins, b1, nb)
}

// partLong is partitionGo.
func partLong(refs []ref, axis, cut int, cmin, scale float32, nb int) (int, AABB, AABB) {
	return partitionGo(refs, axis, cut, cmin, scale, nb)
}

// sweepAxis is sweepGo.
func sweepAxis(bs *[64]bin, ns *[64]uint32, nb int, sw *sweepScratch) (float64, int, AABB, AABB) {
	return sweepGo(bs, ns, nb, sw)
}
