package programs

import (
	fe "github.com/lucent-gpu/lucent/frontend"
)

var (
	// hash is an integer hash (a callable with a value result).
	hash = fe.Callable("hash", func(k *fe.K, x fe.U32) fe.U32 {
		x = x.Xor(x.Shr(fe.U(16))).Mul(fe.U(0x7feb352d))
		x = x.Xor(x.Shr(fe.U(15))).Mul(fe.U(0x846ca68b))
		return x.Xor(x.Shr(fe.U(16)))
	})
	// accumulate adds v to *acc (a by-reference parameter) and calls hash.
	accumulate = fe.Callable("accumulate", func(k *fe.K, acc *fe.Local[fe.U32], v fe.U32) {
		acc.Set(acc.Get().Add(hash(k, v)))
	})
	// clampedSquare uses early returns.
	clampedSquare = fe.Callable("clampedSquare", func(k *fe.K, x fe.I32) fe.I32 {
		k.If(x.Lt(fe.I(-100)), func() { k.ReturnValue(fe.I(-1)) })
		k.If(x.Gt(fe.I(100)), func() { k.ReturnValue(fe.I(10000)) })
		return x.Mul(x)
	})
)

// Callables sums hash(i*j) over j < 4 through a by-reference accumulator,
// then adds clampedSquare of the signed input.
func Callables() (*fe.Function, error) {
	return fe.Kernel1D(64, func(k *fe.K, in fe.Buf[fe.I32], out fe.Buf[fe.U32]) {
		i := k.DispatchID().X()
		acc := fe.NewVar(k, fe.U(0))
		fe.Range(k, fe.U(0), fe.U(4), func(j fe.U32) { accumulate(k, acc, i.Mul(j)) })
		sq := clampedSquare(k, in.Read(i))
		out.Write(i, acc.Get().Add(fe.Bitcast[uint32](sq)))
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
func Control() (*fe.Function, error) {
	return fe.Kernel1D(32, func(k *fe.K, in, out fe.Buf[fe.I32]) {
		i := k.DispatchID().X()
		x := in.Read(i)
		r := fe.NewVar(k, fe.I(0))
		k.Switch(x.Rem(fe.I(4))).
			Case(func() { r.Set(fe.I(10)) }, 0).
			Case(func() {
				k.If(x.Gt(fe.I(50)), func() { k.Break() })
				r.Set(fe.I(20))
			}, 1, -1).
			Default(func() { r.Set(x.Neg()) })
		// sum of odd j below |x| % 16, stopping past 9
		j := fe.NewVar(k, fe.I(0))
		lim := fe.Abs(x).Rem(fe.I(16))
		k.Loop(func() {
			jj := j.Get()
			k.If(jj.Ge(lim), k.Break)
			j.Set(jj.Add(fe.I(1)))
			k.If(jj.And(fe.I(1)).Eq(fe.I(0)), k.Continue)
			k.If(jj.Gt(fe.I(9)), k.Break)
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
func All() map[string]func() (*fe.Function, error) {
	return map[string]func() (*fe.Function, error){
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
func Blur() (*fe.Function, error) {
	return fe.Kernel2D(8, 8, func(k *fe.K, src, dst, sampled fe.Tex2D) {
		x, y := k.DispatchID().X(), k.DispatchID().Y()
		size := src.Size()
		sum := fe.NewVar(k, fe.V4(fe.F(0), fe.F(0), fe.F(0), fe.F(0)))
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				sx := fe.Convert[uint32](fe.Clamp(fe.Bitcast[int32](x).Add(fe.I(int32(dx))), fe.I(0), fe.Bitcast[int32](size.X()).Sub(fe.I(1))))
				sy := fe.Convert[uint32](fe.Clamp(fe.Bitcast[int32](y).Add(fe.I(int32(dy))), fe.I(0), fe.Bitcast[int32](size.Y()).Sub(fe.I(1))))
				sum.Set(sum.Get().Add(src.Read(fe.V2(sx, sy))))
			}
		}
		dst.Write(fe.V2(x, y), sum.Get().Scale(fe.F(1.0/9)))
		uv := fe.V2(fe.Convert[float32](x).Add(fe.F(1)), fe.Convert[float32](y).Add(fe.F(1))).
			Mul(fe.V2(fe.F(1).Div(fe.Convert[float32](size.X())), fe.F(1).Div(fe.Convert[float32](size.Y()))))
		sampled.Write(fe.V2(x, y), src.Sample(uv))
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
func BindlessGather() (*fe.Function, error) {
	return fe.Kernel1D(32, func(k *fe.K, arr fe.BindlessArray, slots, idx, lens fe.Buf[fe.U32]) {
		i := k.DispatchID().X()
		s := slots.Read(i)
		v := fe.ReadBuffer[fe.F32](arr, s, idx.Read(i))
		fe.WriteBuffer(arr, fe.U(0), i, v.Mul(fe.F(2)))
		lens.Write(i, fe.BufferLen[fe.F32](arr, s))
	})
}

// Misc covers constant tables, early kernel returns, subgroup election and
// broadcast-first: out[i] = primes[i%8] for even i, nothing (returned early)
// for i%4 == 3, and per subgroup the first lane's value added to one elected
// lane's slot in counts.
func Misc() (*fe.Function, error) {
	primes := fe.ConstTable[uint32](2, 3, 5, 7, 11, 13, 17, 19)
	return fe.Kernel1D(32, func(k *fe.K, out, first, elected fe.Buf[fe.U32]) {
		i := k.DispatchID().X()
		first.Write(i, fe.SubgroupBroadcastFirst(i.Add(fe.U(100))))
		k.If(fe.SubgroupElect(), func() { elected.AtomicAdd(fe.U(0), fe.U(1)) })
		k.If(i.Rem(fe.U(4)).Eq(fe.U(3)), k.Return)
		out.Write(i, primes.At(i.Rem(fe.U(8))))
	})
}

// Tonemap reads an RGBA32F texture, applies x/(1+x) per channel and writes
// an RGBA8 (unorm) texture.
func Tonemap() (*fe.Function, error) {
	return fe.Kernel2D(8, 8, func(k *fe.K, src fe.Tex2D, dst fe.Tex2DRGBA8) {
		xy := k.DispatchID().XY()
		c := src.Read(xy)
		one := fe.V4(fe.F(1), fe.F(1), fe.F(1), fe.F(1))
		dst.Write(xy, fe.V4(c.X().Div(fe.F(1).Add(c.X())), c.Y().Div(fe.F(1).Add(c.Y())), c.Z().Div(fe.F(1).Add(c.Z())), fe.F(1)).Mul(one))
	})
}
