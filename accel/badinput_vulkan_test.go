package accel_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/internal/raytest"
	"github.com/lucent-gpu/lucent/kernel"
)

// Bad input on the native path, with the validation layer on: each a clear
// error or a defined result, never a fault.

// buildMeshErr builds a mesh over verts and idx and returns the error of
// Submit or Synchronize.
func buildMeshErr[T accel.Index](t *testing.T, d *device.Device, s *device.Stream, verts [][3]float32, idx []T) error {
	_, err := buildMeshWith(t, d, s, verts, idx)
	return err
}

func buildMeshWith[T accel.Index](t *testing.T, d *device.Device, s *device.Stream, verts [][3]float32, idx []T) (*accel.Mesh, error) {
	vb, err := device.NewBufferFrom(d, verts)
	require.NoError(t, err)
	ib, err := device.NewBufferFrom(d, idx)
	require.NoError(t, err)
	m, err := accel.NewMesh(d, vb.All(), ib.All(), accel.Options{AllowCompaction: true})
	require.NoError(t, err)
	closeAll(t, m, ib, vb)
	if err := s.Submit(m.Build()); err != nil {
		return m, err
	}
	return m, s.Synchronize(context.Background())
}

// buildMesh builds a mesh over verts and idx and returns its compacted size.
func buildMesh[T accel.Index](t *testing.T, d *device.Device, s *device.Stream, verts [][3]float32, idx []T) uint64 {
	m, err := buildMeshWith(t, d, s, verts, idx)
	require.NoError(t, err)
	sz, err := m.Size()
	require.NoError(t, err)
	require.NotZero(t, sz.Compacted)
	return sz.Compacted
}

func TestVulkanIndicesOutOfRange(t *testing.T) {
	// Before the index check, lavapipe faulted (SIGSEGV) on this build.
	for _, validated := range []bool{true, false} {
		var opts []device.Option
		if !validated {
			opts = append(opts, func(o *device.Options) { o.Validation = false })
		}
		d := nativeDevice(t, opts...)
		s, err := d.NewStream(device.StreamCompute)
		require.NoError(t, err)
		closeAll(t, s)
		verts := [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}
		badIdx := [][3]uint32{{0, 1, 2}, {1, 3, 1 << 30}, {math.MaxUint32, 5, 7}, {1, 2, 3}}
		badIdx16 := [][3]uint16{{0, 1, 2}, {1, 3, 60000}, {math.MaxUint16, 5, 7}, {1, 2, 3}, {0, 1, 2}}
		if !native(d) {
			// The software path reads the indices: an error naming the triangle.
			err := buildMeshErr(t, d, s, verts, badIdx)
			require.ErrorIs(t, err, device.ErrInvalidArgument)
			require.ErrorContains(t, err, "triangle 1: index 1073741824 past its 4 vertices")
			err = buildMeshErr(t, d, s, verts, badIdx16)
			require.ErrorIs(t, err, device.ErrInvalidArgument)
			require.ErrorContains(t, err, "triangle 1: index 60000 past its 4 vertices")
			continue
		}
		bad := buildMesh(t, d, s, verts, badIdx)
		// A triangle with an index past the vertices is built as (0, 0, 0).
		dropped := buildMesh(t, d, s, verts, [][3]uint32{{0, 1, 2}, {0, 0, 0}, {0, 0, 0}, {1, 2, 3}})
		require.Equal(t, dropped, bad, "the bad triangles are the degenerate (0, 0, 0)")
		// 16-bit indices (an odd count: the last word is half used) alike.
		bad = buildMesh(t, d, s, verts, badIdx16)
		dropped = buildMesh(t, d, s, verts, [][3]uint16{{0, 1, 2}, {0, 0, 0}, {0, 0, 0}, {1, 2, 3}, {0, 1, 2}})
		require.Equal(t, dropped, bad, "16-bit indices: the bad triangles are the degenerate (0, 0, 0)")
	}
}

