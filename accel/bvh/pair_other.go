//go:build !amd64

package bvh

type pairConsts struct{}

func (p *ray) initPair() {}

// walk descends from node ni (entered; −1: pop first) to the next leaf the
// ray enters and returns its index, or walkDone.
func (w *walker) walk(nodes []Node, p *ray, ni int) int {
	ni = w.walkGo(nodes, p, ni)
	if ni == walkCorrupt {
		panic("bvh: traversal left its hierarchy (the hierarchy is invalid)")
	}
	return ni
}

// wideAny: Any keeps the binary walk here: the wide walk in Go is slower
// than walkGo (tests still take it).
const wideAny = false

// walkWide is walk for the wide form: the next leaf lane's code, or
// walkDone.
func (w *wideWalker) walkWide(nodes []wideNode, p *ray, ni int) int {
	ni = w.walkWideGo(nodes, p, ni)
	if ni == walkCorrupt {
		panic("bvh: traversal left its hierarchy (the hierarchy is invalid)")
	}
	return ni
}
