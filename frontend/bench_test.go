package frontend_test

import (
	"testing"

	fe "github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/frontend/programs"
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
				if _, err := fe.Emit(f, fe.Options{}); err != nil {
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
				if _, err := fe.Emit(f, fe.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
