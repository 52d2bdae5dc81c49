// Package frontend holds lucent's kernel language: a typed AST (types,
// expressions, statements, functions), a Go DSL that builds it by tracing Go
// calls at run time, and the code generator that lowers it to SPIR-V words
// following docs/notes/kernel-abi.md.
//
// The one design choice to know: types are interned, so two *Type values
// describe the same type exactly when they are the same pointer, and every
// expression carries its type. Validate checks the AST's invariants before
// codegen; codegen assumes a valid AST and does no type inference of its own.
package frontend
