package cpu_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
	fe "github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/internal/programs"
)

func open(t *testing.T) *device.Device {
	t.Helper()
	d, err := device.Open(context.Background(), "cpu", device.WithValidation())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close(), "Close (a leak fails the test)") })
	return d
}

// openPlain opens a cpu device without the validation wrapper, so that the
// backend's own checks are what a test sees.
func openPlain(t *testing.T) *device.Device {
	t.Helper()
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func stream(t *testing.T, d *device.Device, kind device.StreamKind) *device.Stream {
	t.Helper()
	s, err := d.NewStream(kind)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

func compile(t *testing.T, d *device.Device, build func() (*fe.Function, error)) *device.Kernel {
	t.Helper()
	f, err := build()
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, k.Close()) })
	return k
}

// run submits cmds on a fresh compute stream and waits.
func run(t *testing.T, d *device.Device, cmds ...device.Command) {
	t.Helper()
	require.NoError(t, runErr(t, d, cmds...))
}

func runErr(t *testing.T, d *device.Device, cmds ...device.Command) error {
	t.Helper()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Submit(cmds...))
	return s.Synchronize(ctxT(t))
}

func upload[T any](t *testing.T, d *device.Device, data []T) *device.Buffer[T] {
	t.Helper()
	b, err := device.NewBuffer[T](d, len(data))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	run(t, d, b.Upload(data))
	return b
}

func download[T any](t *testing.T, d *device.Device, b *device.Buffer[T]) []T {
	t.Helper()
	out := make([]T, b.Len())
	run(t, d, b.Download(out))
	return out
}

func TestOpen(t *testing.T) {
	d := open(t)
	require.Contains(t, device.Backends(), "cpu")
	caps := d.Capabilities()
	require.Equal(t, "cpu", caps.Backend)
	require.Equal(t, device.AdapterCPU, caps.Adapter.Type)
	require.Equal(t, uint32(1), caps.WarpSize)
	require.Equal(t, uint32(1), d.Interface().WarpSize())
	list, err := device.Enumerate(context.Background(), "cpu")
	require.NoError(t, err)
	require.Len(t, list, 1)
}

func TestSaxpy(t *testing.T) {
	d := open(t)
	k := compile(t, d, programs.Saxpy)
	const n = 1000 // not a multiple of the block
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i)*0.5, float32(n-i)
	}
	bx, by := upload(t, d, x), upload(t, d, y)
	run(t, d, k.Dispatch([3]uint32{n}, float32(3), bx, by))
	programs.SaxpyRef(3, x, y)
	require.Equal(t, y, download(t, d, by))
}

func TestMandelbrot(t *testing.T) {
	d := open(t)
	k := compile(t, d, programs.Mandelbrot)
	const w, h = 100, 60
	out := upload(t, d, make([]uint32, w*h))
	run(t, d, k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), out))
	require.Equal(t, programs.MandelbrotRef(w, h), download(t, d, out), "the same float32 operations as the reference")
}

func TestBarriersSharedAtomics(t *testing.T) {
	d := open(t)
	t.Run("reduce", func(t *testing.T) {
		k := compile(t, d, programs.Reduce)
		const n = programs.ReduceBlock * 37
		in := make([]uint32, n)
		for i := range in {
			in[i] = uint32(i*2654435761) >> 7
		}
		src, partial := upload(t, d, in), upload(t, d, make([]uint32, n/programs.ReduceBlock))
		run(t, d, k.Dispatch([3]uint32{n}, src, partial))
		require.Equal(t, programs.ReduceRef(in), download(t, d, partial))
	})
	t.Run("scan", func(t *testing.T) {
		k := compile(t, d, programs.Scan)
		const n = programs.ReduceBlock * 5
		in := make([]float32, n)
		for i := range in {
			in[i] = float32(i%7) - 2
		}
		src, dst := upload(t, d, in), upload(t, d, make([]float32, n))
		run(t, d, k.Dispatch([3]uint32{n}, src, dst))
		require.Equal(t, programs.ScanRef(in), download(t, d, dst))
	})
	t.Run("histogram", func(t *testing.T) {
		k := compile(t, d, programs.Histogram)
		const n = 10000
		in := make([]uint32, n)
		r := rand.New(rand.NewPCG(1, 2))
		for i := range in {
			in[i] = r.Uint32()
		}
		src, bins := upload(t, d, in), upload(t, d, make([]uint32, programs.HistogramBins))
		groups := (n + programs.HistogramBins - 1) / programs.HistogramBins
		run(t, d, k.Dispatch([3]uint32{uint32(groups * programs.HistogramBins)}, src, bins))
		require.Equal(t, programs.HistogramRef(in), download(t, d, bins))
	})
	t.Run("matmul", func(t *testing.T) {
		k := compile(t, d, programs.MatMul)
		const n = 32
		r := rand.New(rand.NewPCG(3, 4))
		a, b := make([]float32, n*n), make([]float32, n*n)
		for i := range a {
			a[i], b[i] = r.Float32()*2-1, r.Float32()*2-1
		}
		ba, bb, bc := upload(t, d, a), upload(t, d, b), upload(t, d, make([]float32, n*n))
		run(t, d, k.Dispatch([3]uint32{n, n}, uint32(n), ba, bb, bc))
		got, want := download(t, d, bc), programs.MatMulRef(n, a, b)
		for i := range want {
			require.InDelta(t, want[i], got[i], 1e-4, "element %d", i)
		}
	})
}