func TestVulkanNonFiniteVertices(t *testing.T) {
	d := nativeDevice(t)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	closeAll(t, s)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	verts := [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {nan, 0, 0}, {inf, -inf, 0}}
	idx := [][3]uint32{{0, 1, 2}, {0, 1, 3}, {0, 1, 4}}
	if !native(d) {
		// The software path refuses them, naming the triangle.
		err := buildMeshErr(t, d, s, verts, idx)
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		require.ErrorContains(t, err, "triangle 1")
		return
	}
	// Natively the index check builds them as degenerate triangles
	// (TestVulkanNonFiniteLastTriangle).
	buildMesh(t, d, s, verts, idx)
}

func TestVulkanZeroTriangles(t *testing.T) {
	d := nativeDevice(t)
	vb, err := device.NewBuffer[[3]float32](d, 3)
	require.NoError(t, err)
	ib, err := device.NewBuffer[[3]uint32](d, 1)
	require.NoError(t, err)
	closeAll(t, ib, vb)
	_, err = accel.NewMesh(d, vb.All(), ib.View(0, 0), accel.Options{})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "Triangles 0")
	_, err = accel.NewMesh(d, vb.View(0, 0), ib.All(), accel.Options{})
	require.ErrorContains(t, err, "VertexCount 0")
	_, err = accel.NewProcedural(d, device.BufferView[accel.AABB]{}, accel.Options{})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = accel.NewAccel(d, accel.Options{Hint: 7})
	require.ErrorContains(t, err, "hint")
	a, err := accel.NewAccel(d, accel.Options{})
	require.NoError(t, err)
	closeAll(t, a)
	require.ErrorContains(t, device.CommandError(a.Build()), "has no instances")
}

