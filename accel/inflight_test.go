package accel_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// Closing a mesh, its accel and their buffers right after submitting the
// list that builds and traces them is deferred release: the work runs as
// submitted. Before, the cpu backend failed the queued accel build with
// "mesh …: closed". A build submitted after the close still fails.
func TestCloseWhileInFlight(t *testing.T) {
	t.Run("cpu", func(t *testing.T) { checkCloseWhileInFlight(t, openCPU(t, true)) })
	if os.Getenv("LUCENT_TEST_BACKEND") != "cpu" {
		t.Run("vulkan", func(t *testing.T) { checkCloseWhileInFlight(t, nativeDevice(t)) })
	}
}

const inflightRays = 256

func checkCloseWhileInFlight(t *testing.T, d *device.Device) {
	const n = inflightRays
	ctx := context.Background()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.Accel, o dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		x := dsl.Convert[float32](i).Add(dsl.F(0.5)).Mul(dsl.F(0.8 / inflightRays)).Sub(dsl.F(0.4)) // inside the triangle at y = 0
		h := a.TraceClosest(dsl.V3(x, dsl.F(0), dsl.F(-1)), dsl.F(0), dsl.V3(dsl.F(0), dsl.F(0), dsl.F(1)), dsl.F(10), dsl.U(0xff))
		o.Write(i, h.Instance().Add(h.Kind().Mul(dsl.U(1000))))
	}, "a", "o")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	var keep *accel.Mesh
	for round := range 3 {
		vb, err := device.NewBufferFrom(d, [][3]float32{{-1, -1, 0}, {1, -1, 0}, {0, 1, 0}})
		require.NoError(t, err)
		ib, err := device.NewBufferFrom(d, [][3]uint32{{0, 1, 2}})
		require.NoError(t, err)
		m, err := accel.NewMesh(d, vb.All(), ib.All(), accel.Options{})
		require.NoError(t, err)
		a, err := accel.NewAccel(d, accel.Options{})
		require.NoError(t, err)
		_, err = a.Add(accel.Instance{Primitive: m, Mask: 0xff, Opaque: true, ID: uint32(round)})
		require.NoError(t, err)
		out, err := device.NewBuffer[uint32](d, n)
		require.NoError(t, err)
		got := make([]uint32, n)
		require.NoError(t, s.Submit(m.Build(), a.Build(), k.Dispatch([3]uint32{n}, a, out), out.Download(got)))
		closeNow := []interface{ Close() error }{a, ib, vb, out}
		if round < 2 {
			closeNow = append(closeNow, m)
		} else {
			keep = m
		}
		for _, c := range closeNow {
			require.NoError(t, c.Close())
		}
		require.NoError(t, s.Synchronize(ctx), "round %d", round)
		for i, g := range got {
			require.Equal(t, uint32(round+1000), g, "round %d, ray %d", round, i)
		}
	}
	// An accel built after its mesh was closed fails.
	a, err := accel.NewAccel(d, accel.Options{})
	require.NoError(t, err)
	_, err = a.Add(accel.Instance{Primitive: keep, Mask: 0xff})
	require.NoError(t, err)
	require.NoError(t, keep.Close())
	err = s.Submit(a.Build())
	if err == nil {
		err = s.Synchronize(ctx)
	}
	require.ErrorIs(t, err, device.ErrClosed)
	closeAll(t, a, k, s)
}
