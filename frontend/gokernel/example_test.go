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
