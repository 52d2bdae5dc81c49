package dsl_test

import (
	"fmt"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Saxpy traces y = a*x + y over a 1-D grid of 256-thread blocks.
func ExampleKernel1D() {
	saxpy, err := dsl.Kernel1D(256, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
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
	square := dsl.Callable("square", func(k *dsl.K, x dsl.F32) dsl.F32 { return x.Mul(x) })
	bump := dsl.Callable("bump", func(k *dsl.K, n *dsl.Local[dsl.U32]) {
		n.Set(n.Get().Add(dsl.U(1)))
	})
	f, err := dsl.Kernel1D(64, func(k *dsl.K, xs dsl.Buf[dsl.F32], count dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		xs.Write(i, square(k, xs.Read(i)))
		n := dsl.NewVar(k, dsl.U(0))
		bump(k, n)
		count.Write(i, n.Get())
	})
	if err != nil {
		panic(err)
	}
	for _, c := range f.Callees() {
		fmt.Println(c.Name, c.Params[0].Kind == ir.VarRefParam)
	}
	// Output:
	// square false
	// bump true
}

// A callable takes buffers (and textures, bindless arrays) as parameters,
// reads and writes them in place; each tuple of buffers it is called with
// gets its own copy, which names the kernel's buffers directly.
func ExampleCallable_resources() {
	add := dsl.Callable("add", func(k *dsl.K, dst, src dsl.Buf[dsl.F32], i dsl.U32) {
		dst.Write(i, dst.Read(i).Add(src.Read(i)))
	})
	f, err := dsl.Kernel1D(64, func(k *dsl.K, x, y, z dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		add(k, x, y, i)
		add(k, x, z, i)
		add(k, x, y, i.Add(dsl.U(1)))
	}, "x", "y", "z")
	if err != nil {
		panic(err)
	}
	for _, c := range f.Callees() {
		fmt.Println(c.Name, len(c.Params))
	}
	// Output:
	// add<x,y> 1
	// add<x,z> 1
}

// Control flow takes closures: If/ElseIf/Else, Loop, While, Range, Switch.
func ExampleK_If() {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, xs dsl.Buf[dsl.I32]) {
		i := k.DispatchID().X()
		x := xs.Read(i)
		r := dsl.NewVar(k, dsl.I(0))
		k.If(x.Lt(dsl.I(0)), func() { r.Set(x.Neg()) }).
			ElseIf(x.Eq(dsl.I(0)), func() { r.Set(dsl.I(-1)) }).
			Else(func() {
				dsl.Range(k, dsl.I(0), x, func(j dsl.I32) { r.Set(r.Get().Add(j)) })
			})
		xs.Write(i, r.Get())
	})
	fmt.Println(err == nil && f.Validate() == nil)
	// Output: true
}

// A BigBuf parameter is a buffer the kernel reaches by device address, for
// views beyond what a backend binds directly; its type says so.
func ExampleBigBuf() {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.F32, big dsl.BigBuf[dsl.F32]) {
		i := k.DispatchID().X()
		big.Write(i, a.Mul(big.Read(i)))
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Params[1].Type.ByAddress(), f.Params[1].Type)
	// Output: true buffer_address<f32>
}
