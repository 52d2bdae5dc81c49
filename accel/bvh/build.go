package bvh

// The builder: top-down binned SAH over primitive boxes.
//
// Worked example, four boxes along x with centroids 0, 1, 8, 9 and 8 bins:
// the centroid extent 0..9 maps the centroids to bins 0, 0, 7, 7; the sweep
// over the 7 possible cuts finds that cutting after bin 0 (or anywhere up to
// bin 6) gives two children of area 1·2 + 1·2 instead of the parent's 9·4, so
// the node splits {0,1} | {8,9} and each side recurses with the child boxes
// the bins already summed. A node becomes a leaf when it holds at most
// LeafSize boxes and the heuristic says a split does not pay; when no cut
// separates anything (all centroids in one bin) or the path grows deep, the
// node is halved in its current order, which bounds the depth by StackSize.

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// ref is one primitive's box and id while the builder partitions them.
type ref struct {
	min [3]float32
	id  uint32
	max [3]float32
	_   uint32
}

func (r *ref) centroid(k int) float32 { return r.min[k]*0.5 + r.max[k]*0.5 }

// bin is one bin's box, each corner padded to four floats: the layout the
// amd64 kernels load and store whole (the pads hold nothing of use).
type bin struct {
	min [3]float32
	_   float32
	max [3]float32
	_   float32
}

// binSet is the bins of the three axes and their counts.
type binSet struct {
	box [3][64]bin
	n   [3][64]uint32
}

// scratch is a builder's reusable binning space.
type scratch struct {
	bins  binSet
	long  binSet // binLong's second set
	sweep sweepScratch
}

type builder struct {
	scratch  *scratch
	refs     []ref
	opt      Options
	nodes    []Node
	leafSize int
	bins     int
	parDepth int
	procs    int
}

const (
	// maxSAHDepth is the depth past which nodes are halved rather than cut
	// by the heuristic: halving adds at most log2(maxPrims) levels more.
	maxSAHDepth = 32
	// maxPrims bounds the primitives of one hierarchy so that depth stays
	// under StackSize (maxSAHDepth + 28 < 64).
	maxPrims = 1 << 28
	// parallelMin is the fewest primitives a subtree needs for its right
	// half to be built on a goroutine of its own.
	parallelMin = 1 << 14
	// parallelBinMin is the fewest primitives a node needs to be binned by
	// GOMAXPROCS goroutines.
	parallelBinMin = 1 << 16
	// costTraverse is the cost of visiting a node in units of one
	// primitive test.
	costTraverse = 1.0
)

func newBuilder(refs []ref, opt Options) *builder {
	b := &builder{refs: refs, opt: opt, leafSize: opt.LeafSize, bins: opt.Bins}
	if b.leafSize <= 0 {
		b.leafSize = 4
	}
	if MaxLeafSize < b.leafSize {
		b.leafSize = MaxLeafSize
	}
	if b.bins <= 0 {
		b.bins = 16
	}
	b.bins = max(4, min(b.bins, 64))
	b.procs = runtime.GOMAXPROCS(0)
	if b.procs > 1 {
		b.parDepth = bits.Len(uint(b.procs-1)) + 2
	}
	return b
}

// build returns the nodes of a hierarchy over refs and the refs in leaf
// order (refs itself, reordered, or a new slice). No refs give no nodes.
func (b *builder) build() ([]Node, []ref) {
	if len(b.refs) == 0 {
		return nil, b.refs
	}
	if b.opt.FastBuild {
		return buildMorton(b.refs, b.opt)
	}
	box, cbox := b.rootBounds()
	b.nodes = make([]Node, 1, nodeCap(len(b.refs), b.leafSize))
	b.split(0, 0, len(b.refs), 0, box, cbox)
	return b.nodes, b.refs
}

// nodeCap is the nodes to allocate for a hierarchy over n refs: leaves of
// about half the leaf size and a quarter more (the heuristic cuts many
// leaves smaller), at most the 2n-1 of leaves of one.
func nodeCap(n, leafSize int) int {
	e := 2 * n / max(1, leafSize/2)
	return min(2*n-1, e+e/4+1)
}

