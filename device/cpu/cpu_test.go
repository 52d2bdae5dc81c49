package cpu_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/ir"
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

func compile(t *testing.T, d *device.Device, build func() (*ir.Function, error)) *device.Kernel {
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
