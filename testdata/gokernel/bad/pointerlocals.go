package bad

import "github.com/lucent-gpu/lucent/kernel"

type Cell struct {
	A, B float32
}

// Pointer locals are aliases of one place: each rejected form is reported
// once, at the declaration, and its uses stay quiet.
//
//lucent:kernel block=64
func PointerLocals(cs []Cell, out []float32) {
	i := kernel.DispatchID().X
	p := &cs[i]
	p = &cs[i+1]
	out[i] = p.A + p.B
	var q *Cell
	out[i] += q.A
	r := &Cell{A: 1}
	out[i] += r.B
}