func TestPrograms(t *testing.T) {
	d := open(t)
	t.Run("nbody", func(t *testing.T) {
		k := compile(t, d, programs.NBody)
		const n = 100
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
	})
	t.Run("life", func(t *testing.T) {
		k := compile(t, d, programs.Life)
		const w, h, steps = 37, 29, 6
		cells := make([]uint32, w*h)
		r := rand.New(rand.NewPCG(7, 8))
		for i := range cells {
			if r.IntN(3) == 0 {
				cells[i] = 1
			}
		}
		a, b := upload(t, d, cells), upload(t, d, make([]uint32, w*h))
		var cmds []device.Command
		for s := range steps {
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
	})
	t.Run("structs", func(t *testing.T) {
		k := compile(t, d, programs.Particles)
		ps := make([]programs.Particle, 100)
		for i := range ps {
			f := float32(i)
			ps[i] = programs.Particle{Pos: fe.Float3{f, -f, 1}, Mass: f * 2, Vel: fe.Float3{1, 2, 3}, ID: uint32(i * 7), Tag: 9, Age: uint16(i * 300)}
		}
		b := upload(t, d, ps)
		run(t, d, k.Dispatch([3]uint32{uint32(len(ps))}, float32(0.5), b))
		require.Equal(t, programs.ParticlesRef(0.5, ps), download(t, d, b))
	})
	t.Run("callables", func(t *testing.T) {
		k := compile(t, d, programs.Callables)
		in := []int32{0, 1, -1, 5, -7, 99, 100, 101, -100, -101, 1 << 20, -1 << 30, 46340, 12, 13}
		src, dst := upload(t, d, in), upload(t, d, make([]uint32, len(in)))
		run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, src, dst))
		require.Equal(t, programs.CallablesRef(in), download(t, d, dst))
	})
	t.Run("control", func(t *testing.T) {
		k := compile(t, d, programs.Control)
		in := make([]int32, 200)
		for i := range in {
			in[i] = int32(i - 100)
		}
		in = append(in, math.MaxInt32, math.MinInt32, 51, 53, -51)
		src, dst := upload(t, d, in), upload(t, d, make([]int32, len(in)))
		run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, src, dst))
		require.Equal(t, programs.ControlRef(in), download(t, d, dst))
	})
	t.Run("misc", func(t *testing.T) {
		k := compile(t, d, programs.Misc)
		const n = 64
		out, first, elected := upload(t, d, make([]uint32, n)), upload(t, d, make([]uint32, n)), upload(t, d, []uint32{0})
		run(t, d, k.Dispatch([3]uint32{n}, out, first, elected))
		primes := []uint32{2, 3, 5, 7, 11, 13, 17, 19}
		gotOut, gotFirst := download(t, d, out), download(t, d, first)
		for i := range n {
			want := primes[i%8]
			if i%4 == 3 {
				want = 0
			}
			require.Equal(t, want, gotOut[i], "out[%d]", i)
			require.Equal(t, uint32(i+100), gotFirst[i], "first[%d] (subgroups of one)", i)
		}
		require.Equal(t, []uint32{n}, download(t, d, elected), "one elected lane per subgroup of one")
	})
}
