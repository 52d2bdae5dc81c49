package device_test

import (
	"context"
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// A kernel samples a texture it finds in a bindless slot; on devices without
// descriptor indexing the slot points at a linear mirror of the texture and
// the sampler is emulated in code (Capabilities.Sampling says which).
func ExampleBindlessArray_EmplaceTexture() {
	ctx := context.Background()
	dev, err := device.Open(ctx, "vulkan")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	f, err := dsl.Kernel1D(1, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32x4]) {
		tex := arr.Texture2D(dsl.U(2))
		out.Write(dsl.U(0), tex.Sample(dsl.V2(dsl.F(0.5), dsl.F(0.5)))) // the centre: all four texels
		out.Write(dsl.U(1), tex.Read(dsl.V2(dsl.U(1), dsl.U(0))))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	k, err := device.Compile(dev, f)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer k.Close()
	img, _ := device.NewImage[float32](dev, device.R32Float, 2, 2, 1)
	defer img.Close()
	arr, _ := dev.NewBindlessArray(4)
	defer arr.Close()
	out, _ := device.NewBuffer[[4]float32](dev, 2)
	defer out.Close()
	if err := arr.EmplaceTexture(2, img, device.Sampler{Filter: device.FilterLinear, Address: device.AddressEdge}); err != nil {
		fmt.Println(err)
		return
	}
	got := make([][4]float32, 2)
	stream, _ := dev.NewStream(device.StreamCompute)
	defer stream.Close()
	err = stream.Submit(img.Upload([]float32{0, 1, 2, 3}), arr.Update(), k.Dispatch([3]uint32{1}, arr, out), out.Download(got))
	if err == nil {
		err = stream.Synchronize(ctx)
	}
	fmt.Println(got, err)
	// Output: [[1.5 0 0 1] [1 0 0 1]] <nil>
}