// rootBounds is bounds over all refs, by GOMAXPROCS goroutines for many.
func (b *builder) rootBounds() (box, cbox AABB) {
	n := len(b.refs)
	if b.procs == 1 || n < parallelBinMin {
		return b.bounds(0, n)
	}
	parts := make([][2]AABB, b.procs)
	var wg sync.WaitGroup
	for w := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w][0], parts[w][1] = b.bounds(n*w/b.procs, n*(w+1)/b.procs)
		}()
	}
	wg.Wait()
	box, cbox = emptyBox(), emptyBox()
	for w := range parts {
		box.union(&parts[w][0])
		cbox.union(&parts[w][1])
	}
	return box, cbox
}

// bounds returns the union of refs[lo:hi]'s boxes and of their centroids.
func (b *builder) bounds(lo, hi int) (box, cbox AABB) {
	box, cbox = emptyBox(), emptyBox()
	for i := lo; i < hi; i++ {
		r := &b.refs[i]
		for k := 0; k < 3; k++ {
			if r.min[k] < box.Min[k] {
				box.Min[k] = r.min[k]
			}
			if r.max[k] > box.Max[k] {
				box.Max[k] = r.max[k]
			}
			c := r.centroid(k)
			if c < cbox.Min[k] {
				cbox.Min[k] = c
			}
			if c > cbox.Max[k] {
				cbox.Max[k] = c
			}
		}
	}
	return box, cbox
}

func (b *builder) leaf(ni, lo, hi int) {
	b.nodes[ni].LeftFirst = uint32(lo)
	b.nodes[ni].Count = uint32(hi - lo)
}

// split makes nodes[ni] (whose box is already set) a leaf or an interior
// node over refs[lo:hi], recursively.
func (b *builder) split(ni, lo, hi, depth int, box, cbox AABB) {
	n := hi - lo
	b.nodes[ni].Min, b.nodes[ni].Max = box.Min, box.Max
	if n == 1 {
		b.leaf(ni, lo, hi)
		return
	}
	mid := -1
	var lbox, rbox, lcbox, rcbox AABB
	if depth < maxSAHDepth && n == 2 {
		if cost, swap, ok := b.cutPair(lo, cbox); ok {
			if n <= b.leafSize && !(costTraverse+cost/box.halfArea() < 2) {
				b.leaf(ni, lo, hi)
				return
			}
			mid = lo + 1
			l, r := &b.refs[lo], &b.refs[lo+1]
			if swap {
				*l, *r = *r, *l
			}
			lbox, rbox = AABB{l.min, l.max}, AABB{r.min, r.max}
			lcbox, rcbox = pointBox(l), pointBox(r)
		}
	} else if depth < maxSAHDepth {
		axis, cut, cost, lb, rb := b.bestCut(lo, hi, cbox)
		if axis >= 0 {
			leafCost := float64(n)
			splitCost := costTraverse + cost/box.halfArea()
			if n <= b.leafSize && !(splitCost < leafCost) {
				b.leaf(ni, lo, hi)
				return
			}
			mid, lcbox, rcbox = b.partition(lo, hi, axis, cut, cbox)
			lbox, rbox = lb, rb
		}
	}
	if mid < 0 {
		if n <= b.leafSize {
			b.leaf(ni, lo, hi)
			return
		}
		mid = lo + n/2
		lbox, lcbox = b.bounds(lo, mid)
		rbox, rcbox = b.bounds(mid, hi)
	}
	c := len(b.nodes)
	b.nodes = append(b.nodes, Node{}, Node{})
	b.nodes[ni].LeftFirst = uint32(c)
	b.nodes[ni].Count = 0
	if depth < b.parDepth && n >= parallelMin {
		sub := &builder{refs: b.refs, opt: b.opt, leafSize: b.leafSize, bins: b.bins, parDepth: b.parDepth, procs: b.procs}
		sub.nodes = make([]Node, 1, nodeCap(hi-mid, b.leafSize))
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub.split(0, mid, hi, depth+1, rbox, rcbox)
		}()
		b.split(c, lo, mid, depth+1, lbox, lcbox)
		wg.Wait()
		b.nodes = appendSubtree(b.nodes, c+1, sub.nodes)
		return
	}
	b.split(c, lo, mid, depth+1, lbox, lcbox)
	b.split(c+1, mid, hi, depth+1, rbox, rcbox)
}

// binOf maps a centroid coordinate to its bin; partition and bestCut must
// agree on it exactly. The coordinate lies in the node's centroid box, so
// (c - cmin)·scale is finite and at most about nbins: truncating it and
// clamping the integer to [0, nbins-1] is the bin (branch-free; a negative
// rounding error lands in bin 0, one past the top in the last bin).
func binOf(c, cmin, scale float32, nbins int) int {
	return max(0, min(int((c-cmin)*scale), nbins-1))
}

