package programs

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// RandomExprs is the number of expressions a RandomInt kernel evaluates.
const RandomExprs = 12

// RandomInt builds a kernel of RandomExprs random integer expression trees
// over x = a[i] and y = b[i] (u32 and i32 arithmetic, bit operations,
// shifts of any count, comparisons and selects, built-ins, casts), writing
// expression j to out[i*RandomExprs+j], together with its CPU evaluation:
// the kernel and the reference are built from the same random choices, so
// the device is compared against Go's semantics (the oracle). About a third
// of the expressions are evaluated and stored by a helper that takes the
// three buffers, so Specialize's clones of random trees are diffed too.
func RandomInt(seed uint64) (*ir.Function, func(x, y uint32) []uint32, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	type node struct {
		v    dsl.U32
		eval func(x, y uint32) uint32
	}
	var x, y dsl.U32 // set while tracing
	var gen func(depth int) node
	gen = func(depth int) node {
		if depth == 0 || r.IntN(5) == 0 {
			switch r.IntN(3) {
			case 0:
				return node{x, func(x, _ uint32) uint32 { return x }}
			case 1:
				return node{y, func(_, y uint32) uint32 { return y }}
			}
			c := []uint32{0, 1, 7, 31, 32, 0x80000000, 0xffffffff, r.Uint32()}[r.IntN(8)]
			return node{dsl.U(c), func(_, _ uint32) uint32 { return c }}
		}
		a, b := gen(depth-1), gen(depth-1)
		ea, eb := a.eval, b.eval
		sa := func(v dsl.U32) dsl.I32 { return dsl.Bitcast[int32](v) }
		us := func(v dsl.I32) dsl.U32 { return dsl.Bitcast[uint32](v) }
		switch r.IntN(16) {
		case 0:
			return node{a.v.Add(b.v), func(x, y uint32) uint32 { return ea(x, y) + eb(x, y) }}
		case 1:
			return node{a.v.Sub(b.v), func(x, y uint32) uint32 { return ea(x, y) - eb(x, y) }}
		case 2:
			return node{a.v.Mul(b.v), func(x, y uint32) uint32 { return ea(x, y) * eb(x, y) }}
		case 3:
			return node{a.v.Xor(b.v).And(a.v.Or(b.v)), func(x, y uint32) uint32 {
				p, q := ea(x, y), eb(x, y)
				return (p ^ q) & (p | q)
			}}
		case 4:
			return node{a.v.Shl(b.v), func(x, y uint32) uint32 { return ea(x, y) << eb(x, y) }}
		case 5:
			return node{a.v.Shr(b.v), func(x, y uint32) uint32 { return ea(x, y) >> eb(x, y) }}
		case 6:
			return node{us(sa(a.v).Shr(b.v)), func(x, y uint32) uint32 { return uint32(int32(ea(x, y)) >> eb(x, y)) }}
		case 7:
			return node{a.v.Div(b.v.Or(dsl.U(1))), func(x, y uint32) uint32 { return ea(x, y) / (eb(x, y) | 1) }}
		case 8:
			return node{a.v.Rem(b.v.Or(dsl.U(1))), func(x, y uint32) uint32 { return ea(x, y) % (eb(x, y) | 1) }}
		case 9:
			// signed remainder by a positive divisor (no overflow case)
			return node{us(sa(a.v).Rem(sa(b.v.And(dsl.U(0x7fff)).Or(dsl.U(1))))), func(x, y uint32) uint32 {
				return uint32(int32(ea(x, y)) % int32(eb(x, y)&0x7fff|1))
			}}
		case 10:
			return node{dsl.Select(sa(a.v).Lt(sa(b.v)), a.v, b.v.BitNot()), func(x, y uint32) uint32 {
				if int32(ea(x, y)) < int32(eb(x, y)) {
					return ea(x, y)
				}
				return ^eb(x, y)
			}}
		case 11:
			return node{dsl.Max(a.v, b.v).Add(us(dsl.Min(sa(a.v), sa(b.v)))), func(x, y uint32) uint32 {
				return max(ea(x, y), eb(x, y)) + uint32(min(int32(ea(x, y)), int32(eb(x, y))))
			}}
		case 12:
			return node{dsl.PopCount(a.v).Add(dsl.Clz(b.v)), func(x, y uint32) uint32 {
				return uint32(bits.OnesCount32(ea(x, y)) + bits.LeadingZeros32(eb(x, y)))
			}}
		case 13:
			return node{dsl.Ctz(a.v).Xor(dsl.BitReverse(b.v)), func(x, y uint32) uint32 {
				return uint32(bits.TrailingZeros32(ea(x, y))) ^ bits.Reverse32(eb(x, y))
			}}
		case 14:
			// widen to 64 bits and back: high half of the product
			return node{dsl.Convert[uint32](dsl.Convert[uint64](a.v).Mul(dsl.Convert[uint64](b.v)).Shr(dsl.U(32))), func(x, y uint32) uint32 {
				return uint32(uint64(ea(x, y)) * uint64(eb(x, y)) >> 32)
			}}
		}
		// narrow through int8 and back (sign extension)
		return node{us(dsl.Convert[int32](dsl.Convert[int8](a.v))).Add(b.v), func(x, y uint32) uint32 {
			return uint32(int32(int8(ea(x, y)))) + eb(x, y)
		}}
	}
	var evals []func(x, y uint32) uint32
	f, err := dsl.Kernel1D(64, func(k *dsl.K, a, b, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		kx, ky := a.Read(i), b.Read(i)
		for j := range RandomExprs {
			x, y = kx, ky
			o := i.Mul(dsl.U(RandomExprs)).Add(dsl.U(uint32(j)))
			if r.IntN(3) == 0 {
				// Through a helper that takes the buffers (a template
				// Specialize clones per call), reading x and y itself.
				var eval func(x, y uint32) uint32
				h := dsl.Callable(fmt.Sprintf("expr%d", j), func(k *dsl.K, a, b, out dsl.Buf[dsl.U32], i, o dsl.U32) {
					x, y = a.Read(i), b.Read(i)
					n := gen(4)
					if eval == nil {
						eval = n.eval
					}
					out.Write(o, n.v)
				})
				h(k, a, b, out, i, o)
				evals = append(evals, eval)
				continue
			}
			n := gen(4)
			evals = append(evals, n.eval)
			out.Write(o, n.v)
		}
	})
	return f, func(x, y uint32) []uint32 {
		out := make([]uint32, len(evals))
		for j, e := range evals {
			out[j] = e(x, y)
		}
		return out
	}, err
}

