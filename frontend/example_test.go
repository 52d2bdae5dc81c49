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

// A callable is a Go func of the DSL types; calling the returned function
// while tracing emits a SPIR-V function call. Local variables pass by reference.
func ExampleCallable() {
	square := frontend.Callable("square", func(k *frontend.K, x frontend.F32) frontend.F32 { return x.Mul(x) })
	bump := frontend.Callable("bump", func(k *frontend.K, n *frontend.Local[frontend.U32]) {
		n.Set(n.Get().Add(frontend.U(1)))
	})
	f, err := frontend.Kernel1D(64, func(k *frontend.K, xs frontend.Buf[frontend.F32], count frontend.Buf[frontend.U32]) {
		i := k.DispatchID().X()
		xs.Write(i, square(k, xs.Read(i)))
		n := frontend.NewVar(k, frontend.U(0))
		bump(k, n)
		count.Write(i, n.Get())
	})
	if err != nil {
		panic(err)
	}
	for _, c := range f.Callees() {
		fmt.Println(c.Name, c.Params[0].Kind == frontend.VarRefParam)
	}
	// Output:
	// square false
	// bump true
}

// Control flow takes closures: If/ElseIf/Else, Loop, While, Range, Switch.
func ExampleK_If() {
	f, err := frontend.Kernel1D(64, func(k *frontend.K, xs frontend.Buf[frontend.I32]) {
		i := k.DispatchID().X()
		x := xs.Read(i)
		r := frontend.NewVar(k, frontend.I(0))
		k.If(x.Lt(frontend.I(0)), func() { r.Set(x.Neg()) }).
			ElseIf(x.Eq(frontend.I(0)), func() { r.Set(frontend.I(-1)) }).
			Else(func() {
				frontend.Range(k, frontend.I(0), x, func(j frontend.I32) { r.Set(r.Get().Add(j)) })
			})
		xs.Write(i, r.Get())
	})
	fmt.Println(err == nil && f.Validate() == nil)
	// Output: true
}

// A BigBuf parameter is a buffer the kernel reaches by device address, for
// views beyond what a backend binds directly; its type says so.
func ExampleBigBuf() {
	f, err := frontend.Kernel1D(64, func(k *frontend.K, a frontend.F32, big frontend.BigBuf[frontend.F32]) {
		i := k.DispatchID().X()
		big.Write(i, a.Mul(big.Read(i)))
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Params[1].Type.ByAddress(), f.Params[1].Type)
	// Output: true buffer_address<f32>
}
