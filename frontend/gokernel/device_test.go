package gokernel_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/kernel"
	kernels "github.com/lucent-gpu/lucent/testdata/gokernel"
)

// The corpus kernels compiled by gokernel run on the Vulkan device (lavapipe
// in CI) with the validation layer on, and their outputs are compared element
// by element with the same Go functions run by the CPU runner.

func openDevice(t *testing.T) *device.Device {
	t.Helper()
	var mu sync.Mutex
	d, err := device.Open(context.Background(), "vulkan",
		device.WithValidationLayer(true),
		device.WithDebug(func(m device.DebugMessage) {
			if m.Severity == device.SeverityError {
				mu.Lock()
				defer mu.Unlock()
				t.Errorf("validation: %s: %s", m.ID, m.Text)
			}
		}))
	testenv.Need(t, "Vulkan device", err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d
}

// gpu runs one compiled corpus kernel on a device.
type gpu struct {
	t *testing.T
	d *device.Device
	k *device.Kernel
}

func compileOn(t *testing.T, d *device.Device, k *gokernel.Kernel) *gpu {
	t.Helper()
	dk, err := device.Compile(d, k.Func, device.WithKernelName(k.Name))
	require.NoError(t, err)
	t.Cleanup(func() { dk.Close() })
	return &gpu{t, d, dk}
}

func (g *gpu) submit(cmds ...device.Command) {
	g.t.Helper()
	s, err := g.d.NewStream(device.StreamCompute)
	require.NoError(g.t, err)
	defer s.Close()
	require.NoError(g.t, s.Submit(cmds...))
	require.NoError(g.t, s.Synchronize(context.Background()))
}

// upload returns a device buffer holding data.
func upload[T any](g *gpu, data []T) *device.Buffer[T] {
	g.t.Helper()
	b, err := device.NewBuffer[T](g.d, len(data))
	require.NoError(g.t, err)
	g.t.Cleanup(func() { b.Close() })
	g.submit(b.Upload(data))
	return b
}

func download[T any](g *gpu, b *device.Buffer[T]) []T {
	g.t.Helper()
	out := make([]T, b.Len())
	g.submit(b.Download(out))
	return out
}

func cpu(t *testing.T, g kernel.Grid, body func()) {
	t.Helper()
	require.NoError(t, kernel.Run(context.Background(), g, body))
}

func requireClose(t *testing.T, want, got []float32, tol float64) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.InDelta(t, want[i], got[i], tol, "element %d", i)
	}
}

