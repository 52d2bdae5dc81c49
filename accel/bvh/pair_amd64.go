package bvh

import (
	"math"
	"unsafe"
)

// pairConsts is a ray's constants for walkSSE, 4 lanes each (lane 3 of a
// node's corner load is its LeftFirst or Count word, cleared by mask).
type pairConsts struct {
	o, inv [4]float32
	neg    [4]uint32 // all ones where inv[k] < 0
	mask   [4]uint32 // all ones in lanes 0-2
	tmin   [4]float32
	inf    [4]float32
	abs    [4]uint32
	grow   [4]float32
}

//go:noescape
func walkSSE(w *walker, ni int) int

//go:noescape
func walkWideSSE(w *wideWalker, ni int) int

func (p *ray) initPair() {
	k := &p.pk
	all := ^uint32(0)
	for i := 0; i < 3; i++ {
		k.o[i], k.inv[i] = p.o[i], p.inv[i]
		if p.neg[i] {
			k.neg[i] = all
		}
		k.mask[i] = all
	}
	k.tmin[3] = p.tmin
	k.inf[3] = float32(math.Inf(1))
	k.abs = [4]uint32{1<<31 - 1, 1<<31 - 1, 1<<31 - 1, 1<<31 - 1}
	k.grow = [4]float32{boxGrow, boxGrow, boxGrow, boxGrow}
}

// walk descends from node ni (entered; −1: pop first) to the next leaf the
// ray enters and returns its index, or walkDone. With every reciprocal
// finite it runs in walkSSE, whose slab tests are box's arithmetic lane for
// lane; only the sign of a zero entry distance may differ, and entry
// distances are only compared.
func (w *walker) walk(nodes []Node, p *ray, ni int) int {
	if p.finite {
		ni = walkSSE(w, ni)
	} else {
		ni = w.walkGo(nodes, p, ni)
	}
	if ni == walkCorrupt {
		panic("bvh: traversal left its hierarchy (the hierarchy is invalid)")
	}
	return ni
}

// walkSSE's offsets into walker and pairConsts.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(walker{}.sp)-32]
	_ = [1]struct{}{}[unsafe.Offsetof(walker{}.cull)-40]
	_ = [1]struct{}{}[unsafe.Offsetof(walker{}.tris)-48]
	_ = [1]struct{}{}[unsafe.Offsetof(pairConsts{}.tmin)-64]
	_ = [1]struct{}{}[unsafe.Offsetof(pairConsts{}.grow)-112]
)

// walkWideSSE's offsets into wideWalker and wideNode, and its stack size.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(wideWalker{}.sp)-32]
	_ = [1]struct{}{}[unsafe.Offsetof(wideWalker{}.cull)-40]
	_ = [1]struct{}{}[unsafe.Offsetof(wideWalker{}.tn)-48]
	_ = [1]struct{}{}[unsafe.Offsetof(wideWalker{}.planes)-64]
	_ = [1]struct{}{}[unsafe.Offsetof(wideNode{}.child)-96]
	_ = [1]struct{}{}[unsafe.Offsetof(wideNode{}.count)-112]
	_ = [1]struct{}{}[unsafe.Offsetof(wideNode{}.mask)-116]
	_ = [1]struct{}{}[unsafe.Sizeof(wideNode{})-128]
	_ = [1]struct{}{}[wideStackSize-100]
)

// wideAny: Any walks the wide form, for rays with every reciprocal finite
// (walkWideSSE); the Go walk is slower than walkGo.
const wideAny = true

// walkWide is walk for the wide form: the next leaf lane's code, or
// walkDone.
func (w *wideWalker) walkWide(nodes []wideNode, p *ray, ni int) int {
	if p.finite {
		ni = walkWideSSE(w, ni)
	} else {
		ni = w.walkWideGo(nodes, p, ni)
	}
	if ni == walkCorrupt {
		panic("bvh: traversal left its hierarchy (the hierarchy is invalid)")
	}
	return ni
}
