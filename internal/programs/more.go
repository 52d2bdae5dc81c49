package programs

import (
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

var (
	// hash is an integer hash (a callable with a value result).
	hash = dsl.Callable("hash", func(k *dsl.K, x dsl.U32) dsl.U32 {
		x = x.Xor(x.Shr(dsl.U(16))).Mul(dsl.U(0x7feb352d))
		x = x.Xor(x.Shr(dsl.U(15))).Mul(dsl.U(0x846ca68b))
		return x.Xor(x.Shr(dsl.U(16)))
	})
	// accumulate adds v to *acc (a by-reference parameter) and calls hash.
	accumulate = dsl.Callable("accumulate", func(k *dsl.K, acc *dsl.Local[dsl.U32], v dsl.U32) {
		acc.Set(acc.Get().Add(hash(k, v)))
	})
	// clampedSquare uses early returns.
	clampedSquare = dsl.Callable("clampedSquare", func(k *dsl.K, x dsl.I32) dsl.I32 {
		k.If(x.Lt(dsl.I(-100)), func() { k.ReturnValue(dsl.I(-1)) })
		k.If(x.Gt(dsl.I(100)), func() { k.ReturnValue(dsl.I(10000)) })
		return x.Mul(x)
	})
)

// Callables sums hash(i*j) over j < 4 through a by-reference accumulator,
// then adds clampedSquare of the signed input.
func Callables() (*ir.Function, error) {
	return dsl.Kernel1D(64, func(k *dsl.K, in dsl.Buf[dsl.I32], out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		acc := dsl.NewVar(k, dsl.U(0))
		dsl.Range(k, dsl.U(0), dsl.U(4), func(j dsl.U32) { accumulate(k, acc, i.Mul(j)) })
		sq := clampedSquare(k, in.Read(i))
		out.Write(i, acc.Get().Add(dsl.Bitcast[uint32](sq)))
	})
}

func hashRef(x uint32) uint32 {
	x = (x ^ x>>16) * 0x7feb352d
	x = (x ^ x>>15) * 0x846ca68b
	return x ^ x>>16
}

// CallablesRef is Callables on the CPU.
func CallablesRef(in []int32) []uint32 {
	out := make([]uint32, len(in))
	for i := range out {
		var acc uint32
		for j := range uint32(4) {
			acc += hashRef(uint32(i) * j)
		}
		x := in[i]
		sq := x * x
		if x < -100 {
			sq = -1
		} else if x > 100 {
			sq = 10000
		}
		out[i] = acc + uint32(sq)
	}
	return out
}

// Control exercises switch (with default and break), loop with continue
// and break, and nested ifs: out[i] = f(in[i]).
func Control() (*ir.Function, error) {
	return dsl.Kernel1D(32, func(k *dsl.K, in, out dsl.Buf[dsl.I32]) {
		i := k.DispatchID().X()
		x := in.Read(i)
		r := dsl.NewVar(k, dsl.I(0))
		k.Switch(x.Rem(dsl.I(4))).
			Case(func() { r.Set(dsl.I(10)) }, 0).
			Case(func() {
				k.If(x.Gt(dsl.I(50)), func() { k.Break() })
				r.Set(dsl.I(20))
			}, 1, -1).
			Default(func() { r.Set(x.Neg()) })
		// sum of odd j below |x| % 16, stopping past 9
		j := dsl.NewVar(k, dsl.I(0))
		lim := dsl.Abs(x).Rem(dsl.I(16))
		k.Loop(func() {
			jj := j.Get()
			k.If(jj.Ge(lim), k.Break)
			j.Set(jj.Add(dsl.I(1)))
			k.If(jj.And(dsl.I(1)).Eq(dsl.I(0)), k.Continue)
			k.If(jj.Gt(dsl.I(9)), k.Break)
			r.Set(r.Get().Add(jj))
		})
		out.Write(i, r.Get())
	})
}

// ControlRef is Control on the CPU.
func ControlRef(in []int32) []int32 {
	out := make([]int32, len(in))
	for i, x := range in {
		var r int32
		switch x % 4 {
		case 0:
			r = 10
		case 1, -1:
			if x > 50 {
				break
			}
			r = 20
		default:
			r = -x
		}
		ax := x
		if ax < 0 {
			ax = -ax
		}
		lim := ax % 16
		for j := int32(0); j < lim; j++ {
			if j&1 == 0 {
				continue
			}
			if j > 9 {
				break
			}
			r += j
		}
		out[i] = r
	}
	return out
}

// All lists the corpus by name.
func All() map[string]func() (*ir.Function, error) {
	return map[string]func() (*ir.Function, error){
		"saxpy": Saxpy, "mandelbrot": Mandelbrot, "reduce": Reduce, "scan": Scan, "histogram": Histogram,
		"matmul": MatMul, "nbody": NBody, "life": Life, "particles": Particles, "callables": Callables,
		"control": Control, "atomics-i32": Atomics[int32], "atomics-u64": Atomics[uint64], "swap": AtomicSwap,
		"subgroups": Subgroups, "blur": Blur, "vector": VectorOps, "bindless": BindlessGather, "misc": Misc, "saxpy-address": SaxpyAddress, "float-atomics-shared": FloatAtomicsShared, "tonemap": Tonemap,
		"dispatch-info": DispatchInfo,
	}
}

// Blur is a 3×3 box blur of a 2D texture into out, reading texels, plus a
// second output sampled (bilinear, clamped) at the pixel centres shifted by
// half a texel, which averages 2×2 texels.
func Blur() (*ir.Function, error) {
	return dsl.Kernel2D(8, 8, func(k *dsl.K, src, dst, sampled dsl.Tex2D) {
		x, y := k.DispatchID().X(), k.DispatchID().Y()
		size := src.Size()
		sum := dsl.NewVar(k, dsl.V4(dsl.F(0), dsl.F(0), dsl.F(0), dsl.F(0)))
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				sx := dsl.Convert[uint32](dsl.Clamp(dsl.Bitcast[int32](x).Add(dsl.I(int32(dx))), dsl.I(0), dsl.Bitcast[int32](size.X()).Sub(dsl.I(1))))
				sy := dsl.Convert[uint32](dsl.Clamp(dsl.Bitcast[int32](y).Add(dsl.I(int32(dy))), dsl.I(0), dsl.Bitcast[int32](size.Y()).Sub(dsl.I(1))))
				sum.Set(sum.Get().Add(src.Read(dsl.V2(sx, sy))))
			}
		}
		dst.Write(dsl.V2(x, y), sum.Get().Scale(dsl.F(1.0/9)))
		uv := dsl.V2(dsl.Convert[float32](x).Add(dsl.F(1)), dsl.Convert[float32](y).Add(dsl.F(1))).
			Mul(dsl.V2(dsl.F(1).Div(dsl.Convert[float32](size.X())), dsl.F(1).Div(dsl.Convert[float32](size.Y()))))
		sampled.Write(dsl.V2(x, y), src.Sample(uv))
	})
}