func TestVulkanClosedMeshInInstance(t *testing.T) {
	for _, validated := range []bool{true, false} {
		var d *device.Device
		if validated {
			d = nativeDevice(t)
		} else {
			d = nativeDevice(t, func(o *device.Options) { o.Validation = false })
		}
		s, err := d.NewStream(device.StreamCompute)
		require.NoError(t, err)
		closeAll(t, s)
		vb, err := device.NewBufferFrom(d, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
		require.NoError(t, err)
		ib, err := device.NewBufferFrom(d, [][3]uint32{{0, 1, 2}})
		require.NoError(t, err)
		closeAll(t, ib, vb)
		m, err := accel.NewMesh(d, vb.All(), ib.All(), accel.Options{})
		require.NoError(t, err)
		other, err := accel.NewMesh(d, vb.All(), ib.All(), accel.Options{})
		require.NoError(t, err)
		a, err := accel.NewAccel(d, accel.Options{})
		require.NoError(t, err)
		closeAll(t, a, other)
		_, err = a.Add(accel.Instance{Primitive: m, Mask: 1})
		require.NoError(t, err)
		_, err = a.Add(accel.Instance{Primitive: other, Mask: 1})
		require.NoError(t, err)
		require.NoError(t, s.Submit(m.Build(), other.Build(), a.Build()))
		require.NoError(t, s.Synchronize(context.Background()))

		// The mesh goes; a later build that leaves its instance alone fails.
		require.NoError(t, m.Close())
		require.NoError(t, a.SetTransform(1, accel.Identity))
		err = s.Submit(a.Build())
		require.ErrorIs(t, err, device.ErrClosed, "validated: %v", validated)
		require.ErrorContains(t, err, "instance 0: ")
		_, err = a.Add(accel.Instance{Primitive: m})
		require.ErrorIs(t, err, device.ErrClosed)
		// Replacing the instance mends it.
		require.NoError(t, a.Set(0, accel.Instance{Primitive: other, Mask: 1}))
		require.NoError(t, s.Submit(a.Build()))
		require.NoError(t, s.Synchronize(context.Background()))
	}
}

func TestVulkanBuildFromBufferInFlight(t *testing.T) {
	buildFromBufferInFlight(t, nativeDevice(t))
}

// buildFromBufferInFlight: a mesh built from a vertex buffer another stream
// is still writing, with no event between, is refused as a hazard naming
// the fix; with the event it builds, and in one list the encoder orders the
// upload before the build. It returns the mesh's buffers.
func buildFromBufferInFlight(t *testing.T, d *device.Device) (*device.Buffer[[3]float32], *device.Buffer[[3]uint32]) {
	writer, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	builder, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	closeAll(t, builder, writer)
	vb, err := device.NewBuffer[[3]float32](d, 3)
	require.NoError(t, err)
	ib, err := device.NewBufferFrom(d, [][3]uint32{{0, 1, 2}})
	require.NoError(t, err)
	m, err := accel.NewMesh(d, vb.All(), ib.All(), accel.Options{})
	require.NoError(t, err)
	closeAll(t, m, ib, vb)

	// Written on one stream, built from on another with no event between.
	require.NoError(t, writer.Submit(vb.Upload([][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})))
	err = builder.Submit(m.Build())
	require.ErrorIs(t, err, device.ErrHazard)
	require.ErrorContains(t, err, "signal an Event")
	// With the event, it builds.
	ev, err := d.NewEvent()
	require.NoError(t, err)
	closeAll(t, ev)
	require.NoError(t, ev.Signal(writer, 1))
	require.NoError(t, ev.Wait(builder, 1))
	require.NoError(t, builder.Submit(m.Build()))
	// In one list the encoder orders the upload before the build.
	require.NoError(t, builder.Submit(vb.Upload([][3]float32{{0, 0, 1}, {1, 0, 1}, {0, 1, 1}}), m.Build()))
	require.NoError(t, builder.Synchronize(context.Background()))
	return vb, ib
}

// A triangle with a non-finite vertex is built as a degenerate triangle at
// one of its finite vertices, which no ray hits, and the mesh's other
// triangles are hit as ever: Mesa 25's lavapipe, given the triangle as it
// is (inactive by Vulkan's rules), lost every triangle of the mesh when it
// was the last one.
func TestVulkanNonFiniteLastTriangle(t *testing.T) {
	d := nativeDevice(t)
	if !native(d) {
		t.Skip("the software path refuses the build (TestVulkanNonFiniteVertices)")
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, bad := range [][3]float32{{nan, 0, 0}, {0, -inf, 0}, {0, 0, inf}} {
		for _, n := range []int{2, 5} {
			var mesh []bvh.Triangle
			var rays []kernel.Ray
			for i := range n {
				x := float32(3 * i)
				mesh = append(mesh, bvh.Triangle{A: [3]float32{x - 1, -1, 0}, B: [3]float32{x + 1, -1, 0}, C: [3]float32{x, 1, 0}})
				rays = append(rays, kernel.Ray{Origin: kernel.F3(x, 0, -5), Dir: kernel.F3(0, 0, 1), TMax: 100, Mask: 0xff})
			}
			mesh[n-1].C = bad
			s := &raytest.Scene{Meshes: [][]bvh.Triangle{mesh}, Insts: []raytest.Instance{{Transform: bvh.Identity, Mask: 0xff, Opaque: true, ID: 9}}}
			hits := axisHits(t, d, s, rays)
			for i, h := range hits {
				if i == n-1 {
					require.Equal(t, kernel.Hit{}, h, "vertex %v, %d triangles: the bad triangle", bad, n)
					continue
				}
				require.Equal(t, kernel.Hit{Instance: 9, Prim: uint32(i), Bary: h.Bary, T: 5, Kind: kernel.HitTriangle}, h, "vertex %v, %d triangles: triangle %d", bad, n, i)
			}
		}
	}
}

// A box that is not one (a NaN or infinite component, a min above its max)
// is built natively as a point no ray enters: the procedural's other boxes
// are hit as ever, the bad one neither hit nor a candidate. Mesa 25's
// lavapipe, given a NaN box as it is (inactive by Vulkan's rules), lost
// every box of the procedural when it was the last one; an inverted box
// broke Vulkan's rule that min ≤ max. The software path refuses them.
func TestVulkanBadBoxes(t *testing.T) {
	d := nativeDevice(t)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	bads := []bvh.AABB{
		{Min: [3]float32{nan, -1, -1}, Max: [3]float32{1, 1, 1}},
		{Min: [3]float32{-1, -1, -1}, Max: [3]float32{1, nan, 1}},
		{Min: [3]float32{1, -1, -1}, Max: [3]float32{-1, 1, 1}},
		{Min: [3]float32{-inf, -1, -1}, Max: [3]float32{1, 1, 1}},
	}
	if !native(d) {
		st, err := d.NewStream(device.StreamCompute)
		require.NoError(t, err)
		closeAll(t, st)
		bb, err := device.NewBufferFrom(d, []accel.AABB{{Max: [3]float32{1, 1, 1}}, {Min: bads[0].Min, Max: bads[0].Max}})
		require.NoError(t, err)
		p, err := accel.NewProcedural(d, bb.All(), accel.Options{})
		require.NoError(t, err)
		closeAll(t, p, bb)
		err = st.Submit(p.Build())
		if err == nil {
			err = st.Synchronize(context.Background())
		}
		require.ErrorContains(t, err, "box 1")
		return
	}
	f, err := dsl.Kernel1D(64, func(k *dsl.K, scene dsl.Accel, org, dir dsl.Buf[dsl.F32x4], ids, cands dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		k.If(i.Lt(org.Len()), func() {
			o, dd := org.Read(i), dir.Read(i)
			h := scene.TraceClosest(o.XYZ(), o.W(), dd.XYZ(), dd.W(), dsl.U(0xff))
			ids.Write(i, h.Kind().Mul(dsl.U(100)).Add(h.Prim()))
			n := dsl.NewVar(k, dsl.U(0))
			scene.Query(o.XYZ(), o.W(), dd.XYZ(), dd.W(), dsl.U(0xff), func(q dsl.Query) { n.Set(n.Get().Add(dsl.U(1))) })
			cands.Write(i, n.Get())
		})
	}, "scene", "org", "dir", "ids", "cands")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	closeAll(t, k)
	st, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	closeAll(t, st)
	for _, bad := range bads {
		for _, n := range []int{2, 5} {
			for _, at := range []int{0, n / 2, n - 1} {
				var boxes []bvh.AABB
				var rays []kernel.Ray
				for i := range n {
					x := float32(3 * i)
					boxes = append(boxes, bvh.AABB{Min: [3]float32{x - 1, -1, -1}, Max: [3]float32{x + 1, 1, 1}})
					rays = append(rays, kernel.Ray{Origin: kernel.F3(x, 0, -5), Dir: kernel.F3(0, 0, 1), TMax: 100, Mask: 0xff})
				}
				boxes[at] = bvh.AABB{Min: [3]float32{bad.Min[0] + float32(3*at), bad.Min[1], bad.Min[2]}, Max: [3]float32{bad.Max[0] + float32(3*at), bad.Max[1], bad.Max[2]}}
				// and towards the point the bad box becomes, with no bound
				rays = append(rays, kernel.Ray{Origin: kernel.F3(-10, 5, -10), Dir: kernel.F3(1, 1, 1), TMax: inf, Mask: 0xff})
				s := &raytest.Scene{Procs: [][]bvh.AABB{boxes}, Insts: []raytest.Instance{{Procedural: true, Transform: bvh.Identity, Mask: 0xff, Opaque: true, ID: 9}}}
				o, err := s.Make(d, accel.Options{})
				require.NoError(t, err)
				org, dir, _ := raytest.Pack(rays)
				ib, cb := buffer[uint32](t, d, len(rays)), buffer[uint32](t, d, len(rays))
				ids, cands := make([]uint32, len(rays)), make([]uint32, len(rays))
				require.NoError(t, st.Submit(append(o.Build(), k.Dispatch([3]uint32{uint32(len(rays))}, o.Accel, from(t, d, org), from(t, d, dir), ib, cb), ib.Download(ids), cb.Download(cands))...))
				require.NoError(t, st.Synchronize(context.Background()))
				require.NoError(t, o.Close())
				for i := range n {
					if i == at {
						require.Equal(t, [2]uint32{0, 0}, [2]uint32{ids[i], cands[i]}, "box %v at %d of %d: the bad box's ray (hit, candidates)", bad, at, n)
						continue
					}
					require.Equal(t, [2]uint32{200 + uint32(i), 1}, [2]uint32{ids[i], cands[i]}, "box %v at %d of %d: box %d's ray (hit, candidates)", bad, at, n, i)
				}
				require.Equal(t, [2]uint32{0, 0}, [2]uint32{ids[n], cands[n]}, "box %v at %d of %d: the ray towards MaxFloat32", bad, at, n)
			}
		}
	}
}
