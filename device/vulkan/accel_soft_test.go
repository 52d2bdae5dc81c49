package vulkan

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
)

// TestSoftwareArraysOnDevice builds a mesh and an accel on the software path
// (forced where the device has native structures) and reads back the device
// buffers their arrays were uploaded to: byte for byte the host hierarchy's
// layout, the accel's buffer holding a copy of the mesh's after its top
// level, its instance naming the copy's offset and holding the host's
// inverse and the transform as given.
func TestSoftwareArraysOnDevice(t *testing.T) {
	t.Setenv("LUCENT_ACCEL", "software")
	t.Setenv("LUCENT_SOFT_BUILD", "sah") // the host's hierarchy, uploaded
	d, _ := openDevice(t)
	require.Equal(t, device.PathEmulated, d.Capabilities().RayTracing)
	s, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	defer d.DestroyStream(s)
	vb, err := d.CreateBuffer(device.BufferDesc{Size: 36})
	require.NoError(t, err)
	ib, err := d.CreateBuffer(device.BufferDesc{Size: 12})
	require.NoError(t, err)
	m, err := d.CreateMesh(device.AccelOptions{})
	require.NoError(t, err)
	a, err := d.CreateAccel(device.AccelOptions{})
	require.NoError(t, err)
	verts := f32bytes(0, 0, 0, 1, 0, 0, 0, 1, 0)
	idx := []byte{0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0}
	// A transform whose float32 inverse does not invert back to it.
	xf := [12]float32{3, 0, 0, 0.1, 0, 0.7, 0, -2, 0, 0, 1.1, 5}
	in := device.Instance{Primitive: m, Kind: device.KindMesh, Transform: xf, Mask: 3, ID: 9}
	require.NoError(t, d.Dispatch(s, &device.CommandList{Commands: []device.Command{
		&device.BufferUpload{Buffer: vb, Data: verts},
		&device.BufferUpload{Buffer: ib, Data: idx},
		&device.MeshBuild{Mesh: m, Geometry: device.MeshGeometry{Vertices: vb, VertexStride: 12, VertexCount: 3, Indices: ib, Triangles: 1}},
		&device.AccelBuild{Accel: a, Count: 1, Updates: []device.InstanceUpdate{{Change: device.ChangeAll, Instance: in}}},
	}}))
	require.NoError(t, d.SynchronizeStream(context.Background(), s))

	read := func(h device.Handle) (*structure, []byte) {
		d.live.RLock()
		st, err := structureOf(d, h, device.KindInvalid)
		d.live.RUnlock()
		require.NoError(t, err)
		out := make([]byte, st.nodes.desc.Size)
		require.NoError(t, d.Dispatch(s, &device.CommandList{Commands: []device.Command{&device.BufferDownload{Buffer: st.nodesHandle, Data: out}}}))
		require.NoError(t, d.SynchronizeStream(context.Background(), s))
		return st, out
	}
	ms, mb := read(m)
	require.Equal(t, meshBytes(ms.soft.Mesh()), mb)
	prims := binary.LittleEndian.Uint32(mb)
	require.Equal(t, []byte{0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, mb[4:16], "header: 0, one primitive, triangles")
	require.Equal(t, 16+32*len(ms.soft.Mesh().Nodes), int(prims))
	require.Len(t, mb, int(prims)+codegen.SoftTriangleBytes, "one 48-byte triangle record")
	require.Equal(t, append(append(f32bytes(0, 0, 0, 0, 1, 0, 0, 0), f32bytes(0, 1, 0)...), 0, 0, 0, 0), mb[prims:],
		"rows {A, id 0}, {B, 0}, {C, 0}")
	as, ab := read(a)
	require.Len(t, as.soft.Scene().Instances, 1)
	insts, o2w := binary.LittleEndian.Uint32(ab[4:]), binary.LittleEndian.Uint32(ab[12:])
	require.Equal(t, insts+codegen.SoftInstanceBytes, o2w, "the object-to-world table after the one record")
	top := int(o2w) + codegen.SoftTransformBytes
	require.Equal(t, sceneSize(as.soft.Scene()), top)
	meshAt := (top + 15) &^ 15
	require.Equal(t, sceneBytes(as.soft.Scene(), []uint64{uint64(meshAt)}), ab[:top])
	require.Equal(t, make([]byte, meshAt-top), ab[top:meshAt], "padding to 16 bytes")
	require.Equal(t, mb, ab[meshAt:], "the mesh's copy after the top level")
	rec := ab[insts:o2w]
	require.Equal(t, f32bytes(as.soft.Scene().Inverse[0][:]...), rec[:48], "world to object")
	require.Equal(t, uint64(meshAt), binary.LittleEndian.Uint64(rec[48:]), "the mesh's offset")
	require.Equal(t, []byte{3, 0, 0, 0}, rec[60:64], "mask, opaque, procedural, padding")
	require.Equal(t, f32bytes(xf[:]...), ab[o2w:top], "object to world, as given")

	require.NoError(t, d.DestroyAccel(a))
	require.NoError(t, d.DestroyMesh(m))
	require.NoError(t, d.DestroyBuffer(vb))
	require.NoError(t, d.DestroyBuffer(ib))
}

func f32bytes(fs ...float32) []byte { return appendF32(nil, fs...) }
