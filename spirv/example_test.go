package spirv_test

import (
	"fmt"

	"github.com/lucent-gpu/lucent/spirv"
)

// A compute kernel doubling a float storage buffer, built the way a code
// generator drives the Builder: ask for types and constants freely (they are
// deduplicated), open a function and a block, add instructions, and check the
// one error at the end.
func Example() {
	b := spirv.NewBuilder(spirv.EnvVulkan1_2)
	b.Capability(spirv.CapabilityShader)

	f32 := b.TypeFloat(32)
	u32 := b.TypeInt(32, false)
	buf := b.TypeStructOf(spirv.StructType{
		Members:     []spirv.Member{{Type: b.TypeRuntimeArrayStride(f32, 4), Offset: spirv.Off(0)}},
		Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}},
	})
	data := b.Variable(b.TypePointer(spirv.StorageClassStorageBuffer, buf), spirv.StorageClassStorageBuffer, 0)
	b.Decorate(data, spirv.DecorationDescriptorSet, 0)
	b.Decorate(data, spirv.DecorationBinding, 0)
	v3 := b.TypeVector(u32, 3)
	gid := b.Variable(b.TypePointer(spirv.StorageClassInput, v3), spirv.StorageClassInput, 0)
	b.Decorate(gid, spirv.DecorationBuiltIn, uint32(spirv.BuiltInGlobalInvocationId))

	void := b.TypeVoid()
	fn := b.Function(void, b.TypeFunction(void))
	b.SetBlock(fn.NewBlock())
	i := b.CompositeExtract(u32, b.Load(v3, gid), 0)
	p := b.AccessChain(b.TypePointer(spirv.StorageClassStorageBuffer, f32), data, b.ConstantUint32(0), i)
	b.Store(p, b.FMul(f32, b.Load(f32, p), b.ConstantFloat32(2)))
	b.Return()
	b.EntryPoint(spirv.ExecutionModelGLCompute, fn.ID(), "main") // interface filled in by Words
	b.LocalSize(fn.ID(), 64, 1, 1)

	words, err := b.Words()
	if err != nil {
		fmt.Println(err)
		return
	}
	text, _ := spirv.Disassemble(words)
	fmt.Print(text)
	// Output:
	// ; SPIR-V
	// ; Version: 1.5
	// ; Generator: Khronos; 0
	// ; Bound: 22
	// ; Schema: 0
	//                OpCapability Shader
	//                OpMemoryModel Logical GLSL450
	//                OpEntryPoint GLCompute %12 "main" %6 %9
	//                OpExecutionMode %12 LocalSize 64 1 1
	//                OpDecorate %3 ArrayStride 4
	//                OpDecorate %4 Block
	//                OpMemberDecorate %4 0 Offset 0
	//                OpDecorate %6 DescriptorSet 0
	//                OpDecorate %6 Binding 0
	//                OpDecorate %9 BuiltIn GlobalInvocationId
	//           %1 = OpTypeFloat 32
	//           %2 = OpTypeInt 32 0
	//           %3 = OpTypeRuntimeArray %1
	//           %4 = OpTypeStruct %3
	//           %5 = OpTypePointer StorageBuffer %4
	//           %6 = OpVariable %5 StorageBuffer
	//           %7 = OpTypeVector %2 3
	//           %8 = OpTypePointer Input %7
	//           %9 = OpVariable %8 Input
	//          %10 = OpTypeVoid
	//          %11 = OpTypeFunction %10
	//          %16 = OpTypePointer StorageBuffer %1
	//          %17 = OpConstant %2 0
	//          %20 = OpConstant %1 2
	//          %12 = OpFunction %10 None %11
	//          %13 = OpLabel
	//          %14 = OpLoad %7 %9
	//          %15 = OpCompositeExtract %2 %14 0
	//          %18 = OpAccessChain %16 %6 %17 %15
	//          %19 = OpLoad %1 %18
	//          %21 = OpFMul %1 %19 %20
	//                OpStore %18 %21
	//                OpReturn
	//                OpFunctionEnd
}

// Emit adds any instruction of the grammar, checking its operands.
func ExampleBuilder_Emit() {
	b := spirv.NewBuilder(spirv.EnvVulkan1_3)
	f32 := b.TypeFloat(32)
	_, err := b.Emit(spirv.OpTypeVector, f32) // the component count is missing
	fmt.Println(err)
	// Output:
	// spirv: build: Emit OpTypeVector: missing operand LiteralInteger Component Count
}

// Read decodes a module into typed instructions.
func ExampleRead() {
	b := spirv.NewBuilder(spirv.EnvVulkan1_3)
	b.Capability(spirv.CapabilityShader)
	b.Decorate(b.TypeFloat(32), spirv.DecorationRelaxedPrecision)
	words, _ := b.Words()
	m, err := spirv.Read(words)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, in := range m.Instructions {
		fmt.Print(in.Op)
		for _, o := range in.Operands {
			fmt.Printf(" %v%v", o.Kind, o.Words)
		}
		fmt.Println()
	}
	// Output:
	// OpCapability Capability[1]
	// OpMemoryModel AddressingModel[0] MemoryModel[1]
	// OpDecorate IdRef[1] Decoration[0]
	// OpTypeFloat IdResult[1] LiteralInteger[32]
}
