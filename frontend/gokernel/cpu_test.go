package gokernel_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/kernel"
	kernels "github.com/lucent-gpu/lucent/testdata/gokernel"
)

// The corpus kernels run on the CPU runner against plain-Go references. The
// same inputs and references drive the device tests (device_test.go), which
// compare the device with the CPU runner element by element.

func run(t *testing.T, g kernel.Grid, body func()) {
	t.Helper()
	require.NoError(t, kernel.Run(context.Background(), g, body))
}

// roundUp is n rounded up to whole blocks: kernels that use Barrier need
// every thread of a block.
func roundUp(n, block int) uint32 { return uint32((n + block - 1) / block * block) }

func randFloats(r *rand.Rand, n int, lo, hi float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = lo + (hi-lo)*r.Float32()
	}
	return out
}

func TestCPUSaxpy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const n = 1000
	x, y := randFloats(r, n, -1, 1), randFloats(r, n, -1, 1)
	want := make([]float32, n)
	for i := range want {
		want[i] = 2.5*x[i] + y[i]
	}
	run(t, kernel.Grid1(256, n), func() { kernels.Saxpy(2.5, x, y) })
	require.Equal(t, want, y)
}

func mandelbrotRef(w, h uint32) []uint32 {
	out := make([]uint32, w*h)
	for py := range h {
		for px := range w {
			cx := -2 + 3*float32(px)/float32(w)
			cy := -1.5 + 3*float32(py)/float32(h)
			var x, y float32
			n := uint32(0)
			for ; n < kernels.MaxIter && x*x+y*y <= 4; n++ {
				x, y = x*x-y*y+cx, 2*x*y+cy
			}
			out[py*w+px] = n
		}
	}
	return out
}

func TestCPUMandelbrot(t *testing.T) {
	const w, h = 70, 45 // not multiples of the 16×16 block
	out := make([]uint32, w*h)
	run(t, kernel.Grid2(16, 16, w, h), func() { kernels.Mandelbrot(w, h, out) })
	require.Equal(t, mandelbrotRef(w, h), out)
}

func TestCPUWaves(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	in := randFloats(r, 300, -2, 2)
	out := make([]float32, len(in))
	run(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.Waves(in, out) })
	for i, x := range in {
		xf := float64(x)
		rr := math.Sqrt(xf*xf + 1)
		want := math.Sin(xf)*math.Cos(xf) + rr - math.Exp(-xf*xf) + math.Pow(rr, 1.5) + math.Floor(xf*3) + math.Abs(xf) + math.Min(xf, 0.25) + math.Max(xf, -0.25)
		require.InDelta(t, want, float64(out[i]), 1e-4, "element %d", i)
	}
}

func TestCPUReduce(t *testing.T) {
	const n = 1000 // a partial last block
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i%13) - 6
	}
	blocks := (n + kernels.ReduceBlock - 1) / kernels.ReduceBlock
	want := make([]float32, blocks)
	for i, v := range in {
		want[i/kernels.ReduceBlock] += v
	}
	out := make([]float32, blocks)
	run(t, kernel.Grid1(kernels.ReduceBlock, uint32(blocks*kernels.ReduceBlock)), func() { kernels.Reduce(in, out) })
	require.Equal(t, want, out)
}

func TestCPUPrefixSum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	const n = 700
	in := make([]int32, n)
	for i := range in {
		in[i] = r.Int32N(100) - 50
	}
	want := make([]int32, n)
	for i := range in {
		want[i] = in[i]
		if i%kernels.ReduceBlock != 0 {
			want[i] += want[i-1]
		}
	}
	out := make([]int32, n)
	run(t, kernel.Grid1(kernels.ReduceBlock, 3*kernels.ReduceBlock), func() { kernels.PrefixSum(in, out) })
	require.Equal(t, want, out)
}