func binScale(cbox *AABB, k, nbins int) float32 {
	ext := cbox.Max[k] - cbox.Min[k]
	if !(ext > 0) || math.IsInf(float64(ext), 0) {
		return 0
	}
	s := float32(nbins) / ext
	if math.IsInf(float64(s), 0) {
		return 0
	}
	return s
}

// nbins is the bins a node of n primitives is cut with: small nodes need
// few, about one cut between each pair of centroids.
func (b *builder) nbins(n int) int { return max(4, min(b.bins, n)) }

// longMin is the fewest primitives a node needs to be binned by binLong;
// from twoSetsMin on it bins into two sets of bins, even and odd
// primitives apart, merged after: neighbouring primitives tend to fall in
// the same bin, and one set makes each update wait for the previous one.
const (
	longMin    = 4
	twoSetsMin = 16
)

// bestCut bins refs[lo:hi] and returns the cheapest cut (axis, the last bin
// on the left, its SAH cost and the child boxes), or axis -1 when no cut
// separates anything.
func (b *builder) bestCut(lo, hi int, cbox AABB) (axis, cut int, cost float64, lbox, rbox AABB) {
	axis = -1
	cost = math.Inf(1)
	nb := b.nbins(hi - lo)
	var scale [3]float32
	live := false
	for k := 0; k < 3; k++ {
		scale[k] = binScale(&cbox, k, nb)
		if scale[k] != 0 {
			live = true
		}
	}
	if !live {
		return
	}
	if b.scratch == nil {
		b.scratch = new(scratch)
	}
	bins := &b.scratch.bins
	if b.procs > 1 && hi-lo >= parallelBinMin {
		binParallel(b.refs[lo:hi], b.procs, bins, scale, cbox.Min, nb)
	} else {
		binRefs(b.refs[lo:hi], bins, &b.scratch.long, &scale, &cbox.Min, nb)
	}
	for k := 0; k < 3; k++ {
		if scale[k] == 0 {
			continue
		}
		// The first cheapest cut of each axis; a later axis takes over only
		// when strictly cheaper: the first cheapest cut of all.
		c, i, lb, rb := sweepAxis(&bins.box[k], &bins.n[k], nb, &b.scratch.sweep)
		if i >= 0 && c < cost {
			axis, cut, cost, lbox, rbox = k, i, c, lb, rb
		}
	}
	return
}

// sweepGo returns the first cheapest cut of one axis's first nb bins: its
// SAH cost (area times count of each side), the last bin on its left and
// the two boxes; cut -1 where no cut has refs on both sides.
func sweepGo(bs *[64]bin, ns *[64]uint32, nb int, sw *sweepScratch) (cost float64, cut int, lbox, rbox AABB) {
	cost, cut = math.Inf(1), -1
	rightArea, rightBox, rightN := &sw.area, &sw.box, &sw.n
	// Empty bins change neither sweep: the right one copies the previous
	// bin's sums, the left one skips the cut, which costs as much as the
	// one before it (taken first: ties go to the lower cut). The running
	// box is kept in scalars and stored field by field: a box built in
	// memory by single-float writes and copied whole stalls on every copy.
	const m = math.MaxFloat32
	x0, y0, z0, x1, y1, z1 := float32(m), float32(m), float32(m), float32(-m), float32(-m), float32(-m)
	cnt, area := 0, 0.0
	for i := nb - 1; i > 0; i-- {
		if ns[i] != 0 {
			bi := &bs[i]
			x0, y0, z0 = min(x0, bi.min[0]), min(y0, bi.min[1]), min(z0, bi.min[2])
			x1, y1, z1 = max(x1, bi.max[0]), max(y1, bi.max[1]), max(z1, bi.max[2])
			cnt += int(ns[i])
			area = halfArea6(x0, y0, z0, x1, y1, z1)
		}
		rb := &rightBox[i]
		rb.min[0], rb.min[1], rb.min[2], rb.max[0], rb.max[1], rb.max[2] = x0, y0, z0, x1, y1, z1
		rightArea[i], rightN[i] = area, int64(cnt)
	}
	x0, y0, z0, x1, y1, z1 = m, m, m, -m, -m, -m
	cnt = 0
	for i := 0; i < nb-1; i++ {
		if ns[i] == 0 {
			continue
		}
		bi := &bs[i]
		x0, y0, z0 = min(x0, bi.min[0]), min(y0, bi.min[1]), min(z0, bi.min[2])
		x1, y1, z1 = max(x1, bi.max[0]), max(y1, bi.max[1]), max(z1, bi.max[2])
		cnt += int(ns[i])
		if rightN[i+1] == 0 {
			continue
		}
		c := halfArea6(x0, y0, z0, x1, y1, z1)*float64(cnt) + rightArea[i+1]*float64(rightN[i+1])
		if c < cost {
			cost, cut = c, i
			lbox = AABB{[3]float32{x0, y0, z0}, [3]float32{x1, y1, z1}}
		}
	}
	if cut >= 0 {
		r := &rightBox[cut+1]
		rbox = AABB{r.min, r.max}
	}
	return
}

