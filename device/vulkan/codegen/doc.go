// Package codegen is the Vulkan backend's code generator: it lowers a
// validated kernel AST (package frontend/ir) to SPIR-V words following the
// kernel ABI of docs/kernel-abi.md (descriptor set 0 with push descriptors,
// a push-constant block with the dispatch header, device addresses for
// BigBuf views and bindless slots).
//
// Emit is the one entry point; Options carry the device's choices (target
// environment, native float atomics, native bindless textures, debug
// names), and Version belongs in every cache key of its output. The
// neutral runtime (package device) does not import this package: it hands
// kernels to backends, which compile them; besides the Vulkan backend only
// tools (cmd/lucentc), benchmarks and tests use it.
package codegen
