// Package spirv builds, writes, reads and disassembles SPIR-V modules.
//
// The opcode, operand-kind and enum tables (and the GLSL.std.450 extended
// instruction set) are generated from the Khronos grammar JSON by
// internal/gen/spirvgen; everything else checks itself against them.
//
// The one design choice a reader must know: a [Builder] keeps every section of
// the module apart (capabilities, entry points, debug names, annotations,
// types/constants/globals, functions) and deduplicates types and constants
// structurally, so instructions may be added in any order and the module is
// still written in the logical layout of the specification, section 2.4
// (https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html#LogicalLayout).
package spirv

//go:generate go run ../internal/gen/spirvgen -out .