// RandomFloat builds a kernel of RandomExprs random float32 expression
// trees over x = a[i] and y = b[i], using only operations that keep
// positive operands positive and well conditioned (add, multiply, divide by
// 1+v, square root, min, max, select on a comparison, lerp, fma, floor+1),
// so results can be compared with a relative tolerance; expression j goes
// to out[i*RandomExprs+j]. Run it with positive inputs.
func RandomFloat(seed uint64) (*ir.Function, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	var x, y dsl.F32
	var gen func(depth int) dsl.F32
	gen = func(depth int) dsl.F32 {
		if depth == 0 || r.IntN(5) == 0 {
			switch r.IntN(3) {
			case 0:
				return x
			case 1:
				return y
			}
			return dsl.F(0.25 + r.Float32()*4)
		}
		a, b := gen(depth-1), gen(depth-1)
		switch r.IntN(10) {
		case 0:
			return a.Add(b)
		case 1:
			return a.Mul(b)
		case 2:
			return a.Div(dsl.F(1).Add(b))
		case 3:
			return dsl.Sqrt(a)
		case 4:
			return dsl.Min(a, b)
		case 5:
			return dsl.Max(a, b)
		case 6:
			return dsl.Select(a.Lt(b), a.Add(dsl.F(1)), b)
		case 7:
			return dsl.Lerp(a, b, dsl.F(0.25))
		case 8:
			return dsl.Fma(a, dsl.F(0.5), b)
		}
		return dsl.Floor(a).Add(dsl.F(1))
	}
	return dsl.Kernel1D(64, func(k *dsl.K, a, b, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		x, y = a.Read(i), b.Read(i)
		for j := range RandomExprs {
			out.Write(i.Mul(dsl.U(RandomExprs)).Add(dsl.U(uint32(j))), gen(5))
		}
	})
}