func TestCPUHistogram(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	vals := make([]uint32, 5000)
	want := make([]uint32, kernels.Bins)
	for i := range vals {
		vals[i] = r.Uint32()
		want[vals[i]%kernels.Bins]++
	}
	bins := make([]uint32, kernels.Bins)
	run(t, kernel.Grid1(128, roundUp(len(vals), 128)), func() { kernels.Histogram(vals, bins) })
	require.Equal(t, want, bins)
}

func TestCPUMatMul(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const n = 19
	a, b := randFloats(r, n*n, -1, 1), randFloats(r, n*n, -1, 1)
	c := make([]float32, n*n)
	run(t, kernel.Grid2(kernels.Tile, kernels.Tile, roundUp(n, kernels.Tile), roundUp(n, kernels.Tile)), func() { kernels.MatMul(n, a, b, c) })
	for i := range n {
		for j := range n {
			var want float64
			for k := range n {
				want += float64(a[i*n+k]) * float64(b[k*n+j])
			}
			require.InDelta(t, want, float64(c[i*n+j]), 1e-4, "c[%d][%d]", i, j)
		}
	}
}

func TestCPUSubgroupSum(t *testing.T) {
	const n = 128
	in := make([]int32, n)
	for i := range in {
		in[i] = int32(i*5%17) - 8
	}
	sums, prefix := make([]int32, n), make([]int32, n)
	run(t, kernel.Grid1(64, n), func() { kernels.SubgroupSum(in, sums, prefix) })
	const sg = 8 // the runner's default subgroup size
	for i := range n {
		base := i / sg * sg
		var s, p int32
		for j := base; j < base+sg; j++ {
			s += in[j]
			if j < i {
				p += in[j]
			}
		}
		if i != base {
			s = 0
		}
		require.Equal(t, s, sums[i], "sum at %d", i)
		require.Equal(t, p, prefix[i], "prefix at %d", i)
	}
}

func nbodyInput(n int) []kernels.Body {
	r := rand.New(rand.NewPCG(6, 6))
	bodies := make([]kernels.Body, n)
	for i := range bodies {
		bodies[i] = kernels.Body{
			Pos:  kernel.F3(r.Float32()*2-1, r.Float32()*2-1, r.Float32()*2-1),
			Mass: 0.5 + r.Float32(),
			Vel:  kernel.Float3{X: r.Float32() * 0.1},
		}
	}
	return bodies
}

func TestCPUNBody(t *testing.T) {
	in := nbodyInput(100)
	out := make([]kernels.Body, len(in))
	const dt = 0.01
	run(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.NBody(dt, in, out) })
	for i, me := range in {
		var ax, ay, az float64
		for j, b := range in {
			if i == j {
				continue
			}
			dx, dy, dz := float64(b.Pos.X-me.Pos.X), float64(b.Pos.Y-me.Pos.Y), float64(b.Pos.Z-me.Pos.Z)
			inv := 1 / math.Sqrt(dx*dx+dy*dy+dz*dz+kernels.Softening)
			s := float64(b.Mass) * inv * inv * inv
			ax, ay, az = ax+dx*s, ay+dy*s, az+dz*s
		}
		vx, vy, vz := float64(me.Vel.X)+ax*dt, float64(me.Vel.Y)+ay*dt, float64(me.Vel.Z)+az*dt
		require.InDelta(t, vx, float64(out[i].Vel.X), 1e-3)
		require.InDelta(t, vy, float64(out[i].Vel.Y), 1e-3)
		require.InDelta(t, vz, float64(out[i].Vel.Z), 1e-3)
		require.InDelta(t, float64(me.Pos.X)+vx*dt, float64(out[i].Pos.X), 1e-4)
		require.InDelta(t, float64(me.Pos.Z)+vz*dt, float64(out[i].Pos.Z), 1e-4)
		require.Equal(t, me.Mass, out[i].Mass)
	}
}

func lifeInput(w, h int) []uint32 {
	r := rand.New(rand.NewPCG(7, 7))
	g := make([]uint32, w*h)
	for i := range g {
		if r.IntN(3) == 0 {
			g[i] = 1
		}
	}
	return g
}

