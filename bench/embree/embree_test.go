package embree

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel/bvh"
)

// shim is embree.c loaded into this process.
type shim struct{ init, build, trace uintptr }

var shimOnce struct {
	sync.Once
	s   *shim
	err error
}

func loadShim(b *testing.B) *shim {
	shimOnce.Do(func() { shimOnce.s, shimOnce.err = buildShim() })
	if shimOnce.err != nil {
		b.Skipf("the Embree twin (cc, libembree-dev): %v", shimOnce.err)
	}
	return shimOnce.s
}

func buildShim() (*shim, error) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "embreebench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir) // the library stays mapped once loaded
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "shim", "embree.c")
	lib := filepath.Join(dir, "libembreebench.so")
	if out, err := exec.Command(cc, "-O2", "-Wall", "-shared", "-fPIC", "-o", lib, src, "-lembree3", "-lpthread").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building %s: %w: %s", src, err, out)
	}
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, err
	}
	s := &shim{}
	for _, f := range []struct {
		p    *uintptr
		name string
	}{{&s.init, "emb_init"}, {&s.build, "emb_build"}, {&s.trace, "emb_trace"}} {
		if *f.p, err = purego.Dlsym(h, f.name); err != nil {
			return nil, err
		}
	}
	if r, _, _ := purego.SyscallN(s.init, uintptr(runtime.GOMAXPROCS(0))); int32(r) != 0 {
		return nil, fmt.Errorf("emb_init: error %d", int32(r))
	}
	return s, nil
}

// Embree build qualities.
const (
	qualityLow    = 0 // Morton
	qualityMedium = 1 // binned SAH
)

func (s *shim) buildScene(b *testing.B, tris []bvh.Triangle, quality int) time.Duration {
	r, _, _ := purego.SyscallN(s.build, uintptr(unsafe.Pointer(&tris[0])), uintptr(len(tris)), uintptr(quality))
	runtime.KeepAlive(tris)
	if int64(r) < 0 {
		b.Fatal("emb_build failed")
	}
	return time.Duration(r)
}

func (s *shim) traceRays(rays []bvh.Ray, shadow bool, prim []uint32, t []float32) time.Duration {
	sh := 0
	if shadow {
		sh = 1
	}
	r, _, _ := purego.SyscallN(s.trace, uintptr(unsafe.Pointer(&rays[0])), uintptr(len(rays)), uintptr(sh),
		uintptr(unsafe.Pointer(&prim[0])), uintptr(unsafe.Pointer(&t[0])), uintptr(runtime.GOMAXPROCS(0)))
	runtime.KeepAlive(rays)
	runtime.KeepAlive(prim)
	runtime.KeepAlive(t)
	return time.Duration(r)
}

// parallel is the Go side of the shim's worker loop: chunks of 256 rays
// taken from a shared counter by GOMAXPROCS goroutines.
func parallel(n int, f func(lo, hi int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	const chunk = 256
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n {
					return
				}
				f(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}

func timed(f func()) time.Duration {
	t0 := time.Now()
	f()
	return time.Since(t0)
}

// BenchmarkVsEmbree runs b.N rounds, each building the ~1M-triangle terrain
// with accel/bvh (FastBuild, SAH) and with Embree (low, medium quality) and
// tracing 512×512 primary rays and their shadow rays through both SAH
// builds, and reports the medians over rounds of each rate and of each
// ratio accel/bvh ÷ Embree (above 1: accel/bvh is faster), with the lowest
// and highest ratio of a round. Before timing it
// checks that both find the same primary hits.
func BenchmarkVsEmbree(b *testing.B) {
	s := loadShim(b)
	tris := terrain(724)
	primary := camera(512, 512)
	mesh, err := bvh.BuildTriangles(tris, bvh.Options{})
	require.NoError(b, err)
	scene, err := bvh.BuildScene([]bvh.Instance{{Mesh: mesh, Transform: bvh.Identity, Mask: 0xff, Opaque: true}}, bvh.Options{})
	require.NoError(b, err)
	hits := make([]bvh.Hit, len(primary))
	parallel(len(primary), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			hits[i] = scene.Closest(primary[i])
		}
	})
	shadow := shadowRays(primary, hits)
	prim := make([]uint32, len(primary))
	ts := make([]float32, len(primary))
	s.buildScene(b, tris, qualityMedium)
	s.traceRays(primary, false, prim, ts)
	same := 0
	for i, h := range hits {
		if h.Kind == bvh.KindMiss && prim[i] == math.MaxUint32 ||
			h.Kind != bvh.KindMiss && h.Prim == prim[i] && math.Abs(float64(h.T-ts[i])) <= 1e-5*float64(h.T) {
			same++
		}
	}
	// Rays through an edge or a vertex may be given to either triangle.
	require.Greater(b, float64(same)/float64(len(primary)), 0.999, "accel/bvh and Embree disagree on primary hits")
	blocked := make([]uint32, len(shadow))
	sts := make([]float32, len(shadow))
	s.traceRays(shadow, true, blocked, sts)
	agreeShadow := 0
	for i, r := range shadow {
		if scene.Any(r) == (blocked[i] == 1) {
			agreeShadow++
		}
	}
	require.Greater(b, float64(agreeShadow)/float64(len(shadow)), 0.999, "accel/bvh and Embree disagree on shadow rays")

	type series struct{ goRate, cRate []float64 }
	metrics := map[string]*series{}
	order := []string{"build-fast", "build-sah", "primary", "shadow"}
	for _, k := range order {
		metrics[k] = &series{}
	}
	add := func(k string, n int, g, c time.Duration) {
		metrics[k].goRate = append(metrics[k].goRate, float64(n)/g.Seconds()/1e6)
		metrics[k].cRate = append(metrics[k].cRate, float64(n)/c.Seconds()/1e6)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		add("build-fast", len(tris), timed(func() { _, err = bvh.BuildTriangles(tris, bvh.Options{FastBuild: true}) }), s.buildScene(b, tris, qualityLow))
		require.NoError(b, err)
		runtime.GC()
		add("build-sah", len(tris), timed(func() { _, err = bvh.BuildTriangles(tris, bvh.Options{}) }), s.buildScene(b, tris, qualityMedium))
		require.NoError(b, err)
		runtime.GC()
		add("primary", len(primary), timed(func() {
			parallel(len(primary), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					hits[i] = scene.Closest(primary[i])
				}
			})
		}), s.traceRays(primary, false, prim, ts))
		add("shadow", len(shadow), timed(func() {
			parallel(len(shadow), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					if scene.Any(shadow[i]) {
						blocked[i] = 1
					}
				}
			})
		}), s.traceRays(shadow, true, blocked, sts))
	}
	b.StopTimer()
	median := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[len(v)/2]
	}
	for _, k := range order {
		m := metrics[k]
		ratios := make([]float64, len(m.goRate))
		for i := range ratios {
			ratios[i] = m.goRate[i] / m.cRate[i]
		}
		unit := "Mrays/s"
		if k[:5] == "build" {
			unit = "Mtris/s"
		}
		b.ReportMetric(median(m.goRate), k+"-"+unit)
		b.ReportMetric(median(m.cRate), k+"-embree-"+unit)
		b.ReportMetric(median(ratios), k+"-x-embree")
		b.ReportMetric(slices.Min(ratios), k+"-x-embree-min")
		b.ReportMetric(slices.Max(ratios), k+"-x-embree-max")
	}
	b.ReportMetric(0, "ns/op")
}
