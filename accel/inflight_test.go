package accel_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/device"
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

func checkCloseWhileInFlight(t *testing.T, d *device.Device) {
	const n = 256
	ctx := context.Background()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	k := hitIDs(t, d, n)
	var keep *accel.Mesh
	for round := range 3 {
		m, vb, ib := oneTriangle(t, d)
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
