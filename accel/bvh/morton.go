package bvh

// The fast builder: a linear BVH. Every primitive's centroid is quantised
// to 10 bits per axis in the centroid box and the bits interleaved into a
// 30-bit Morton code; the codes are radix-sorted, and the tree is cut top
// down where the highest differing bit of a range's first and last code
// changes (a binary search, since the codes are sorted): the split of
// Karras's LBVH, made top down so children stay adjacent and follow their
// parents. Equal codes are halved. Boxes are summed bottom up at the end.
//
// Worked example, codes 0b000, 0b001, 0b100, 0b101: the first and last code
// differ first in bit 2, the first code with bit 2 set is the third, so the
// root splits {000, 001} | {100, 101}; each half then splits on bit 0.

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// parallelFor runs f over [0, n) in GOMAXPROCS contiguous parts.
func parallelFor(n int, f func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p == 1 || n < 1<<14 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		lo, hi := n*w/p, n*(w+1)/p
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// spread3 spaces the low 10 bits of x two zero bits apart.
func spread3(x uint32) uint32 {
	x &= 0x3ff
	x = (x | x<<16) & 0x030000ff
	x = (x | x<<8) & 0x0300f00f
	x = (x | x<<4) & 0x030c30c3
	x = (x | x<<2) & 0x09249249
	return x
}

// spreadTable is spread3 of every 10-bit value.
var spreadTable = func() (t [1024]uint32) {
	for i := range t {
		t[i] = spread3(uint32(i))
	}
	return t
}()

// lbvh is a linear build in flight: keys sorted (code<<32 | input index)
// and the primitives in leaf order, as triangles (tris, gathered before the
// tree is cut) or as refs (gathered from srcRefs by the leaves as they are
// emitted), and the nodes, allocated once at their exact count.
type lbvh struct {
	keys     []uint64
	tris     []Triangle
	srcRefs  []ref
	refs     []ref
	nodes    []Node
	leafSize int
	parDepth int
}

func leafSizeOf(opt Options) int {
	if opt.LeafSize <= 0 {
		return 4
	}
	return min(opt.LeafSize, MaxLeafSize)
}

// quantizer maps a centroid to its 30-bit Morton code in a centroid box.
type quantizer struct {
	min, scale [3]float32
}

func newQuantizer(cbox AABB) *quantizer {
	q := &quantizer{min: cbox.Min}
	for k := 0; k < 3; k++ {
		q.scale[k] = binScale(&cbox, k, 1024)
	}
	return q
}

func (q *quantizer) code(c [3]float32) uint64 {
	x := spreadTable[binOf(c[0], q.min[0], q.scale[0], 1024)]
	y := spreadTable[binOf(c[1], q.min[1], q.scale[1], 1024)]
	z := spreadTable[binOf(c[2], q.min[2], q.scale[2], 1024)]
	return uint64(x<<2|y<<1|z) << 32
}

// centroid is the mean of the vertices (each scaled first: no overflow).
func (t *Triangle) centroid() [3]float32 {
	const third = 1.0 / 3
	return [3]float32{
		float32(t.A[0]*third) + float32(t.B[0]*third) + float32(t.C[0]*third),
		float32(t.A[1]*third) + float32(t.B[1]*third) + float32(t.C[1]*third),
		float32(t.A[2]*third) + float32(t.B[2]*third) + float32(t.C[2]*third),
	}
}

// buildMortonTriangles is the fast build of a triangle mesh straight from
// the input: one pass checks the triangles and bounds their centroids, one
// computes the keys, and after the sort one gathers the triangles into leaf
// order, which the tree's leaves then bound. It returns the index of the
// first non-finite triangle, or -1.
func buildMortonTriangles(tris []Triangle, opt Options) (*Mesh, int) {
	n := len(tris)
	var mu sync.Mutex
	cbox := emptyBox()
	bad := firstBad(n, func(lo, hi int) int {
		cb := emptyBox()
		for i := lo; i < hi; i++ {
			t := &tris[i]
			if !t.finite() {
				return i
			}
			cb.grow(t.centroid())
		}
		mu.Lock()
		cbox.union(&cb)
		mu.Unlock()
		return -1
	})
	if bad >= 0 {
		return nil, bad
	}
	m := &Mesh{Prims: make([]uint32, n), Tris: make([]Triangle, n)}
	if n == 0 {
		return m, -1
	}
	keys := getKeys(n)
	defer putKeys(keys)
	q := newQuantizer(cbox)
	parallelFor(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			keys[i] = q.code(tris[i].centroid()) | uint64(i)
		}
	})
	radixSort30(keys)
	parallelFor(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			id := uint32(keys[i])
			m.Prims[i] = id
			m.Tris[i] = tris[id]
		}
	})
	l := &lbvh{keys: keys, tris: m.Tris, leafSize: leafSizeOf(opt), parDepth: parDepth()}
	m.Nodes = l.build()
	return m, -1
}

