package kernel

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync/atomic"
)

// subgroup is the state the threads of one subgroup share on the CPU. A
// collective operation is two rendezvous: every live thread publishes its
// value in its lane's slot, all wait, every thread reads the slots it needs,
// all wait again (so no slot is overwritten while another thread reads it).
type subgroup struct {
	size    uint32
	live    int
	barrier *barrier
	vals    []any
	active  []bool
	sites   []site // each lane's operation
	// suspended counts the lanes waiting at the block's barrier, out of
	// the rendezvous until it releases them.
	suspended atomic.Int64
}

// suspend takes the calling lane, about to wait at the block's barrier, out
// of the subgroup's rendezvous: the block barrier's release puts it back.
func (s *subgroup) suspend() {
	raceOff()
	s.suspended.Add(1)
	raceOn()
	s.barrier.leave()
}

// site is where a lane called a subgroup operation: the return address in
// the kernel's code, the same for the lanes at one operation. (A helper
// that calls the operation is one site however many places call it.)
type site uintptr

func (s *subgroup) init() {
	s.barrier = newBarrier(s.live)
	s.vals = make([]any, s.size)
	s.active = make([]bool, s.size)
	s.sites = make([]site, s.size)
}

// exchange publishes v for the calling lane and calls read with the values of
// every lane taking part (nil entries for lanes that are not); skip is the
// frames between exchange's caller and the kernel's code. Every live
// lane takes part: where lanes of the subgroup wait at different operations
// at once (operations in divergent control flow, which a device runs over
// the lanes of each in turn), the lanes panic naming both operations rather
// than mix their values.
func exchange[T any](what string, skip int, v T, read func(vals []any, active []bool, lane uint32)) {
	t := current(what)
	t.group.collective()
	s := t.sub
	var pc [1]uintptr
	runtime.Callers(3+skip, pc[:])
	at := site(pc[0])
	s.vals[t.lane] = v
	s.active[t.lane] = true
	s.sites[t.lane] = at
	s.barrier.wait()
	for l, on := range s.active {
		if on && s.sites[l] != at {
			// Every lane sees a lane at another operation, so every one
			// panics, and none waits for the second rendezvous.
			panic(fmt.Sprintf("%s: lane %d of the subgroup is at another subgroup operation (%s) at the same time: kernel.Run runs a subgroup operation in divergent control flow only where the subgroup's other lanes reach no other one meanwhile",
				what, l, siteText(s.sites[l])))
		}
	}
	read(s.vals, s.active, t.lane)
	s.barrier.wait()
	s.active[t.lane] = false
}

// siteText is "file:line" of the kernel code at the operation of site a.
func siteText(a site) string {
	fr, _ := runtime.CallersFrames([]uintptr{uintptr(a)}).Next()
	return fmt.Sprintf("%s:%d", fr.File, fr.Line)
}

// Number is the set of scalar types the arithmetic subgroup operations take.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// SubgroupSize returns the number of lanes of a subgroup.
func SubgroupSize() uint32 { return current("SubgroupSize").group.grid.SubgroupSize }

// SubgroupLaneID returns the calling thread's lane within its subgroup.
func SubgroupLaneID() uint32 { return current("SubgroupLaneID").lane }

// SubgroupElect reports whether the calling thread is the lowest active lane.
func SubgroupElect() bool {
	var r bool
	exchange("SubgroupElect", 0, true, func(_ []any, active []bool, lane uint32) {
		for l, a := range active {
			if a {
				r = uint32(l) == lane
				return
			}
		}
	})
	return r
}

// SubgroupAll reports whether p is true on every active lane.
func SubgroupAll(p bool) bool {
	r := true
	exchange("SubgroupAll", 0, p, func(vals []any, active []bool, _ uint32) {
		for l, a := range active {
			if a && !vals[l].(bool) {
				r = false
			}
		}
	})
	return r
}

// SubgroupAny reports whether p is true on any active lane.
func SubgroupAny(p bool) bool {
	r := false
	exchange("SubgroupAny", 0, p, func(vals []any, active []bool, _ uint32) {
		for l, a := range active {
			if a && vals[l].(bool) {
				r = true
			}
		}
	})
	return r
}

