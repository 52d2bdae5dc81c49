package device_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// A service that compiles kernels it is handed bounds the time it waits for
// each: CompileContext returns when the context ends, and a pipeline the
// driver finishes later is destroyed rather than leaked.
func ExampleCompileContext() {
	dev, err := device.Open(context.Background(), "vulkan")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	double, err := dsl.Kernel1D(64, func(k *dsl.K, x dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		x.Write(i, x.Read(i).Mul(dsl.F(2)))
	}, "x")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	k, err := device.CompileContext(ctx, dev, double, device.WithKernelName("double"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer k.Close()
	stream, _ := dev.NewStream(device.StreamCompute)
	defer stream.Close()
	x, _ := device.NewBuffer[float32](dev, 4)
	defer x.Close()
	out := make([]float32, 4)
	err = stream.Submit(x.Upload([]float32{1, 2, 3, 4}), k.Dispatch([3]uint32{4}, x), x.Download(out))
	if err == nil {
		err = stream.Synchronize(ctx)
	}
	fmt.Println(out, err)
	// Output: [2 4 6 8] <nil>
}
