package main

import (
	"context"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// loopSource is the kernel package of TestHostLoops: the benchmark kernels
// (saxpy, mandelbrot, a Life stencil, n-body, a histogram with atomics),
// early returns from inside loops and a switch, labelled loops, a 3-D kernel reading every
// id, calling vector methods and printing, helpers, a thread that faults, and a kernel with shared
// memory (kept on kernel.Run). The kernel and math packages are imported
// under names of their own, which the copies must rename.
const loopSource = `package kern

import (
	m "math"
	"math/bits"

	k "github.com/lucent-gpu/lucent/kernel"
)

// Saxpy computes y = a*x + y.
//
//lucent:kernel block=256
func Saxpy(a float32, x, y []float32) {
	i := k.DispatchID().X
	if i < uint32(len(y)) {
		y[i] = a*x[i] + y[i]
	}
}

// Mandel writes the escape iteration of each pixel of a w×h image.
//
//lucent:kernel block=16,16
func Mandel(w, h uint32, out []uint32) {
	id := k.DispatchID()
	if id.X >= w || id.Y >= h {
		return
	}
	cx := -2 + 3*float32(id.X)/float32(w)
	cy := -1.5 + 3*float32(id.Y)/float32(h)
	var x, y float32
	n := uint32(0)
	for ; n < 256; n++ {
		if x*x+y*y > 4 {
			break
		}
		x, y = x*x-y*y+cx, 2*x*y+cy
	}
	out[id.Y*w+id.X] = n
}

// Life is one step of Conway's game on a w×h torus.
//
//lucent:kernel block=16,16
func Life(w, h uint32, in, out []uint32) {
	id := k.DispatchID()
	if id.X >= w || id.Y >= h {
		return
	}
	n := uint32(0)
	for dy := uint32(0); dy < 3; dy++ {
		for dx := uint32(0); dx < 3; dx++ {
			if dx == 1 && dy == 1 {
				continue
			}
			x := (id.X + w + dx - 1) % w
			y := (id.Y + h + dy - 1) % h
			n += in[y*w+x]
		}
	}
	alive := in[id.Y*w+id.X]
	if n == 3 || (n == 2 && alive == 1) {
		out[id.Y*w+id.X] = 1
	} else {
		out[id.Y*w+id.X] = 0
	}
}

// Body is a point mass.
type Body struct{ X, Y, Z, M float32 }

// NBody writes each body's acceleration from all the others.
//
//lucent:kernel block=64
func NBody(n uint32, bodies, acc []Body) {
	i := k.DispatchID().X
	if i >= n {
		return
	}
	p := bodies[i]
	var ax, ay, az float32
	for j := uint32(0); j < n; j++ {
		q := bodies[j]
		dx, dy, dz := q.X-p.X, q.Y-p.Y, q.Z-p.Z
		r2 := dx*dx + dy*dy + dz*dz + 0.01
		inv := 1 / float32(m.Sqrt(float64(r2)))
		s := q.M * inv * inv * inv
		ax, ay, az = ax+dx*s, ay+dy*s, az+dz*s
	}
	acc[i] = Body{X: ax, Y: ay, Z: az, M: p.M}
}

// Hist counts the values of in modulo len(bins), with atomics.
//
//lucent:kernel block=64
func Hist(in, bins []uint32) {
	i := k.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	k.AtomicAdd(&bins[in[i]%uint32(len(bins))], 1)
}

// Early returns from inside a loop and a switch: the thread ends, the
// loop around it does not.
//
//lucent:kernel block=32
func Early(n uint32, out []int32) {
	i := k.DispatchID().X
	if i >= n {
		return
	}
	for j := uint32(0); j < 10; j++ {
		for l := uint32(0); l < 3; l++ {
			switch j*3 + l {
			case 4:
				if i%5 == 0 {
					out[i] = 4
					return
				}
			case 17:
				if i%3 == 0 {
					out[i] = 17
					return
				}
			}
			if j*3+l == i%29 {
				out[i] = int32(j*3 + l)
				return
			}
		}
	}
	out[i] = -1
}

// Labels leaves nested loops with labelled break and continue, a switch
// (an if/else chain) with break, and returns from inside them, counting
// with math/bits; then a goto forward skips a switch with fallthrough.
//
//lucent:kernel block=32
func Labels(n uint32, out []int32) {
	i := k.DispatchID().X
	if i >= n {
		return
	}
	c := int32(0)
rows:
	for j := uint32(0); j < 8; j++ {
		for l := range 8 {
			switch v := int64(i*j) + int64(l); {
			case v%7 == 3:
				continue rows
			case v%11 == 5:
				break
			case bits.OnesCount32(uint32(v)) > 4:
				if i%2 == 0 {
					break rows
				}
				out[i] = -c
				return
			default:
				c += int32(bits.TrailingZeros32(uint32(v)))
			}
			c++
		}
	}
	if c%5 == 2 {
		goto end
	}
	switch c % 4 {
	case 1:
		c += 7
		fallthrough
	case 2:
		c *= 2
	}
end:
	out[i] = c
}

func scale(v uint32, by float32) float32 { return float32(v) * by }

func mix(a, b float32) float32 { return a*0.25 + b*0.75 }

// Ids records, for each thread of a 3-D dispatch, its ids through helpers,
// and thread 3 prints.
//
//lucent:kernel block=4,2,2
func Ids(out []float32) {
	d, t, b := k.DispatchID(), k.ThreadID(), k.BlockID()
	bs, ds, g := k.BlockSize(), k.DispatchSize(), k.DispatchGroups()
	i := (d.Z*ds.Y+d.Y)*ds.X + d.X
	if e := b.Mul(bs).Add(t); e != d { // methods of the kernel package's vectors
		out[i] = -1
		return
	}
	if d.X == 3 && d.Y == 0 && d.Z == 0 {
		k.Printf("thread %u of %v", k.DispatchID().X, k.DispatchSize())
	}
	out[i] = mix(scale(t.X+t.Y*bs.X+t.Z*bs.X*bs.Y, 1), scale(b.X+b.Y*g.X+b.Z*g.X*g.Y, 1000))
}

// Fault reads past the end of in in thread at only.
//
//lucent:kernel block=32
func Fault(at uint32, in, out []uint32) {
	i := k.DispatchID().X
	j := i
	if i == at {
		j = uint32(len(in))
	}
	out[i] = in[j]
}

// Reverse reverses each block of 64 elements through shared memory.
//
//lucent:kernel block=64
func Reverse(buf []uint32) {
	tile := k.Shared[[64]uint32]()
	t, i := k.ThreadID().X, k.DispatchID().X
	tile[t] = buf[i]
	k.Barrier()
	buf[i] = tile[63-t]
}
`

// loopTestSource checks in the kernel package that each host function
// lucentc wrote computes what kernel.Run computes with the kernel, and
// benchmarks both against a hand-written parallel Go loop.
const loopTestSource = `package kern

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/lucent-gpu/lucent/kernel"
	"github.com/stretchr/testify/require"
)

func raw[T any](s []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

func val[T any](v T) []byte { return raw([]T{v}) }

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

func grid(bx, by, bz uint32, size [3]uint32) kernel.Grid {
	return kernel.Grid{Block: kernel.Uint3{X: bx, Y: by, Z: bz}, Size: kernel.Uint3{X: size[0], Y: size[1], Z: size[2]}, SubgroupSize: 1}
}

type hostFunc func(context.Context, [3]uint32, [][]byte) error

// same runs run (kernel.Run) and host on fresh copies of the buffers from
// setup, and requires the same buffers and the same error.
func same[T comparable](t *testing.T, setup func() [][]T, run func(bufs [][]T) error, host func(bufs [][]T) error) {
	t.Helper()
	a, b := setup(), setup()
	errA, errB := run(a), host(b)
	if errA != nil || errB != nil {
		require.Error(t, errA)
		require.Error(t, errB)
		// The same text, the kernel's line named in both: kernel.Run's by
		// the source's path, the host function's by the file's name (its
		// copy's line directive is relative, so the generated file is the
		// same on every machine).
		require.Equal(t, baseSite(errA.Error()), errB.Error())
	}
	require.Equal(t, a, b)
}

// baseSite cuts the directory off a "dir/file.go:line: " in err.
func baseSite(err string) string {
	i := strings.Index(err, ".go:")
	if i < 0 {
		return err
	}
	j := strings.LastIndex(err[:i], " ")
	return err[:j+1] + filepath.Base(err[j+1:i]) + err[i:]
}

func TestLoops(t *testing.T) {
	ctx := context.Background()
	t.Run("saxpy", func(t *testing.T) {
		const n = 1000 // a partial last block
		same(t, func() [][]float32 {
			x, y := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], y[i] = float32(i)*0.5, float32(i%7)
			}
			return [][]float32{x, y}
		}, func(b [][]float32) error {
			return kernel.Run(ctx, grid(256, 1, 1, [3]uint32{n, 1, 1}), func() { Saxpy(3, b[0], b[1]) })
		}, func(b [][]float32) error {
			return hostSaxpy(ctx, [3]uint32{n, 1, 1}, [][]byte{val(float32(3)), raw(b[0]), raw(b[1])})
		})
	})
	t.Run("mandel", func(t *testing.T) {
		const w, h = 100, 70
		same(t, func() [][]uint32 { return [][]uint32{make([]uint32, w*h)} }, func(b [][]uint32) error {
			return kernel.Run(ctx, grid(16, 16, 1, [3]uint32{w, h, 1}), func() { Mandel(w, h, b[0]) })
		}, func(b [][]uint32) error {
			return hostMandel(ctx, [3]uint32{w, h, 1}, [][]byte{val(uint32(w)), val(uint32(h)), raw(b[0])})
		})
	})
	t.Run("life", func(t *testing.T) {
		const w, h = 50, 40
		same(t, func() [][]uint32 {
			in := make([]uint32, w*h)
			for i := range in {
				in[i] = uint32(i*7919%13) & 1
			}
			return [][]uint32{in, make([]uint32, w*h)}
		}, func(b [][]uint32) error {
			return kernel.Run(ctx, grid(16, 16, 1, [3]uint32{w, h, 1}), func() { Life(w, h, b[0], b[1]) })
		}, func(b [][]uint32) error {
			return hostLife(ctx, [3]uint32{w, h, 1}, [][]byte{val(uint32(w)), val(uint32(h)), raw(b[0]), raw(b[1])})
		})
	})
	t.Run("nbody", func(t *testing.T) {
		const n = 200
		same(t, func() [][]Body {
			bodies := make([]Body, n)
			for i := range bodies {
				bodies[i] = Body{float32(i % 17), float32(i % 5), float32(i % 11), 1 + float32(i%3)}
			}
			return [][]Body{bodies, make([]Body, n)}
		}, func(b [][]Body) error {
			return kernel.Run(ctx, grid(64, 1, 1, [3]uint32{n, 1, 1}), func() { NBody(n, b[0], b[1]) })
		}, func(b [][]Body) error {
			return hostNBody(ctx, [3]uint32{n, 1, 1}, [][]byte{val(uint32(n)), raw(b[0]), raw(b[1])})
		})
	})
	t.Run("hist", func(t *testing.T) {
		const n = 5000
		same(t, func() [][]uint32 {
			in := make([]uint32, n)
			for i := range in {
				in[i] = uint32(i * i)
			}
			return [][]uint32{in, make([]uint32, 16)}
		}, func(b [][]uint32) error {
			return kernel.Run(ctx, grid(64, 1, 1, [3]uint32{n, 1, 1}), func() { Hist(b[0], b[1]) })
		}, func(b [][]uint32) error {
			return hostHist(ctx, [3]uint32{n, 1, 1}, [][]byte{raw(b[0]), raw(b[1])})
		})
	})
	t.Run("early", func(t *testing.T) {
		const n = 300
		same(t, func() [][]int32 { return [][]int32{make([]int32, n+40)} }, func(b [][]int32) error {
			return kernel.Run(ctx, grid(32, 1, 1, [3]uint32{n + 40, 1, 1}), func() { Early(n, b[0]) })
		}, func(b [][]int32) error {
			return hostEarly(ctx, [3]uint32{n + 40, 1, 1}, [][]byte{val(uint32(n)), raw(b[0])})
		})
	})
	t.Run("labels", func(t *testing.T) {
		const n = 300
		same(t, func() [][]int32 { return [][]int32{make([]int32, n+40)} }, func(b [][]int32) error {
			return kernel.Run(ctx, grid(32, 1, 1, [3]uint32{n + 40, 1, 1}), func() { Labels(n, b[0]) })
		}, func(b [][]int32) error {
			return hostLabels(ctx, [3]uint32{n + 40, 1, 1}, [][]byte{val(uint32(n)), raw(b[0])})
		})
	})
	t.Run("ids", func(t *testing.T) {
		size := [3]uint32{10, 5, 3} // partial blocks in every dimension
		var logs bytes.Buffer
		old := slog.Default()
		slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
		defer slog.SetDefault(old)
		same(t, func() [][]float32 { return [][]float32{make([]float32, 150)} }, func(b [][]float32) error {
			return kernel.Run(ctx, grid(4, 2, 2, size), func() { Ids(b[0]) })
		}, func(b [][]float32) error {
			return hostIds(ctx, size, [][]byte{raw(b[0])})
		})
		require.Equal(t, 2, bytes.Count(logs.Bytes(), []byte("thread=\"[3 0 0]\" text=\"thread 3 of {10 5 3}\"")), logs.String())
	})
	t.Run("fault", func(t *testing.T) {
		const n = 100
		same(t, func() [][]uint32 { return [][]uint32{make([]uint32, n), make([]uint32, n)} }, func(b [][]uint32) error {
			return kernel.Run(ctx, grid(32, 1, 1, [3]uint32{40, 1, 1}), func() { Fault(37, b[0], b[1]) })
		}, func(b [][]uint32) error {
			err := hostFault(ctx, [3]uint32{40, 1, 1}, [][]byte{val(uint32(37)), raw(b[0]), raw(b[1])})
			require.ErrorIs(t, err, kernel.ErrKernelPanic)
			require.ErrorContains(t, err, "thread {5 0 0} of block {1 0 0} (dispatch id {37 0 0}): runtime error: index out of range [100] with length 100")
			return err
		})
	})
	t.Run("reverse", func(t *testing.T) {
		same(t, func() [][]uint32 {
			buf := make([]uint32, 256)
			for i := range buf {
				buf[i] = uint32(i)
			}
			return [][]uint32{buf}
		}, func(b [][]uint32) error {
			return kernel.Run(ctx, grid(64, 1, 1, [3]uint32{256, 1, 1}), func() { Reverse(b[0]) })
		}, func(b [][]uint32) error {
			return hostReverse(ctx, [3]uint32{256, 1, 1}, [][]byte{raw(b[0])})
		})
	})
}

// parallel runs f over [0, n) split across GOMAXPROCS goroutines: the
// hand-written loop the host functions are measured against.
func parallel(n int, f func(lo, hi int)) {
	w := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for i := range w {
		lo, hi := n*i/w, n*(i+1)/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// cpuTime is the process's user and system time: on a shared machine the
// figure that waiting for a core does not inflate.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// loop runs f b.N times and reports its CPU time per run beside the wall time.
func loop(b *testing.B, f func() error) {
	t0 := cpuTime()
	for b.Loop() {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-t0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkLoops: each kernel as a parallel Go loop (go), as the host
// function lucentc writes (host) and through kernel.Run (run).
func BenchmarkLoops(b *testing.B) {
	ctx := context.Background()
	b.Run("saxpy", func(b *testing.B) {
		const n = 1 << 20
		x, y := make([]float32, n), make([]float32, n)
		args := [][]byte{val(float32(2)), raw(x), raw(y)}
		b.Run("go", func(b *testing.B) {
			loop(b, func() error {
				parallel(n, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						y[i] = 2*x[i] + y[i]
					}
				})
				return nil
			})
		})
		b.Run("host", func(b *testing.B) {
			loop(b, func() error { return hostSaxpy(ctx, [3]uint32{n, 1, 1}, args) })
		})
		b.Run("run", func(b *testing.B) {
			loop(b, func() error { return kernel.Run(ctx, grid(256, 1, 1, [3]uint32{n, 1, 1}), func() { Saxpy(2, x, y) }) })
		})
	})
	b.Run("mandel", func(b *testing.B) {
		const w, h = 256, 256
		out := make([]uint32, w*h)
		args := [][]byte{val(uint32(w)), val(uint32(h)), raw(out)}
		b.Run("go", func(b *testing.B) {
			loop(b, func() error {
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
							out[py*w+px] = n
						}
					}
				})
				return nil
			})
		})
		b.Run("host", func(b *testing.B) {
			loop(b, func() error { return hostMandel(ctx, [3]uint32{w, h, 1}, args) })
		})
		b.Run("run", func(b *testing.B) {
			loop(b, func() error {
				return kernel.Run(ctx, grid(16, 16, 1, [3]uint32{w, h, 1}), func() { Mandel(w, h, out) })
			})
		})
	})
	b.Run("life", func(b *testing.B) {
		const w, h = 512, 512
		in, out := make([]uint32, w*h), make([]uint32, w*h)
		for i := range in {
			in[i] = uint32(i*7919%13) & 1
		}
		args := [][]byte{val(uint32(w)), val(uint32(h)), raw(in), raw(out)}
		dims := []uint32{w, h}
		b.Run("go", func(b *testing.B) {
			loop(b, func() error {
				parallel(h, func(lo, hi int) {
					w, h := dims[0], dims[1] // not constants, as the kernel's are not
					for y := uint32(lo); y < uint32(hi); y++ {
						for x := uint32(0); x < w; x++ {
							n := uint32(0)
							for dy := uint32(0); dy < 3; dy++ {
								for dx := uint32(0); dx < 3; dx++ {
									if dx == 1 && dy == 1 {
										continue
									}
									n += in[(y+h+dy-1)%h*w+(x+w+dx-1)%w]
								}
							}
							if n == 3 || (n == 2 && in[y*w+x] == 1) {
								out[y*w+x] = 1
							} else {
								out[y*w+x] = 0
							}
						}
					}
				})
				return nil
			})
		})
		b.Run("host", func(b *testing.B) {
			loop(b, func() error { return hostLife(ctx, [3]uint32{w, h, 1}, args) })
		})
		b.Run("run", func(b *testing.B) {
			loop(b, func() error {
				return kernel.Run(ctx, grid(16, 16, 1, [3]uint32{w, h, 1}), func() { Life(w, h, in, out) })
			})
		})
	})
	b.Run("nbody", func(b *testing.B) {
		const n = 1024
		bodies, acc := make([]Body, n), make([]Body, n)
		for i := range bodies {
			bodies[i] = Body{float32(i % 17), float32(i % 5), float32(i % 11), 1}
		}
		args := [][]byte{val(uint32(n)), raw(bodies), raw(acc)}
		b.Run("go", func(b *testing.B) {
			loop(b, func() error {
				parallel(n, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						p := bodies[i]
						var ax, ay, az float32
						for _, q := range bodies {
							dx, dy, dz := q.X-p.X, q.Y-p.Y, q.Z-p.Z
							inv := 1 / sqrt32(dx*dx+dy*dy+dz*dz+0.01)
							s := q.M * inv * inv * inv
							ax, ay, az = ax+dx*s, ay+dy*s, az+dz*s
						}
						acc[i] = Body{ax, ay, az, p.M}
					}
				})
				return nil
			})
		})
		b.Run("host", func(b *testing.B) {
			loop(b, func() error { return hostNBody(ctx, [3]uint32{n, 1, 1}, args) })
		})
		b.Run("run", func(b *testing.B) {
			loop(b, func() error {
				return kernel.Run(ctx, grid(64, 1, 1, [3]uint32{n, 1, 1}), func() { NBody(n, bodies, acc) })
			})
		})
	})
	b.Run("hist", func(b *testing.B) {
		const n = 1 << 18
		in, bins := make([]uint32, n), make([]uint32, 16)
		for i := range in {
			in[i] = uint32(i * i)
		}
		args := [][]byte{raw(in), raw(bins)}
		b.Run("go", func(b *testing.B) {
			loop(b, func() error {
				parallel(n, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						kernel.AtomicAdd(&bins[in[i]%16], 1)
					}
				})
				return nil
			})
		})
		b.Run("host", func(b *testing.B) {
			loop(b, func() error { return hostHist(ctx, [3]uint32{n, 1, 1}, args) })
		})
		b.Run("run", func(b *testing.B) {
			loop(b, func() error { return kernel.Run(ctx, grid(64, 1, 1, [3]uint32{n, 1, 1}), func() { Hist(in, bins) }) })
		})
	})
}
`

// TestHostLoops generates launchers for loopSource and runs, in the kernel
// package, loopTestSource: every host function equals kernel.Run with the
// kernel (buffers and errors), Printf prints once per run for the same
// thread. It checks that the generated file is gofmt'd and vet-clean, and
// which kernels became loops. LUCENT_HOSTLOOP_BENCH=1 also runs
// BenchmarkLoops there and logs its output.
func TestHostLoops(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"kern/kern.go": loopSource, "kern/loops_test.go": loopTestSource})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 0, code, stderr)
	src, err := os.ReadFile(filepath.Join(dir, "kern", goFileName))
	require.NoError(t, err)
	formatted, err := format.Source(src)
	require.NoError(t, err)
	require.Equal(t, string(formatted), string(src), "the generated file is gofmt'd")
	for _, name := range []string{"Saxpy", "Mandel", "Life", "NBody", "Hist", "Early", "Labels", "Ids", "Fault"} {
		require.Contains(t, string(src), "lucentcLoop"+name+"(b, a0", name)
	}
	require.Contains(t, string(src), "// kernel.Run, not a loop over the threads: kernel.Shared.\n\treturn kernel.Run(ctx, grid, func() { Reverse(a0) })")
	require.Contains(t, string(src), "kernel.AtomicAdd(&bins[in[i]%uint32(len(bins))], 1)", "the package renamed")
	require.Contains(t, string(src), "inv := 1 / float32(math.Sqrt(float64(r2)))")
	require.Contains(t, string(src), "lucentcB.Printf(\"thread %u of %v\", lucentcD.X, lucentcB.Grid.Size)")
	// The thread loops test their condition at the bottom, an early
	// return jumping to the next thread: with the kernel's own bounds test
	// a loop tested at the top took two taken branches a thread.
	require.Contains(t, string(src), "\tfor lucentcX := uint32(0); ; {\n\t\tlucentcB.Thread.X = lucentcX\n")
	require.Contains(t, string(src), "lucentcNextX:\n\t\tlucentcX++\n\t\tif lucentcX >= lucentcNX {\n\t\t\tbreak\n\t\t}\n")
	require.Contains(t, string(src), "goto lucentcNextX")
	require.NotContains(t, string(src), "lucentcX < lucentcNX")
	require.NotContains(t, string(src), "k.AtomicAdd", "no package name of the kernel's file is left")
	require.NotContains(t, string(src), "m.Sqrt", "no package name of the kernel's file is left")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := goCommand(t, ctx, dir, "vet", "./kern")
	require.NoError(t, err, out)
	out, err = goCommand(t, ctx, dir, "test", "-count=1", "-run", "TestLoops", "./kern")
	require.NoError(t, err, out)
	if os.Getenv("LUCENT_HOSTLOOP_BENCH") != "" {
		out, err = goCommand(t, ctx, dir, "test", "-count=1", "-run", "^$", "-bench", "Loops", "-benchtime", "10x", "./kern")
		require.NoError(t, err, out)
		t.Log(out)
	}
	require.False(t, strings.Contains(out, "FAIL"), out)
}
