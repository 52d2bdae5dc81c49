package programs

import (
	"math"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Saxpy computes y = a*x + y.
func Saxpy() (*ir.Function, error) {
	return dsl.Kernel1D(256, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		y.Write(i, a.Mul(x.Read(i)).Add(y.Read(i)))
	}, "a", "x", "y")
}

// SaxpyRef is Saxpy on the CPU.
func SaxpyRef(a float32, x, y []float32) {
	for i := range y {
		y[i] = a*x[i] + y[i]
	}
}

// MandelbrotMaxIter bounds the iteration count of Mandelbrot.
const MandelbrotMaxIter = 256

// Mandelbrot writes, per pixel of a w×h image over [-2,1]×[-1.5,1.5], the
// iteration at which z escapes |z| > 2 (MandelbrotMaxIter if never).
func Mandelbrot() (*ir.Function, error) {
	return dsl.Kernel2D(16, 16, func(k *dsl.K, w, h dsl.U32, out dsl.Buf[dsl.U32]) {
		id := k.DispatchID()
		px, py := id.X(), id.Y()
		cx := dsl.Convert[float32](px).Div(dsl.Convert[float32](w)).Mul(dsl.F(3)).Sub(dsl.F(2))
		cy := dsl.Convert[float32](py).Div(dsl.Convert[float32](h)).Mul(dsl.F(3)).Sub(dsl.F(1.5))
		zx, zy := dsl.NewVar(k, dsl.F(0)), dsl.NewVar(k, dsl.F(0))
		n := dsl.NewVar(k, dsl.U(MandelbrotMaxIter))
		dsl.Range(k, dsl.U(0), dsl.U(MandelbrotMaxIter), func(i dsl.U32) {
			x, y := zx.Get(), zy.Get()
			k.If(x.Mul(x).Add(y.Mul(y)).Gt(dsl.F(4)), func() {
				n.Set(i)
				k.Break()
			})
			zx.Set(x.Mul(x).Sub(y.Mul(y)).Add(cx))
			zy.Set(dsl.F(2).Mul(x).Mul(y).Add(cy))
		})
		out.Write(py.Mul(w).Add(px), n.Get())
	})
}

// MandelbrotRef is Mandelbrot on the CPU, with float32 arithmetic.
func MandelbrotRef(w, h uint32) []uint32 {
	out := make([]uint32, w*h)
	for py := range h {
		for px := range w {
			cx := float32(px)/float32(w)*3 - 2
			cy := float32(py)/float32(h)*3 - 1.5
			var zx, zy float32
			n := uint32(MandelbrotMaxIter)
			for i := range uint32(MandelbrotMaxIter) {
				if zx*zx+zy*zy > 4 {
					n = i
					break
				}
				zx, zy = zx*zx-zy*zy+cx, 2*zx*zy+cy
			}
			out[py*w+px] = n
		}
	}
	return out
}

// ReduceBlock is the block size of Reduce and Scan.
const ReduceBlock = 256

// Reduce sums each block of ReduceBlock elements of in into
// partial[block] with a shared-memory tree and barriers.
func Reduce() (*ir.Function, error) {
	return dsl.Kernel1D(ReduceBlock, func(k *dsl.K, in, partial dsl.Buf[dsl.U32]) {
		s := dsl.NewShared[dsl.U32](k, ReduceBlock)
		tid := k.ThreadID().X()
		s.Write(tid, in.Read(k.DispatchID().X()))
		k.Barrier()
		stride := dsl.NewVar(k, dsl.U(ReduceBlock/2))
		k.While(func() dsl.Bool { return stride.Get().Gt(dsl.U(0)) }, func() {
			st := stride.Get()
			k.If(tid.Lt(st), func() {
				s.Write(tid, s.Read(tid).Add(s.Read(tid.Add(st))))
			})
			k.Barrier()
			stride.Set(st.Shr(dsl.U(1)))
		})
		k.If(tid.Eq(dsl.U(0)), func() { partial.Write(k.BlockID().X(), s.Read(dsl.U(0))) })
	})
}