// BlurRef is Blur on the CPU for a w×h RGBA float image.
func BlurRef(w, h int, src [][4]float32) (box, sampled [][4]float32) {
	box, sampled = make([][4]float32, w*h), make([][4]float32, w*h)
	at := func(x, y int) [4]float32 {
		return src[min(max(y, 0), h-1)*w+min(max(x, 0), w-1)]
	}
	for y := range h {
		for x := range w {
			var s, t [4]float32
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					p := at(x+dx, y+dy)
					for c := range 4 {
						s[c] += p[c]
					}
				}
			}
			// uv at the corner between texels (x, y) and (x+1, y+1): equal weights.
			for dy := 0; dy <= 1; dy++ {
				for dx := 0; dx <= 1; dx++ {
					p := at(x+dx, y+dy)
					for c := range 4 {
						t[c] += p[c] / 4
					}
				}
			}
			for c := range 4 {
				s[c] /= 9
			}
			box[y*w+x], sampled[y*w+x] = s, t
		}
	}
	return box, sampled
}

// BindlessGather reads, for each i, element idx[i] of the buffer in slot
// slots[i] of a bindless array of f32 buffers, writes it times 2 into the
// buffer in slot 0 at i, and records each source buffer's length.
func BindlessGather() (*ir.Function, error) {
	return dsl.Kernel1D(32, func(k *dsl.K, arr dsl.BindlessArray, slots, idx, lens dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		s := slots.Read(i)
		v := dsl.ReadBuffer[dsl.F32](arr, s, idx.Read(i))
		dsl.WriteBuffer(arr, dsl.U(0), i, v.Mul(dsl.F(2)))
		lens.Write(i, dsl.BufferLen[dsl.F32](arr, s))
	})
}

// Misc covers constant tables, early kernel returns, subgroup election and
// broadcast-first: out[i] = primes[i%8] for even i, nothing (returned early)
// for i%4 == 3, and per subgroup the first lane's value added to one elected
// lane's slot in counts.
func Misc() (*ir.Function, error) {
	primes := dsl.ConstTable[uint32](2, 3, 5, 7, 11, 13, 17, 19)
	return dsl.Kernel1D(32, func(k *dsl.K, out, first, elected dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		first.Write(i, dsl.SubgroupBroadcastFirst(i.Add(dsl.U(100))))
		k.If(dsl.SubgroupElect(), func() { elected.AtomicAdd(dsl.U(0), dsl.U(1)) })
		k.If(i.Rem(dsl.U(4)).Eq(dsl.U(3)), k.Return)
		out.Write(i, primes.At(i.Rem(dsl.U(8))))
	})
}

// Tonemap reads an RGBA32F texture, applies x/(1+x) per channel and writes
// an RGBA8 (unorm) texture.
func Tonemap() (*ir.Function, error) {
	return dsl.Kernel2D(8, 8, func(k *dsl.K, src dsl.Tex2D, dst dsl.Tex2DRGBA8) {
		xy := k.DispatchID().XY()
		c := src.Read(xy)
		one := dsl.V4(dsl.F(1), dsl.F(1), dsl.F(1), dsl.F(1))
		dst.Write(xy, dsl.V4(c.X().Div(dsl.F(1).Add(c.X())), c.Y().Div(dsl.F(1).Add(c.Y())), c.Z().Div(dsl.F(1).Add(c.Z())), dsl.F(1)).Mul(one))
	})
}