func TestCPULife(t *testing.T) {
	const w, h = 21, 13
	in := lifeInput(w, h)
	out := make([]uint32, w*h)
	run(t, kernel.Grid2(8, 8, w, h), func() { kernels.Life(w, h, in, out) })
	for y := range h {
		for x := range w {
			n := uint32(0)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if dx != 0 || dy != 0 {
						n += in[(y+dy+h)%h*w+(x+dx+w)%w]
					}
				}
			}
			want := uint32(0)
			if n == 3 || n == 2 && in[y*w+x] == 1 {
				want = 1
			}
			require.Equal(t, want, out[y*w+x], "cell %d,%d", x, y)
		}
	}
}

func TestCPUParticles(t *testing.T) {
	ps := make([]kernels.Particle, 50)
	for i := range ps {
		ps[i] = kernels.Particle{P: kernel.Float2{X: float32(i)}, V: kernel.Float2{X: 1, Y: float32(i) * 0.5}, Age: uint32(i)}
	}
	want := make([]kernels.Particle, len(ps))
	for i, p := range ps {
		for range 2 {
			p.P.X += p.V.X * 0.5
			p.P.Y += p.V.Y * 0.5
			p.Age++
			p.Energy = 0.5 * (p.V.X*p.V.X + p.V.Y*p.V.Y)
		}
		want[i] = p
	}
	run(t, kernel.Grid1(32, uint32(len(ps))), func() { kernels.Particles(0.5, ps) })
	require.Equal(t, want, ps)
}

// cornersRef is Corners written without the kernel subset's constraints.
func cornersRef(v int32) int32 {
	acc := v/7*100 + v%7
	switch m := v % 3; {
	case m == 0:
		acc += 1000
	case m == 1 || m == -1:
		acc += 2000
	default:
		acc += 3000
	}
	cls := int32(2)
	if v < 0 {
		cls = -1
	} else if v == 0 {
		cls = 0
	} else if v < 10 {
		cls = 1
	}
	acc += cls * 10000
	count := int32(0)
	for a := int32(0); a < 5; a++ {
		for b := int32(0); b <= a; b++ {
			if (a+b)%2 == 0 {
				count++
			}
		}
	}
	acc += count * 100000
	acc ^= (int32(uint32(v)&3)*int32(uint32(v)&3) + v) << 2
	acc += int32(float32(v)*0.5) + int32(uint8(v))
	n, steps := uint32(v&255)+1, int32(0)
	for n != 1 && steps < 500 {
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		steps++
	}
	acc += steps
	switch {
	case v > 100:
		acc -= 3
	case v > 50:
		acc -= 2
	default:
		acc -= 1
	}
	return acc
}

func cornersInput() []int32 {
	in := make([]int32, 0, 300)
	for v := int32(-120); v < 180; v++ {
		if v != 0 || len(in)%2 == 0 {
			in = append(in, v)
		}
	}
	return in
}

func TestCPUCorners(t *testing.T) {
	in := cornersInput()
	out := make([]int32, len(in))
	run(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.Corners(in, out) })
	for i, v := range in {
		require.Equal(t, cornersRef(v), out[i], "input %d", v)
	}
}

func TestCPUTransform(t *testing.T) {
	m := kernel.Float4x4{kernel.F4(1, 0, 0, 0), kernel.F4(0, 2, 0, 0), kernel.F4(0, 0, 3, 0), kernel.F4(1, 1, 1, 1)}
	in := []kernel.Float4{kernel.F4(1, 0, 0, 1), kernel.F4(0, 1, 0, 1), kernel.F4(1, 1, 1, 0), kernel.F4(-1, -1, -1, 1)}
	out := make([]kernel.Float4, len(in))
	run(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.Transform(m, in, out) })
	for i, p := range in {
		x := p.X*1 + p.W
		y := p.Y*2 + p.W
		z := p.Z*3 + p.W
		l := float32(math.Sqrt(float64(x*x + y*y + z*z)))
		want := kernel.Float4{X: x / l, Y: y / l, Z: z / l, W: p.W}
		require.InDelta(t, want.X, out[i].X, 1e-6)
		require.InDelta(t, want.Y, out[i].Y, 1e-6)
		require.InDelta(t, want.Z, out[i].Z, 1e-6)
		require.Equal(t, want.W, out[i].W)
	}
}

