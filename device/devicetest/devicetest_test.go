package devicetest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/device/devicetest"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestBenchmarkGPU runs a mandelbrot benchmark through BenchmarkGPU on each
// backend: the device time it reports is there, non-zero, and no more than
// the wall time per operation.
func TestBenchmarkGPU(t *testing.T) {
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			d, err := device.Open(context.Background(), backend)
			if backend == "vulkan" {
				testenv.Need(t, "Vulkan device", err)
			}
			require.NoError(t, err)
			defer func() { require.NoError(t, d.Close()) }()
			f, err := programs.Mandelbrot()
			require.NoError(t, err)
			k, err := device.Compile(d, f)
			require.NoError(t, err)
			defer k.Close()
			const w, h = 64, 64
			img, err := device.NewBuffer[uint32](d, w*h)
			require.NoError(t, err)
			defer img.Close()
			s, err := d.NewStream(device.StreamCompute)
			require.NoError(t, err)
			defer s.Close()
			lists := 0
			r := testing.Benchmark(func(b *testing.B) {
				devicetest.BenchmarkGPU(b, s, func() *device.CommandList {
					lists++
					return (&device.CommandList{}).Add(k.Dispatch([3]uint32{w, h, 1}, uint32(w), uint32(h), img))
				})
			})
			require.Positive(t, r.N)
			gpu, ok := r.Extra["gpu-ns/op"]
			require.True(t, ok, "gpu-ns/op reported: %v", r.Extra)
			require.Positive(t, gpu)
			require.LessOrEqual(t, gpu, float64(r.NsPerOp()), "device time per op beyond the wall time per op")
			require.GreaterOrEqual(t, lists, r.N)
			t.Logf("%s: %d ops, %d ns/op wall, %.0f gpu-ns/op", backend, r.N, r.NsPerOp(), gpu)
		})
	}
}
