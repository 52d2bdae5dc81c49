package bvh

import "sync"

// The wide form: a host-only 4-wide copy of a triangle mesh's binary
// hierarchy that Closest and Any traverse (docs/bvh.md §9). Each wide node
// is a binary interior node with its interior children opened: up to four
// lanes, each a binary grandchild (or a child that is a leaf), their boxes
// stored axis by axis so that one 4-wide slab test covers all of them. It is
// derived from Nodes after every build and refit and never serialised; the
// binary Nodes stay the hierarchy's contract.

// wideNode is one wide node, 128 bytes. box[k][i] is lane i's min on axis k
// (k < 3) or max on axis k−3. A lane with count 0 is interior: child is the
// index of its wide node; otherwise it is a leaf of count entries from
// child. mask has a bit for each lane in use. The layout is read by
// walkWideSSE (amd64).
type wideNode struct {
	box   [6][4]float32
	child [4]uint32
	count [4]uint8
	mask  uint32
	_     [2]uint32
}

// wideForm is a mesh's wide form: nodes[0] is the binary root opened; n is
// len(Nodes) when it was made, the check that it is the form of the nodes.
type wideForm struct {
	nodes []wideNode
	n     int
}

// wideStackSize bounds the wide walk's stack: a wide level descends two
// binary levels, so no path has more than StackSize/2 wide nodes, each
// pushing at most three lanes.
const wideStackSize = 3*StackSize/2 + 4

// collapse returns the wide form of nodes, or nil where the root is a leaf
// (or there are no nodes): those meshes keep the binary walk. Where no
// traversal takes the wide form (makeWide false) there is none.
func collapse(nodes []Node) *wideForm {
	if !makeWide || len(nodes) == 0 || nodes[0].Count != 0 {
		return nil
	}
	out := make([]wideNode, 1, len(nodes)/3+1)
	todo := make([]uint32, 0, 2*StackSize) // pairs: wide node, binary node
	todo = append(todo, 0, 0)
	for len(todo) > 0 {
		wi, bi := todo[len(todo)-2], todo[len(todo)-1]
		todo = todo[:len(todo)-2]
		var lanes [4]uint32
		nl := 0
		n := &nodes[bi]
		for c := n.LeftFirst; c <= n.LeftFirst+1; c++ {
			if ch := &nodes[c]; ch.Count == 0 {
				lanes[nl], lanes[nl+1] = ch.LeftFirst, ch.LeftFirst+1
				nl += 2
			} else {
				lanes[nl] = c
				nl++
			}
		}
		wn := &out[wi]
		wn.mask = 1<<nl - 1
		for i := 0; i < nl; i++ {
			b := &nodes[lanes[i]]
			wn.box[0][i], wn.box[1][i], wn.box[2][i] = b.Min[0], b.Min[1], b.Min[2]
			wn.box[3][i], wn.box[4][i], wn.box[5][i] = b.Max[0], b.Max[1], b.Max[2]
			if b.Count != 0 {
				wn.child[i], wn.count[i] = b.LeftFirst, uint8(b.Count)
				continue
			}
			wn.child[i] = uint32(len(out))
			todo = append(todo, uint32(len(out)), lanes[i])
			out = append(out, wideNode{})
			wn = &out[wi] // out may have moved
		}
	}
	return &wideForm{nodes: out, n: len(nodes)}
}

// makeWide says whether builds and refits make wide forms: where Any takes
// them (tests set it everywhere).
var makeWide = wideAny

// wideLazy makes a mesh's wide form at its first use, so that a mesh no
// host traversal walks (the Vulkan backend's host copies) costs neither the
// collapse nor its memory. Builds and refits set a fresh one; copies of the
// Mesh share it, and their Nodes are equal.
type wideLazy struct {
	once sync.Once
	f    *wideForm
}

// newWide is the lazy wide form of a mesh just built or refitted, or nil
// where no traversal takes one.
func newWide() *wideLazy {
	if !makeWide {
		return nil
	}
	return &wideLazy{}
}

// wideOf returns m's wide form when it is in step with m.Nodes, else nil.
func (m *Mesh) wideOf() *wideForm {
	l := m.wide
	if l == nil {
		return nil
	}
	l.once.Do(func() { l.f = collapse(m.Nodes) })
	if w := l.f; w != nil && w.n == len(m.Nodes) {
		return w
	}
	return nil
}

