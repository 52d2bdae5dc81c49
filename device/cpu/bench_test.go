package cpu_test

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// parallel runs body(lo, hi) over [0, n) split across GOMAXPROCS goroutines:
// the hand-written Go loop the kernels are measured against.
func parallel(n int, body func(lo, hi int)) {
	w := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for i := range w {
		lo, hi := n*i/w, n*(i+1)/w
		wg.Add(1)
		go func() { defer wg.Done(); body(lo, hi) }()
	}
	wg.Wait()
}

// interleave times a and b alternately rounds times and reports both
// medians and their ratio.
func interleave(b *testing.B, names [2]string, fns [2]func()) {
	var ts [2][]time.Duration
	for b.Loop() {
		for i, f := range fns {
			start := time.Now()
			f()
			ts[i] = append(ts[i], time.Since(start))
		}
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	m0, m1 := med(ts[0]), med(ts[1])
	b.ReportMetric(m0, names[0]+"-ns")
	b.ReportMetric(m1, names[1]+"-ns")
	b.ReportMetric(m1/m0, names[1]+"/"+names[0])
}

func BenchmarkSaxpyVsGo(b *testing.B) {
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(b, err)
	defer d.Close()
	f, err := programs.Saxpy()
	require.NoError(b, err)
	k, err := device.Compile(d, f)
	require.NoError(b, err)
	const n = 1 << 20
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), 1
	}
	bx, _ := device.NewBuffer[float32](d, n)
	by, _ := device.NewBuffer[float32](d, n)
	s, _ := d.NewStream(device.StreamCompute)
	require.NoError(b, s.Submit(bx.Upload(x), by.Upload(y)))
	cmd := k.Dispatch([3]uint32{n}, float32(2), bx, by)
	interleave(b, [2]string{"go", "cpu"}, [2]func(){
		func() {
			parallel(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					y[i] = 2*x[i] + y[i]
				}
			})
		},
		func() {
			_ = s.Submit(cmd)
			_ = s.Synchronize(context.Background())
		},
	})
}

func BenchmarkMandelbrotVsGo(b *testing.B) {
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(b, err)
	defer d.Close()
	f, err := programs.Mandelbrot()
	require.NoError(b, err)
	k, err := device.Compile(d, f)
	require.NoError(b, err)
	const w, h = 256, 256
	out, _ := device.NewBuffer[uint32](d, w*h)
	s, _ := d.NewStream(device.StreamCompute)
	cmd := k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), out)
	img := make([]uint32, w*h)
	interleave(b, [2]string{"go", "cpu"}, [2]func(){
		func() {
			parallel(h, func(lo, hi int) {
				for py := lo; py < hi; py++ {
					for px := range w {
						cx := float32(px)/float32(w)*3 - 2
						cy := float32(py)/float32(h)*3 - 1.5
						var zx, zy float32
						n := uint32(programs.MandelbrotMaxIter)
						for i := range uint32(programs.MandelbrotMaxIter) {
							if zx*zx+zy*zy > 4 {
								n = i
								break
							}
							zx, zy = zx*zx-zy*zy+cx, 2*zx*zy+cy
						}
						img[py*w+px] = n
					}
				}
			})
		},
		func() {
			_ = s.Submit(cmd)
			_ = s.Synchronize(context.Background())
		},
	})
}

// BenchmarkEmptyDispatch is the cost of one dispatch of a one-thread kernel,
// submitted and waited for.
func BenchmarkEmptyDispatch(b *testing.B) {
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(b, err)
	defer d.Close()
	f, err := programs.Saxpy()
	require.NoError(b, err)
	k, err := device.Compile(d, f)
	require.NoError(b, err)
	bx, _ := device.NewBuffer[float32](d, 1)
	s, _ := d.NewStream(device.StreamCompute)
	cmd := k.Dispatch([3]uint32{1}, float32(2), bx, bx)
	b.Run("submit+sync", func(b *testing.B) {
		c0 := cpuSeconds()
		for b.Loop() {
			_ = s.Submit(cmd)
			_ = s.Synchronize(context.Background())
		}
		b.ReportMetric((cpuSeconds()-c0)*1e9/float64(b.N), "cpu-ns/op") // the process's, every goroutine's
	})
	b.Run("100-per-sync", func(b *testing.B) {
		cmds := slices.Repeat([]device.Command{cmd}, 100)
		for b.Loop() {
			_ = s.Submit(cmds...)
			_ = s.Synchronize(context.Background())
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/dispatch")
	})
}

// BenchmarkGoKernels runs Go-subset kernels (hostkernels_test.go) on the cpu
// backend three ways in one loop: a hand-written parallel Go loop, the
// kernel as compiled Go (ShaderDesc.Host, as a lucentc launcher passes it)
// and the same kernel's IR through the closures.
func BenchmarkGoKernels(b *testing.B) {
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(b, err)
	defer d.Close()
	s, _ := d.NewStream(device.StreamCompute)
	var calls atomic.Int32
	kernels := func(name string, host device.HostFunc) (ir, gok *device.Kernel) {
		f := hostKernel(b, name)
		ir, err := device.Compile(d, f)
		require.NoError(b, err)
		gok, err = device.Compile(d, f, device.WithHost(host))
		require.NoError(b, err)
		return ir, gok
	}
	dispatch := func(cmd device.Command) func() {
		return func() {
			_ = s.Submit(cmd)
			_ = s.Synchronize(context.Background())
		}
	}
	b.Run("saxpy", func(b *testing.B) {
		const n = 1 << 20
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = float32(i), 1
		}
		bx, _ := device.NewBufferFrom(d, x)
		by, _ := device.NewBufferFrom(d, y)
		ir, gok := kernels("HostSaxpy", saxpyHost(&calls))
		interleave3(b, [3]string{"go", "host", "ir"}, [3]func(){
			func() {
				parallel(n, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						y[i] = 2*x[i] + y[i]
					}
				})
			},
			dispatch(gok.Dispatch([3]uint32{n}, float32(2), bx, by)),
			dispatch(ir.Dispatch([3]uint32{n}, float32(2), bx, by)),
		})
	})
	b.Run("mandelbrot", func(b *testing.B) {
		const w, h = 256, 256
		out, _ := device.NewBuffer[uint32](d, w*h)
		img := make([]uint32, w*h)
		ir, gok := kernels("HostMandelbrot", mandelHost(&calls))
		interleave3(b, [3]string{"go", "host", "ir"}, [3]func(){
			func() {
				parallel(h, func(lo, hi int) {
					for py := lo; py < hi; py++ {
						for px := range w {
							cx := -2 + 3*float32(px)/float32(w)
							cy := -1.5 + 3*float32(py)/float32(h)
							var x, y float32
							n := uint32(0)
							for ; n < 256; n++ {
								if x*x+y*y > 4 {
									break
								}
								x, y = x*x-y*y+cx, 2*x*y+cy
							}
							img[py*w+px] = n
						}
					}
				})
			},
			dispatch(gok.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), out)),
			dispatch(ir.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), out)),
		})
	})
}

// interleave3 is interleave for three: medians, and each against the first.
func interleave3(b *testing.B, names [3]string, fns [3]func()) {
	var ts [3][]time.Duration
	for b.Loop() {
		for i, f := range fns {
			start := time.Now()
			f()
			ts[i] = append(ts[i], time.Since(start))
		}
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	m0 := med(ts[0])
	b.ReportMetric(m0, names[0]+"-ns")
	for i := 1; i < 3; i++ {
		m := med(ts[i])
		b.ReportMetric(m, names[i]+"-ns")
		b.ReportMetric(m/m0, names[i]+"/"+names[0])
	}
}
