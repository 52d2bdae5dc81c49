package gokernel_test

import (
	"fmt"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/spirv"
)

// Load compiles every //lucent:kernel function of the packages matched; each
// Kernel's Func goes to codegen.Emit (or device.Compile) for SPIR-V.
func ExampleLoad() {
	kernels, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel")
	for _, err := range errs {
		fmt.Println(err) // file:line:col: message
	}
	for _, k := range kernels {
		if k.Name != "Saxpy" {
			continue
		}
		words, err := codegen.Emit(k.Func, codegen.Options{Env: spirv.EnvVulkan1_2})
		fmt.Println(k.Name, k.Block, len(words) > 0, err)
	}
	// Output: Saxpy [256 1 1] true <nil>
}

// Check compiles one source file and reports every construct outside the
// kernel subset, with a position and what to write instead.
func ExampleCheck() {
	src := `package demo

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Fill(y []float32) {
	i := kernel.DispatchID().X
	go func() {}()
	y[i] = float32(len(map[int]int{}))
}
`
	_, errs := gokernel.Check("demo.go", []byte(src))
	for _, err := range errs {
		fmt.Println(err)
	}
	// Output:
	// demo.go:8:2: go statements are not supported in kernels: every thread of the dispatch already runs in parallel; split the work over threads with kernel.DispatchID
	// demo.go:9:21: map literals are not supported in kernels: use a buffer ([]T) indexed by a computed key
}

// The directive takes the block size and, per texture parameter, a storage
// format; the package documentation lists every key.
func ExampleCheck_directive() {
	src := `package demo

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=8,8 format=mask:r32ui format=img:rgba8
func Mask(img kernel.Texture2D[kernel.Float4], mask kernel.Texture2D[kernel.Uint4]) {
	id := kernel.DispatchID()
	if mask.Read(id.X, id.Y).X == 0 {
		img.Write(id.X, id.Y, kernel.Float4{})
	}
}

//lucent:kernel block=64 grid=4
func Bad(y []float32) {}
`
	kernels, errs := gokernel.Check("demo.go", []byte(src))
	for _, k := range kernels {
		fmt.Println(k.Name, k.Dim, k.Block, k.Func.Params[0].Type, k.Func.Params[1].Type)
	}
	for _, err := range errs {
		fmt.Println(err)
	}
	// Output:
	// Mask 2 [8 8 1] texture2d<rgba8> texture2d<r32ui>
	// demo.go:13:1: unknown kernel option "grid=4": the directive takes block=X[,Y[,Z]] and format=param:fmt, e.g. //lucent:kernel block=256
}
