package codegen

import (
	"context"
	"io"
	"log/slog"
	"math"
	"sync"
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
// It reports ms per run of each and lucent / min(glslang, glslang -O).
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
			spent := make([]time.Duration, len(vs))
			iter := 0
			b.ResetTimer()
			for b.Loop() {
				for j := range vs {
					v := (iter + j) % len(vs)
					cmd := vs[v].dispatch(r)
					start := time.Now()
					if err := run(s, cmd); err != nil {
						b.Fatal(err)
					}
					spent[v] += time.Since(start)
				}
				iter++
			}
			ms := func(i int) float64 { return spent[i].Seconds() * 1e3 / float64(iter) }
			for i, v := range vs {
				b.ReportMetric(ms(i), v.name+"-ms")
			}
			b.ReportMetric(ms(0)/math.Min(ms(1), ms(2)), "lucent/best")
		})
	}
}
