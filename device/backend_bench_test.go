package device_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// BenchmarkBackends runs the same DSL kernels on lavapipe (vulkan) and on
// the cpu backend, interleaved, and reports the medians and cpu/vulkan.
func BenchmarkBackends(b *testing.B) {
	open := func(name string) *device.Device {
		d, err := device.Open(context.Background(), name)
		testenv.Need(b, name+" device", err)
		b.Cleanup(func() { d.Close() })
		return d
	}
	devs := [2]*device.Device{open("vulkan"), open("cpu")}
	type job struct {
		name  string
		setup func(d *device.Device) device.Command
	}
	jobs := []job{
		{"saxpy-1M", func(d *device.Device) device.Command {
			f, err := programs.Saxpy()
			require.NoError(b, err)
			k, err := device.Compile(d, f)
			require.NoError(b, err)
			const n = 1 << 20
			x, _ := device.NewBuffer[float32](d, n)
			y, _ := device.NewBuffer[float32](d, n)
			return k.Dispatch([3]uint32{n}, float32(2), x, y)
		}},
		{"mandelbrot-256", func(d *device.Device) device.Command {
			f, err := programs.Mandelbrot()
			require.NoError(b, err)
			k, err := device.Compile(d, f)
			require.NoError(b, err)
			out, _ := device.NewBuffer[uint32](d, 256*256)
			return k.Dispatch([3]uint32{256, 256}, uint32(256), uint32(256), out)
		}},
		{"reduce-64K", func(d *device.Device) device.Command { // barriers and shared memory
			f, err := programs.Reduce()
			require.NoError(b, err)
			k, err := device.Compile(d, f)
			require.NoError(b, err)
			const n = 1 << 16
			in, _ := device.NewBuffer[uint32](d, n)
			out, _ := device.NewBuffer[uint32](d, n/programs.ReduceBlock)
			return k.Dispatch([3]uint32{n}, in, out)
		}},
		{"empty", func(d *device.Device) device.Command {
			f, err := programs.Saxpy()
			require.NoError(b, err)
			k, err := device.Compile(d, f)
			require.NoError(b, err)
			x, _ := device.NewBuffer[float32](d, 1)
			return k.Dispatch([3]uint32{1}, float32(2), x, x)
		}},
	}
	for _, j := range jobs {
		b.Run(j.name, func(b *testing.B) {
			var cmds [2]device.Command
			var streams [2]*device.Stream
			for i, d := range devs {
				cmds[i] = j.setup(d)
				s, err := d.NewStream(device.StreamCompute)
				require.NoError(b, err)
				streams[i] = s
			}
			var ts [2][]time.Duration
			for b.Loop() {
				for i := range devs {
					start := time.Now()
					require.NoError(b, streams[i].Submit(cmds[i]))
					require.NoError(b, streams[i].Synchronize(context.Background()))
					ts[i] = append(ts[i], time.Since(start))
				}
			}
			med := func(d []time.Duration) float64 { slices.Sort(d); return float64(d[len(d)/2].Nanoseconds()) }
			v, c := med(ts[0]), med(ts[1])
			b.ReportMetric(v, "vulkan-ns")
			b.ReportMetric(c, "cpu-ns")
			b.ReportMetric(c/v, "cpu/vulkan")
		})
	}
}
