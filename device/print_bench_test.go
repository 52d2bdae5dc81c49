package device_test

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// BenchmarkKernelPrint runs saxpy over 64Ki threads without printing and
// printing once per thread (two values), on the backend under test, so that
// their difference over the threads is the cost of one print: the device
// writing the record, the host decoding and formatting it, and a handler
// that drops it (docs/PERFORMANCE.md, printing).
func BenchmarkKernelPrint(b *testing.B) {
	const n = 1 << 16
	for _, prints := range []bool{false, true} {
		name := "none"
		if prints {
			name = "once-per-thread"
		}
		b.Run(name, func(b *testing.B) {
			d, err := device.Open(context.Background(), testBackend(), device.WithPrint(func(device.KernelPrint) {}),
				device.WithPrintCapacity(8<<20))
			testenv.Need(b, "Vulkan device", err)
			defer d.Close()
			f, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
				i := k.DispatchID().X()
				v := a.Mul(x.Read(i)).Add(y.Read(i))
				if prints {
					k.Printf("%d %f", i, v)
				}
				y.Write(i, v)
			})
			if err != nil {
				b.Fatal(err)
			}
			k, err := device.Compile(d, f)
			if err != nil {
				b.Fatal(err)
			}
			defer k.Close()
			x, _ := device.NewBuffer[float32](d, n)
			y, _ := device.NewBuffer[float32](d, n)
			defer x.Close()
			defer y.Close()
			s, _ := d.NewStream(device.StreamCompute)
			defer s.Close()
			cmd := k.Dispatch([3]uint32{n}, float32(2), x, y)
			b.ResetTimer()
			for range b.N {
				if err := s.Submit(cmd); err != nil {
					b.Fatal(err)
				}
				if err := s.Synchronize(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/thread")
		})
	}
}