// ReduceRef is Reduce on the CPU (wrapping uint32 sums).
func ReduceRef(in []uint32) []uint32 {
	out := make([]uint32, (len(in)+ReduceBlock-1)/ReduceBlock)
	for i, v := range in {
		out[i/ReduceBlock] += v
	}
	return out
}

// Scan is an inclusive prefix sum within each block of ReduceBlock
// elements (Hillis–Steele in shared memory, double-buffered).
func Scan() (*ir.Function, error) {
	return dsl.Kernel1D(ReduceBlock, func(k *dsl.K, in, out dsl.Buf[dsl.F32]) {
		a := dsl.NewShared[dsl.F32](k, 2*ReduceBlock)
		tid := k.ThreadID().X()
		gid := k.DispatchID().X()
		a.Write(tid, in.Read(gid))
		k.Barrier()
		src := dsl.NewVar(k, dsl.U(0))
		dsl.Range(k, dsl.U(0), dsl.U(8), func(step dsl.U32) { // log2(ReduceBlock) steps
			off := dsl.U(1).Shl(step)
			s := src.Get()
			d := dsl.U(ReduceBlock).Sub(s)
			v := a.Read(s.Add(tid))
			k.If(tid.Ge(off), func() {
				a.Write(d.Add(tid), v.Add(a.Read(s.Add(tid).Sub(off))))
			}).Else(func() {
				a.Write(d.Add(tid), v)
			})
			k.Barrier()
			src.Set(d)
		})
		out.Write(gid, a.Read(src.Get().Add(tid)))
	})
}

// ScanRef is Scan on the CPU.
func ScanRef(in []float32) []float32 {
	out := make([]float32, len(in))
	var acc float32
	for i, v := range in {
		if i%ReduceBlock == 0 {
			acc = 0
		}
		acc += v
		out[i] = acc
	}
	return out
}

// HistogramBins is the number of bins of Histogram.
const HistogramBins = 64

// Histogram counts in[i] % HistogramBins into bins with atomic adds,
// first per block in shared memory, then into the global bins.
func Histogram() (*ir.Function, error) {
	return dsl.Kernel1D(HistogramBins, func(k *dsl.K, in, bins dsl.Buf[dsl.U32]) {
		local := dsl.NewShared[dsl.U32](k, HistogramBins)
		tid := k.ThreadID().X()
		local.Write(tid, dsl.U(0))
		k.Barrier()
		i := k.DispatchID().X()
		k.If(i.Lt(in.Len()), func() {
			local.Atomic(ir.OpAtomicAdd, in.Read(i).Rem(dsl.U(HistogramBins)), dsl.U(1))
		})
		k.Barrier()
		bins.AtomicAdd(tid, local.Read(tid))
	})
}

// HistogramRef is Histogram on the CPU.
func HistogramRef(in []uint32) []uint32 {
	out := make([]uint32, HistogramBins)
	for _, v := range in {
		out[v%HistogramBins]++
	}
	return out
}

// Tile is the tile edge of MatMul.
const Tile = 16

// MatMul computes C = A·B for n×n row-major matrices (n a multiple of
// Tile) with Tile×Tile tiles staged in shared memory.
func MatMul() (*ir.Function, error) {
	return dsl.Kernel2D(Tile, Tile, func(k *dsl.K, n dsl.U32, a, b, c dsl.Buf[dsl.F32]) {
		ta := dsl.NewShared[dsl.F32](k, Tile*Tile)
		tb := dsl.NewShared[dsl.F32](k, Tile*Tile)
		tx, ty := k.ThreadID().X(), k.ThreadID().Y()
		col, row := k.DispatchID().X(), k.DispatchID().Y()
		acc := dsl.NewVar(k, dsl.F(0))
		dsl.Range(k, dsl.U(0), n.Div(dsl.U(Tile)), func(t dsl.U32) {
			base := t.Mul(dsl.U(Tile))
			ta.Write(ty.Mul(dsl.U(Tile)).Add(tx), a.Read(row.Mul(n).Add(base).Add(tx)))
			tb.Write(ty.Mul(dsl.U(Tile)).Add(tx), b.Read(base.Add(ty).Mul(n).Add(col)))
			k.Barrier()
			dsl.Range(k, dsl.U(0), dsl.U(Tile), func(j dsl.U32) {
				acc.Set(dsl.Fma(ta.Read(ty.Mul(dsl.U(Tile)).Add(j)), tb.Read(j.Mul(dsl.U(Tile)).Add(tx)), acc.Get()))
			})
			k.Barrier()
		})
		c.Write(row.Mul(n).Add(col), acc.Get())
	})
}

