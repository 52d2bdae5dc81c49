package accel_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
)

// The software path of the cpu backend: builds read the geometry when they
// run, so bad geometry is an error the stream's Synchronize returns.

func openCPU(t *testing.T, validated bool) *device.Device {
	var opts []device.Option
	if validated {
		opts = append(opts, device.WithValidation())
	}
	d, err := device.Open(context.Background(), "cpu", opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close(), "Close (a leak fails the test)") })
	return d
}

func TestSoftwareBuildUpdateCompact(t *testing.T) {
	d := openCPU(t, true)
	require.Equal(t, device.PathEmulated, d.Capabilities().RayTracing)
	vb, err := device.NewBufferFrom(d, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}})
	require.NoError(t, err)
	ib, err := device.NewBufferFrom(d, [][3]uint32{{0, 1, 2}, {1, 3, 2}})
	require.NoError(t, err)
	boxes, err := device.NewBufferFrom(d, []accel.AABB{{Max: [3]float32{1, 1, 1}}})
	require.NoError(t, err)
	m, err := accel.NewMesh(d, vb.All(), ib.All(), accel.Options{AllowUpdate: true, AllowCompaction: true})
	require.NoError(t, err)
	p, err := accel.NewProcedural(d, boxes.All(), accel.Options{})
	require.NoError(t, err)
	a, err := accel.NewAccel(d, accel.Options{AllowCompaction: true})
	require.NoError(t, err)
	closeAll(t, a, p, m, boxes, ib, vb)
	_, err = a.Add(accel.Instance{Primitive: m, Mask: 1})
	require.NoError(t, err)
	_, err = a.Add(accel.Instance{Primitive: p, Mask: 1, Transform: [12]float32{1, 0, 0, 5, 0, 1, 0, 0, 0, 0, 1, 0}})
	require.NoError(t, err)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	closeAll(t, s)
	ctx := context.Background()
	require.NoError(t, s.Submit(m.Build(), p.Build(), a.Build()))
	require.NoError(t, s.Synchronize(ctx))
	sz, err := m.Size()
	require.NoError(t, err)
	require.NotZero(t, sz.Bytes)
	require.NotZero(t, sz.Compacted)
	require.LessOrEqual(t, sz.Compacted, sz.Bytes)
	require.NoError(t, s.Submit(vb.Upload([][3]float32{{0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}}), m.Update()))
	require.NoError(t, s.Synchronize(ctx))
	require.NoError(t, s.Submit(m.Compact(), a.Build()))
	require.NoError(t, s.Synchronize(ctx))
	after, err := m.Size()
	require.NoError(t, err)
	require.LessOrEqual(t, after.Bytes, sz.Bytes)
	require.NotZero(t, after.Bytes)
	require.Equal(t, after.Bytes, after.Compacted, "a compacted mesh's compacted size is its size")
	require.NoError(t, s.Submit(a.Compact()))
	require.NoError(t, s.Synchronize(ctx))
	as, err := a.Size()
	require.NoError(t, err)
	require.NotZero(t, as.Bytes)
	require.Equal(t, as.Bytes, as.Compacted, "a compacted accel's compacted size is its size")
	// A full build starts afresh: the build's own compacted size again.
	require.NoError(t, s.Submit(m.Build()))
	require.NoError(t, s.Synchronize(ctx))
	rebuilt, err := m.Size()
	require.NoError(t, err)
	require.NotZero(t, rebuilt.Compacted)
	require.LessOrEqual(t, rebuilt.Compacted, rebuilt.Bytes)
}

func TestSoftwareBadGeometry(t *testing.T) {
	for _, validated := range []bool{true, false} {
		d := openCPU(t, validated)
		s, err := d.NewStream(device.StreamCompute)
		require.NoError(t, err)
		closeAll(t, s)
		build := func(verts [][3]float32, idx [][3]uint32) error {
			vb, err := device.NewBufferFrom(d, verts)
			require.NoError(t, err)
			ib, err := device.NewBufferFrom(d, idx)
			require.NoError(t, err)
			m, err := accel.NewMesh(d, vb.All(), ib.All(), accel.Options{})
			require.NoError(t, err)
			closeAll(t, m, ib, vb)
			require.NoError(t, s.Submit(m.Build()))
			return s.Synchronize(context.Background())
		}
		tri := [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
		err = build(tri, [][3]uint32{{0, 1, 2}, {0, 1, 1 << 30}})
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		require.ErrorContains(t, err, "triangle 1: index 1073741824 past its 3 vertices")
		err = build(append(tri, [3]float32{float32(math.NaN()), 0, 0}), [][3]uint32{{0, 1, 3}})
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		err = build(append(tri, [3]float32{float32(math.Inf(-1)), 0, 0}), [][3]uint32{{3, 1, 2}})
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		require.NoError(t, build(tri, [][3]uint32{{0, 1, 2}}), "the stream goes on")
		err = buildMeshErr(t, d, s, tri, [][3]uint16{{0, 1, 2}, {2, 1, 0}, {0, 1, 3}})
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		require.ErrorContains(t, err, "triangle 2: index 3 past its 3 vertices", "16-bit indices")
	}
}

func TestSoftwareClosedMeshInInstance(t *testing.T) {
	for _, validated := range []bool{true, false} {
		d := openCPU(t, validated)
		s, err := d.NewStream(device.StreamCompute)
		require.NoError(t, err)
		closeAll(t, s)
		vb, err := device.NewBufferFrom(d, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
		require.NoError(t, err)
		ib, err := device.NewBufferFrom(d, [][3]uint32{{0, 1, 2}})
		require.NoError(t, err)
		m, err := accel.NewMesh(d, vb.All(), ib.All(), accel.Options{})
		require.NoError(t, err)
		a, err := accel.NewAccel(d, accel.Options{})
		require.NoError(t, err)
		closeAll(t, a, ib, vb)
		_, err = a.Add(accel.Instance{Primitive: m, Mask: 1})
		require.NoError(t, err)
		require.NoError(t, s.Submit(m.Build(), a.Build()))
		require.NoError(t, s.Synchronize(context.Background()))
		require.NoError(t, m.Close())
		err = s.Submit(a.Build())
		if err == nil { // without validation the build finds it when it runs
			require.False(t, validated)
			err = s.Synchronize(context.Background())
		}
		require.ErrorIs(t, err, device.ErrClosed, "validated: %v", validated)
		require.ErrorContains(t, err, "instance 0: ")
	}
}

func TestSoftwareBuildFromBufferInFlight(t *testing.T) {
	d := openCPU(t, true)
	vb, ib := buildFromBufferInFlight(t, d)
	_, err := accel.NewMesh(d, vb.All(), ib.View(0, 0), accel.Options{})
	require.ErrorContains(t, err, "Triangles 0")
}
