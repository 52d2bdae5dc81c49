package programs

import (
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Cast is a kernel converting in[i] from From to To with the DSL's Convert
// (value conversion; floats to integers truncate toward zero).
func Cast[To, From dsl.Scalar]() (*ir.Function, error) {
	return dsl.Kernel1D(32, func(k *dsl.K, in dsl.Buf[dsl.Val[From]], out dsl.Buf[dsl.Val[To]]) {
		i := k.DispatchID().X()
		out.Write(i, dsl.Convert[To](in.Read(i)))
	})
}

// CastVia converts in[i] to Mid and that to To (int32(float32(x)), say),
// each conversion rounding as Go's does.
func CastVia[To, Mid, From dsl.Scalar]() (*ir.Function, error) {
	return dsl.Kernel1D(32, func(k *dsl.K, in dsl.Buf[dsl.Val[From]], out dsl.Buf[dsl.Val[To]]) {
		i := k.DispatchID().X()
		out.Write(i, dsl.Convert[To](dsl.Convert[Mid](in.Read(i))))
	})
}

// BitcastKernel reinterprets in[i]'s bits as To.
func BitcastKernel[To, From dsl.Scalar]() (*ir.Function, error) {
	return dsl.Kernel1D(32, func(k *dsl.K, in dsl.Buf[dsl.Val[From]], out dsl.Buf[dsl.Val[To]]) {
		i := k.DispatchID().X()
		out.Write(i, dsl.Bitcast[To](in.Read(i)))
	})
}

// BoolUniform writes 1 where the bool uniform flag holds and x[i] > 0, else 2.
func BoolUniform() (*ir.Function, error) {
	return dsl.Kernel1D(32, func(k *dsl.K, flag dsl.Bool, x dsl.Buf[dsl.I32], out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		out.Write(i, dsl.Select(flag.And(x.Read(i).Gt(dsl.I(0))), dsl.U(1), dsl.U(2)))
	})
}
