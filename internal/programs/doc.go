// Package programs is a corpus of whole kernels written with the frontend
// DSL, each paired with a CPU reference of what it computes. Codegen tests
// validate every program's SPIR-V, device tests run them on a device and
// compare element by element, and benchmarks time their compilation.
package programs