// sweepScratch is a sweep's sums of the bins right of each cut: area,
// count and box.
type sweepScratch struct {
	area [64]float64
	n    [64]int64
	box  [64]bin
}

// halfArea6 is AABB.halfArea of the box (x0, y0, z0)-(x1, y1, z1).
func halfArea6(x0, y0, z0, x1, y1, z1 float32) float64 {
	dx := float64(x1) - float64(x0)
	dy := float64(y1) - float64(y0)
	dz := float64(z1) - float64(z0)
	if dx < 0 || dy < 0 || dz < 0 {
		return 0
	}
	return dx*dy + dy*dz + dz*dx
}

// cutPair is bestCut and partition for refs[lo:lo+2]: with their 4 bins,
// the two centroids fall in the first and the last bin of every axis on
// which they differ, so every live axis gives the same cut, the first one
// is taken, and the ref in its bin 0 goes left. It returns the cut's cost
// and whether the pair is to be swapped, or false where no axis is live.
func (b *builder) cutPair(lo int, cbox AABB) (cost float64, swap, ok bool) {
	for k := 0; k < 3; k++ {
		s := binScale(&cbox, k, 4)
		if s == 0 {
			continue
		}
		l, r := &b.refs[lo], &b.refs[lo+1]
		lb, rb := AABB{l.min, l.max}, AABB{r.min, r.max}
		return lb.halfArea() + rb.halfArea(), binOf(l.centroid(k), cbox.Min[k], s, 4) != 0, true
	}
	return 0, false, false
}

// pointBox is the box of r's centroid alone.
func pointBox(r *ref) AABB {
	c := [3]float32{r.centroid(0), r.centroid(1), r.centroid(2)}
	return AABB{c, c}
}

// binParallel is binRefs by p goroutines over parts of refs, merged into
// bins. It is apart from bestCut so that only large nodes put its arguments
// on the heap.
func binParallel(refs []ref, p int, bins *binSet, scale [3]float32, cmin [3]float32, nb int) {
	n := len(refs)
	parts := make([]scratch, p)
	var wg sync.WaitGroup
	for w := 1; w < p; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			binRefs(refs[n*w/p:n*(w+1)/p], &parts[w].bins, &parts[w].long, &scale, &cmin, nb)
		}()
	}
	binRefs(refs[:n/p], bins, &parts[0].long, &scale, &cmin, nb)
	wg.Wait()
	for w := 1; w < p; w++ {
		mergeBins(bins, &parts[w].bins, nb)
	}
}

// mergeBins adds src's first nb bins of each axis to dst's.
func mergeBins(dst, src *binSet, nb int) {
	for k := 0; k < 3; k++ {
		for i := 0; i < nb; i++ {
			dst.n[k][i] += src.n[k][i]
			d, s := &dst.box[k][i], &src.box[k][i]
			minInto(&d.min, &s.min)
			maxInto(&d.max, &s.max)
		}
	}
}

// binRefs sets the first nb bins of each axis to the counts and boxes of
// refs (an axis of scale 0 puts every ref in its bin 0; the sweep skips
// it), with binLong for long runs.
func binRefs(refs []ref, bins, ls *binSet, scale *[3]float32, cmin *[3]float32, nb int) {
	if len(refs) >= longMin {
		binLong(refs, bins, scale, cmin, nb, ls)
		return
	}
	bins.clear(nb)
	binInto(refs, bins, scale, cmin, nb)
}

// clear empties the first nb bins of each axis.
func (s *binSet) clear(nb int) {
	for k := 0; k < 3; k++ {
		copy(s.box[k][:nb], emptyBins[:nb])
		clear(s.n[k][:nb])
	}
}

var emptyBins = func() (e [64]bin) {
	for i := range e {
		b := emptyBox()
		e[i].min, e[i].max = b.Min, b.Max
	}
	return e
}()

