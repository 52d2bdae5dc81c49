package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestSignedRemainderByConstant runs DSL kernels taking x % c of signed
// integers on the device and compares with Go's truncated remainder: the
// result has the sign of x (-1 % 4 is -1). Mesa 22.3 gets the 64-bit form
// by a constant wrong unless codegen rewrites it (frontend: Rem).
func TestSignedRemainderByConstant(t *testing.T) {
	d := openDevice(t)
	if !d.Capabilities().Int64 {
		testenv.Need(t, "64-bit integers", errUnsupported("Int64"))
	}
	in64 := []int64{-9, -8, -5, -4, -3, -1, 0, 1, 3, 4, 5, 9, -1 << 40, 1<<40 + 3}
	for _, c := range []int64{4, -4, 3, 7} {
		k := compile(t, d, func() (*ir.Function, error) {
			return dsl.Kernel1D(64, func(k *dsl.K, in, out dsl.Buf[dsl.I64]) {
				i := k.DispatchID().X()
				out.Write(i, in.Read(i).Rem(dsl.Lit(c)))
			})
		})
		src, dst := upload(t, d, in64), upload(t, d, make([]int64, len(in64)))
		run(t, d, k.Dispatch([3]uint32{uint32(len(in64))}, src, dst))
		got := download(t, d, dst)
		for i, v := range in64 {
			require.Equal(t, v%c, got[i], "int64 %d %% %d", v, c)
		}
	}
	in32 := []int32{-9, -5, -4, -1, 0, 1, 5, 9}
	// A 32-bit value widened to 64 bits, as Go's int64(v) % 4.
	k := compile(t, d, func() (*ir.Function, error) {
		return dsl.Kernel1D(64, func(k *dsl.K, in, out dsl.Buf[dsl.I32]) {
			i := k.DispatchID().X()
			out.Write(i, dsl.Convert[int32](dsl.Convert[int64](in.Read(i)).Rem(dsl.Lit[int64](4))))
		})
	})
	src, dst := upload(t, d, in32), upload(t, d, make([]int32, len(in32)))
	run(t, d, k.Dispatch([3]uint32{uint32(len(in32))}, src, dst))
	got := download(t, d, dst)
	for i, v := range in32 {
		require.Equal(t, int32(int64(v)%4), got[i], "int64(%d) %% 4", v)
	}
	k = compile(t, d, func() (*ir.Function, error) {
		return dsl.Kernel1D(64, func(k *dsl.K, in, out dsl.Buf[dsl.I32]) {
			i := k.DispatchID().X()
			out.Write(i, in.Read(i).Rem(dsl.I(4)))
		})
	})
	src, dst = upload(t, d, in32), upload(t, d, make([]int32, len(in32)))
	run(t, d, k.Dispatch([3]uint32{uint32(len(in32))}, src, dst))
	got = download(t, d, dst)
	for i, v := range in32 {
		require.Equal(t, v%4, got[i], "int32 %d %% 4", v)
	}
}
