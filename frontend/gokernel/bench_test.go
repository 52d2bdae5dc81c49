package gokernel_test

import (
	"context"
	"os"
	"testing"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/spirv"
	kernels "github.com/lucent-gpu/lucent/testdata/gokernel"
)

// benchSource is a corpus file compiled by the front-end benchmarks.
func benchSource(b *testing.B, name string) []byte {
	src, err := os.ReadFile("../../testdata/gokernel/" + name)
	if err != nil {
		b.Fatal(err)
	}
	if _, errs := gokernel.Check(name, src); len(errs) > 0 { // warm the importer
		b.Fatal(errs)
	}
	return src
}

// BenchmarkCheck measures source → checked, lowered and validated kernels
// (parse, go/types, subset check, lowering) per corpus file.
func BenchmarkCheck(b *testing.B) {
	for _, name := range []string{"basic.go", "shared.go", "sim.go", "corners.go", "lang.go"} {
		b.Run(name, func(b *testing.B) {
			src := benchSource(b, name)
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, errs := gokernel.Check(name, src); len(errs) > 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}

// BenchmarkCheckAndEmit measures source → SPIR-V words for every kernel of
// each corpus file.
func BenchmarkCheckAndEmit(b *testing.B) {
	for _, name := range []string{"basic.go", "shared.go", "sim.go", "corners.go", "lang.go"} {
		b.Run(name, func(b *testing.B) {
			src := benchSource(b, name)
			for b.Loop() {
				ks, errs := gokernel.Check(name, src)
				if len(errs) > 0 {
					b.Fatal(errs)
				}
				for _, k := range ks {
					if _, err := codegen.Emit(k.Func, codegen.Options{Env: spirv.EnvVulkan1_2}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkLoad measures the go-command path (go list, export data) for the
// whole corpus package.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, errs := gokernel.Load(corpusPath); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkCPUSaxpy compares the CPU runner with a plain loop over the same
// data: the ratio is the cost of a goroutine and an id lookup per thread.
func BenchmarkCPUSaxpy(b *testing.B) {
	const n = 1 << 16
	x, y := make([]float32, n), make([]float32, n)
	b.Run("runner", func(b *testing.B) {
		for b.Loop() {
			if err := kernel.Run(context.Background(), kernel.Grid1(256, n), func() { kernels.Saxpy(2, x, y) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("loop", func(b *testing.B) {
		for b.Loop() {
			for i := range y {
				y[i] = 2*x[i] + y[i]
			}
		}
	})
}

// BenchmarkCPUReduce runs the shared-memory reduction (barriers) on the CPU runner.
func BenchmarkCPUReduce(b *testing.B) {
	const n = 1 << 14
	in, out := make([]float32, n), make([]float32, n/kernels.ReduceBlock)
	for b.Loop() {
		if err := kernel.Run(context.Background(), kernel.Grid1(kernels.ReduceBlock, n), func() { kernels.Reduce(in, out) }); err != nil {
			b.Fatal(err)
		}
	}
}
