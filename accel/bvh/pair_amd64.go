package bvh

import "math"

// pairConsts is a ray's constants for pairSSE, 4 lanes each (lane 3 is the
// node's LeftFirst or Count word, cleared by mask).
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
func pairSSE(k *pairConsts, ns *[2]Node, tmax float32) (hits uint32, t0, t1 float32)

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

// children tests both children of an interior node: bit 0 of hits says the
// first is entered (at t0), bit 1 the second (at t1). An entry distance is
// only compared, never returned as a hit distance: a zero may have either
// sign.
func (p *ray) children(ns *[2]Node, tmax float32) (hits uint32, t0, t1 float32) {
	if p.finite {
		return pairSSE(&p.pk, ns, tmax)
	}
	return p.pairBits(ns, tmax)
}
