package accel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/device"
)

// Buffers and primitives of another device are refused where they are
// given (NewMesh, NewProcedural, Add, Set), naming them, not at a later
// build.
func TestForeignBuffersAndPrimitives(t *testing.T) {
	a, b := openCPU(t, true), openCPU(t, true)
	vb, err := device.NewBufferFrom(b, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	require.NoError(t, err)
	ib, err := device.NewBufferFrom(b, [][3]uint32{{0, 1, 2}})
	require.NoError(t, err)
	boxes, err := device.NewBufferFrom(b, []accel.AABB{{Max: [3]float32{1, 1, 1}}})
	require.NoError(t, err)
	mine, err := device.NewBufferFrom(a, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	require.NoError(t, err)

	_, err = accel.NewMesh(a, vb.All(), ib.All(), accel.Options{})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "NewMesh: invalid argument: vertices: buffer")
	require.ErrorContains(t, err, "belongs to another device")
	_, err = accel.NewMesh(a, mine.All(), ib.All(), accel.Options{})
	require.ErrorContains(t, err, "triangles: buffer")
	_, err = accel.NewProcedural(a, boxes.All(), accel.Options{})
	require.ErrorContains(t, err, "NewProcedural: invalid argument: boxes: buffer")

	theirs, err := accel.NewMesh(b, vb.All(), ib.All(), accel.Options{})
	require.NoError(t, err)
	ours, err := accel.NewAccel(a, accel.Options{})
	require.NoError(t, err)
	_, err = ours.Add(accel.Instance{Primitive: theirs, Mask: 1})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "belongs to another device than accel")
	require.Zero(t, ours.Len())
	p, err := accel.NewProcedural(a, mustBoxes(t, a).All(), accel.Options{})
	require.NoError(t, err)
	_, err = ours.Add(accel.Instance{Primitive: p, Mask: 1})
	require.NoError(t, err)
	require.ErrorContains(t, ours.Set(0, accel.Instance{Primitive: theirs, Mask: 1}), "belongs to another device than accel")
	closeAll(t, p, ours, theirs, mine, boxes, ib, vb)
}

func mustBoxes(t *testing.T, d *device.Device) *device.Buffer[accel.AABB] {
	b, err := device.NewBufferFrom(d, []accel.AABB{{Max: [3]float32{1, 1, 1}}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}
