package codegen_test

import (
	"fmt"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend"
)

// Emit turns a kernel into SPIR-V words per kernel ABI v1; Layout says where
// each argument goes.
func ExampleEmit() {
	f, err := frontend.Kernel1D(256, func(k *frontend.K, a frontend.F32, x frontend.Buf[frontend.F32]) {
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
	args, push, _ := f.Layout()
	fmt.Printf("magic %#x, a at push offset %d, x at binding %d, %d push bytes\n", words[0], args[0].Offset, args[1].Binding, push)
	// Output: magic 0x7230203, a at push offset 24, x at binding 0, 28 push bytes
}
