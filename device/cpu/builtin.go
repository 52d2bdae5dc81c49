package cpu

import (
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

func (c *compiler) builtin(e *ir.Call) ex {
	switch {
	case e.Op >= ir.OpAtomicExchange && e.Op <= ir.OpAtomicMax:
		return c.atomic(e)
	case e.Op == ir.OpBarrier:
		return ex{v: func(t *th, _ []uint64) {
			if !t.yield(false) {
				panic(errAbort) // the worker stopped this coroutine
			}
		}}
	case e.Op == ir.OpBufferSize:
		v := e.Args[0].(*ir.Ref).Var
		k, es := c.params[v], uint64(v.Type.Elem().Size())
		return scalarEx(func(t *th) uint64 { return uint64(uint32(uint64(len(t.run.bufs[k])) / es)) })
	case e.Op >= ir.OpSubgroupElect && e.Op <= ir.OpSubgroupExclusiveAdd:
		return c.subgroup(e)
	case e.Op >= ir.OpTextureRead && e.Op <= ir.OpTextureSample:
		return c.textureOp(e)
	case e.Op >= ir.OpBindlessRead && e.Op <= ir.OpBindlessSize,
		e.Op >= ir.OpBindlessTexRead && e.Op <= ir.OpBindlessTexSize:
		return c.bindlessOp(e)
	case e.Op == ir.OpRayClosest || e.Op == ir.OpRayAny:
		return c.rayOp(e)
	case ir.CandidateOp(e.Op):
		return c.candidateOp(e)
	}
	switch e.Op {
	case ir.OpTranspose, ir.OpDeterminant, ir.OpInverse, ir.OpOuterProduct:
		return c.matBuiltin(e)
	case ir.OpReflect:
		return c.reflect(e)
	}
	args := make([]ex, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.expr(a)
	}
	var at *ir.Type
	if len(e.Args) > 0 {
		at = e.Args[0].Type()
		if at.Kind() == ir.KindMatrix {
			refuse(unsupported("built-in %s on %s (matrix arithmetic)", e.Op, at))
		}
	}
	n := ir.Leaves(e.T)
	switch e.Op {
	case ir.OpSelect:
		return c.lift(n, args, func(a []uint64) uint64 {
			if a[0] != 0 {
				return a[1]
			}
			return a[2]
		})
	case ir.OpIsNaN, ir.OpIsInf:
		s := at.Scalar()
		if e.Op == ir.OpIsNaN {
			return c.lift(n, args, func(a []uint64) uint64 { f := toF(a[0], s); return b2u(f != f) })
		}
		return c.lift(n, args, func(a []uint64) uint64 { return b2u(math.IsInf(toF(a[0], s), 0)) })
	case ir.OpDot, ir.OpLength, ir.OpDistance, ir.OpNormalize, ir.OpCross, ir.OpAny, ir.OpAll,
		ir.OpReduceSum, ir.OpReduceProd, ir.OpReduceMin, ir.OpReduceMax:
		return c.vectorOp(e, args, at)
	}
	s := at.Scalar()
	ops := make([]float32, len(args))
	iops := make([]uint32, len(args))
	if s == ir.TF32 {
		if !probe(func() bool { _, ok := ir.RefFloat32(e.Op, ops...); return ok }) {
			refuse(unsupported("built-in %s on %s", e.Op, s))
		}
		op := e.Op
		if len(args) == 1 && n == 1 {
			x := args[0].s
			switch op {
			case ir.OpSqrt:
				return scalarEx(func(t *th) uint64 { return uf32(float32(math.Sqrt(float64(f32(x(t)))))) })
			case ir.OpAbs:
				return scalarEx(func(t *th) uint64 { return x(t) &^ (1 << 31) })
			}
		}
		return c.lift(n, args, func(a []uint64) uint64 {
			var buf [4]float32
			o := buf[:len(a)]
			for i, v := range a {
				o[i] = f32(v)
			}
			r, _ := ir.RefFloat32(op, o...)
			return uf32(r)
		})
	}
	if s == ir.TF16 {
		return c.halfBuiltin(e.Op, n, args)
	}
	if f, ok := f64Builtins[e.Op]; ok && s == ir.TF64 {
		return c.lift(n, args, func(a []uint64) uint64 {
			var buf [3]float64
			o := buf[:len(a)]
			for i, v := range a {
				o[i] = math.Float64frombits(v)
			}
			return math.Float64bits(f(o))
		})
	}
	if s.Bits() == 32 && s.IsInteger() {
		signed := s.Kind() == ir.KindInt
		if !probe(func() bool { _, ok := ir.RefInt(e.Op, signed, iops...); return ok }) {
			refuse(unsupported("built-in %s on %s", e.Op, s))
		}
		op := e.Op
		return c.lift(n, args, func(a []uint64) uint64 {
			var buf [4]uint32
			o := buf[:len(a)]
			for i, v := range a {
				o[i] = uint32(v)
			}
			r, _ := ir.RefInt(op, signed, o...)
			return uint64(r)
		})
	}
	refuse(unsupported("built-in %s on %s", e.Op, s))
	return ex{}
}

// f64Builtins are the built-ins GLSL.std.450 defines on 64-bit floats
// (those the Go front end takes from package math on float64), as Go
// computes them.
var f64Builtins = map[ir.Op]func(a []float64) float64{
	ir.OpAbs:   func(a []float64) float64 { return math.Abs(a[0]) },
	ir.OpFloor: func(a []float64) float64 { return math.Floor(a[0]) },
	ir.OpCeil:  func(a []float64) float64 { return math.Ceil(a[0]) },
	ir.OpRound: func(a []float64) float64 { return math.Round(a[0]) },
	ir.OpTrunc: func(a []float64) float64 { return math.Trunc(a[0]) },
	ir.OpSqrt:  func(a []float64) float64 { return math.Sqrt(a[0]) },
	ir.OpMin:   func(a []float64) float64 { return math.Min(a[0], a[1]) },
	ir.OpMax:   func(a []float64) float64 { return math.Max(a[0], a[1]) },
	ir.OpFma:   func(a []float64) float64 { return math.FMA(a[0], a[1], a[2]) },
}

// halfBuiltin compiles a componentwise built-in on f16: the float32
// reference on the widened operands, rounded to f16 (correctly rounded
// for sqrt, exact for abs, min, max, floor and the like), except fma,
// computed in float64 (the product of two halves is exact there) and
// rounded once.
func (c *compiler) halfBuiltin(op ir.Op, n int, args []ex) ex {
	var ops [4]float32
	if !probe(func() bool { _, ok := ir.RefFloat32(op, ops[:len(args)]...); return ok }) {
		refuse(unsupported("built-in %s on %s", op, ir.TF16))
	}
	switch op {
	case ir.OpAbs:
		return c.lift(n, args, func(a []uint64) uint64 { return a[0] &^ (1 << 15) })
	case ir.OpFma:
		return c.lift(n, args, func(a []uint64) uint64 {
			return fromF(math.FMA(toF(a[0], ir.TF16), toF(a[1], ir.TF16), toF(a[2], ir.TF16)), ir.TF16)
		})
	}
	return c.lift(n, args, func(a []uint64) uint64 {
		var buf [4]float32
		o := buf[:len(a)]
		for i, v := range a {
			o[i] = f16(v)
		}
		r, _ := ir.RefFloat32(op, o...)
		return uf16(r)
	})
}

// probe runs f, taking a panic as false.
func probe(f func() bool) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return f()
}