// MatMulRef is MatMul on the CPU in float64.
func MatMulRef(n int, a, b []float32) []float32 {
	c := make([]float32, n*n)
	for i := range n {
		for j := range n {
			var s float64
			for k := range n {
				s += float64(a[i*n+k]) * float64(b[k*n+j])
			}
			c[i*n+j] = float32(s)
		}
	}
	return c
}

// NBody advances bodies (xyz position, w mass) by one step of dt with
// softened gravity: vel += dt * Σ m_j d/(|d|²+eps)^1.5, pos += dt * vel.
func NBody() (*ir.Function, error) {
	return dsl.Kernel1D(64, func(k *dsl.K, dt dsl.F32, n dsl.U32, pos, vel, newPos dsl.Buf[dsl.F32x4]) {
		i := k.DispatchID().X()
		p := pos.Read(i)
		acc := dsl.NewVar(k, dsl.Splat3(dsl.F(0)))
		dsl.Range(k, dsl.U(0), n, func(j dsl.U32) {
			q := pos.Read(j)
			d := q.XYZ().Sub(p.XYZ())
			r2 := d.Dot(d).Add(dsl.F(NBodyEps))
			inv := dsl.InverseSqrt(r2)
			acc.Set(acc.Get().Add(d.Scale(q.W().Mul(inv).Mul(inv).Mul(inv))))
		})
		v := vel.Read(i).XYZ().Add(acc.Get().Scale(dt))
		vel.Write(i, dsl.Extend4(v, dsl.F(0)))
		newPos.Write(i, dsl.Extend4(p.XYZ().Add(v.Scale(dt)), p.W()))
	})
}

// NBodyEps softens NBody's gravity.
const NBodyEps = 0.01

// NBodyRef is NBody on the CPU (float64 accumulation).
func NBodyRef(dt float32, pos, vel [][4]float32) (newPos, newVel [][4]float32) {
	newPos, newVel = make([][4]float32, len(pos)), make([][4]float32, len(pos))
	for i, p := range pos {
		var acc [3]float64
		for _, q := range pos {
			d := [3]float64{float64(q[0] - p[0]), float64(q[1] - p[1]), float64(q[2] - p[2])}
			r2 := d[0]*d[0] + d[1]*d[1] + d[2]*d[2] + NBodyEps
			s := float64(q[3]) / (r2 * math.Sqrt(r2))
			for c := range 3 {
				acc[c] += d[c] * s
			}
		}
		for c := range 3 {
			v := vel[i][c] + float32(acc[c])*dt
			newVel[i][c] = v
			newPos[i][c] = p[c] + v*dt
		}
		newPos[i][3] = p[3]
	}
	return newPos, newVel
}