// buildMorton returns the nodes of a linear BVH over refs and the refs in
// leaf order.
func buildMorton(refs []ref, opt Options) ([]Node, []ref) {
	n := len(refs)
	if n == 0 {
		return nil, refs
	}
	cbox := emptyBox()
	for i := range refs {
		r := &refs[i]
		cbox.grow([3]float32{r.centroid(0), r.centroid(1), r.centroid(2)})
	}
	keys := getKeys(n)
	defer putKeys(keys)
	q := newQuantizer(cbox)
	parallelFor(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := &refs[i]
			keys[i] = q.code([3]float32{r.centroid(0), r.centroid(1), r.centroid(2)}) | uint64(i)
		}
	})
	radixSort30(keys)
	l := &lbvh{keys: keys, srcRefs: refs, refs: make([]ref, n), leafSize: leafSizeOf(opt), parDepth: parDepth()}
	return l.build(), l.refs
}

// keyPool holds the key and sort buffers of finished fast builds, which
// the next build takes instead of new, zeroed ones (16 MB for a million
// triangles): every word of them is written before it is read.
var keyPool sync.Pool

func getKeys(n int) []uint64 {
	if p, _ := keyPool.Get().(*[]uint64); p != nil && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]uint64, n)
}

func putKeys(k []uint64) { keyPool.Put(&k) }

// parDepth is the depth down to which builds split work across goroutines.
func parDepth() int {
	if p := runtime.GOMAXPROCS(0); p > 1 {
		return bits.Len(uint(p-1)) + 1
	}
	return 0
}

// The tree is laid out as one recursive emission would append it: a node's
// two children side by side at the end, then the left child's descendants,
// then the right one's. Where the right subtree starts depends on the size
// of the left one, so the build runs in two passes over the same parts:
// the top of the tree is cut first, down to parDepth, into parts that
// goroutines then take; each part cuts its subtree, recording the splits in
// preorder and counting its nodes; the counts place every part, and the
// nodes are allocated once at their exact number; each part then emits its
// subtree in place from its splits; the top's boxes are summed last.

// lpart is a node of the tree's top: interior (kids set, cut at mid) or a
// part one goroutine builds.
type lpart struct {
	lo, mid, hi int
	kids        [2]*lpart
	splits      []int32 // a part: its interior nodes' mids, in preorder
	count       int     // the nodes of the subtree
	ni, next    int     // the subtree's root, its first descendant
	box         obox
}

// build returns the nodes of the tree over keys.
func (l *lbvh) build() []Node {
	var parts []*lpart
	root := l.top(0, len(l.keys), 0, &parts)
	l.each(parts, func(p *lpart) {
		p.splits = make([]int32, 0, (p.hi-p.lo)/2+1)
		p.count = l.cut(p, p.lo, p.hi)
	})
	root.countTop()
	root.place(0, 1)
	l.nodes = make([]Node, root.count)
	l.each(parts, func(p *lpart) {
		e := emitter{l: l, splits: p.splits, next: p.next}
		p.box = e.emit(p.ni, p.lo, p.hi)
	})
	l.boxTop(root)
	return l.nodes
}

// top cuts keys[lo:hi] down to parDepth, appending the parts to *parts in
// order.
func (l *lbvh) top(lo, hi, depth int, parts *[]*lpart) *lpart {
	p := &lpart{lo: lo, hi: hi}
	if depth < l.parDepth && hi-lo >= parallelMin && hi-lo > l.leafSize {
		p.mid = l.split(lo, hi)
		p.kids = [2]*lpart{l.top(lo, p.mid, depth+1, parts), l.top(p.mid, hi, depth+1, parts)}
		return p
	}
	*parts = append(*parts, p)
	return p
}

// each runs f over parts, a goroutine each when there are several.
func (l *lbvh) each(parts []*lpart, f func(p *lpart)) {
	if len(parts) == 1 {
		f(parts[0])
		return
	}
	var wg sync.WaitGroup
	for _, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(p)
		}()
	}
	wg.Wait()
}

func (p *lpart) countTop() int {
	if p.kids[0] != nil {
		p.count = 1 + p.kids[0].countTop() + p.kids[1].countTop()
	}
	return p.count
}