func (c *compiler) vectorOp(e *ir.Call, args []ex, at *ir.Type) ex {
	offs := make([]int, len(args))
	evals := make([]func(*th), len(args))
	for i, a := range args {
		offs[i], evals[i] = c.agg(a)
	}
	pre := func(t *th) {
		for _, ev := range evals {
			ev(t)
		}
	}
	s := at.Scalar()
	m := args[0].n
	a := offs[0]
	b := a
	if len(offs) > 1 {
		b = offs[1]
	}
	switch e.Op {
	case ir.OpDot, ir.OpLength, ir.OpDistance, ir.OpNormalize:
		op := e.Op
		sum := func(t *th) float64 {
			var sum float64
			for i := range m {
				x, y := toF(t.r[a+i], s), toF(t.r[b+i], s)
				if op == ir.OpDistance {
					x, y = x-y, x-y
				} else if op != ir.OpDot {
					y = x
				}
				sum += x * y
			}
			return sum
		}
		switch op {
		case ir.OpDot:
			return scalarEx(func(t *th) uint64 { pre(t); return fromF(sum(t), s) })
		case ir.OpNormalize:
			return ex{n: m, v: func(t *th, d []uint64) {
				pre(t)
				l := math.Sqrt(sum(t))
				for i := range m {
					d[i] = fromF(toF(t.r[a+i], s)/l, s)
				}
			}}
		}
		return scalarEx(func(t *th) uint64 { pre(t); return fromF(math.Sqrt(sum(t)), s) })
	case ir.OpCross:
		return ex{n: 3, v: func(t *th, d []uint64) {
			pre(t)
			f := func(o, i int) float64 { return toF(t.r[o+i], s) }
			d[0] = fromF(f(a, 1)*f(b, 2)-f(a, 2)*f(b, 1), s)
			d[1] = fromF(f(a, 2)*f(b, 0)-f(a, 0)*f(b, 2), s)
			d[2] = fromF(f(a, 0)*f(b, 1)-f(a, 1)*f(b, 0), s)
		}}
	case ir.OpAny, ir.OpAll:
		all := e.Op == ir.OpAll
		return scalarEx(func(t *th) uint64 {
			pre(t)
			r := all
			for i := range m {
				if all {
					r = r && t.r[a+i] != 0
				} else {
					r = r || t.r[a+i] != 0
				}
			}
			return b2u(r)
		})
	}
	var f func(acc, v uint64) uint64
	switch e.Op {
	case ir.OpReduceSum:
		f = scalarOp(ir.Add, s, s)
	case ir.OpReduceProd:
		f = scalarOp(ir.Mul, s, s)
	case ir.OpReduceMin:
		lt := scalarOp(ir.Lt, s, s)
		f = func(acc, v uint64) uint64 {
			if lt(v, acc) != 0 {
				return v
			}
			return acc
		}
	default:
		gt := scalarOp(ir.Gt, s, s)
		f = func(acc, v uint64) uint64 {
			if gt(v, acc) != 0 {
				return v
			}
			return acc
		}
	}
	return scalarEx(func(t *th) uint64 {
		pre(t)
		acc := t.r[a]
		for i := 1; i < m; i++ {
			acc = f(acc, t.r[a+i])
		}
		return acc
	})
}