// binInto adds each ref to its bin on the three axes.
func binInto(refs []ref, bins *binSet, scale *[3]float32, cmin *[3]float32, nb int) {
	s, m := *scale, *cmin
	for i := range refs {
		r := &refs[i]
		for k := 0; k < 3; k++ {
			i := binOf(r.centroid(k), m[k], s[k], nb) & 63
			bins.n[k][i]++
			bn := &bins.box[k][i]
			minInto(&bn.min, &r.min)
			maxInto(&bn.max, &r.max)
		}
	}
}

// binInto2 is binInto with even refs going to b0 and odd ones to b1.
func binInto2(refs []ref, b0, b1 *binSet, scale *[3]float32, cmin *[3]float32, nb int) {
	s, m := *scale, *cmin
	i := 0
	for ; i+1 < len(refs); i += 2 {
		r, q := &refs[i], &refs[i+1]
		for k := 0; k < 3; k++ {
			i := binOf(r.centroid(k), m[k], s[k], nb) & 63
			j := binOf(q.centroid(k), m[k], s[k], nb) & 63
			b0.n[k][i]++
			b1.n[k][j]++
			bn, bq := &b0.box[k][i], &b1.box[k][j]
			minInto(&bn.min, &r.min)
			minInto(&bq.min, &q.min)
			maxInto(&bn.max, &r.max)
			maxInto(&bq.max, &q.max)
		}
	}
	if i < len(refs) {
		binInto(refs[i:], b0, scale, cmin, nb)
	}
}

func minInto(d, s *[3]float32) {
	d[0], d[1], d[2] = min(d[0], s[0]), min(d[1], s[1]), min(d[2], s[2])
}

func maxInto(d, s *[3]float32) {
	d[0], d[1], d[2] = max(d[0], s[0]), max(d[1], s[1]), max(d[2], s[2])
}

// partition moves refs[lo:hi] whose centroid falls in a bin ≤ cut on axis to
// the front and returns the first index of the rest, with each side's
// centroid box. Each ref is classified once, where it lands, and its
// centroid grows the box of that side then.
func (b *builder) partition(lo, hi, axis, cut int, cbox AABB) (mid int, lcbox, rcbox AABB) {
	nb := b.nbins(hi - lo)
	scale := binScale(&cbox, axis, nb)
	m, lcbox, rcbox := partLong(b.refs[lo:hi], axis, cut, cbox.Min[axis], scale, nb)
	return lo + m, lcbox, rcbox
}

// partitionGo is partition over refs, in Go: bin ≤ cut on axis goes to the
// front. It returns the count of those and the two centroid boxes.
func partitionGo(refs []ref, axis, cut int, cmin, scale float32, nb int) (mid int, lcbox, rcbox AABB) {
	lcbox, rcbox = emptyBox(), emptyBox()
	i, j := 0, len(refs)-1
	for i <= j {
		r := &refs[i]
		c := [3]float32{r.centroid(0), r.centroid(1), r.centroid(2)}
		if binOf(c[axis], cmin, scale, nb) <= cut {
			growCentroid(&lcbox, c)
			i++
		} else {
			growCentroid(&rcbox, c)
			refs[i], refs[j] = refs[j], refs[i]
			j--
		}
	}
	return i, lcbox, rcbox
}

func growCentroid(b *AABB, c [3]float32) {
	b.Min[0], b.Max[0] = min(b.Min[0], c[0]), max(b.Max[0], c[0])
	b.Min[1], b.Max[1] = min(b.Min[1], c[1]), max(b.Max[1], c[1])
	b.Min[2], b.Max[2] = min(b.Min[2], c[2]), max(b.Max[2], c[2])
}

// appendSubtree puts sub (a subtree built with its root at index 0) into
// nodes: the root at slot, the rest appended, child indices moved.
func appendSubtree(nodes []Node, slot int, sub []Node) []Node {
	base := len(nodes)
	fix := func(nd Node) Node {
		if nd.Count == 0 {
			nd.LeftFirst = nd.LeftFirst - 1 + uint32(base)
		}
		return nd
	}
	nodes[slot] = fix(sub[0])
	nodes = slices.Grow(nodes, len(sub)-1)[:base+len(sub)-1]
	// By GOMAXPROCS goroutines: the first large subtree is half the tree.
	parallelFor(len(sub)-1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			nodes[base+i] = fix(sub[1+i])
		}
	})
	return nodes
}
