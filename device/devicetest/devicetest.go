// Package devicetest holds helpers for benchmarks of programs that use
// package device: BenchmarkGPU reports the device time of an operation
// beside the wall time testing.B measures, so that a benchmark tells the
// host's overhead (encoding, submission, waiting) from the kernels' own time.
// It measures through timed command lists (device.CommandList.Timings), so
// it works on every backend whose Capabilities.Timings is true: the Vulkan
// backend's timestamps, the cpu backend's wall clock per command.
//
// Compare runs a Go-subset kernel on a device (through its launcher's
// shader or one compiled from it) and as Go with kernel.Run, and reports
// the first element of a buffer argument where the two differ.
package devicetest

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/device"
)

// BenchmarkGPU runs b.N operations on s, each submitting the list next
// returns and waiting for it, and reports beside ns/op the device time per
// operation, "gpu-ns/op": the mean of the lists' Timings.Total. It resets
// the benchmark's timer first (set up before calling it) and gives each list
// its own Timings, replacing any the list had. A failed submission or wait
// fails the benchmark.
func BenchmarkGPU(b *testing.B, s *device.Stream, next func() *device.CommandList) {
	b.Helper()
	var tm device.Timings
	var gpu int64
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		l := next()
		if l == nil {
			b.Fatal("devicetest: BenchmarkGPU: the list function returned nil")
		}
		l.Timings = &tm
		if err := s.SubmitList(l); err != nil {
			b.Fatalf("devicetest: BenchmarkGPU: %v", err)
		}
		if err := s.Synchronize(ctx); err != nil {
			b.Fatalf("devicetest: BenchmarkGPU: %v", err)
		}
		gpu += tm.Total.Nanoseconds()
	}
	b.StopTimer()
	b.ReportMetric(float64(gpu)/float64(b.N), "gpu-ns/op")
}
