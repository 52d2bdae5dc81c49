package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// The start-up benchmark runs this package's main as a child process, so the
// time measured is a real program's: exec, Go runtime start, loading the
// Vulkan loader and driver, opening the device, compiling (or loading) the
// kernels, running them and reading the results back.

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// child builds the child program once per test binary, or returns the one
// LUCENT_STARTUP_CHILD names (bench/gpu-prepare.sh builds it for a machine
// without Go).
func child(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("LUCENT_STARTUP_CHILD"); p != "" {
		return p
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lucent-startup")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "startup")
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		cmd := exec.Command(gobin, "build", "-o", binary, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %w: %s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return binary
}

// needDevice skips (or fails under LUCENT_REQUIRE_VULKAN=1) without Vulkan.
func needDevice(t testing.TB) {
	t.Helper()
	list, err := device.Enumerate(t.Context(), "vulkan")
	if err == nil && len(list) == 0 {
		err = fmt.Errorf("no Vulkan adapter")
	}
	testenv.Need(t, "a Vulkan device", err)
}

// result is the child's report.
type result struct {
	elapsed                    time.Duration // process start to the result line
	kernels, hits, misses, pcb int
	open, compile, run         time.Duration // the child's phases
}

// start runs the child with args and times it from exec to its result line;
// it then waits for the child to exit (its device Close saves the pipeline
// cache), outside the time measured.
func start(t testing.TB, args ...string) result {
	t.Helper()
	cmd := exec.Command(child(t), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	t0 := time.Now()
	require.NoError(t, cmd.Start())
	line, rerr := bufio.NewReader(out).ReadString('\n')
	elapsed := time.Since(t0)
	werr := cmd.Wait()
	require.NoError(t, werr, "child %v: %s", args, stderr.String())
	require.NoError(t, rerr, "child %v: %s", args, stderr.String())
	r := result{elapsed: elapsed}
	if strings.HasPrefix(line, "saved ") {
		return r
	}
	var open, compile, run int64
	_, err = fmt.Sscanf(line, "ok kernels=%d hits=%d misses=%d pipeline-loaded=%d open-us=%d compile-us=%d run-us=%d",
		&r.kernels, &r.hits, &r.misses, &r.pcb, &open, &compile, &run)
	require.NoError(t, err, "child line %q", line)
	r.open, r.compile, r.run = time.Duration(open)*time.Microsecond, time.Duration(compile)*time.Microsecond, time.Duration(run)*time.Microsecond
	return r
}

// mode is one cache state a child starts in.
type mode struct {
	name    string
	prepare func(t testing.TB, dir string, n int) // readies dir before a timed start
	args    func(dir string, n int) []string
}

func compileArgs(dir string, n int) []string { return []string{"-n", fmt.Sprint(n), "-cache", dir} }

var modes = []mode{
	{"cold", func(t testing.TB, dir string, _ int) {
		require.NoError(t, os.RemoveAll(dir))
	}, compileArgs},
	{"no-cache", func(testing.TB, string, int) {}, func(_ string, n int) []string { return []string{"-n", fmt.Sprint(n)} }},
	{"spirv-warm", func(t testing.TB, dir string, n int) {
		fill(t, dir, n)
		require.NoError(t, os.RemoveAll(filepath.Join(dir, "pipeline")))
	}, compileArgs},
	{"warm", fill, compileArgs},
	{"aot", func(t testing.TB, dir string, n int) {
		if _, err := os.Stat(filepath.Join(dir, "bytecode")); err != nil {
			start(t, "-save", "-n", fmt.Sprint(n), "-cache", dir)
		}
		fill(t, dir, n)
	}, func(dir string, n int) []string { return []string{"-aot", "-n", fmt.Sprint(n), "-cache", dir} }},
}

// fill makes sure dir holds the SPIR-V and pipeline caches of n kernels.
func fill(t testing.TB, dir string, n int) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "shader")); err == nil {
		if _, err := os.Stat(filepath.Join(dir, "pipeline")); err == nil {
			return
		}
	}
	start(t, compileArgs(dir, n)...)
}

// TestStartupChild checks the child computes right and that each mode starts
// in the cache state it claims.
func TestStartupChild(t *testing.T) {
	needDevice(t)
	const n = 3
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), m.name)
			m.prepare(t, dir, n)
			r := start(t, m.args(dir, n)...)
			require.Equal(t, n, r.kernels)
			switch m.name {
			case "no-cache":
				require.Equal(t, [2]int{0, 0}, [2]int{r.hits, r.misses}, "no store, no lookups")
			case "cold":
				require.Equal(t, [2]int{0, n}, [2]int{r.hits, r.misses})
				require.Zero(t, r.pcb)
			case "spirv-warm":
				require.Equal(t, [2]int{n, 0}, [2]int{r.hits, r.misses})
				require.Zero(t, r.pcb, "no pipeline cache to load")
			case "warm":
				require.Equal(t, [2]int{n, 0}, [2]int{r.hits, r.misses})
				require.Positive(t, r.pcb, "the pipeline cache was loaded")
			case "aot":
				require.Equal(t, [2]int{0, 0}, [2]int{r.hits, r.misses}, "nothing compiled")
			}
		})
	}
}

// BenchmarkStartup times process start to first results for 1, 10 and 100
// distinct kernels in every cache state, the states interleaved within each
// iteration so that they see the same machine load, and reports each as
// milliseconds and as a ratio to cold: for the whole start-up, and for the
// compile phase alone (the part a cache can shorten).
func BenchmarkStartup(b *testing.B) {
	needDevice(b)
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("kernels=%d", n), func(b *testing.B) {
			root := b.TempDir()
			total := make([]time.Duration, len(modes))
			compile := make([]time.Duration, len(modes))
			for b.Loop() {
				for i, m := range modes {
					dir := filepath.Join(root, m.name)
					b.StopTimer()
					m.prepare(b, dir, n)
					b.StartTimer()
					r := start(b, m.args(dir, n)...)
					total[i] += r.elapsed
					compile[i] += r.compile
				}
			}
			for i, m := range modes {
				b.ReportMetric(float64(total[i].Microseconds())/1e3/float64(b.N), m.name+"-ms")
				b.ReportMetric(float64(compile[i].Microseconds())/1e3/float64(b.N), m.name+"-compile-ms")
				if i > 0 {
					b.ReportMetric(float64(total[i])/float64(total[0]), m.name+"/cold")
					b.ReportMetric(float64(compile[i])/float64(compile[0]), m.name+"-compile/cold")
				}
			}
		})
	}
}