// langRef is Lang for one thread, written plainly.
func langRef(in []int32, i int) (out int32, c kernels.Counter, flags uint32) {
	v := in[i]
	acc := v
	lo, hi := min(v, 3), max(v, 3)
	acc += lo*7 + hi + (v&7)*(v&7)
	acc += 0 + 1 + 2 + 3
	acc += 1 + 2 + 3
	acc += v // its own shared slot
	switch m := int64(v) % 4; {
	case m == 0 || m == 2:
		acc += 10
	case m == 1:
		acc += 20
	default:
		acc += 30
	}
	acc += -v*2 + v
	u := uint32(v)
	acc += int32(u>>3) + int32(u&^7) + int32((0-u)>>30)
	out = 1 + acc
	if i == 0 {
		total := int32(0)
		for _, e := range in {
			total += e
		}
		out += total << 8
	}
	c = kernels.Counter{N: 2, Sum: v + 1}
	if v == 0 {
		flags = 2
	} else if v > 0 {
		flags = 1
	}
	flags |= math.Float32bits(1.5) & 0xff000000
	return
}

func langInput() []int32 {
	in := make([]int32, 96)
	for i := range in {
		in[i] = int32(i*13%41) - 20
	}
	return in
}

func TestCPULang(t *testing.T) {
	in := langInput()
	out, counters, flags := make([]int32, len(in)), make([]kernels.Counter, len(in)), make([]uint32, len(in))
	run(t, kernel.Grid1(32, uint32(len(in))), func() { kernels.Lang(in, out, counters, flags) })
	for i := range in {
		o, c, f := langRef(in, i)
		require.Equal(t, o, out[i], "out[%d] (input %d)", i, in[i])
		require.Equal(t, c, counters[i], "counters[%d]", i)
		require.Equal(t, f, flags[i], "flags[%d]", i)
	}
}

func gradientInput(t *testing.T, w, h uint32) kernel.Texture2D[kernel.Float4] {
	src, err := kernel.NewTexture2D[kernel.Float4](w, h)
	require.NoError(t, err)
	for i := range src.Texels() {
		f := float32(i)
		src.Texels()[i] = kernel.F4(f, f*0.5, -f, 1)
	}
	return src
}

func TestCPUGradient(t *testing.T) {
	const w, h = 13, 7
	src := gradientInput(t, w, h)
	dst, err := kernel.NewTexture2D[kernel.Float4](w, h)
	require.NoError(t, err)
	run(t, kernel.Grid2(8, 8, w, h), func() { kernels.Gradient(src, dst) })
	for y := range uint32(h) {
		for x := range uint32(w) {
			a, b := src.Read(x, y), src.Read(min(x+1, w-1), y)
			want := kernel.F4((a.X+b.X)/2, (a.Y+b.Y)/2, (a.Z+b.Z)/2, float32((x+y)%2))
			require.Equal(t, want, dst.Read(x, y), "texel %d,%d", x, y)
		}
	}
}

func traceRef(w, h int) []float32 {
	out := make([]float32, w*h)
	for y := range h {
		for x := range w {
			u := -1.5 + 3*((float64(x)+0.5)/float64(w))
			v := -1.5 + 3*((float64(y)+0.5)/float64(h))
			if d2 := u*u + v*v; d2 <= 1 {
				out[y*w+x] = float32(math.Sqrt(1 - d2)) // the normal's -z at the hit
			}
		}
	}
	return out
}

func TestCPUTrace(t *testing.T) {
	const w, h = 24, 20
	out := make([]float32, w*h)
	run(t, kernel.Grid2(8, 8, w, h), func() { kernels.Trace(w, h, out) })
	want := traceRef(w, h)
	for i := range want {
		require.InDelta(t, want[i], out[i], 2e-3, "pixel %d", i)
	}
}

