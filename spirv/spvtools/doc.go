// Package spvtools calls SPIRV-Tools (the Khronos validator, optimizer,
// assembler and disassembler) through its shared library, loaded at run time
// with purego, so lucent builds without cgo.
//
// The library is the one the environment variable LUCENT_SPIRV_TOOLS names
// or, when it is unset, the first of the usual names that loads
// (libSPIRV-Tools-shared.so, libSPIRV-Tools.so, their macOS and Windows
// spellings). A library the variable names that does not load is not passed
// over: every call returns an error naming it. When none loads every call
// returns an error wrapping [ErrUnavailable] that says how to install it.
//
// The optimizer is driven through the C API (spvOptimizerCreate and
// spvOptimizerRegister{Performance,Size}Passes) where the library has it;
// older releases (v2023.1, Debian bookworm) export only the C++ spvtools::Optimizer, which is then
// called through the Itanium C++ ABI (Linux and macOS with libstdc++/libc++).
//
// Every function is safe for concurrent use: each call makes its own SPIRV-Tools context.
package spvtools