// SubgroupBallot returns a bit mask (lane l is bit l%32 of component l/32) of
// the active lanes where p is true.
func SubgroupBallot(p bool) Uint4 {
	var r [4]uint32
	exchange("SubgroupBallot", 0, p, func(vals []any, active []bool, _ uint32) {
		for l, a := range active {
			if a && vals[l].(bool) {
				r[l/32] |= 1 << (l % 32)
			}
		}
	})
	return Uint4{r[0], r[1], r[2], r[3]}
}

// BallotCount returns the number of bits set in a ballot.
func BallotCount(b Uint4) uint32 {
	return uint32(bits.OnesCount32(b.X) + bits.OnesCount32(b.Y) + bits.OnesCount32(b.Z) + bits.OnesCount32(b.W))
}

// SubgroupBroadcast returns v from lane (which must be active and the same on
// every lane).
func SubgroupBroadcast[T any](v T, lane uint32) T {
	var r T
	exchange("SubgroupBroadcast", 0, v, func(vals []any, active []bool, _ uint32) {
		if lane < uint32(len(active)) && active[lane] {
			r = vals[lane].(T)
		}
	})
	return r
}

// SubgroupBroadcastFirst returns v from the lowest active lane.
func SubgroupBroadcastFirst[T any](v T) T {
	var r T
	exchange("SubgroupBroadcastFirst", 0, v, func(vals []any, active []bool, _ uint32) {
		for l, a := range active {
			if a {
				r = vals[l].(T)
				return
			}
		}
	})
	return r
}

// SubgroupShuffle returns v from lane src (any active lane; the result is
// the zero value when src is not active, where a device leaves it undefined).
func SubgroupShuffle[T any](v T, src uint32) T {
	var r T
	exchange("SubgroupShuffle", 0, v, func(vals []any, active []bool, _ uint32) {
		if src < uint32(len(active)) && active[src] {
			r = vals[src].(T)
		}
	})
	return r
}

func reduce[T Number](what string, v T, op func(a, b T) T, upTo func(lane uint32, l int) bool) T {
	var r T
	exchange(what, 1, v, func(vals []any, active []bool, lane uint32) {
		first := true
		for l, a := range active {
			if !a || !upTo(lane, l) {
				continue
			}
			x := vals[l].(T)
			if first {
				r, first = x, false
			} else {
				r = op(r, x)
			}
		}
	})
	return r
}

func all(uint32, int) bool              { return true }
func inclusive(lane uint32, l int) bool { return l <= int(lane) }
func exclusive(lane uint32, l int) bool { return l < int(lane) }
func add[T Number](a, b T) T            { return a + b }

// SubgroupAdd returns the sum of v over the active lanes.
func SubgroupAdd[T Number](v T) T { return reduce("SubgroupAdd", v, add[T], all) }

// SubgroupMul returns the product of v over the active lanes.
func SubgroupMul[T Number](v T) T {
	return reduce("SubgroupMul", v, func(a, b T) T { return a * b }, all)
}

// SubgroupMin returns the minimum of v over the active lanes.
func SubgroupMin[T Number](v T) T {
	return reduce("SubgroupMin", v, func(a, b T) T { return min(a, b) }, all)
}

// SubgroupMax returns the maximum of v over the active lanes.
func SubgroupMax[T Number](v T) T {
	return reduce("SubgroupMax", v, func(a, b T) T { return max(a, b) }, all)
}

// SubgroupInclusiveAdd returns the sum of v over the active lanes up to and
// including the calling lane.
func SubgroupInclusiveAdd[T Number](v T) T {
	return reduce("SubgroupInclusiveAdd", v, add[T], inclusive)
}

// SubgroupExclusiveAdd returns the sum of v over the active lanes below the
// calling lane (0 on the lowest).
func SubgroupExclusiveAdd[T Number](v T) T {
	return reduce("SubgroupExclusiveAdd", v, add[T], exclusive)
}