func blurInput(n int) []float32 {
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i%7) * 0.25
	}
	return in
}

func TestCPUBlur(t *testing.T) {
	const w, h = 11, 5
	in := blurInput(w * h)
	out := make([]float32, w*h)
	run(t, kernel.Grid1(64, w*h), func() { kernels.Blur(w, h, in, out) })
	wts := []float32{1.0 / 16, 4.0 / 16, 6.0 / 16, 4.0 / 16, 1.0 / 16}
	for y := range h {
		for x := range w {
			var want float32
			for k := -2; k <= 2; k++ {
				want += wts[k+2] * in[y*w+min(max(x+k, 0), w-1)]
			}
			require.InDelta(t, want, out[y*w+x], 1e-6)
		}
	}
}

func gatherInput(n int) (slot0, slot1 []float32, pick []uint32) {
	slot0, slot1 = []float32{1, 2, 3, 4, 5}, []float32{10, 20, 30, 40, 50, 60, 70}
	pick = make([]uint32, n)
	for i := range pick {
		pick[i] = uint32(i * 7 % 5)
	}
	return
}

func TestCPUGather(t *testing.T) {
	const n = 100
	slot0, slot1, pick := gatherInput(n)
	counts := make([]float32, n)
	arr := kernel.NewBindless(3)
	require.NoError(t, kernel.SetBindlessBuffer(arr, 0, slot0))
	require.NoError(t, kernel.SetBindlessBuffer(arr, 1, slot1))
	require.NoError(t, kernel.SetBindlessBuffer(arr, 2, counts))
	out := make([]float32, n)
	run(t, kernel.Grid1(64, n), func() { kernels.Gather(arr, pick, out) })
	for i := range n {
		src := [][]float32{slot0, slot1}[pick[i]%2]
		want := src[i%len(src)] * 2
		if i == 0 {
			want += 10 + 20 + 30 + 40 + 50 + 60 + 70
			for k := range src {
				want += float32(k)
			}
		}
		require.Equal(t, want, out[i], "out[%d]", i)
		require.Equal(t, float32(len(src)), counts[i], "counts[%d]", i)
	}
}

func atomicsInput(n int) ([]int32, []kernels.Totals) {
	vals := make([]int32, n)
	for i := range vals {
		vals[i] = int32(i*37%101) - 50
	}
	t := make([]kernels.Totals, 2)
	t[0].Min = 1 << 31
	t[0].Max = -1 << 31
	t[1].Bits = 0xffffffff
	t[1].Count = 1000
	return vals, t
}

func TestCPUAtomics(t *testing.T) {
	const n = 500
	vals, tot := atomicsInput(n)
	run(t, kernel.Grid1(64, n), func() { kernels.Atomics(vals, tot) })
	want := kernels.Totals{Min: 1 << 31, Max: -1 << 31, Last: 7, Swapped: 1}
	for _, v := range vals {
		want.Sum += float32(v)
		want.Count++
		want.Big += int64(v) << 33
		want.Max = max(want.Max, v)
		want.Min = min(want.Min, uint32(v+1000))
		want.Bits |= 1 << (uint32(v) & 31)
		want.Xor ^= uint32(v)
	}
	require.Equal(t, want, tot[0])
	require.Equal(t, kernels.Totals{Count: 1000 - n, Last: 9}, tot[1])
}

func subgroupsRef(in []int32, i, sg int) [12]int32 {
	base := i / sg * sg
	lanes := in[base : base+sg]
	var r [12]int32
	r[0], r[1] = lanes[0], lanes[0]
	r[7], r[11] = 1, 1
	for j, v := range lanes {
		r[0], r[1] = min(r[0], v), max(r[1], v)
		if j <= i-base {
			r[2] += v
		}
		if v > 0 {
			r[6]++
		}
		if v <= -100 {
			r[7] = 0
		}
		if v == 3 {
			r[8] = 1
		}
		r[11] *= v%3 + 2
	}
	r[3], r[4], r[5] = lanes[1], lanes[0], lanes[(i-base)^1]
	r[9], r[10] = int32(sg), int32(i-base)
	return r
}

