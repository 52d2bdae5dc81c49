package kernel_test

import (
	"context"
	"fmt"

	"github.com/lucent-gpu/lucent/kernel"
)

// scale is an ordinary Go function written as a kernel.
//
//lucent:kernel block=64
func scale(a float32, y []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(y)) {
		y[i] *= a
	}
}

// Run executes a kernel on the CPU: one goroutine per thread, blocks in parallel.
func ExampleRun() {
	y := []float32{1, 2, 3, 4, 5}
	err := kernel.Run(context.Background(), kernel.Grid1(64, uint32(len(y))), func() { scale(10, y) })
	fmt.Println(y, err)
	// Output: [10 20 30 40 50] <nil>
}

// DispatchGroups is the number of blocks launched: here 100 threads in
// blocks of 64 make 2 blocks, the last one partly past DispatchSize.
func ExampleDispatchGroups() {
	var size, groups kernel.Uint3
	_ = kernel.Run(context.Background(), kernel.Grid1(64, 100), func() {
		if kernel.DispatchID().X == 0 {
			size, groups = kernel.DispatchSize(), kernel.DispatchGroups()
		}
	})
	fmt.Println(size.X, groups.X)
	// Output: 100 2
}

// Shared memory and Barrier work as on a device: here each block of 4
// threads reverses its slice of the input.
func ExampleShared() {
	in := []int32{1, 2, 3, 4, 5, 6, 7, 8}
	out := make([]int32, len(in))
	_ = kernel.Run(context.Background(), kernel.Grid1(4, uint32(len(in))), func() {
		tile := kernel.Shared[[4]int32]()
		t, i := kernel.ThreadID().X, kernel.DispatchID().X
		tile[t] = in[i]
		kernel.Barrier()
		out[i] = tile[3-t]
	})
	fmt.Println(out)
	// Output: [4 3 2 1 8 7 6 5]
}

// Atomics take the address of a buffer element.
func ExampleAtomicAdd() {
	votes := []uint32{0, 2, 1, 2, 2, 0}
	counts := make([]uint32, 3)
	_ = kernel.Run(context.Background(), kernel.Grid1(64, uint32(len(votes))), func() {
		kernel.AtomicAdd(&counts[votes[kernel.DispatchID().X]], 1)
	})
	fmt.Println(counts)
	// Output: [2 1 3]
}

// Subgroup operations exchange values between the lanes of a subgroup.
func ExampleSubgroupAdd() {
	sums := make([]int32, 16)
	_ = kernel.Run(context.Background(), kernel.Grid{Block: kernel.U3(16, 1, 1), Size: kernel.U3(16, 1, 1), SubgroupSize: 4}, func() {
		i := kernel.DispatchID().X
		sums[i] = kernel.SubgroupAdd(int32(i))
	})
	fmt.Println(sums)
	// Output: [6 6 6 6 22 22 22 22 38 38 38 38 54 54 54 54]
}

// lookup samples, per thread, the bindless texture in slot pick[i] at uv[i].
//
//lucent:kernel block=32
func lookup(arr kernel.Bindless, pick []uint32, uv []kernel.Float2, out []kernel.Float4) {
	i := kernel.DispatchID().X
	if i < uint32(len(out)) {
		out[i] = arr.Texture2D(pick[i]).Sample(uv[i])
	}
}

// A bindless array holds textures, each with its own sampler; kernels pick
// a slot per thread and read, size or sample it.
func ExampleBindless_Texture2D() {
	tex, _ := kernel.NewTexture2D[kernel.Float4](2, 1)
	copy(tex.Texels(), []kernel.Float4{{X: 0, W: 1}, {X: 1, W: 1}})
	arr := kernel.NewBindless(2)
	_ = kernel.SetBindlessTexture2D(arr, 0, tex, kernel.Sampler{Filter: kernel.FilterPoint, Address: kernel.AddressEdge})
	_ = kernel.SetBindlessTexture2D(arr, 1, tex, kernel.Sampler{Filter: kernel.FilterLinear, Address: kernel.AddressZero})
	pick := []uint32{0, 1, 1}
	uv := []kernel.Float2{{X: 0.6, Y: 0.5}, {X: 0.5, Y: 0.5}, {X: 0, Y: 0.5}}
	out := make([]kernel.Float4, 3)
	err := kernel.Run(context.Background(), kernel.Grid1(32, 3), func() { lookup(arr, pick, uv, out) })
	fmt.Println(out, err)
	// Output: [{1 0 0 1} {0.5 0 0 1} {0 0 0 0.5}] <nil>
}

// The float32 math of package kernel keeps kernels in float32 (the device's
// native width) and runs the same on the CPU.
func ExampleLerp() {
	y := []float32{0, 0.25, 0.5, 1}
	_ = kernel.Run(context.Background(), kernel.Grid1(64, uint32(len(y))), func() {
		i := kernel.DispatchID().X
		y[i] = kernel.Lerp(10, 20, kernel.SmoothStep(0, 1, y[i])) + kernel.Sqrt(4)
	})
	fmt.Println(y)
	// Output: [12 13.5625 17 22]
}
