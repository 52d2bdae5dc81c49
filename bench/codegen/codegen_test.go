package codegen

import (
	"context"
	"io"
	"log/slog"
	"math"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan" // the backend under test
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// openDevice opens the default Vulkan device; with validation, every error
// the Khronos layer reports fails t.
func openDevice(tb testing.TB, validation bool) (*device.Device, *device.Stream) {
	tb.Helper()
	// Rigs leave their resources to Device.Close; keep the leak report quiet.
	opts := []device.Option{device.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}
	if validation {
		var mu sync.Mutex
		opts = append(opts, device.WithValidationLayer(true), device.WithDebug(func(m device.DebugMessage) {
			if m.Severity == device.SeverityError {
				mu.Lock()
				defer mu.Unlock()
				tb.Errorf("validation: %s: %s", m.ID, m.Text)
			}
		}))
	}
	d, err := device.Open(context.Background(), "vulkan", opts...)
	testenv.Need(tb, "a Vulkan device", err)
	s, err := d.NewStream(device.StreamCompute)
	if err != nil {
		d.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		s.Close()
		d.Close()
	})
	return d, s
}

// TestVariantsAgree runs every variant of every kernel once, at the
// benchmark's sizes, with the validation layer on, and compares its output
// with the CPU reference: the benchmark times programs that compute the
// same thing, each module valid (spirv-val).
func TestVariantsAgree(t *testing.T) {
	d, s := openDevice(t, true)
	for _, k := range kernels {
		t.Run(k.name, func(t *testing.T) {
			r, err := k.rig(d, s)
			require.NoError(t, err)
			for _, v := range variants(t, d, k) {
				err := spvtools.ValidateWith(v.spirv, spirv.EnvVulkan1_2, spvtools.ValidateOptions{ScalarBlockLayout: true})
				require.NoError(t, err, "%s/%s: spirv-val", k.name, v.name)
				require.NoError(t, run(s, r.reset...), v.name)
				require.NoError(t, run(s, v.dispatch(r)), v.name)
				require.NoError(t, r.check(s), "%s/%s", k.name, v.name)
			}
		})
	}
}

// BenchmarkCodegen times each kernel's three variants interleaved: every
// iteration dispatches each once and waits for it, in an order that rotates.
// It reports, per variant, the fastest run in ms (the machine's load comes in
// bursts that a mean would carry) and the median CPU time of the process per
// run, and for each lucent / min(glslang, glslang -O).
func BenchmarkCodegen(b *testing.B) {
	d, s := openDevice(b, false)
	for _, k := range kernels {
		b.Run(k.name, func(b *testing.B) {
			r, err := k.rig(d, s)
			if err != nil {
				b.Fatal(err)
			}
			vs := variants(b, d, k)
			for _, v := range vs { // warm up: the first dispatch pays for lazy set-up
				if err := run(s, v.dispatch(r)); err != nil {
					b.Fatal(err)
				}
			}
			wall := make([][]time.Duration, len(vs))
			cpu := make([][]time.Duration, len(vs))
			iter := 0
			b.ResetTimer()
			for b.Loop() {
				for j := range vs {
					v := (iter + j) % len(vs)
					cmd := vs[v].dispatch(r)
					c0, start := cpuTime(), time.Now()
					if err := run(s, cmd); err != nil {
						b.Fatal(err)
					}
					wall[v] = append(wall[v], time.Since(start))
					cpu[v] = append(cpu[v], cpuTime()-c0)
				}
				iter++
			}
			report(b, vs, "ms", wall, slices.Min)
			report(b, vs, "cpu-ms", cpu, median)
		})
	}
}

// report reports stat of each variant's samples in ms as <variant>-<unit>,
// and lucent's over the faster glslang variant's as lucent/best-<unit>.
func report(b *testing.B, vs []variant, unit string, samples [][]time.Duration, stat func([]time.Duration) time.Duration) {
	ms := make([]float64, len(vs))
	for i, v := range vs {
		ms[i] = stat(samples[i]).Seconds() * 1e3
		b.ReportMetric(ms[i], v.name+"-"+unit)
	}
	b.ReportMetric(ms[0]/math.Min(ms[1], ms[2]), "lucent/best-"+unit)
}

// cpuTime is the CPU time this process has used, all threads (lavapipe's
// included): unlike wall time, other processes loading the machine barely
// move it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// median is the middle sample (the upper one of an even count).
func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
