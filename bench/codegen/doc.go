// Package codegen measures the quality of the SPIR-V lucent's code generator
// emits: eight kernels (saxpy, reduction, prefix sum, histogram, tiled
// matmul, mandelbrot, n-body, blur) written both in the DSL
// (internal/programs) and in GLSL (glsl/*.comp), the GLSL compiled by
// glslangValidator as is and through spirv-opt -O, all three run through the
// same runtime on the same device, buffers and sizes.
//
// The one design choice to know: the three variants of a kernel are timed
// interleaved inside one benchmark (one dispatch of each per iteration, each
// waited for), so the ratios they report compare the same moments of a
// machine whose load changes; see docs/PERFORMANCE.md (frontend).
//
// The package holds only tests and benchmarks:
//
//	go test -run XXX -bench . -benchtime 20x ./bench/codegen
package codegen