// place puts p's root at ni and its descendants from next on, and returns
// the index after them.
func (p *lpart) place(ni, next int) int {
	p.ni = ni
	if p.kids[0] == nil {
		p.next = next
		return next + p.count - 1
	}
	c := next
	next = p.kids[0].place(c, c+2)
	return p.kids[1].place(c+1, next)
}

// boxTop writes the nodes of the top and returns p's box.
func (l *lbvh) boxTop(p *lpart) obox {
	if p.kids[0] == nil {
		return p.box
	}
	lb, rb := l.boxTop(p.kids[0]), l.boxTop(p.kids[1])
	lb.union(&rb)
	l.nodes[p.ni] = lb.node(uint32(p.kids[0].ni), 0)
	return lb
}

// split returns where keys[lo:hi] (more than a leaf) is cut.
func (l *lbvh) split(lo, hi int) int {
	keys := l.keys[lo:hi]
	if a, b := uint32(keys[0]>>32), uint32(keys[len(keys)-1]>>32); a != b {
		// The first code with the highest differing bit set; all codes
		// share the bits above it.
		return lo + 1 + lastClear(keys, uint(63-bits.LeadingZeros32(a^b)))
	}
	return lo + (hi-lo)/2
}

// cut appends the splits of the subtree over keys[lo:hi] to p.splits in
// preorder and returns its node count.
func (l *lbvh) cut(p *lpart, lo, hi int) int {
	if hi-lo <= l.leafSize {
		return 1
	}
	mid := l.split(lo, hi)
	p.splits = append(p.splits, int32(mid))
	return 1 + l.cut(p, lo, mid) + l.cut(p, mid, hi)
}

// emitter writes one part's subtree into l.nodes from its splits.
type emitter struct {
	l      *lbvh
	splits []int32
	next   int // the index the next pair of children takes
}

// emit makes nodes[ni] a leaf or interior node over keys[lo:hi], writes
// its descendants and returns its box.
func (e *emitter) emit(ni, lo, hi int) obox {
	l := e.l
	if hi-lo <= l.leafSize {
		box := l.leaf(lo, hi)
		l.nodes[ni] = box.node(uint32(lo), uint32(hi-lo))
		return box
	}
	mid := int(e.splits[0])
	e.splits = e.splits[1:]
	c := e.next
	e.next += 2
	lb := e.emit(c, lo, mid)
	rb := e.emit(c+1, mid, hi)
	lb.union(&rb)
	l.nodes[ni] = lb.node(uint32(c), 0)
	return lb
}

// lastClear returns the last index of sorted keys (keys[0] without bit
// 1<<shift, the last key with it, all sharing the bits above it) whose bit
// is clear. The search halves the span whether or not the probe has the
// bit, and steps by arithmetic on the bit rather than by a branch, which
// would be mispredicted half the time on every level of the tree.
func lastClear(keys []uint64, shift uint) int {
	base, n := 0, len(keys)
	for n > 1 {
		h := n >> 1
		set := -int(keys[base+h] >> shift & 1) // all ones if set
		base += h &^ set
		n -= h
	}
	return base
}

// leaf returns the box of the primitives of keys[lo:hi], gathering refs
// into leaf order first.
func (l *lbvh) leaf(lo, hi int) obox {
	if l.tris != nil {
		return trisBox(l.tris[lo:hi])
	}
	var b obox
	for i := lo; i < hi; i++ {
		r := l.srcRefs[uint32(l.keys[i])]
		l.refs[i] = r
		rb := obox{ordOf(r.min[0]), ordOf(r.min[1]), ordOf(r.min[2]), ordOf(r.max[0]), ordOf(r.max[1]), ordOf(r.max[2])}
		if i == lo {
			b = rb
		} else {
			b.union(&rb)
		}
	}
	return b
}

// trisBox returns the box of tris (at least one), by integer min and max,
// which compile to conditional moves instead of the branches of float
// compares (whose outcome, for the vertices of a triangle, is a coin toss).
func trisBox(tris []Triangle) obox {
	t := &tris[0]
	x0, y0, z0 := ordOf(t.A[0]), ordOf(t.A[1]), ordOf(t.A[2])
	x1, y1, z1 := x0, y0, z0
	for i := range tris {
		t := &tris[i]
		ax, bx, cx := ordOf(t.A[0]), ordOf(t.B[0]), ordOf(t.C[0])
		ay, by, cy := ordOf(t.A[1]), ordOf(t.B[1]), ordOf(t.C[1])
		az, bz, cz := ordOf(t.A[2]), ordOf(t.B[2]), ordOf(t.C[2])
		x0, x1 = min(x0, ax, bx, cx), max(x1, ax, bx, cx)
		y0, y1 = min(y0, ay, by, cy), max(y1, ay, by, cy)
		z0, z1 = min(z0, az, bz, cz), max(z1, az, bz, cz)
	}
	return obox{x0, y0, z0, x1, y1, z1}
}

