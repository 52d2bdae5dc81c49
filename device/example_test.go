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

// Views address a range of a buffer; commands built from them copy only that
// range.
func ExampleBuffer_View() {
	ctx := context.Background()
	dev, err := device.Open(ctx, "vulkan")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	stream, _ := dev.NewStream(device.StreamCopy)
	buf, _ := device.NewBuffer[int32](dev, 8)
	middle := make([]int32, 3)
	_ = stream.Submit(
		buf.Upload([]int32{0, 1, 2, 3, 4, 5, 6, 7}),
		buf.View(3, 3).Download(middle),
	)
	_ = stream.Synchronize(ctx)
	fmt.Println(middle)
	fmt.Println(buf.View(6, 3).Err() != nil) // past the end
	// Output:
	// [3 4 5]
	// true
}

// An event orders work across streams: the compute stream waits for the
// copy stream's upload before reading the buffer.
func ExampleEvent() {
	ctx := context.Background()
	dev, err := device.Open(ctx, "vulkan")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	upload, _ := dev.NewStream(device.StreamCopy)
	compute, _ := dev.NewStream(device.StreamCompute)
	ready, _ := dev.NewEvent()
	src, _ := device.NewBuffer[float32](dev, 4)
	dst, _ := device.NewBuffer[float32](dev, 4)
	out := make([]float32, 4)

	_ = upload.Submit(src.Upload([]float32{1, 2, 3, 4}))
	_ = ready.Signal(upload, 1)
	_ = ready.Wait(compute, 1)
	_ = compute.Submit(dst.CopyFrom(src.All()), dst.Download(out))
	_ = compute.Synchronize(ctx)
	fmt.Println(out)
	// Output: [1 2 3 4]
}

// An image holds pixels of a Go type whose size matches its format.
func ExampleNewImage() {
	ctx := context.Background()
	dev, err := device.Open(ctx, "vulkan")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	stream, _ := dev.NewStream(device.StreamCompute)
	img, _ := device.NewImage[[4]uint8](dev, device.RGBA8Unorm, 2, 2, 2)
	pixels := [][4]uint8{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {9, 9, 9, 9}}
	back := make([][4]uint8, 4)
	_ = stream.Submit(img.Upload(pixels), img.Download(back))
	_ = stream.Synchronize(ctx)
	fmt.Println(back[3], img.Level(1).Extent())

	_, err = device.NewImage[float32](dev, device.RGBA16Float, 2, 2, 1)
	fmt.Println(err != nil) // 4-byte pixels for an 8-byte format
	// Output:
	// [9 9 9 9] [1 1 1]
	// true
}

// FormatOf names a format by its parts.
func ExampleFormatOf() {
	f, _ := device.FormatOf(device.Float, 16, 4)
	fmt.Println(f, f.PixelSize())
	_, err := device.FormatOf(device.Unorm, 32, 1)
	fmt.Println(err)
	// Output:
	// RGBA16Float 8
	// invalid argument: format: no 32-bit Unorm channels
}

// A timed list reports how long each command took on the device, and the
// time per kernel, once the list has run.
func ExampleTimings() {
	ctx := context.Background()
	dev, err := device.Open(ctx, "vulkan")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	stream, _ := dev.NewStream(device.StreamCompute)
	saxpy, err := dev.NewShader(device.ShaderDesc{SPIRV: saxpySPIRV, Name: "saxpy"})
	if err != nil {
		fmt.Println(err)
		return
	}
	const n = 1 << 16
	x, _ := device.NewBuffer[float32](dev, n)
	y, _ := device.NewBuffer[float32](dev, n)
	var timings device.Timings
	list := (&device.CommandList{}).Add(
		x.Upload(make([]float32, n)),
		saxpy.Dispatch([3]uint32{n}, x, y, float32(2), uint32(n)),
		saxpy.Dispatch([3]uint32{n}, x, y, float32(2), uint32(n)),
	).Timed(&timings)
	if err = stream.SubmitList(list); err == nil {
		err = stream.Synchronize(ctx)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range timings.Commands {
		fmt.Println(c.Index, c.Command, c.Kernel, c.Start+c.Duration <= timings.Total)
	}
	for _, k := range timings.ByKernel() {
		fmt.Println(k.Kernel, k.Count, k.Total > 0)
	}
	// Output:
	// 0 buffer upload  true
	// 1 dispatch saxpy true
	// 2 dispatch saxpy true
	// saxpy 2 true
}
