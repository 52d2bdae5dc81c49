package kernel

import (
	"runtime"
	"unsafe"
)

// Shared returns the calling block's instance of a workgroup-shared variable
// of type T, typically an array:
//
//	tile := kernel.Shared[[256]float32]()
//	tile[kernel.ThreadID().X] = x[i]
//	kernel.Barrier()
//
// Each call site is one variable: every thread of a block gets the same
// pointer, and different blocks get different variables. The memory starts
// zeroed on the CPU; on a device its contents are undefined until written. T
// must be a fixed-size type (a number, vector, matrix, array or struct of
// those); the front end rejects others.
func Shared[T any]() *T {
	t := current("Shared")
	pc, _, _, _ := runtime.Caller(1)
	g := t.group
	if g.raceShared != nil {
		if p, ok := g.sharedRace(pc, func() *byte { return (*byte)(unsafe.Pointer(new(T))) }); ok {
			return (*T)(unsafe.Pointer(p))
		}
	}
	g.sharedMu.Lock()
	defer g.sharedMu.Unlock()
	if v, ok := g.shared[pc]; ok {
		return v.(*T)
	}
	v := new(T)
	if g.shared == nil {
		g.shared = map[uintptr]any{}
	}
	g.shared[pc] = v
	return v
}
