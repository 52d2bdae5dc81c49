package device_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

func compile(t *testing.T, d *device.Device, build func() (*ir.Function, error)) *device.Kernel {
	t.Helper()
	f, err := build()
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	if k.SPIRV() == nil {
		return k // a backend whose native code is not SPIR-V
	}
	// Every module a test runs also passes spirv-val.
	err = spvtools.ValidateWith(k.SPIRV(), spirv.EnvVulkan1_2, spvtools.ValidateOptions{ScalarBlockLayout: true})
	if _, lerr := spvtools.Path(); lerr != nil {
		testenv.Need(t, "SPIRV-Tools", lerr)
	}
	require.NoError(t, err)
	return k
}

func upload[T any](t *testing.T, d *device.Device, data []T) *device.Buffer[T] {
	t.Helper()
	b, err := device.NewBuffer[T](d, len(data))
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	run(t, d, b.Upload(data))
	return b
}

func download[T any](t *testing.T, d *device.Device, b *device.Buffer[T]) []T {
	t.Helper()
	out := make([]T, b.Len())
	run(t, d, b.Download(out))
	return out
}

func TestProgramMandelbrot(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Mandelbrot)
	const w, h = 100, 60 // not multiples of the 16×16 block
	out := upload(t, d, make([]uint32, w*h))
	run(t, d, k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), out))
	got, want := download(t, d, out), programs.MandelbrotRef(w, h)
	// Float rounding (a fused multiply-add on the device) may move a pixel
	// on the set's boundary by an iteration or so; the interior and the
	// far field must agree exactly.
	differ := 0
	for i := range want {
		if got[i] != want[i] {
			differ++
		}
	}
	require.LessOrEqual(t, differ, len(want)/100, "pixels differing from the CPU: %d of %d", differ, len(want))
}

func TestProgramReduce(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Reduce)
	const n = programs.ReduceBlock * 37
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i*2654435761) >> 7
	}
	src, partial := upload(t, d, in), upload(t, d, make([]uint32, n/programs.ReduceBlock))
	run(t, d, k.Dispatch([3]uint32{n}, src, partial))
	require.Equal(t, programs.ReduceRef(in), download(t, d, partial))
}

func TestProgramScan(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Scan)
	const n = programs.ReduceBlock * 5
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i%7) - 2 // small integers: sums are exact in float32
	}
	src, dst := upload(t, d, in), upload(t, d, make([]float32, n))
	run(t, d, k.Dispatch([3]uint32{n}, src, dst))
	require.Equal(t, programs.ScanRef(in), download(t, d, dst))
}

func TestProgramHistogram(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Histogram)
	const n = 10000 // a partial last block: the bounds check inside the kernel guards it
	in := make([]uint32, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range in {
		in[i] = r.Uint32()
	}
	src, bins := upload(t, d, in), upload(t, d, make([]uint32, programs.HistogramBins))
	// Whole blocks: the kernel has barriers, so every thread of a block must run.
	groups := (n + programs.HistogramBins - 1) / programs.HistogramBins
	run(t, d, k.Dispatch([3]uint32{uint32(groups * programs.HistogramBins)}, src, bins))
	require.Equal(t, programs.HistogramRef(in), download(t, d, bins))
}

func TestProgramMatMul(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.MatMul)
	const n = 64
	r := rand.New(rand.NewPCG(3, 4))
	a, b := make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], b[i] = r.Float32()*2-1, r.Float32()*2-1
	}
	ba, bb, bc := upload(t, d, a), upload(t, d, b), upload(t, d, make([]float32, n*n))
	run(t, d, k.Dispatch([3]uint32{n, n}, uint32(n), ba, bb, bc))
	got, want := download(t, d, bc), programs.MatMulRef(n, a, b)
	for i := range want {
		require.InDelta(t, want[i], got[i], 1e-4, "element %d", i) // 64 float32 products summed
	}
}

func TestProgramNBody(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.NBody)
	const n = 200
	r := rand.New(rand.NewPCG(5, 6))
	pos, vel := make([][4]float32, n), make([][4]float32, n)
	for i := range pos {
		pos[i] = [4]float32{r.Float32()*10 - 5, r.Float32()*10 - 5, r.Float32()*10 - 5, r.Float32() + 0.5}
		vel[i] = [4]float32{r.Float32() - 0.5, r.Float32() - 0.5, r.Float32() - 0.5, 0}
	}
	const dt = 0.01
	bp, bv, bn := upload(t, d, pos), upload(t, d, vel), upload(t, d, make([][4]float32, n))
	run(t, d, k.Dispatch([3]uint32{n}, float32(dt), uint32(n), bp, bv, bn))
	wantPos, wantVel := programs.NBodyRef(dt, pos, vel)
	gotPos, gotVel := download(t, d, bn), download(t, d, bv)
	for i := range n {
		for c := range 4 {
			require.InDelta(t, wantPos[i][c], gotPos[i][c], 1e-4, "pos %d.%d", i, c)
			require.InDelta(t, wantVel[i][c], gotVel[i][c], 1e-3, "vel %d.%d", i, c)
		}
	}
}

