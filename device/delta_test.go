package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// A bindless Update in a list Submit refuses, or made and never submitted,
// loses nothing: the next Update sends its slots again. Before, they were
// gone, and the kernel read an empty slot (0).
func TestBindlessUpdateRefusedThenRetried(t *testing.T) {
	f, err := dsl.Kernel1D(1, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32]) {
		v := dsl.NewVar(k, dsl.F(-1))
		k.If(dsl.BufferLen[dsl.F32](arr, dsl.U(0)).Gt(dsl.U(0)), func() { v.Set(dsl.ReadBuffer[dsl.F32](arr, dsl.U(0), dsl.U(0))) })
		out.Write(dsl.U(0), v.Get().Add(dsl.Convert[float32](dsl.BufferLen[dsl.F32](arr, dsl.U(1))).Mul(dsl.F(1000))))
	}, "arr", "out")
	require.NoError(t, err)
	d := openDevice(t)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	a := newBuf(t, d, []float32{42})
	b := newBuf(t, d, []float32{1, 2, 3})
	out := newBuf(t, d, []float32{0})
	arr, err := d.NewBindlessArray(2)
	require.NoError(t, err)
	defer arr.Close()
	got := make([]float32, 1)
	read := func() float32 {
		t.Helper()
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{1}, arr, out), out.Download(got)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		return got[0]
	}

	require.NoError(t, arr.EmplaceBuffer(0, a))
	err = s.Submit(arr.Update(), k.Dispatch([3]uint32{1}, out, out))
	require.ErrorIs(t, err, device.ErrInvalidArgument, "a list with a dispatch given a buffer for the bindless array")
	require.NoError(t, s.Submit(arr.Update()))
	require.Equal(t, float32(42), read(), "slot 0, set by the refused list's Update, sent again")

	require.NoError(t, arr.EmplaceBuffer(1, b))
	_ = arr.Update() // never submitted
	require.NoError(t, arr.Remove(0))
	require.NoError(t, s.Submit(arr.Update()))
	require.Equal(t, float32(-1+3000), read(), "slot 1 from the dropped Update, slot 0 removed since")
	require.NoError(t, s.Submit(arr.Update()))
	require.Equal(t, float32(-1+3000), read(), "an Update with nothing pending changes nothing")
}

// A device that builds acceleration structures runs ray queries over them,
// and says so: a program that checks Capabilities().RayQuery before it
// traces took the cpu backend for one without them.
func TestCapabilitiesRayPaths(t *testing.T) {
	c := openDevice(t).Capabilities()
	if c.RayTracing == device.PathNone {
		require.Equal(t, device.PathNone, c.RayQuery, "ray queries without structures to trace")
		return
	}
	require.NotEqual(t, device.PathNone, c.RayQuery, "%s builds structures (%v) but reports no ray queries", c.Backend, c.RayTracing)
	if c.RayQuery == device.PathNative {
		require.Equal(t, device.PathNative, c.RayTracing, "native ray queries trace native structures")
	}
}
