//go:build !amd64

package bvh

type pairConsts struct{}

func (p *ray) initPair() {}

// children tests both children of an interior node: bit 0 of hits says the
// first is entered (at t0), bit 1 the second (at t1).
func (p *ray) children(ns *[2]Node, tmax float32) (hits uint32, t0, t1 float32) {
	return p.pairBits(ns, tmax)
}