func subgroupsInput(n int) []int32 {
	in := make([]int32, n)
	for i := range in {
		in[i] = int32(i*11%9) - 4
	}
	return in
}

func TestCPUSubgroups(t *testing.T) {
	const n = 64
	in := subgroupsInput(n)
	out := make([]int32, n*12)
	run(t, kernel.Grid1(32, n), func() { kernels.Subgroups(in, out) })
	for i := range n {
		require.Equal(t, subgroupsRef(in, i, 8), [12]int32(out[i*12:i*12+12]), "thread %d", i)
	}
}

func matricesInput() (a, b kernel.Float3x3, in []kernel.Float3) {
	a = kernel.Float3x3{kernel.F3(1, 2, 0), kernel.F3(0, 1, -1), kernel.F3(2, 0, 1)}
	b = kernel.Float3x3{kernel.F3(0.5, 0, 1), kernel.F3(1, 1, 0), kernel.F3(0, -2, 1)}
	for i := range 20 {
		f := float32(i)
		in = append(in, kernel.F3(f*0.25-2, 1-f*0.1, f*0.05))
	}
	return
}

func TestCPUMatrices(t *testing.T) {
	a, b, in := matricesInput()
	out := make([]kernel.Float3, len(in))
	run(t, kernel.Grid1(16, uint32(len(in))), func() { kernels.Matrices(a, b, in, out) })
	// Reference with plain float64 loops (m[c][r] is column c, row r).
	var m [3][3]float64
	for c := range 3 {
		for r := range 3 {
			var ab float64
			for k := range 3 {
				ab += float64(comp(a[k], r)) * float64(comp(b[c], k))
			}
			m[c][r] = (ab + float64(comp(a[r], c))) * 0.5
		}
	}
	for i, p := range in {
		pv := [3]float64{float64(p.X), float64(p.Y), float64(p.Z)}
		var v [3]float64
		for r := range 3 {
			for c := range 3 {
				v[r] += m[c][r] * pv[c]
			}
		}
		cross := [3]float64{v[1]*pv[2] - v[2]*pv[1], v[2]*pv[0] - v[0]*pv[2], v[0]*pv[1] - v[1]*pv[0]}
		var w [3]float64
		var dist2, dot float64
		for k := range 3 {
			w[k] = cross[k] + math.Min(v[k], pv[k]) + math.Max(v[k], pv[k])
			dist2 += (v[k] - pv[k]) * (v[k] - pv[k])
		}
		for k := range 3 {
			dot += v[k] * w[k]
		}
		d := math.Sqrt(dist2) + dot
		want := [3]float64{w[0]*1/2 + d, w[1] * 2 / 2, w[2] * 3 / 2}
		got := [3]float32{out[i].X, out[i].Y, out[i].Z}
		for k := range 3 {
			require.InDelta(t, want[k], float64(got[k]), 1e-3, "out[%d][%d]", i, k)
		}
	}
}

func comp(v kernel.Float3, k int) float32 { return [3]float32{v.X, v.Y, v.Z}[k] }

func TestCPUBlockStats(t *testing.T) {
	const blocks = 5
	vals, _ := atomicsInput(blocks * 64)
	sums, maxes := make([]float32, blocks), make([]int64, blocks)
	run(t, kernel.Grid1(64, blocks*64), func() { kernels.BlockStats(vals, sums, maxes) })
	for b := range blocks {
		var s float32
		m := int64(-1 << 62)
		for _, v := range vals[b*64 : b*64+64] {
			s += float32(v)
			m = max(m, int64(v)*1000)
		}
		require.Equal(t, s, sums[b], "block %d", b)
		require.Equal(t, m, maxes[b], "block %d", b)
	}
}
