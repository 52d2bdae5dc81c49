package devicetest_test

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/devicetest"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// BenchmarkSaxpy is a benchmark of a kernel that reports its device time
// beside the wall time: "go test -bench Saxpy" prints ns/op and gpu-ns/op.
func BenchmarkSaxpy(b *testing.B) {
	d, err := device.Open(context.Background(), "")
	if err != nil {
		b.Skip(err)
	}
	defer d.Close()
	f, err := dsl.Kernel1D(256, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		y.Write(i, a.Mul(x.Read(i)).Add(y.Read(i)))
	})
	if err != nil {
		b.Fatal(err)
	}
	k, err := device.Compile(d, f, device.WithKernelName("saxpy"))
	if err != nil {
		b.Fatal(err)
	}
	const n = 1 << 20
	x, err := device.NewBuffer[float32](d, n)
	if err != nil {
		b.Fatal(err)
	}
	y, err := device.NewBuffer[float32](d, n)
	if err != nil {
		b.Fatal(err)
	}
	s, err := d.NewStream(device.StreamCompute)
	if err != nil {
		b.Fatal(err)
	}
	devicetest.BenchmarkGPU(b, s, func() *device.CommandList {
		return (&device.CommandList{}).Add(k.Dispatch([3]uint32{n, 1, 1}, float32(2), x, y))
	})
}

// The whole file is the example: a benchmark calls BenchmarkGPU once its
// device, kernel and buffers are set up.
func ExampleBenchmarkGPU() {}