// subgroup compiles the subgroup operations for a subgroup of one thread.
func (c *compiler) subgroup(e *ir.Call) ex {
	switch e.Op {
	case ir.OpSubgroupElect:
		return scalarEx(func(*th) uint64 { return 1 })
	case ir.OpSubgroupBallot:
		x := c.expr(e.Args[0]).s
		return ex{n: 4, v: func(t *th, d []uint64) { d[0], d[1], d[2], d[3] = x(t)&1, 0, 0, 0 }}
	case ir.OpSubgroupExclusiveAdd:
		x := c.expr(e.Args[0])
		n := x.n
		if n == 1 {
			xs := x.s
			return scalarEx(func(t *th) uint64 { xs(t); return 0 })
		}
		o, eval := c.agg(x)
		_ = o
		return ex{n: n, v: func(t *th, d []uint64) { eval(t); clear(d[:n]) }}
	}
	// all, any, broadcast, broadcast_first, shuffle, add, mul, min, max,
	// inclusive_add: the thread's own value.
	x := c.expr(e.Args[0])
	if len(e.Args) > 1 {
		lane := c.expr(e.Args[1]).s
		if x.n == 1 {
			xs := x.s
			return scalarEx(func(t *th) uint64 { lane(t); return xs(t) })
		}
		xv := x.v
		return ex{n: x.n, v: func(t *th, d []uint64) { lane(t); xv(t, d) }}
	}
	return x
}

