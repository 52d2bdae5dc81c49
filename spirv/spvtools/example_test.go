package spvtools_test

import (
	"fmt"

	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// Validate a module for Vulkan 1.2 with the scalar block layout lucent's
// kernel ABI uses, then optimize it for size.
func Example() {
	b := spirv.NewBuilder(spirv.EnvVulkan1_2)
	b.Capability(spirv.CapabilityShader)
	void := b.TypeVoid()
	fn := b.Function(void, b.TypeFunction(void))
	b.SetBlock(fn.NewBlock())
	b.Return()
	b.EntryPoint(spirv.ExecutionModelGLCompute, fn.ID(), "main")
	b.LocalSize(fn.ID(), 64, 1, 1)
	words, err := b.Words()
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := spvtools.ValidateOptions{ScalarBlockLayout: true}
	if err := spvtools.ValidateWith(words, spirv.EnvVulkan1_2, opts); err != nil {
		fmt.Println(err) // wraps spvtools.ErrInvalid and carries spirv-val's message
		return
	}
	small, err := spvtools.OptimizeWith(words, spirv.EnvVulkan1_2, spvtools.Size, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	text, _ := spvtools.Disassemble(small, spirv.EnvVulkan1_2)
	fmt.Print(text)
}
