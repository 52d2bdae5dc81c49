package programs

import (
	fe "github.com/lucent-gpu/lucent/frontend"
)

// Cast is a kernel converting in[i] from From to To with the DSL's Convert
// (value conversion; floats to integers truncate toward zero).
func Cast[To, From fe.Scalar]() (*fe.Function, error) {
	return fe.Kernel1D(32, func(k *fe.K, in fe.Buf[fe.Val[From]], out fe.Buf[fe.Val[To]]) {
		i := k.DispatchID().X()
		out.Write(i, fe.Convert[To](in.Read(i)))
	})
}

// BitcastKernel reinterprets in[i]'s bits as To.
func BitcastKernel[To, From fe.Scalar]() (*fe.Function, error) {
	return fe.Kernel1D(32, func(k *fe.K, in fe.Buf[fe.Val[From]], out fe.Buf[fe.Val[To]]) {
		i := k.DispatchID().X()
		out.Write(i, fe.Bitcast[To](in.Read(i)))
	})
}

// BoolUniform writes 1 where the bool uniform flag holds and x[i] > 0, else 2.
func BoolUniform() (*fe.Function, error) {
	return fe.Kernel1D(32, func(k *fe.K, flag fe.Bool, x fe.Buf[fe.I32], out fe.Buf[fe.U32]) {
		i := k.DispatchID().X()
		out.Write(i, fe.Select(flag.And(x.Read(i).Gt(fe.I(0))), fe.U(1), fe.U(2)))
	})
}
