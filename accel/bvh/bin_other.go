//go:build !amd64

package bvh

// longScratch is binLong's second set of bins.
type longScratch [3][64]bin

// binLong is binRefs for long runs: even refs binned into bins, odd ones
// into ls, merged.
func binLong(refs []ref, bins *[3][64]bin, scale *[3]float32, cmin *[3]float32, nb int, ls *longScratch) {
	b1 := (*[3][64]bin)(ls)
	for k := 0; k < 3; k++ {
		copy(bins[k][:nb], emptyBins[:nb])
		copy(b1[k][:nb], emptyBins[:nb])
	}
	binInto2(refs, bins, b1, scale, cmin, nb)
	mergeBins(bins, b1, nb)
}

// partLong is partitionGo.
func partLong(refs []ref, axis, cut int, cmin, scale float32, nb int) (int, AABB, AABB) {
	return partitionGo(refs, axis, cut, cmin, scale, nb)
}
