package dsl_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// Run-time indexed vector components: v.At(i) reads and Local.SetAt(i, c)
// writes component i of a vector, i computed per thread and clamped to the
// vector; the kernel runs on the interpreter, the Vulkan device and the cpu
// backend.
func TestDynamicComponents(t *testing.T) {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		v := dsl.V3(dsl.F(10), dsl.F(20), dsl.F(30))
		w := dsl.NewVar(k, v)
		w.SetAt(i.Rem(dsl.U(4)), dsl.F(-1)) // i%4 == 3 writes Z
		out.Write(i, v.At(i.Rem(dsl.U(5))).Add(w.Get().At(dsl.U(2)).Mul(dsl.F(100))))
	}, "out")
	require.NoError(t, err)
	const n = 10
	want := make([]float32, n)
	for i := range want {
		v := [3]float32{10, 20, 30}
		w := v
		w[min(i%4, 2)] = -1
		want[i] = v[min(i%5, 2)] + w[2]*100
	}
	out := interp.NewBuffer(ir.TF32, n)
	require.NoError(t, interp.Run(f, [3]uint32{n, 1, 1}, out))
	got := make([]float32, n)
	for i := range got {
		got[i] = math.Float32frombits(binary.LittleEndian.Uint32(out.Data[4*i:]))
	}
	require.Equal(t, want, got)

	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			d, err := device.Open(context.Background(), backend, device.WithValidationLayer(true))
			testenv.Need(t, backend+" device", err)
			defer d.Close()
			k, err := device.Compile(d, f)
			require.NoError(t, err)
			defer k.Close()
			b, err := device.NewBuffer[float32](d, n)
			require.NoError(t, err)
			defer b.Close()
			s, err := d.NewStream(device.StreamCompute)
			require.NoError(t, err)
			defer s.Close()
			res := make([]float32, n)
			require.NoError(t, s.Submit(k.Dispatch([3]uint32{n}, b), b.Download(res)))
			require.NoError(t, s.Synchronize(context.Background()))
			require.Equal(t, want, res)
		})
	}
}

func TestSetAtNeedsAVector(t *testing.T) {
	_, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		x := dsl.NewVar(k, dsl.F(1))
		x.SetAt(dsl.U(0), dsl.F(2))
		out.Write(dsl.U(0), x.Get())
	}, "out")
	require.ErrorIs(t, err, dsl.ErrDSL)
	require.ErrorContains(t, err, "SetAt of a f32 component in a variable of type f32: the variable must hold a vector of f32")
}
