package codegen_test

import (
	"testing"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// BenchmarkEmit measures AST → SPIR-V words (codegen alone, the kernel
// traced once outside the loop) and trace+codegen (DSL → words).
func BenchmarkEmit(b *testing.B) {
	for _, name := range []string{"saxpy", "mandelbrot", "matmul", "nbody"} {
		build := programs.All()[name]
		f, err := build()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/codegen", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := codegen.Emit(f, codegen.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/trace+codegen", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f, err := build()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := codegen.Emit(f, codegen.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