func TestProgramLife(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Life)
	const w, h, steps = 37, 29, 12
	cells := make([]uint32, w*h)
	r := rand.New(rand.NewPCG(7, 8))
	for i := range cells {
		if r.IntN(3) == 0 {
			cells[i] = 1
		}
	}
	a, b := upload(t, d, cells), upload(t, d, make([]uint32, w*h))
	var cmds []device.Command
	for s := range steps { // ping-pong between the two buffers in one submission
		if s%2 == 0 {
			cmds = append(cmds, k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), a, b))
		} else {
			cmds = append(cmds, k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), b, a))
		}
	}
	run(t, d, cmds...)
	want := cells
	for range steps {
		want = programs.LifeRef(w, h, want)
	}
	require.Equal(t, want, download(t, d, a))
}

func TestProgramStructs(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Particles)
	ps := make([]programs.Particle, 100)
	for i := range ps {
		f := float32(i)
		ps[i] = programs.Particle{Pos: ir.Float3{f, -f, 1}, Mass: f * 2, Vel: ir.Float3{1, 2, 3}, ID: uint32(i * 7), Tag: 9, Age: uint16(i * 300)}
	}
	b := upload(t, d, ps)
	run(t, d, k.Dispatch([3]uint32{uint32(len(ps))}, float32(0.5), b))
	require.Equal(t, programs.ParticlesRef(0.5, ps), download(t, d, b))
}

func TestProgramCallables(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Callables)
	in := []int32{0, 1, -1, 5, -7, 99, 100, 101, -100, -101, 1 << 20, -1 << 30, 46340, 12, 13}
	src, dst := upload(t, d, in), upload(t, d, make([]uint32, len(in)))
	run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, src, dst))
	require.Equal(t, programs.CallablesRef(in), download(t, d, dst))
}

func TestProgramControl(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Control)
	in := make([]int32, 200)
	for i := range in {
		in[i] = int32(i - 100)
	}
	in = append(in, math.MaxInt32, math.MinInt32, 51, 53, -51)
	src, dst := upload(t, d, in), upload(t, d, make([]int32, len(in)))
	run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, src, dst))
	require.Equal(t, programs.ControlRef(in), download(t, d, dst))
}

func TestProgramBlur(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Blur)
	const w, h = 21, 13
	src := make([][4]float32, w*h)
	for i := range src {
		src[i] = [4]float32{float32(i % w), float32(i / w), float32(i%5) * 0.25, 1}
	}
	newImage := func() *device.Image[[4]float32] {
		img, err := device.NewImage[[4]float32](d, device.RGBA32Float, w, h, 1)
		require.NoError(t, err)
		t.Cleanup(func() { img.Close() })
		return img
	}
	in, box, smp := newImage(), newImage(), newImage()
	run(t, d, in.Upload(src), k.Dispatch([3]uint32{w, h}, in, box, smp))
	gotBox, gotSmp := make([][4]float32, w*h), make([][4]float32, w*h)
	run(t, d, box.Download(gotBox), smp.Download(gotSmp))
	wantBox, wantSmp := programs.BlurRef(w, h, src)
	for i := range wantBox {
		for c := range 4 {
			require.InDelta(t, wantBox[i][c], gotBox[i][c], 1e-5, "box pixel %d channel %d", i, c)
			require.InDelta(t, wantSmp[i][c], gotSmp[i][c], 1e-5, "sampled pixel %d channel %d", i, c)
		}
	}
}

// TestProgramVectorOps checks dot, length, distance, cross, normalize,
// reflect, transpose, inverse, outer and matrix products, determinant,
// reductions, any/all and lerp against a float64 reference (relative
// tolerance 1e-4; inverse and determinant of well-conditioned matrices).
func TestProgramVectorOps(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.VectorOps)
	r := rand.New(rand.NewPCG(9, 10))
	in := make([]programs.VecIn, 40)
	for i := range in {
		for c := range 4 {
			in[i].A[c] = float32(r.IntN(17)-8) * 0.5
			in[i].B[c] = float32(r.IntN(17)-8)*0.5 + 0.25
			for rr := range 4 {
				in[i].M[c][rr] = r.Float32() - 0.5
			}
			in[i].M[c][c] += 2 // diagonally dominant: well conditioned
		}
	}
	src, dst := upload(t, d, in), upload(t, d, make([]programs.VecOut, len(in)))
	run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, src, dst))
	got, want := download(t, d, dst), programs.VectorOpsRef(in)
	for i := range want {
		gv, wv := reflectFloats(got[i]), reflectFloats(want[i])
		for j := range wv {
			require.InDelta(t, wv[j], gv[j], 1e-4*math.Max(1, math.Abs(float64(wv[j]))), "record %d value %d", i, j)
		}
	}
}

