package gokernel

import (
	"go/token"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Kernel is one compiled //lucent:kernel function.
type Kernel struct {
	Name    string         // the Go function name
	Package string         // its package's import path
	Pos     token.Position // where the function is declared
	Dim     int            // 1, 2 or 3: the number of block dimensions in the directive
	Block   [3]uint32      // threads per block
	// Func is the kernel lowered to the frontend AST; it has passed
	// frontend's Validate. Codegen takes it from here.
	Func *ir.Function
}

// String names the kernel as package.Function.
func (k *Kernel) String() string { return k.Package + "." + k.Name }