// obox is a box as ordOf of its Min (three coordinates) and Max (three).
type obox [6]int32

// ordOf maps a float that is not NaN to an int32 of the same order (−0
// below +0): the bits of a positive float already order as integers, and
// flipping all but the sign bit of a negative one reverses its order.
// ordOf is its own inverse on the bits (floatOf).
func ordOf(f float32) int32 {
	u := int32(math.Float32bits(f))
	return u ^ (u>>31)&0x7fffffff
}

func floatOf(i int32) float32 { return math.Float32frombits(uint32(i ^ (i>>31)&0x7fffffff)) }

func (b *obox) union(o *obox) {
	b[0], b[1], b[2] = min(b[0], o[0]), min(b[1], o[1]), min(b[2], o[2])
	b[3], b[4], b[5] = max(b[3], o[3]), max(b[4], o[4]), max(b[5], o[5])
}

// node is the node of box b with the given LeftFirst and Count.
func (b *obox) node(leftFirst, count uint32) Node {
	return Node{
		Min:       [3]float32{floatOf(b[0]), floatOf(b[1]), floatOf(b[2])},
		LeftFirst: leftFirst,
		Max:       [3]float32{floatOf(b[3]), floatOf(b[4]), floatOf(b[5])},
		Count:     count,
	}
}

// radixSort30 sorts keys, keys[i] holding a code below 2³⁰ in its top 32
// bits and i in its low bits: by code, then by index. One pass, counted and
// scattered by GOMAXPROCS workers over contiguous parts, distributes them
// by the code's top 10 bits into 1024 buckets; each bucket, a thousandth of
// the keys and so in cache, is then sorted apart (the workers taking runs
// of buckets) in two more passes of 10 bits, or by a comparison sort when
// it is small. Every pass is stable, so equal codes keep the order they
// come in: that of their indices.
func radixSort30(keys []uint64) {
	n := len(keys)
	p := runtime.GOMAXPROCS(0)
	if n < 1<<14 {
		p = 1
	}
	tmp := getKeys(n)
	defer putKeys(tmp)
	counts := make([][1024]int, p)
	var wg sync.WaitGroup
	each := func(parts int, f func(w, lo, hi int)) {
		if parts == 1 {
			f(0, 0, n)
			return
		}
		for w := 0; w < parts; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f(w, n*w/parts, n*(w+1)/parts)
			}()
		}
		wg.Wait()
	}
	const top = 52
	each(p, func(w, lo, hi int) {
		c := &counts[w]
		for _, k := range keys[lo:hi] {
			c[(k>>top)&1023]++
		}
	})
	var start [1025]int
	sum := 0
	for d := 0; d < 1024; d++ {
		start[d] = sum
		for w := 0; w < p; w++ {
			c := counts[w][d]
			counts[w][d] = sum
			sum += c
		}
	}
	start[1024] = n
	each(p, func(w, lo, hi int) {
		c := &counts[w]
		for _, k := range keys[lo:hi] {
			d := (k >> top) & 1023
			tmp[c[d]] = k
			c[d]++
		}
	})
	// The buckets, in 4p ranges of about n/4p keys each so that the
	// workers share them evenly.
	ranges := 1
	if p > 1 {
		ranges = 4 * p
	}
	each(ranges, func(_, lo, hi int) {
		var c [1024]int
		d0 := sort.SearchInts(start[:1024], lo+1) - 1
		for d := max(d0, 0); d < 1024 && start[d] < hi; d++ {
			a, b := start[d], start[d+1]
			if a < lo || a == b {
				continue // a bucket starting in the range before is sorted there
			}
			if b-a <= 64 {
				slices.Sort(tmp[a:b])
				copy(keys[a:b], tmp[a:b])
				continue
			}
			src, dst := tmp[a:b], keys[a:b]
			for shift := uint(32); shift < top; shift += 10 {
				c = [1024]int{}
				for _, k := range src {
					c[(k>>shift)&1023]++
				}
				sum := 0
				for i, x := range c {
					c[i] = sum
					sum += x
				}
				for _, k := range src {
					i := (k >> shift) & 1023
					dst[c[i]] = k
					c[i]++
				}
				src, dst = dst, src
			}
			copy(keys[a:b], src)
		}
	})
}
