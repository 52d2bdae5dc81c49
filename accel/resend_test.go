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

// An accel build that a Submit refuses, or that is made and never
// submitted, must not lose the instance changes it carries: the next build
// sends them again. Before, the retry of a build refused because its mesh
// was not built yet failed with "instance 0 … was never set" on the native
// path, and after a dropped build on every path.
func TestAccelBuildResendsRefusedChanges(t *testing.T) {
	t.Run("cpu", func(t *testing.T) { checkResend(t, openCPU(t, true)) })
	// Without the validation wrapper the cpu backend refuses a build when
	// the list runs, after Submit took it.
	t.Run("cpu-unvalidated", func(t *testing.T) { checkResend(t, openCPU(t, false)) })
	if os.Getenv("LUCENT_TEST_BACKEND") != "cpu" {
		t.Run("vulkan", func(t *testing.T) { checkResend(t, nativeDevice(t)) })
	}
}

// oneTriangle is a mesh on d of the triangle (−1, −1, 0), (1, −1, 0),
// (0, 1, 0), with its vertex and index buffers.
func oneTriangle(t *testing.T, d *device.Device) (*accel.Mesh, *device.Buffer[[3]float32], *device.Buffer[[3]uint32]) {
	vb, err := device.NewBufferFrom(d, [][3]float32{{-1, -1, 0}, {1, -1, 0}, {0, 1, 0}})
	require.NoError(t, err)
	ib, err := device.NewBufferFrom(d, [][3]uint32{{0, 1, 2}})
	require.NoError(t, err)
	m, err := accel.NewMesh(d, vb.All(), ib.All(), accel.Options{})
	require.NoError(t, err)
	return m, vb, ib
}

// hitIDs is the kernel whose thread i of n traces the ray from
// ((i + 0.5)·0.8/n − 0.4, 0, −1) along +z, inside oneTriangle's triangle at
// y = 0 (n = 1: the z axis), and writes the hit's user id + 1000·kind.
func hitIDs(t *testing.T, d *device.Device, n int) *device.Kernel {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.Accel, o dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		x := dsl.Convert[float32](i).Add(dsl.F(0.5)).Mul(dsl.F(0.8 / float32(n))).Sub(dsl.F(0.4))
		h := a.TraceClosest(dsl.V3(x, dsl.F(0), dsl.F(-1)), dsl.F(0), dsl.V3(dsl.F(0), dsl.F(0), dsl.F(1)), dsl.F(10), dsl.U(0xff))
		o.Write(i, h.Instance().Add(h.Kind().Mul(dsl.U(1000))))
	}, "a", "o")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	return k
}

func checkResend(t *testing.T, d *device.Device) {
	ctx := context.Background()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	out, err := device.NewBuffer[uint32](d, 1)
	require.NoError(t, err)
	m, vb, ib := oneTriangle(t, d)
	k := hitIDs(t, d, 1)
	// trace returns the hit's user id + 1000·kind for the ray down the z axis.
	trace := func(a *accel.Accel) uint32 {
		t.Helper()
		got := make([]uint32, 1)
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{1}, a, out), out.Download(got)))
		require.NoError(t, s.Synchronize(ctx))
		return got[0]
	}
	submit := func(c ...device.Command) error {
		if err := s.Submit(c...); err != nil {
			return err
		}
		return s.Synchronize(ctx)
	}

	a, err := accel.NewAccel(d, accel.Options{})
	require.NoError(t, err)
	_, err = a.Add(accel.Instance{Primitive: m, Mask: 0xff, Opaque: true, ID: 7})
	require.NoError(t, err)
	require.ErrorContains(t, submit(a.Build()), "has not been built", "an accel build before its mesh's")
	require.NoError(t, submit(m.Build()))
	require.NoError(t, submit(a.Build()), "the accel build again, once its mesh is built")
	require.Equal(t, uint32(7+1000), trace(a))

	b, err := accel.NewAccel(d, accel.Options{})
	require.NoError(t, err)
	_, err = b.Add(accel.Instance{Primitive: m, Mask: 0xff, Opaque: true, ID: 9})
	require.NoError(t, err)
	_ = b.Build() // made, never submitted
	require.NoError(t, b.SetMask(0, 0xf0))
	require.NoError(t, submit(b.Build()), "a build after a dropped one")
	require.Equal(t, uint32(9+1000), trace(b))
	require.NoError(t, b.SetMask(0, 0x01))
	require.NoError(t, submit(b.Build()))
	require.Equal(t, uint32(9+1000), trace(b), "the mask 0x01 shares a bit with the ray's 0xff")
	require.NoError(t, b.SetMask(0, 0))
	require.NoError(t, submit(b.Build()))
	require.Equal(t, uint32(0), trace(b), "a masked-out instance is missed")

	// A refit refused for its instance count keeps the new instance for the
	// next build: on cpu the refusal comes when the list runs, after Submit
	// took it, so the backend must keep what the command carried.
	c, err := accel.NewAccel(d, accel.Options{AllowUpdate: true})
	require.NoError(t, err)
	_, err = c.Add(accel.Instance{Primitive: m, Mask: 0xff, Opaque: true, ID: 3})
	require.NoError(t, err)
	require.NoError(t, submit(c.Build()))
	nearer := accel.Identity
	nearer[11] = -0.5
	_, err = c.Add(accel.Instance{Primitive: m, Transform: nearer, Mask: 0xff, Opaque: true, ID: 4})
	require.NoError(t, err)
	require.ErrorContains(t, submit(c.Update()), "with 2 instances, its build had 1")
	require.NoError(t, submit(c.Build()))
	require.Equal(t, uint32(4+1000), trace(c), "the instance the refused refit carried, nearer the ray's origin")

	closeAll(t, c, b, a, k, m, out, ib, vb, s)
}
