package vulkan

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// BenchmarkVsC runs each runtime benchmark against its raw-C twin
// (bench/vkbench.c, built with cc -O2 as a shared library and loaded into
// this process through purego) in one process, interleaved: every round
// times a block of C operations and a block of Go operations back to back
// (the order alternating between rounds), so both see the same machine load,
// and keeps the ratio of the two. It reports
//
//	ns/op, C-ns/op   lucent's and C's median time per operation
//	x-C              the median of the per-round ratios lucent/C (time: below 1, lucent is faster)
//	x-C-q1, x-C-q3   their quartiles (the spread)
//	x-C-lo, x-C-hi   a 95% confidence interval of the median (order statistics:
//	                 ranks n/2 ∓ 0.98·√n of the n sorted ratios)
//	thru-x-C         for transfers and saxpy, the throughput ratio lucent/C (1/x-C)
//
// b.N is the number of rounds; run it with a fixed count:
//
//	go test -run '^$' -bench '^BenchmarkVsC$' -benchtime 41x ./device/vulkan
//
// (bench/compare.sh runs exactly this and prints a table; LUCENT_VSC_LOG=1
// logs every round's figures).
func BenchmarkVsC(b *testing.B) {
	for _, bc := range []struct {
		name  string
		which int // vkb_run's benchmark number
		setup func(*testing.B, *fixture) func()
		per   int   // dispatches per operation, for ns/dispatch
		bytes int64 // bytes per operation, for throughput
	}{
		{"DispatchChain", 0, chainOp, chainLength, 0},
		{"RoundTrip", 1, roundTripOp, 0, 0},
		{"RoundTripRawVk", 1, rawVkRoundTripOp, 0, 0},
		// The twin's own round trip, entered once per round trip from Go:
		// what returning to Go between round trips costs C itself.
		{"RoundTripCPerCall", 1, cPerCallRoundTripOp, 0, 0},
		{"Upload", 2, uploadOp, 0, transferBytes},
		{"Download", 3, downloadOp, 0, transferBytes},
		{"Saxpy", 4, saxpyOp, 0, 12 * saxpyN},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.name == "RoundTripRawVk" {
				b.Setenv(EnvBinding, "push") // it records push descriptors
			}
			f := benchFixture(b)
			tw := loadTwin(b, f.d)
			op := bc.setup(b, f)
			r := paired(b, func(n int) time.Duration { return tw.run(b, bc.which, n) }, op)
			r.report(b, bc.per, bc.bytes)
		})
	}
}

// roundTarget is how long each side of a round runs, at least one operation.
const roundTarget = 20 * time.Millisecond

// pairedResult is what paired measured.
type pairedResult struct {
	goNs, cNs []float64 // per operation, one per round
	ratios    []float64 // lucent/C, one per round
}

// paired runs b.N rounds of c (n operations of the twin, returning their
// time) and n operations of op, alternating which goes first.
func paired(b *testing.B, c func(n int) time.Duration, op func()) pairedResult {
	ns, _ := interleaved(b, []func(n int) time.Duration{c, timed(op)})
	r := pairedResult{cNs: ns[0], goNs: ns[1]}
	for i := range r.cNs {
		r.ratios = append(r.ratios, r.goNs[i]/r.cNs[i])
	}
	if os.Getenv("LUCENT_VSC_LOG") != "" {
		b.Logf("rounds (C first on even rounds): ratios %.3f\nlucent ns/op %.0f\nC ns/op %.0f", r.ratios, r.goNs, r.cNs)
	}
	return r
}

// timed makes op a side of interleaved: n operations, their time.
func timed(op func()) func(n int) time.Duration {
	return func(n int) time.Duration {
		start := time.Now()
		for range n {
			op()
		}
		return time.Since(start)
	}
}

// interleaved runs b.N rounds of every side (a side runs n operations and
// returns their time), a block of the same number of operations each, the
// side going first rotating between rounds, and returns each side's time per
// operation in each round, ns[side][round], and the process's CPU time (user
// and system, every thread: the driver's included) per operation in the same
// blocks, cpu[side][round]. The block is what makes the first side's round
// last about roundTarget; one warm-up round is dropped.
func interleaved(b *testing.B, sides []func(n int) time.Duration) (ns, cpu [][]float64) {
	block := 1
	if t := sides[0](1); t < roundTarget {
		block = int(roundTarget / max(t, time.Microsecond))
	}
	for _, side := range sides { // the warm-up round
		side(block)
	}
	ns, cpu = make([][]float64, len(sides)), make([][]float64, len(sides))
	b.ResetTimer()
	for i := range b.N {
		for k := range sides {
			j := (i + k) % len(sides)
			c0 := processCPU()
			t := sides[j](block)
			c := processCPU() - c0
			ns[j] = append(ns[j], float64(t.Nanoseconds())/float64(block))
			cpu[j] = append(cpu[j], float64(c.Nanoseconds())/float64(block))
		}
	}
	b.StopTimer()
	return ns, cpu
}

// processCPU is the CPU time the process has used, all threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// quantile returns the q-quantile of v (linear interpolation), v unsorted.
func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	x := q * float64(len(s)-1)
	i := int(x)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (x-float64(i))*(s[i+1]-s[i])
}