// atomic compiles an atomic read-modify-write of a buffer element or shared variable.
func (c *compiler) atomic(e *ir.Call) ex {
	t := e.Args[0].Type()
	pl := c.place(e.Args[0])
	if pl.buf != nil {
		pl.buf = c.raceBuf(e.Args[0], pl.buf, t.Size(), true, true)
	} else {
		pl.mem = c.raceMem(e.Args[0], pl.mem, 1, true, true)
	}
	vals := make([]sfn, len(e.Args)-1)
	for i, a := range e.Args[1:] {
		vals[i] = c.expr(a).s
	}
	f := rmw(e.Op, t)
	if e.Op == ir.OpAtomicCAS {
		cmp, val := vals[0], vals[1]
		if pl.buf != nil {
			addr := pl.buf
			if t.Size() == 4 {
				return scalarEx(func(th *th) uint64 {
					want, nw := uint32(cmp(th)), uint32(val(th))
					b, o := addr(th)
					p := (*uint32)(unsafe.Pointer(&b[o]))
					for {
						old := atomic.LoadUint32(p)
						if old != want || atomic.CompareAndSwapUint32(p, old, nw) {
							return uint64(old)
						}
					}
				})
			}
			return scalarEx(func(th *th) uint64 {
				want, nw := cmp(th), val(th)
				b, o := addr(th)
				p := (*uint64)(unsafe.Pointer(&b[o]))
				for {
					old := atomic.LoadUint64(p)
					if old != want || atomic.CompareAndSwapUint64(p, old, nw) {
						return old
					}
				}
			})
		}
		mem := pl.mem
		return scalarEx(func(th *th) uint64 {
			want, nw := cmp(th), val(th)
			m, o := mem(th)
			p := &m[o]
			for {
				old := atomic.LoadUint64(p)
				if old != want || atomic.CompareAndSwapUint64(p, old, nw) {
					return old
				}
			}
		})
	}
	val := vals[0]
	if pl.buf != nil {
		addr := pl.buf
		if t.Size() == 4 {
			if e.Op == ir.OpAtomicAdd && t.IsInteger() {
				return scalarEx(func(th *th) uint64 {
					v := uint32(val(th))
					b, o := addr(th)
					return uint64(atomic.AddUint32((*uint32)(unsafe.Pointer(&b[o])), v) - v)
				})
			}
			return scalarEx(func(th *th) uint64 {
				v := val(th)
				b, o := addr(th)
				p := (*uint32)(unsafe.Pointer(&b[o]))
				for {
					old := atomic.LoadUint32(p)
					if atomic.CompareAndSwapUint32(p, old, uint32(f(uint64(old), v))) {
						return uint64(old)
					}
				}
			})
		}
		return scalarEx(func(th *th) uint64 {
			v := val(th)
			b, o := addr(th)
			p := (*uint64)(unsafe.Pointer(&b[o]))
			for {
				old := atomic.LoadUint64(p)
				if atomic.CompareAndSwapUint64(p, old, f(old, v)) {
					return old
				}
			}
		})
	}
	mem := pl.mem
	return scalarEx(func(th *th) uint64 {
		v := val(th)
		m, o := mem(th)
		p := &m[o]
		for {
			old := atomic.LoadUint64(p)
			if atomic.CompareAndSwapUint64(p, old, f(old, v)) {
				return old
			}
		}
	})
}

// rmw is the new value of an atomic op on bits of t.
func rmw(op ir.Op, t *ir.Type) func(old, v uint64) uint64 {
	switch op {
	case ir.OpAtomicExchange, ir.OpAtomicCAS:
		return func(_, v uint64) uint64 { return v }
	case ir.OpAtomicAdd:
		return scalarOp(ir.Add, t, t)
	case ir.OpAtomicSub:
		return scalarOp(ir.Sub, t, t)
	case ir.OpAtomicAnd:
		return scalarOp(ir.And, t, t)
	case ir.OpAtomicOr:
		return scalarOp(ir.Or, t, t)
	case ir.OpAtomicXor:
		return scalarOp(ir.Xor, t, t)
	case ir.OpAtomicMin:
		lt := scalarOp(ir.Lt, t, t)
		return func(old, v uint64) uint64 {
			if lt(v, old) != 0 {
				return v
			}
			return old
		}
	}
	gt := scalarOp(ir.Gt, t, t)
	return func(old, v uint64) uint64 {
		if gt(v, old) != 0 {
			return v
		}
		return old
	}
}