// reflectFloats flattens a record of float32 and uint32 fields into float64s.
func reflectFloats(v any) []float64 {
	var out []float64
	var walk func(rv reflect.Value)
	walk = func(rv reflect.Value) {
		switch rv.Kind() {
		case reflect.Struct:
			for i := range rv.NumField() {
				walk(rv.Field(i))
			}
		case reflect.Array:
			for i := range rv.Len() {
				walk(rv.Index(i))
			}
		case reflect.Float32:
			out = append(out, rv.Float())
		case reflect.Uint32:
			out = append(out, float64(rv.Uint()))
		}
	}
	walk(reflect.ValueOf(v))
	return out
}

// TestProgramBindless gathers through a bindless array of buffers (emulated
// with device addresses on lavapipe), writes through it, and checks that
// indices past a buffer and empty slots read zero instead of faulting.
func TestProgramBindless(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.BindlessGather)
	arr, err := d.NewBindlessArray(4)
	require.NoError(t, err)
	defer arr.Close()
	out := upload(t, d, make([]float32, 8))
	b1 := upload(t, d, []float32{10, 11, 12})
	b2 := upload(t, d, []float32{20, 21, 22, 23, 24})
	require.NoError(t, arr.EmplaceBuffer(0, out))
	require.NoError(t, arr.EmplaceBuffer(1, b1))
	require.NoError(t, arr.EmplaceBuffer(2, b2))
	// slot 3 stays empty
	slots := []uint32{1, 2, 1, 2, 2, 1, 3, 2}
	idx := []uint32{0, 4, 2, 1, 9, 3, 0, 0}
	bs, bi, lens := upload(t, d, slots), upload(t, d, idx), upload(t, d, make([]uint32, 8))
	run(t, d, arr.Update(), k.Dispatch([3]uint32{8}, arr, bs, bi, lens))
	require.Equal(t, []float32{20, 48, 24, 42, 0, 0, 0, 40}, download(t, d, out))
	require.Equal(t, []uint32{3, 5, 3, 5, 5, 3, 0, 5}, download(t, d, lens))
}

func TestProgramMatrixUniform(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Transform)
	m := ir.Float4x4{{2, 0.5, 0, 0}, {0, 1, 0.25, 0}, {0.1, 0, 3, 0}, {1, 2, 3, 1}}
	pts := []ir.Float4{{1, 2, 3, 1}, {0, 0, 0, 1}, {-1, 4, 0.5, 0}}
	src, dst := upload(t, d, pts), upload(t, d, make([]ir.Float4, 2*len(pts)))
	run(t, d, k.Dispatch([3]uint32{uint32(len(pts))}, m, src, dst))
	got, want := download(t, d, dst), programs.TransformRef(m, pts)
	for i := range want {
		for c := range 4 {
			require.InDelta(t, want[i][c], got[i][c], 1e-4, "point %d component %d", i, c)
		}
	}
}

func TestProgramMisc(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Misc)
	const n = 64
	out, first, elected := upload(t, d, make([]uint32, n)), upload(t, d, make([]uint32, n)), upload(t, d, []uint32{0})
	run(t, d, k.Dispatch([3]uint32{n}, out, first, elected))
	primes := []uint32{2, 3, 5, 7, 11, 13, 17, 19}
	gotOut, gotFirst := download(t, d, out), download(t, d, first)
	w := int(d.Capabilities().WarpSize)
	for i := range n {
		want := primes[i%8]
		if i%4 == 3 {
			want = 0 // returned before the write
		}
		require.Equal(t, want, gotOut[i], "out[%d]", i)
		require.Equal(t, uint32(i/w*w+100), gotFirst[i], "first[%d]", i)
	}
	require.Equal(t, []uint32{uint32(n / w)}, download(t, d, elected), "one elected lane per subgroup")
}

func TestProgramTonemapRGBA8(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.Tonemap)
	const w, h = 9, 7
	src := make([][4]float32, w*h)
	for i := range src {
		src[i] = [4]float32{float32(i) * 0.1, float32(i%3) * 2, 0, 1}
	}
	in, err := device.NewImage[[4]float32](d, device.RGBA32Float, w, h, 1)
	require.NoError(t, err)
	defer in.Close()
	out, err := device.NewImage[[4]uint8](d, device.RGBA8Unorm, w, h, 1)
	require.NoError(t, err)
	defer out.Close()
	got := make([][4]uint8, w*h)
	run(t, d, in.Upload(src), k.Dispatch([3]uint32{w, h}, in, out))
	run(t, d, out.Download(got))
	for i, p := range src {
		for c := range 3 {
			want := p[c] / (1 + p[c]) * 255
			require.InDelta(t, want, float64(got[i][c]), 0.51, "pixel %d channel %d", i, c) // unorm rounding
		}
		require.Equal(t, uint8(255), got[i][3])
	}
}
