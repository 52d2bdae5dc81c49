package codegen_test

import (
	"fmt"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// Emit turns a kernel into SPIR-V words per kernel ABI v1; Layout says where
// each argument goes.
func ExampleEmit() {
	f, err := dsl.Kernel1D(256, func(k *dsl.K, a dsl.F32, x dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		x.Write(i, x.Read(i).Mul(a))
	})
	if err != nil {
		panic(err)
	}
	words, err := codegen.Emit(f, codegen.Options{})
	if err != nil {
		panic(err)
	}
	args, lay := codegen.Layout(f, codegen.Options{})
	fmt.Printf("magic %#x, a at push offset %d, x at binding %d, %d push bytes\n", words[0], args[0].Offset, args[1].Binding, lay.Size)
	// Output: magic 0x7230203, a at push offset 24, x at binding 0, 28 push bytes
}

// A BigBuf is reached by device address under kernel ABI v1: 16
// push-constant bytes, the address and the view's element count, which
// bounds every access.
func ExampleLayout() {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.F32, big dsl.BigBuf[dsl.F32]) {
		i := k.DispatchID().X()
		big.Write(i, a.Mul(big.Read(i)))
	})
	if err != nil {
		panic(err)
	}
	args, lay := codegen.Layout(f, codegen.Options{})
	fmt.Println(args[1].Binding, args[1].Offset, lay.Size)
	// Output: -1 32 48
}