func TestDeviceCorpus(t *testing.T) {
	ks := corpus(t)
	d := openDevice(t)
	r := rand.New(rand.NewPCG(9, 9))

	t.Run("Saxpy", func(t *testing.T) {
		g := compileOn(t, d, ks["Saxpy"])
		const n = 1000
		x, y := randFloats(r, n, -1, 1), randFloats(r, n, -1, 1)
		yb := upload(g, y)
		g.submit(g.k.Dispatch([3]uint32{n}, float32(1.5), upload(g, x), yb))
		cpu(t, kernel.Grid1(256, n), func() { kernels.Saxpy(1.5, x, y) })
		requireClose(t, y, download(g, yb), 1e-5) // the driver may fuse the multiply-add
	})
	t.Run("Mandelbrot", func(t *testing.T) {
		g := compileOn(t, d, ks["Mandelbrot"])
		const w, h = 70, 45
		ob := upload(g, make([]uint32, w*h))
		g.submit(g.k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), ob))
		got, want := download(g, ob), mandelbrotRef(w, h)
		// Points on the set's boundary may escape one iteration apart when
		// the device fuses multiply-adds; all others must agree exactly.
		diff := 0
		for i := range want {
			if got[i] != want[i] {
				diff++
			}
		}
		require.LessOrEqual(t, diff, len(want)/100, "%d of %d pixels differ", diff, len(want))
	})
	t.Run("Waves", func(t *testing.T) {
		g := compileOn(t, d, ks["Waves"])
		in := randFloats(r, 300, -2, 2)
		ob := upload(g, make([]float32, len(in)))
		g.submit(g.k.Dispatch([3]uint32{uint32(len(in))}, upload(g, in), ob))
		want := make([]float32, len(in))
		cpu(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.Waves(in, want) })
		requireClose(t, want, download(g, ob), 1e-3)
	})
	t.Run("Reduce", func(t *testing.T) {
		g := compileOn(t, d, ks["Reduce"])
		in := make([]float32, 1000)
		for i := range in {
			in[i] = float32(i%13) - 6
		}
		const blocks = 4
		ob := upload(g, make([]float32, blocks))
		g.submit(g.k.Dispatch([3]uint32{blocks * kernels.ReduceBlock}, upload(g, in), ob))
		want := make([]float32, blocks)
		cpu(t, kernel.Grid1(kernels.ReduceBlock, blocks*kernels.ReduceBlock), func() { kernels.Reduce(in, want) })
		require.Equal(t, want, download(g, ob))
	})
	t.Run("PrefixSum", func(t *testing.T) {
		g := compileOn(t, d, ks["PrefixSum"])
		in := make([]int32, 700)
		for i := range in {
			in[i] = r.Int32N(100) - 50
		}
		ob := upload(g, make([]int32, len(in)))
		g.submit(g.k.Dispatch([3]uint32{3 * kernels.ReduceBlock}, upload(g, in), ob))
		want := make([]int32, len(in))
		cpu(t, kernel.Grid1(kernels.ReduceBlock, 3*kernels.ReduceBlock), func() { kernels.PrefixSum(in, want) })
		require.Equal(t, want, download(g, ob))
	})
	t.Run("Histogram", func(t *testing.T) {
		g := compileOn(t, d, ks["Histogram"])
		vals := make([]uint32, 5000)
		for i := range vals {
			vals[i] = r.Uint32()
		}
		bb := upload(g, make([]uint32, kernels.Bins))
		g.submit(g.k.Dispatch([3]uint32{roundUp(len(vals), 128)}, upload(g, vals), bb))
		want := make([]uint32, kernels.Bins)
		cpu(t, kernel.Grid1(128, roundUp(len(vals), 128)), func() { kernels.Histogram(vals, want) })
		require.Equal(t, want, download(g, bb))
	})
	t.Run("MatMul", func(t *testing.T) {
		g := compileOn(t, d, ks["MatMul"])
		const n = 19
		a, b := randFloats(r, n*n, -1, 1), randFloats(r, n*n, -1, 1)
		cb := upload(g, make([]float32, n*n))
		size := roundUp(n, kernels.Tile)
		g.submit(g.k.Dispatch([3]uint32{size, size}, uint32(n), upload(g, a), upload(g, b), cb))
		want := make([]float32, n*n)
		cpu(t, kernel.Grid2(kernels.Tile, kernels.Tile, size, size), func() { kernels.MatMul(n, a, b, want) })
		requireClose(t, want, download(g, cb), 1e-4)
	})
	t.Run("SubgroupSum", func(t *testing.T) {
		caps := d.Capabilities()
		require.True(t, caps.Subgroups, "the device lacks subgroup operations")
		g := compileOn(t, d, ks["SubgroupSum"])
		const n = 128
		in := make([]int32, n)
		for i := range in {
			in[i] = int32(i*5%17) - 8
		}
		sb, pb := upload(g, make([]int32, n)), upload(g, make([]int32, n))
		g.submit(g.k.Dispatch([3]uint32{n}, upload(g, in), sb, pb))
		sums, prefix := make([]int32, n), make([]int32, n)
		grid := kernel.Grid1(64, n)
		grid.SubgroupSize = caps.WarpSize // the CPU runner models the device's subgroups
		cpu(t, grid, func() { kernels.SubgroupSum(in, sums, prefix) })
		require.Equal(t, sums, download(g, sb))
		require.Equal(t, prefix, download(g, pb))
	})
	t.Run("NBody", func(t *testing.T) {
		g := compileOn(t, d, ks["NBody"])
		in := nbodyInput(100)
		ob := upload(g, make([]kernels.Body, len(in)))
		g.submit(g.k.Dispatch([3]uint32{uint32(len(in))}, float32(0.01), upload(g, in), ob))
		want := make([]kernels.Body, len(in))
		cpu(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.NBody(0.01, in, want) })
		got := download(g, ob)
		for i := range want {
			requireClose(t, []float32{want[i].Pos.X, want[i].Pos.Y, want[i].Pos.Z, want[i].Mass, want[i].Vel.X, want[i].Vel.Y, want[i].Vel.Z},
				[]float32{got[i].Pos.X, got[i].Pos.Y, got[i].Pos.Z, got[i].Mass, got[i].Vel.X, got[i].Vel.Y, got[i].Vel.Z}, 1e-4)
		}
	})
	t.Run("Life", func(t *testing.T) {
		g := compileOn(t, d, ks["Life"])
		const w, h = 21, 13
		in := lifeInput(w, h)
		ob := upload(g, make([]uint32, w*h))
		g.submit(g.k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), upload(g, in), ob))
		want := make([]uint32, w*h)
		cpu(t, kernel.Grid2(8, 8, w, h), func() { kernels.Life(w, h, in, want) })
		require.Equal(t, want, download(g, ob))
	})
	t.Run("Particles", func(t *testing.T) {
		g := compileOn(t, d, ks["Particles"])
		ps := make([]kernels.Particle, 50)
		for i := range ps {
			ps[i] = kernels.Particle{P: kernel.F2(float32(i), 0), V: kernel.F2(1, float32(i)*0.5), Age: uint32(i)}
		}
		pb := upload(g, ps)
		g.submit(g.k.Dispatch([3]uint32{uint32(len(ps))}, float32(0.5), pb))
		cpu(t, kernel.Grid1(32, uint32(len(ps))), func() { kernels.Particles(0.5, ps) })
		require.Equal(t, ps, download(g, pb))
	})
	t.Run("Corners", func(t *testing.T) {
		g := compileOn(t, d, ks["Corners"])
		in := cornersInput()
		ob := upload(g, make([]int32, len(in)))
		g.submit(g.k.Dispatch([3]uint32{uint32(len(in))}, upload(g, in), ob))
		want := make([]int32, len(in))
		cpu(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.Corners(in, want) })
		require.Equal(t, want, download(g, ob))
	})
	t.Run("Transform", func(t *testing.T) {
		g := compileOn(t, d, ks["Transform"])
		m := kernel.Float4x4{kernel.F4(1, 0, 0, 0), kernel.F4(0, 2, 0, 0), kernel.F4(0, 0, 3, 0), kernel.F4(1, 1, 1, 1)}
		in := []kernel.Float4{kernel.F4(1, 0, 0, 1), kernel.F4(0, 1, 0, 1), kernel.F4(1, 1, 1, 0), kernel.F4(-1, -1, -1, 1)}
		ob := upload(g, make([]kernel.Float4, len(in)))
		g.submit(g.k.Dispatch([3]uint32{uint32(len(in))}, m, upload(g, in), ob))
		want := make([]kernel.Float4, len(in))
		cpu(t, kernel.Grid1(64, uint32(len(in))), func() { kernels.Transform(m, in, want) })
		got := download(g, ob)
		for i := range want {
			requireClose(t, []float32{want[i].X, want[i].Y, want[i].Z, want[i].W}, []float32{got[i].X, got[i].Y, got[i].Z, got[i].W}, 1e-5)
		}
	})
	t.Run("Lang", func(t *testing.T) {
		g := compileOn(t, d, ks["Lang"])
		in := langInput()
		n := len(in)
		ob, cb, fb := upload(g, make([]int32, n)), upload(g, make([]kernels.Counter, n)), upload(g, make([]uint32, n))
		g.submit(g.k.Dispatch([3]uint32{uint32(n)}, upload(g, in), ob, cb, fb))
		out, counters, flags := make([]int32, n), make([]kernels.Counter, n), make([]uint32, n)
		cpu(t, kernel.Grid1(32, uint32(n)), func() { kernels.Lang(in, out, counters, flags) })
		require.Equal(t, out, download(g, ob))
		require.Equal(t, counters, download(g, cb))
		require.Equal(t, flags, download(g, fb))
	})
	t.Run("Gradient", func(t *testing.T) {
		g := compileOn(t, d, ks["Gradient"])
		const w, h = 13, 7
		src := gradientInput(t, w, h)
		si, err := device.NewImage[kernel.Float4](d, device.RGBA32Float, w, h, 1)
		require.NoError(t, err)
		defer si.Close()
		di, err := device.NewImage[kernel.Float4](d, device.RGBA32Float, w, h, 1)
		require.NoError(t, err)
		defer di.Close()
		got := make([]kernel.Float4, w*h)
		g.submit(si.Upload(src.Texels()), g.k.Dispatch([3]uint32{w, h}, si, di), di.Download(got))
		dst, err := kernel.NewTexture2D[kernel.Float4](w, h)
		require.NoError(t, err)
		cpu(t, kernel.Grid2(8, 8, w, h), func() { kernels.Gradient(src, dst) })
		require.Equal(t, dst.Texels(), got)
	})
	t.Run("Trace", func(t *testing.T) {
		g := compileOn(t, d, ks["Trace"])
		const w, h = 24, 20
		ob := upload(g, make([]float32, w*h))
		g.submit(g.k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), ob))
		want := make([]float32, w*h)
		cpu(t, kernel.Grid2(8, 8, w, h), func() { kernels.Trace(w, h, want) })
		requireClose(t, want, download(g, ob), 1e-3)
	})
	t.Run("Blur", func(t *testing.T) {
		g := compileOn(t, d, ks["Blur"])
		const w, h = 11, 5
		in := blurInput(w * h)
		ob := upload(g, make([]float32, w*h))
		g.submit(g.k.Dispatch([3]uint32{w * h}, uint32(w), uint32(h), upload(g, in), ob))
		want := make([]float32, w*h)
		cpu(t, kernel.Grid1(64, w*h), func() { kernels.Blur(w, h, in, want) })
		requireClose(t, want, download(g, ob), 1e-6)
	})
	t.Run("Gather", func(t *testing.T) {
		g := compileOn(t, d, ks["Gather"])
		const n = 100
		slot0, slot1, pick := gatherInput(n)
		b0, b1, b2 := upload(g, slot0), upload(g, slot1), upload(g, make([]float32, n))
		arr, err := d.NewBindlessArray(3)
		require.NoError(t, err)
		defer arr.Close()
		require.NoError(t, arr.EmplaceBuffer(0, b0))
		require.NoError(t, arr.EmplaceBuffer(1, b1))
		require.NoError(t, arr.EmplaceBuffer(2, b2))
		ob := upload(g, make([]float32, n))
		g.submit(arr.Update(), g.k.Dispatch([3]uint32{n}, arr, upload(g, pick), ob))

		cpuArr := kernel.NewBindless(3)
		counts := make([]float32, n)
		require.NoError(t, kernel.SetBindlessBuffer(cpuArr, 0, slot0))
		require.NoError(t, kernel.SetBindlessBuffer(cpuArr, 1, slot1))
		require.NoError(t, kernel.SetBindlessBuffer(cpuArr, 2, counts))
		want := make([]float32, n)
		cpu(t, kernel.Grid1(64, n), func() { kernels.Gather(cpuArr, pick, want) })
		require.Equal(t, want, download(g, ob))
		require.Equal(t, counts, download(g, b2))
	})
	t.Run("Atomics", func(t *testing.T) {
		g := compileOn(t, d, ks["Atomics"])
		const n = 500
		vals, tot := atomicsInput(n)
		tb := upload(g, tot)
		g.submit(g.k.Dispatch([3]uint32{n}, upload(g, vals), tb))
		cpu(t, kernel.Grid1(64, n), func() { kernels.Atomics(vals, tot) })
		require.Equal(t, tot, download(g, tb))
	})
	t.Run("Subgroups", func(t *testing.T) {
		g := compileOn(t, d, ks["Subgroups"])
		const n = 64
		in := subgroupsInput(n)
		ob := upload(g, make([]int32, n*12))
		g.submit(g.k.Dispatch([3]uint32{n}, upload(g, in), ob))
		want := make([]int32, n*12)
		grid := kernel.Grid1(32, n)
		grid.SubgroupSize = d.Capabilities().WarpSize
		cpu(t, grid, func() { kernels.Subgroups(in, want) })
		require.Equal(t, want, download(g, ob))
	})
	t.Run("Matrices", func(t *testing.T) {
		g := compileOn(t, d, ks["Matrices"])
		a, b, in := matricesInput()
		ob := upload(g, make([]kernel.Float3, len(in)))
		g.submit(g.k.Dispatch([3]uint32{uint32(len(in))}, a, b, upload(g, in), ob))
		want := make([]kernel.Float3, len(in))
		cpu(t, kernel.Grid1(16, uint32(len(in))), func() { kernels.Matrices(a, b, in, want) })
		got := download(g, ob)
		for i := range want {
			requireClose(t, []float32{want[i].X, want[i].Y, want[i].Z}, []float32{got[i].X, got[i].Y, got[i].Z}, 1e-4)
		}
	})
	t.Run("BlockStats", func(t *testing.T) {
		g := compileOn(t, d, ks["BlockStats"])
		const blocks = 5
		vals, _ := atomicsInput(blocks * 64)
		sb, mb := upload(g, make([]float32, blocks)), upload(g, make([]int64, blocks))
		g.submit(g.k.Dispatch([3]uint32{blocks * 64}, upload(g, vals), sb, mb))
		sums, maxes := make([]float32, blocks), make([]int64, blocks)
		cpu(t, kernel.Grid1(64, blocks*64), func() { kernels.BlockStats(vals, sums, maxes) })
		require.Equal(t, sums, download(g, sb))
		require.Equal(t, maxes, download(g, mb))
	})
}
