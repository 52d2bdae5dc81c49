package kernel

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// Atomic is the set of element types the atomic operations take.
type Atomic interface {
	int32 | uint32 | int64 | uint64 | float32
}

// Integer is the set of element types the integer-only atomics take.
type Integer interface {
	int32 | uint32 | int64 | uint64
}

// The atomic operations act on one element of a buffer or of a Shared
// variable, addressed as &y[i], and return the element's previous value. They
// are device-scope atomics with relaxed ordering, as SPIR-V's OpAtomic*
// with no memory semantics; combine them with Barrier for ordering.

// AtomicAdd adds v to *p and returns the old value.
func AtomicAdd[T Atomic](p *T, v T) T {
	switch p := any(p).(type) {
	case *int32:
		return any(atomic.AddInt32(p, any(v).(int32)) - any(v).(int32)).(T)
	case *uint32:
		return any(atomic.AddUint32(p, any(v).(uint32)) - any(v).(uint32)).(T)
	case *int64:
		return any(atomic.AddInt64(p, any(v).(int64)) - any(v).(int64)).(T)
	case *uint64:
		return any(atomic.AddUint64(p, any(v).(uint64)) - any(v).(uint64)).(T)
	case *float32:
		return any(casFloat(p, func(old float32) float32 { return old + any(v).(float32) })).(T)
	}
	panic("unreachable")
}

// casFloat applies f to *p atomically and returns the old value.
func casFloat(p *float32, f func(float32) float32) float32 {
	u := (*uint32)(unsafe.Pointer(p))
	for {
		old := atomic.LoadUint32(u)
		if atomic.CompareAndSwapUint32(u, old, math.Float32bits(f(math.Float32frombits(old)))) {
			return math.Float32frombits(old)
		}
	}
}

// casInt applies f to *p atomically and returns the old value.
func casInt[T Integer](p *T, f func(T) T) T {
	switch q := any(p).(type) {
	case *int32:
		for {
			old := atomic.LoadInt32(q)
			if atomic.CompareAndSwapInt32(q, old, any(f(any(old).(T))).(int32)) {
				return any(old).(T)
			}
		}
	case *uint32:
		for {
			old := atomic.LoadUint32(q)
			if atomic.CompareAndSwapUint32(q, old, any(f(any(old).(T))).(uint32)) {
				return any(old).(T)
			}
		}
	case *int64:
		for {
			old := atomic.LoadInt64(q)
			if atomic.CompareAndSwapInt64(q, old, any(f(any(old).(T))).(int64)) {
				return any(old).(T)
			}
		}
	case *uint64:
		for {
			old := atomic.LoadUint64(q)
			if atomic.CompareAndSwapUint64(q, old, any(f(any(old).(T))).(uint64)) {
				return any(old).(T)
			}
		}
	}
	panic("unreachable")
}

// AtomicSub subtracts v from *p and returns the old value.
func AtomicSub[T Atomic](p *T, v T) T {
	if q, ok := any(p).(*float32); ok {
		return any(casFloat(q, func(o float32) float32 { return o - any(v).(float32) })).(T)
	}
	return casAny(p, func(o T) T { return o - v })
}

// AtomicMin stores min(*p, v) in *p and returns the old value. For float32
// the result with a NaN operand is undefined on the device.
func AtomicMin[T Atomic](p *T, v T) T {
	if q, ok := any(p).(*float32); ok {
		return any(casFloat(q, func(o float32) float32 { return min(o, any(v).(float32)) })).(T)
	}
	return casAny(p, func(o T) T { return min(o, v) })
}

// AtomicMax stores max(*p, v) in *p and returns the old value. For float32
// the result with a NaN operand is undefined on the device.
func AtomicMax[T Atomic](p *T, v T) T {
	if q, ok := any(p).(*float32); ok {
		return any(casFloat(q, func(o float32) float32 { return max(o, any(v).(float32)) })).(T)
	}
	return casAny(p, func(o T) T { return max(o, v) })
}

// casAny is casInt for an Atomic T known not to be float32.
func casAny[T Atomic](p *T, f func(T) T) T {
	switch q := any(p).(type) {
	case *int32:
		return any(casInt(q, func(o int32) int32 { return any(f(any(o).(T))).(int32) })).(T)
	case *uint32:
		return any(casInt(q, func(o uint32) uint32 { return any(f(any(o).(T))).(uint32) })).(T)
	case *int64:
		return any(casInt(q, func(o int64) int64 { return any(f(any(o).(T))).(int64) })).(T)
	case *uint64:
		return any(casInt(q, func(o uint64) uint64 { return any(f(any(o).(T))).(uint64) })).(T)
	}
	panic("unreachable")
}

// AtomicAnd stores *p & v in *p and returns the old value.
func AtomicAnd[T Integer](p *T, v T) T { return casInt(p, func(o T) T { return o & v }) }

// AtomicOr stores *p | v in *p and returns the old value.
func AtomicOr[T Integer](p *T, v T) T { return casInt(p, func(o T) T { return o | v }) }

// AtomicXor stores *p ^ v in *p and returns the old value.
func AtomicXor[T Integer](p *T, v T) T { return casInt(p, func(o T) T { return o ^ v }) }

// AtomicExchange stores v in *p and returns the old value.
func AtomicExchange[T Atomic](p *T, v T) T {
	if q, ok := any(p).(*float32); ok {
		return any(casFloat(q, func(float32) float32 { return any(v).(float32) })).(T)
	}
	return exchangeInt(p, v)
}

func exchangeInt[T Atomic](p *T, v T) T {
	switch q := any(p).(type) {
	case *int32:
		return any(atomic.SwapInt32(q, any(v).(int32))).(T)
	case *uint32:
		return any(atomic.SwapUint32(q, any(v).(uint32))).(T)
	case *int64:
		return any(atomic.SwapInt64(q, any(v).(int64))).(T)
	case *uint64:
		return any(atomic.SwapUint64(q, any(v).(uint64))).(T)
	}
	panic("unreachable")
}

// AtomicCompareExchange stores v in *p if *p == cmp, and returns the old value
// either way. A float32 compares bit patterns, as the device does: -0 is not
// +0, and a NaN matches the same NaN.
func AtomicCompareExchange[T Atomic](p *T, cmp, v T) T {
	if q, ok := any(p).(*float32); ok {
		c := math.Float32bits(any(cmp).(float32))
		return any(casFloat(q, func(o float32) float32 {
			if math.Float32bits(o) == c {
				return any(v).(float32)
			}
			return o
		})).(T)
	}
	return casAny(p, func(o T) T {
		if o == cmp {
			return v
		}
		return o
	})
}

// AtomicLoad returns *p, read atomically.
func AtomicLoad[T Atomic](p *T) T {
	switch q := any(p).(type) {
	case *int32:
		return any(atomic.LoadInt32(q)).(T)
	case *uint32:
		return any(atomic.LoadUint32(q)).(T)
	case *int64:
		return any(atomic.LoadInt64(q)).(T)
	case *uint64:
		return any(atomic.LoadUint64(q)).(T)
	case *float32:
		return any(math.Float32frombits(atomic.LoadUint32((*uint32)(unsafe.Pointer(q))))).(T)
	}
	panic("unreachable")
}

// AtomicStore stores v in *p atomically.
func AtomicStore[T Atomic](p *T, v T) { AtomicExchange(p, v) }
