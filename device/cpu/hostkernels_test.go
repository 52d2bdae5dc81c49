package cpu_test

// Go-subset kernels, compiled to IR from this file's source (gokernel.Check)
// and run as compiled Go through ShaderDesc.Host: the two paths of a
// launcher lucentc -go writes.

import "github.com/lucent-gpu/lucent/kernel"

// HostSaxpy computes y = a*x + y.
//
//lucent:kernel block=64
func HostSaxpy(a float32, x, y []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(y)) {
		y[i] = a*x[i] + y[i]
	}
}

// HostMandelbrot writes the escape iteration of each pixel of a w×h view.
//
//lucent:kernel block=16,16
func HostMandelbrot(w, h uint32, out []uint32) {
	id := kernel.DispatchID()
	if id.X >= w || id.Y >= h {
		return
	}
	cx := -2 + 3*float32(id.X)/float32(w)
	cy := -1.5 + 3*float32(id.Y)/float32(h)
	var x, y float32
	n := uint32(0)
	for ; n < 256; n++ {
		if x*x+y*y > 4 {
			break
		}
		x, y = x*x-y*y+cx, 2*x*y+cy
	}
	out[id.Y*w+id.X] = n
}

// HostReverse reverses each block of 64 elements of buf through shared
// memory (a barrier).
//
//lucent:kernel block=64
func HostReverse(buf []uint32) {
	tile := kernel.Shared[[64]uint32]()
	t, i := kernel.ThreadID().X, kernel.DispatchID().X
	tile[t] = buf[i]
	kernel.Barrier()
	buf[i] = tile[63-t]
}

// HostShift writes in[i+k] to out[i]: past the end of in for a large k.
//
//lucent:kernel block=64
func HostShift(k uint32, in, out []uint32) {
	i := kernel.DispatchID().X
	if i < uint32(len(out)) {
		out[i] = in[i+k]
	}
}

// HostBranches takes lanes of a block down different paths: an early
// return, an if-else chain, a loop with continue and break, and an access
// guarded by &&.
//
//lucent:kernel block=32
func HostBranches(k uint32, in, out []int32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(out)) {
		return
	}
	x := in[i]
	r := int32(0)
	if x < 0 {
		r = -x
	} else if x%3 == 0 {
		r = 100
	} else {
		r = x / 2
	}
	for j := int32(0); j < x%16; j++ {
		if j%2 == 1 {
			continue
		}
		if j > 9 {
			break
		}
		r += j
	}
	if i+k < uint32(len(in)) && in[i+k] > 50 {
		r += 1000
	}
	if r == 7 {
		return
	}
	out[i] = r
}

// HostAtomics takes lanes of a batch through buffer atomics: a count whose
// old value is dropped, a counter whose old value places the thread, min,
// max, a compare-and-swap claiming a slot, and a float add.
//
//lucent:kernel block=64
func HostAtomics(in []int32, bins []uint32, order, claimed []uint32, minmax []int32, sum []float32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	v := in[i]
	kernel.AtomicAdd(&bins[uint32(v)%8], 1)
	slot := kernel.AtomicAdd(&order[0], 1)
	order[1+slot] = i
	kernel.AtomicMin(&minmax[0], v)
	kernel.AtomicMax(&minmax[1], v)
	if kernel.AtomicCompareExchange(&claimed[uint32(v)%16], 0, i+1) == 0 {
		kernel.AtomicAdd(&claimed[16], 1)
	}
	kernel.AtomicAdd(&sum[0], float32(v%4))
}

// HostPrintAssert prints from two threads and asserts its input is not
// negative.
//
//lucent:kernel block=64
func HostPrintAssert(in []float32) {
	i := kernel.DispatchID().X
	if i < 2 {
		kernel.Printf("thread %d has %f", i, in[i])
	}
	kernel.Assert(in[i] >= 0, "negative input")
}