// medianCI returns a distribution-free 95% confidence interval of the median
// of v: the sorted values at ranks n/2 ∓ 0.98·√n (normal approximation of the
// binomial; about 95% for n ≥ 10).
func medianCI(v []float64) (lo, hi float64) {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	d := 0.98 * math.Sqrt(float64(n))
	i := max(0, int(math.Floor(float64(n)/2-d)))
	j := min(n-1, int(math.Ceil(float64(n)/2+d))-1)
	return s[i], s[max(i, j)]
}

func (r pairedResult) report(b *testing.B, per int, bytes int64) {
	goNs, cNs, x := quantile(r.goNs, 0.5), quantile(r.cNs, 0.5), quantile(r.ratios, 0.5)
	b.ReportMetric(goNs, "ns/op")
	b.ReportMetric(cNs, "C-ns/op")
	b.ReportMetric(x, "x-C")
	b.ReportMetric(quantile(r.ratios, 0.25), "x-C-q1")
	b.ReportMetric(quantile(r.ratios, 0.75), "x-C-q3")
	lo, hi := medianCI(r.ratios)
	b.ReportMetric(lo, "x-C-lo")
	b.ReportMetric(hi, "x-C-hi")
	if per > 0 {
		b.ReportMetric(goNs/float64(per), "ns/dispatch")
		b.ReportMetric(cNs/float64(per), "C-ns/dispatch")
	}
	if bytes > 0 {
		b.ReportMetric(float64(bytes)/goNs*1e3, "MB/s")
		b.ReportMetric(float64(bytes)/cNs*1e3, "C-MB/s")
		b.ReportMetric(1/x, "thru-x-C")
	}
}

// twin is bench/vkbench.c loaded into this process.
type twin struct {
	init, run_, close, name uintptr
}

var twinOnce struct {
	sync.Once
	tw  *twin
	err error
}

// loadTwin builds and loads bench/vkbench.c once and opens its device: the
// physical device d runs on, created the way the runtime creates it.
// cPerCallRoundTripOp is one round trip of the raw-C twin per Go→C call.
func cPerCallRoundTripOp(b *testing.B, f *fixture) func() {
	tw := loadTwin(b, f.d)
	return func() { tw.run(b, 1, 1) }
}

func loadTwin(b testing.TB, d *Device) *twin {
	twinOnce.Do(func() { twinOnce.tw, twinOnce.err = buildTwin(b, d) })
	testenv.Need(b, "the raw-C twin (cc, libvulkan headers)", twinOnce.err)
	return twinOnce.tw
}

// buildTwin compiles bench/vkbench.c with cc and loads it, or loads the
// library LUCENT_VKBENCH_LIB names (bench/gpu-prepare.sh builds one for a
// machine without a C compiler or Vulkan headers).
func buildTwin(b testing.TB, d *Device) (*twin, error) {
	lib := os.Getenv("LUCENT_VKBENCH_LIB")
	if lib == "" {
		cc, err := exec.LookPath("cc")
		if err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp("", "vkbench")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir) // the library stays mapped once loaded
		_, file, _, _ := runtime.Caller(0)
		src := filepath.Join(filepath.Dir(file), "..", "..", "bench", "vkbench.c")
		lib = filepath.Join(dir, "libvkbench.so")
		if out, err := exec.Command(cc, "-O2", "-Wall", "-shared", "-fPIC", "-o", lib, src, "-lvulkan").CombinedOutput(); err != nil {
			// A machine with the loader but not its development link.
			if out2, err2 := exec.Command(cc, "-O2", "-Wall", "-shared", "-fPIC", "-o", lib, src, "-l:libvulkan.so.1").CombinedOutput(); err2 != nil {
				return nil, fmt.Errorf("building %s: %w: %s%s", src, err, out, out2)
			}
		}
	}
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, err
	}
	tw := &twin{}
	for _, s := range []struct {
		p    *uintptr
		name string
	}{{&tw.init, "vkb_init"}, {&tw.run_, "vkb_run"}, {&tw.close, "vkb_close"}, {&tw.name, "vkb_name"}} {
		if *s.p, err = purego.Dlsym(h, s.name); err != nil {
			return nil, err
		}
	}
	empty, saxpy := compile(b, "empty"), compile(b, "saxpy")
	name := append([]byte(d.phys.name()), 0)
	r, _, _ := purego.SyscallN(tw.init, uintptr(unsafe.Pointer(&name[0])),
		uintptr(unsafe.Pointer(&empty[0])), uintptr(4*len(empty)), uintptr(unsafe.Pointer(&saxpy[0])), uintptr(4*len(saxpy)))
	runtime.KeepAlive(name)
	runtime.KeepAlive(empty)
	runtime.KeepAlive(saxpy)
	if int32(r) != 0 {
		return nil, fmt.Errorf("vkb_init: VkResult %d", int32(r))
	}
	return tw, nil
}

// run runs the twin's benchmark which n times and returns the time it took
// (measured in C).
func (tw *twin) run(b testing.TB, which, n int) time.Duration {
	r, _, _ := purego.SyscallN(tw.run_, uintptr(which), uintptr(n))
	if int64(r) < 0 {
		b.Fatalf("vkb_run(%d): VkResult %d", which, int64(r))
	}
	return time.Duration(int64(r))
}
