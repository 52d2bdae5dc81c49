package codegen

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// parallel runs body(i) for i in [0, n) on GOMAXPROCS goroutines, each
// taking a contiguous share.
func parallel(n int, body func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range p {
		lo, hi := n*w/p, n*(w+1)/p
		wg.Go(func() { body(lo, hi) })
	}
	wg.Wait()
}

// mandelbrotGo is programs.Mandelbrot as a parallel Go loop over rows,
// float32 arithmetic as on the device.
func mandelbrotGo(out []uint32, w, h int) {
	parallel(h, func(lo, hi int) {
		for py := lo; py < hi; py++ {
			cy := float32(py)/float32(h)*3 - 1.5
			for px := range w {
				cx := float32(px)/float32(w)*3 - 2
				var zx, zy float32
				n := uint32(programs.MandelbrotMaxIter)
				for i := range uint32(programs.MandelbrotMaxIter) {
					if zx*zx+zy*zy > 4 {
						n = i
						break
					}
					zx, zy = zx*zx-zy*zy+cx, 2*zx*zy+cy
				}
				out[py*w+px] = n
			}
		}
	})
}

// nbodyGo is programs.NBody as a parallel Go loop over bodies, float32
// arithmetic as on the device.
func nbodyGo(dt float32, pos, vel, newPos [][4]float32) {
	parallel(len(pos), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p := pos[i]
			var ax, ay, az float32
			for _, q := range pos {
				dx, dy, dz := q[0]-p[0], q[1]-p[1], q[2]-p[2]
				inv := float32(1 / math.Sqrt(float64(dx*dx+dy*dy+dz*dz+programs.NBodyEps)))
				s := q[3] * inv * inv * inv
				ax, ay, az = ax+dx*s, ay+dy*s, az+dz*s
			}
			v := [3]float32{vel[i][0] + ax*dt, vel[i][1] + ay*dt, vel[i][2] + az*dt}
			vel[i] = [4]float32{v[0], v[1], v[2], 0}
			newPos[i] = [4]float32{p[0] + v[0]*dt, p[1] + v[1]*dt, p[2] + v[2]*dt, p[3]}
		}
	})
}

// kernelNamed is the kernel of that name in kernels.
func kernelNamed(name string) kernel {
	i := slices.IndexFunc(kernels, func(k kernel) bool { return k.name == name })
	return kernels[i]
}

// nbodyInput is the bodies of nbodyRig.
func nbodyInput() (pos, vel [][4]float32) {
	var r rng = 6
	pos, vel = make([][4]float32, nbodyN), make([][4]float32, nbodyN)
	for i := range pos {
		pos[i] = [4]float32{r.unit()*10 - 5, r.unit()*10 - 5, r.unit()*10 - 5, r.unit() + 0.5}
		vel[i] = [4]float32{r.unit() - 0.5, r.unit() - 0.5, r.unit() - 0.5, 0}
	}
	return pos, vel
}

// TestGoLoops checks the Go loops the device is compared with against the
// CPU references, so the comparison is between equal computations.
func TestGoLoops(t *testing.T) {
	got := make([]uint32, mandelW*mandelH)
	mandelbrotGo(got, mandelW, mandelH)
	require.Equal(t, programs.MandelbrotRef(mandelW, mandelH), got)

	pos, vel := nbodyInput()
	wantPos, wantVel := programs.NBodyRef(nbodyDt, pos, vel)
	newPos := make([][4]float32, nbodyN)
	nbodyGo(nbodyDt, pos, vel, newPos)
	require.NoError(t, compare("pos", flat(newPos), flat(wantPos), 1e-3))
	require.NoError(t, compare("vel", flat(vel), flat(wantVel), 1e-3))
}

// BenchmarkVersusGo times lucent's mandelbrot and n-body on the device
// beside the same computation as a parallel Go loop (GOMAXPROCS goroutines),
// interleaved, at the sizes of BenchmarkCodegen; it reports the fastest and
// the median wall time of each and lucent / Go of each.
func BenchmarkVersusGo(b *testing.B) {
	d, s := openDevice(b, false)
	for _, c := range []struct {
		kernel kernel
		goRun  func() func()
	}{
		{kernelNamed("mandelbrot"), func() func() {
			out := make([]uint32, mandelW*mandelH)
			return func() { mandelbrotGo(out, mandelW, mandelH) }
		}},
		{kernelNamed("nbody"), func() func() {
			pos, vel := nbodyInput()
			newPos := make([][4]float32, nbodyN)
			return func() { nbodyGo(nbodyDt, pos, vel, newPos) }
		}},
	} {
		b.Run(c.kernel.name, func(b *testing.B) {
			r, err := c.kernel.rig(d, s)
			if err != nil {
				b.Fatal(err)
			}
			f, err := c.kernel.build()
			if err != nil {
				b.Fatal(err)
			}
			k, err := device.Compile(d, f)
			if err != nil {
				b.Fatal(err)
			}
			defer k.Close()
			goRun := c.goRun()
			sides := []func() error{
				func() error { return run(s, k.Dispatch(r.dims, r.lucent...)) },
				func() error { goRun(); return nil },
			}
			for _, side := range sides { // warm up
				if err := side(); err != nil {
					b.Fatal(err)
				}
			}
			times := make([][]time.Duration, len(sides))
			iter := 0
			for b.Loop() {
				for j := range sides {
					v := (iter + j) % len(sides)
					start := time.Now()
					if err := sides[v](); err != nil {
						b.Fatal(err)
					}
					times[v] = append(times[v], time.Since(start))
				}
				iter++
			}
			ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 }
			lmin, gmin := ms(slices.Min(times[0])), ms(slices.Min(times[1]))
			lmed, gmed := ms(median(times[0])), ms(median(times[1]))
			b.ReportMetric(lmin, "lucent-ms")
			b.ReportMetric(gmin, "go-ms")
			b.ReportMetric(lmin/gmin, "lucent/go")
			b.ReportMetric(lmed, "lucent-median-ms")
			b.ReportMetric(gmed, "go-median-ms")
			b.ReportMetric(lmed/gmed, "lucent/go-median")
		})
	}
}
