package cpu

import (
	"math"
	"sync/atomic"
	"unsafe"

	fe "github.com/lucent-gpu/lucent/frontend"
)

func (c *compiler) builtin(e *fe.Call) ex {
	switch {
	case e.Op >= fe.OpAtomicExchange && e.Op <= fe.OpAtomicMax:
		return c.atomic(e)
	case e.Op == fe.OpBarrier:
		return ex{v: func(t *th, _ []uint64) {
			if !t.yield(false) {
				panic(errAbort) // the worker stopped this coroutine
			}
		}}
	case e.Op == fe.OpBufferSize:
		v := e.Args[0].(*fe.Ref).Var
		k, es := c.params[v], uint64(v.Type.Elem().Size())
		return scalarEx(func(t *th) uint64 { return uint64(uint32(uint64(len(t.run.bufs[k])) / es)) })
	case e.Op >= fe.OpSubgroupElect && e.Op <= fe.OpSubgroupExclusiveAdd:
		return c.subgroup(e)
	case e.Op >= fe.OpTextureRead && e.Op <= fe.OpTextureSample:
		return c.textureOp(e)
	case e.Op >= fe.OpBindlessRead && e.Op <= fe.OpBindlessSize,
		e.Op >= fe.OpBindlessTexRead && e.Op <= fe.OpBindlessTexSize:
		return c.bindlessOp(e)
	}
	switch e.Op {
	case fe.OpTranspose, fe.OpDeterminant, fe.OpInverse, fe.OpOuterProduct:
		return c.matBuiltin(e)
	case fe.OpReflect:
		return c.reflect(e)
	}
	args := make([]ex, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.expr(a)
	}
	var at *fe.Type
	if len(e.Args) > 0 {
		at = e.Args[0].Type()
		if at.Kind() == fe.KindMatrix {
			refuse(unsupported("built-in %s on %s (matrix arithmetic)", e.Op, at))
		}
		checkFloat(at, "built-in "+e.Op.String())
	}
	n := fe.Leaves(e.T)
	switch e.Op {
	case fe.OpSelect:
		return c.lift(n, args, func(a []uint64) uint64 {
			if a[0] != 0 {
				return a[1]
			}
			return a[2]
		})
	case fe.OpIsNaN, fe.OpIsInf:
		s := at.Scalar()
		if e.Op == fe.OpIsNaN {
			return c.lift(n, args, func(a []uint64) uint64 { f := toF(a[0], s); return b2u(f != f) })
		}
		return c.lift(n, args, func(a []uint64) uint64 { return b2u(math.IsInf(toF(a[0], s), 0)) })
	case fe.OpDot, fe.OpLength, fe.OpDistance, fe.OpNormalize, fe.OpCross, fe.OpAny, fe.OpAll,
		fe.OpReduceSum, fe.OpReduceProd, fe.OpReduceMin, fe.OpReduceMax:
		return c.vectorOp(e, args, at)
	}
	s := at.Scalar()
	ops := make([]float32, len(args))
	iops := make([]uint32, len(args))
	if s == fe.TF32 {
		if !probe(func() bool { _, ok := fe.RefFloat32(e.Op, ops...); return ok }) {
			refuse(unsupported("built-in %s on %s", e.Op, s))
		}
		op := e.Op
		if len(args) == 1 && n == 1 {
			x := args[0].s
			switch op {
			case fe.OpSqrt:
				return scalarEx(func(t *th) uint64 { return uf32(float32(math.Sqrt(float64(f32(x(t)))))) })
			case fe.OpAbs:
				return scalarEx(func(t *th) uint64 { return x(t) &^ (1 << 31) })
			}
		}
		return c.lift(n, args, func(a []uint64) uint64 {
			var buf [4]float32
			o := buf[:len(a)]
			for i, v := range a {
				o[i] = f32(v)
			}
			r, _ := fe.RefFloat32(op, o...)
			return uf32(r)
		})
	}
	if s.Bits() == 32 && s.IsInteger() {
		signed := s.Kind() == fe.KindInt
		if !probe(func() bool { _, ok := fe.RefInt(e.Op, signed, iops...); return ok }) {
			refuse(unsupported("built-in %s on %s", e.Op, s))
		}
		op := e.Op
		return c.lift(n, args, func(a []uint64) uint64 {
			var buf [4]uint32
			o := buf[:len(a)]
			for i, v := range a {
				o[i] = uint32(v)
			}
			r, _ := fe.RefInt(op, signed, o...)
			return uint64(r)
		})
	}
	refuse(unsupported("built-in %s on %s", e.Op, s))
	return ex{}
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

func (c *compiler) vectorOp(e *fe.Call, args []ex, at *fe.Type) ex {
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
	case fe.OpDot, fe.OpLength, fe.OpDistance, fe.OpNormalize:
		op := e.Op
		sum := func(t *th) float64 {
			var sum float64
			for i := range m {
				x, y := toF(t.r[a+i], s), toF(t.r[b+i], s)
				if op == fe.OpDistance {
					x, y = x-y, x-y
				} else if op != fe.OpDot {
					y = x
				}
				sum += x * y
			}
			return sum
		}
		switch op {
		case fe.OpDot:
			return scalarEx(func(t *th) uint64 { pre(t); return fromF(sum(t), s) })
		case fe.OpNormalize:
			return ex{n: m, v: func(t *th, d []uint64) {
				pre(t)
				l := math.Sqrt(sum(t))
				for i := range m {
					d[i] = fromF(toF(t.r[a+i], s)/l, s)
				}
			}}
		}
		return scalarEx(func(t *th) uint64 { pre(t); return fromF(math.Sqrt(sum(t)), s) })
	case fe.OpCross:
		return ex{n: 3, v: func(t *th, d []uint64) {
			pre(t)
			f := func(o, i int) float64 { return toF(t.r[o+i], s) }
			d[0] = fromF(f(a, 1)*f(b, 2)-f(a, 2)*f(b, 1), s)
			d[1] = fromF(f(a, 2)*f(b, 0)-f(a, 0)*f(b, 2), s)
			d[2] = fromF(f(a, 0)*f(b, 1)-f(a, 1)*f(b, 0), s)
		}}
	case fe.OpAny, fe.OpAll:
		all := e.Op == fe.OpAll
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
	case fe.OpReduceSum:
		f = scalarOp(fe.Add, s, s)
	case fe.OpReduceProd:
		f = scalarOp(fe.Mul, s, s)
	case fe.OpReduceMin:
		lt := scalarOp(fe.Lt, s, s)
		f = func(acc, v uint64) uint64 {
			if lt(v, acc) != 0 {
				return v
			}
			return acc
		}
	default:
		gt := scalarOp(fe.Gt, s, s)
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
func (c *compiler) subgroup(e *fe.Call) ex {
	switch e.Op {
	case fe.OpSubgroupElect:
		return scalarEx(func(*th) uint64 { return 1 })
	case fe.OpSubgroupBallot:
		x := c.expr(e.Args[0]).s
		return ex{n: 4, v: func(t *th, d []uint64) { d[0], d[1], d[2], d[3] = x(t)&1, 0, 0, 0 }}
	case fe.OpSubgroupExclusiveAdd:
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
func (c *compiler) atomic(e *fe.Call) ex {
	t := e.Args[0].Type()
	pl := c.place(e.Args[0])
	vals := make([]sfn, len(e.Args)-1)
	for i, a := range e.Args[1:] {
		vals[i] = c.expr(a).s
	}
	f := rmw(e.Op, t)
	if e.Op == fe.OpAtomicCAS {
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
			if e.Op == fe.OpAtomicAdd && t.IsInteger() {
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
func rmw(op fe.Op, t *fe.Type) func(old, v uint64) uint64 {
	switch op {
	case fe.OpAtomicExchange, fe.OpAtomicCAS:
		return func(_, v uint64) uint64 { return v }
	case fe.OpAtomicAdd:
		return scalarOp(fe.Add, t, t)
	case fe.OpAtomicSub:
		return scalarOp(fe.Sub, t, t)
	case fe.OpAtomicAnd:
		return scalarOp(fe.And, t, t)
	case fe.OpAtomicOr:
		return scalarOp(fe.Or, t, t)
	case fe.OpAtomicXor:
		return scalarOp(fe.Xor, t, t)
	case fe.OpAtomicMin:
		lt := scalarOp(fe.Lt, t, t)
		return func(old, v uint64) uint64 {
			if lt(v, old) != 0 {
				return v
			}
			return old
		}
	}
	gt := scalarOp(fe.Gt, t, t)
	return func(old, v uint64) uint64 {
		if gt(v, old) != 0 {
			return v
		}
		return old
	}
}
