package device_test

import (
	"context"
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
)

// A user uploads two arrays, runs a SPIR-V kernel computing y = a*x + y (its
// arguments are reflected from the module: x, y, then the push constants a
// and n) and reads the result back.
func Example() {
	ctx := context.Background()
	dev, err := device.Open(ctx, "vulkan")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	stream, _ := dev.NewStream(device.StreamCompute)
	saxpy, err := dev.NewShader(device.ShaderDesc{SPIRV: saxpySPIRV})
	if err != nil {
		fmt.Println(err)
		return
	}
	x, _ := device.NewBuffer[float32](dev, 4)
	y, _ := device.NewBuffer[float32](dev, 4)
	out := make([]float32, 4)
	err = stream.Submit(
		x.Upload([]float32{1, 2, 3, 4}),
		y.Upload([]float32{10, 20, 30, 40}),
		saxpy.Dispatch([3]uint32{4}, x, y, float32(2), uint32(4)),
		y.Download(out),
	)
	if err == nil {
		err = stream.Synchronize(ctx)
	}
	fmt.Println(out, err)
	// Output: [12 24 36 48] <nil>
}
