package bvh

// walker is one level's traversal state between leaves: walk descends from a
// node the ray enters (or pops first) to the next leaf it enters, testing
// both children of each interior node on the way (docs/bvh.md §3). Its
// layout is read by walkSSE (amd64).
type walker struct {
	k     *pairConsts
	nodes *Node
	n     uint64 // len(nodes)
	stack *[StackSize]stackEntry
	sp    uint64
	cull  float32 // the cull distance: widen(committed)
	_     uint32
	tris  *Triangle // a leaf's triangles, to prefetch (nil: none)
}

// Walk results other than a leaf's node index.
const (
	walkDone    = -1 // the stack is empty
	walkCorrupt = -2 // a child or the stack outside its array (an invalid hierarchy)
)

func newWalker(nodes []Node, stack *[StackSize]stackEntry, p *ray, cull float32) walker {
	return walker{k: &p.pk, nodes: &nodes[0], n: uint64(len(nodes)), stack: stack, cull: cull}
}

// walkGo is walk in Go: the path of rays with an infinite reciprocal, and of
// every ray off amd64. ni is a node the ray enters, or −1 to pop first.
func (w *walker) walkGo(nodes []Node, p *ray, ni int) int {
	stack := w.stack
	sp := w.sp
	for {
		if ni >= 0 {
			if ni >= len(nodes) {
				return walkCorrupt
			}
			n := &nodes[ni]
			if n.Count != 0 {
				w.sp = sp
				return ni
			}
			l, r := n.LeftFirst, n.LeftFirst+1
			if uint64(r) >= uint64(len(nodes)) {
				return walkCorrupt
			}
			hits, tl, tr := p.pairBits((*[2]Node)(nodes[l:r+1]), w.cull)
			switch hits {
			case 3:
				if tr < tl {
					l, r, tl, tr = r, l, tr, tl
				}
				if sp >= StackSize {
					return walkCorrupt
				}
				stack[sp] = stackEntry{r, tr}
				sp++
				ni = int(l)
				continue
			case 1:
				ni = int(l)
				continue
			case 2:
				ni = int(r)
				continue
			}
		}
		ni = -1
		for sp > 0 {
			sp--
			if stack[sp].t <= w.cull {
				ni = int(stack[sp].node)
				break
			}
		}
		if ni < 0 {
			w.sp = 0
			return walkDone
		}
	}
}