// Life steps Conway's game of life on a w×h torus of 0/1 cells.
func Life() (*ir.Function, error) {
	return dsl.Kernel2D(8, 8, func(k *dsl.K, w, h dsl.U32, src, dst dsl.Buf[dsl.U32]) {
		x, y := k.DispatchID().X(), k.DispatchID().Y()
		count := dsl.NewVar(k, dsl.U(0))
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dx == 0 && dy == 0 {
					continue
				}
				nx := x.Add(w).Add(dsl.U(uint32(int32(dx)))).Rem(w)
				ny := y.Add(h).Add(dsl.U(uint32(int32(dy)))).Rem(h)
				count.Set(count.Get().Add(src.Read(ny.Mul(w).Add(nx))))
			}
		}
		c := count.Get()
		alive := src.Read(y.Mul(w).Add(x)).Eq(dsl.U(1))
		next := dsl.Select(c.Eq(dsl.U(3)).Or(alive.And(c.Eq(dsl.U(2)))), dsl.U(1), dsl.U(0))
		dst.Write(y.Mul(w).Add(x), next)
	})
}

// LifeRef is one Life step on the CPU.
func LifeRef(w, h int, src []uint32) []uint32 {
	dst := make([]uint32, len(src))
	for y := range h {
		for x := range w {
			n := uint32(0)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if dx != 0 || dy != 0 {
						n += src[((y+dy+h)%h)*w+(x+dx+w)%w]
					}
				}
			}
			if n == 3 || src[y*w+x] == 1 && n == 2 {
				dst[y*w+x] = 1
			}
		}
	}
	return dst
}

// Particle is a Go struct shared with kernels: the device sees the same
// layout (Go offsets, scalar block layout).
type Particle struct {
	Pos  ir.Float3
	Mass float32
	Vel  ir.Float3
	ID   uint32
	Tag  uint8
	Age  uint16
}

// Particles moves each particle by dt*Vel, ages it and tags it by ID parity.
func Particles() (*ir.Function, error) {
	return dsl.Kernel1D(64, func(k *dsl.K, dt dsl.F32, ps dsl.Buf[dsl.Struct[Particle]]) {
		i := k.DispatchID().X()
		p := ps.Read(i)
		pos := dsl.Get[dsl.F32x3](p, "Pos")
		vel := dsl.Get[dsl.F32x3](p, "Vel")
		id := dsl.Get[dsl.U32](p, "ID")
		tag := dsl.Convert[uint8](id.And(dsl.U(1)))
		age := dsl.Get[dsl.Val[uint16]](p, "Age").Add(dsl.Lit[uint16](1))
		ps.Write(i, dsl.Make[Particle](pos.Add(vel.Scale(dt)), dsl.Get[dsl.F32](p, "Mass"), vel, id, tag, age))
	})
}

// ParticlesRef is Particles on the CPU.
func ParticlesRef(dt float32, ps []Particle) []Particle {
	out := append([]Particle(nil), ps...)
	for i := range out {
		p := &out[i]
		for c := range 3 {
			p.Pos[c] += p.Vel[c] * dt
		}
		p.Tag = uint8(p.ID & 1)
		p.Age++
	}
	return out
}

// SaxpyAddress is Saxpy with x and y passed by device address (the form
// for buffers larger than maxStorageBufferRange), plus an atomic count of
// the elements it touched into count[0].
func SaxpyAddress() (*ir.Function, error) {
	return dsl.Kernel1D(256, func(k *dsl.K, a dsl.F32, x, y dsl.BigBuf[dsl.F32], count dsl.BigBuf[dsl.U32]) {
		i := k.DispatchID().X()
		y.Write(i, a.Mul(x.Read(i)).Add(y.Read(i)))
		count.AtomicAdd(dsl.U(0), dsl.U(1))
	}, "a", "x", "y", "count")
}

// DispatchInfo writes DispatchSize and DispatchGroups into out[0:6] from the
// first thread.
func DispatchInfo() (*ir.Function, error) {
	return dsl.Kernel2D(8, 4, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
		id := k.DispatchID()
		k.If(id.X().Eq(dsl.U(0)).And(id.Y().Eq(dsl.U(0))), func() {
			s, g := k.DispatchSize(), k.DispatchGroups()
			for c, v := range []dsl.U32{s.X(), s.Y(), s.Z(), g.X(), g.Y(), g.Z()} {
				out.Write(dsl.U(uint32(c)), v)
			}
		})
	}, "out")
}