// wideWalker is wide traversal's state between leaves, as walker is the
// binary one's. Its layout is read by walkWideSSE (amd64).
type wideWalker struct {
	k     *pairConsts
	nodes *wideNode
	n     uint64 // len(nodes)
	stack *[wideStackSize]stackEntry
	sp    uint64
	cull  float32
	_     uint32
	tn    [4]float32 // walkWideSSE's scratch: a node's entry distances
	// planes are the byte offsets in a wideNode of the near and far planes
	// of x, y, z: box's swap where the reciprocal is negative.
	planes [6]uint64
}

// A stack entry's node word with leafBit set is a leaf lane: the wide
// node's index times 4 plus the lane; otherwise a wide node's index.
const leafBit = 1 << 31

func newWideWalker(w *wideForm, stack *[wideStackSize]stackEntry, p *ray, cull float32) wideWalker {
	ww := wideWalker{k: &p.pk, nodes: &w.nodes[0], n: uint64(len(w.nodes)), stack: stack, cull: cull}
	for k := 0; k < 3; k++ {
		lo, hi := uint64(16*k), uint64(16*(k+3))
		if p.neg[k] {
			lo, hi = hi, lo
		}
		ww.planes[2*k], ww.planes[2*k+1] = lo, hi
	}
	return ww
}

// box4 is box for the lanes of n with tmax the cull distance: the lanes
// entered as bits, and their entry distances.
func (p *ray) box4(n *wideNode, cull float32) (hits uint32, tn [4]float32) {
	for i := uint32(0); i < 4; i++ {
		if n.mask&(1<<i) == 0 {
			continue
		}
		lo := [3]float32{n.box[0][i], n.box[1][i], n.box[2][i]}
		hi := [3]float32{n.box[3][i], n.box[4][i], n.box[5][i]}
		t, in := p.box(&lo, &hi, cull)
		if in {
			hits |= 1 << i
		}
		tn[i] = t
	}
	return hits, tn
}

// walkWideGo descends from wide node ni (−1: pop first) to the next leaf
// lane the ray enters and returns its code (node·4 + lane), or walkDone. Of
// the lanes a node's test enters, the nearest is taken and the others are
// pushed farthest first (equal entry distances: the lower lane is nearer);
// the stack holds wideStackSize entries, the nearest lane counted.
func (w *wideWalker) walkWideGo(nodes []wideNode, p *ray, ni int) int {
	stack := w.stack
	sp := w.sp
	for {
		if ni >= 0 {
			if ni >= len(nodes) {
				return walkCorrupt
			}
			n := &nodes[ni]
			hits, tn := p.box4(n, w.cull)
			var ord [4]uint32
			no := 0
			for i := uint32(0); i < 4; i++ {
				if hits&(1<<i) == 0 {
					continue
				}
				j := no
				for j > 0 && tn[ord[j-1]] > tn[i] {
					ord[j] = ord[j-1]
					j--
				}
				ord[j] = i
				no++
			}
			if no == 0 {
				ni = -1
			} else {
				if sp+uint64(no) > wideStackSize {
					return walkCorrupt
				}
				for j := no - 1; j >= 1; j-- {
					l := ord[j]
					e := stackEntry{n.child[l], tn[l]}
					if n.count[l] != 0 {
						e.node = leafBit | uint32(ni)<<2 | l
					}
					stack[sp] = e
					sp++
				}
				l := ord[0]
				if n.count[l] != 0 {
					w.sp = sp
					return ni<<2 | int(l)
				}
				ni = int(n.child[l])
				continue
			}
		}
		for sp > 0 {
			sp--
			if stack[sp].t <= w.cull {
				e := stack[sp].node
				if e&leafBit != 0 {
					w.sp = sp
					return int(e &^ leafBit)
				}
				ni = int(e)
				break
			}
		}
		if ni < 0 {
			w.sp = 0
			return walkDone
		}
	}
}

// instanceWide is the bottom level of instance for a wide query on a
// triangle mesh with a wide form: the same leaves' triangles, in the wide
// walk's order. The root's box has been entered.
func (q *query) instanceWide(inst *Instance, ii uint32, m *Mesh, wf *wideForm, p *ray, or *Ray) {
	var stack [wideStackSize]stackEntry
	w := newWideWalker(wf, &stack, p, q.cull)
	nodes := wf.nodes
	ni := 0
	for {
		if ni = w.walkWide(nodes, p, ni); ni == walkDone {
			return
		}
		n := &nodes[ni>>2]
		first, count := n.child[ni&3], uint32(n.count[ni&3])
		tris := m.Tris[first : first+count]
		for k := range tris {
			t, u, v, ok := p.watertight(&tris[k], q.tmax)
			if !ok {
				continue
			}
			if q.triangle(inst, ii, m, first+uint32(k), p, or, t, u, v); q.stop {
				return
			}
		}
		w.cull, ni = q.cull, -1
	}
}
