package kernel_test

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/kernel"
)

// BenchmarkDispatchID measures one id lookup inside a kernel thread (the
// goroutine-identity path), against the cost of the thread itself.
func BenchmarkDispatchID(b *testing.B) {
	for _, calls := range []int{0, 1, 16} {
		b.Run(map[int]string{0: "0-calls", 1: "1-call", 16: "16-calls"}[calls], func(b *testing.B) {
			const n = 4096
			sink := make([]uint32, n)
			for b.Loop() {
				err := kernel.Run(context.Background(), kernel.Grid1(256, n), func() {
					var s uint32
					for range calls {
						s += kernel.DispatchID().X
					}
					if s == 1<<31 {
						sink[0] = s
					}
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/thread")
		})
	}
}
