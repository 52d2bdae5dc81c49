package frontend_test

import (
	"fmt"

	"github.com/lucent-gpu/lucent/frontend"
)

// Saxpy traces y = a*x + y over a 1-D grid of 256-thread blocks.
func ExampleKernel1D() {
	saxpy, err := frontend.Kernel1D(256, func(k *frontend.K, a frontend.F32, x, y frontend.Buf[frontend.F32]) {
		i := k.DispatchID().X()
		y.Write(i, a.Mul(x.Read(i)).Add(y.Read(i)))
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(saxpy.Params), saxpy.Params[1].Type, saxpy.BlockSize)
	// Output: 3 buffer<f32> [256 1 1]
}
