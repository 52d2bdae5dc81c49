package accel_test

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/kernel"
)

// A candidate loop run by kernel.Run over accel.Host: a unit sphere in a
// procedural box, moved 4 units along z by its instance, intersected in the
// loop; the committed hit carries the instance's transform.
func ExampleHost_query() {
	box, err := bvh.BuildAABBs([]bvh.AABB{{Min: [3]float32{-1, -1, -1}, Max: [3]float32{1, 1, 1}}}, bvh.Options{})
	if err != nil {
		panic(err)
	}
	moved := bvh.Identity
	moved[11] = 4
	scene, err := bvh.BuildScene([]bvh.Instance{{Mesh: box, Transform: moved, Mask: 1, ID: 7}}, bvh.Options{})
	if err != nil {
		panic(err)
	}
	acc, err := accel.Host(scene)
	if err != nil {
		panic(err)
	}
	var res kernel.QueryResult
	err = kernel.Run(context.Background(), kernel.Grid1(1, 1), func() {
		q := acc.Query(kernel.Ray{Origin: kernel.F3(0, 0.6, 0), Dir: kernel.F3(0, 0, 1), TMax: 100, Mask: 1})
		for q.Next() {
			c := q.Candidate()
			o, d := c.ObjectOrigin, c.ObjectDir // the sphere is at the object-space origin
			b := o.Dot(d) / d.Dot(d)
			l := o.Sub(d.Scale(b))
			if disc := 1 - l.Dot(l); disc >= 0 {
				q.CommitProcedural(-b - kernel.Sqrt(disc)/d.Length())
			}
		}
		res = q.Result()
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("instance %d, kind %d, t=%.1f, translation z %g\n", res.Hit.Instance, res.Hit.Kind, res.Hit.T, res.ObjectToWorld[2].W)
	// Output:
	// instance 7, kind 2, t=3.2, translation z 4
}

// A triangle mesh in device buffers, placed twice in an accel (the second
// copy 2 units further along z, with its own user id), and a DSL kernel
// tracing one ray per thread; the same code runs on any backend that offers
// ray tracing ("cpu" here, so that it runs without a driver; "vulkan" traces
// natively where the device has ray queries, in software elsewhere).
func ExampleNewAccel() {
	ctx := context.Background()
	dev, err := device.Open(ctx, "cpu")
	if err != nil {
		panic(err)
	}
	defer dev.Close()
	stream, err := dev.NewStream(device.StreamCompute)
	if err != nil {
		panic(err)
	}
	verts, err := device.NewBufferFrom(dev, [][3]float32{{-1, -1, 0}, {1, -1, 0}, {0, 1, 0}})
	if err != nil {
		panic(err)
	}
	tris, err := device.NewBufferFrom(dev, [][3]uint32{{0, 1, 2}})
	if err != nil {
		panic(err)
	}
	mesh, err := accel.NewMesh(dev, verts.All(), tris.All(), accel.Options{})
	if err != nil {
		panic(err)
	}
	scene, err := accel.NewAccel(dev, accel.Options{})
	if err != nil {
		panic(err)
	}
	far := accel.Identity
	far[11] = 2 // row-major 3×4: the z translation
	for _, in := range []accel.Instance{{Primitive: mesh, Mask: 1, ID: 10}, {Primitive: mesh, Transform: far, Mask: 2, ID: 20}} {
		if _, err := scene.Add(in); err != nil {
			panic(err)
		}
	}
	// Thread i traces from (0, 0, -1) along +z with mask i+1: ray 0 sees
	// only the near copy, ray 1 only the far one, ray 2 (mask 3) both.
	trace, err := dsl.Kernel1D(64, func(k *dsl.K, s dsl.Accel, ids dsl.Buf[dsl.U32], ts dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		h := s.TraceClosest(dsl.V3(dsl.F(0), dsl.F(0), dsl.F(-1)), dsl.F(0), dsl.V3(dsl.F(0), dsl.F(0), dsl.F(1)), dsl.F(100), i.Add(dsl.U(1)))
		ids.Write(i, h.Instance())
		ts.Write(i, h.T())
	}, "scene", "ids", "ts")
	if err != nil {
		panic(err)
	}
	k, err := device.Compile(dev, trace)
	if err != nil {
		panic(err)
	}
	ids, err := device.NewBuffer[uint32](dev, 3)
	if err != nil {
		panic(err)
	}
	ts, err := device.NewBuffer[float32](dev, 3)
	if err != nil {
		panic(err)
	}
	gotIDs, gotTs := make([]uint32, 3), make([]float32, 3)
	err = stream.Submit(mesh.Build(), scene.Build(), k.Dispatch([3]uint32{3}, scene, ids, ts), ids.Download(gotIDs), ts.Download(gotTs))
	if err == nil {
		err = stream.Synchronize(ctx)
	}
	if err != nil {
		panic(err)
	}
	for i := range 3 {
		fmt.Printf("mask %d: instance %d at t=%g\n", i+1, gotIDs[i], gotTs[i])
	}
	// Output:
	// mask 1: instance 10 at t=1
	// mask 2: instance 20 at t=3
	// mask 3: instance 10 at t=1
}

// A mesh over interleaved vertices: the builds read the positions in place
// (byte offset 12 of each 32-byte vertex) and the 16-bit triangles; the
// kernel's hit gives the barycentrics that interpolate the other
// attributes.
func ExampleNewMeshOf() {
	type Vertex struct {
		Normal, Pos [3]float32
		UV          [2]float32
	}
	ctx := context.Background()
	dev, err := device.Open(ctx, "cpu")
	if err != nil {
		panic(err)
	}
	defer dev.Close()
	stream, err := dev.NewStream(device.StreamCompute)
	if err != nil {
		panic(err)
	}
	vs := []Vertex{
		{Normal: [3]float32{0, 0, -1}, Pos: [3]float32{-1, -1, 0}, UV: [2]float32{0, 0}},
		{Normal: [3]float32{0, 0, -1}, Pos: [3]float32{1, -1, 0}, UV: [2]float32{1, 0}},
		{Normal: [3]float32{0, 0, -1}, Pos: [3]float32{-1, 1, 0}, UV: [2]float32{0, 1}},
	}
	verts, err := device.NewBufferFrom(dev, vs)
	if err != nil {
		panic(err)
	}
	tris, err := device.NewBufferFrom(dev, [][3]uint16{{0, 1, 2}})
	if err != nil {
		panic(err)
	}
	mesh, err := accel.NewMeshOf(dev, verts.All(), unsafe.Offsetof(Vertex{}.Pos), tris.All(), accel.Options{})
	if err != nil {
		panic(err)
	}
	scene, err := accel.NewAccel(dev, accel.Options{})
	if err != nil {
		panic(err)
	}
	if _, err := scene.Add(accel.Instance{Primitive: mesh, Mask: 1, ID: 5}); err != nil {
		panic(err)
	}
	trace, err := dsl.Kernel1D(1, func(k *dsl.K, s dsl.Accel, hits dsl.Buf[dsl.Hit]) {
		hits.Write(dsl.U(0), s.TraceClosest(dsl.V3(dsl.F(-0.5), dsl.F(0), dsl.F(-1)), dsl.F(0), dsl.V3(dsl.F(0), dsl.F(0), dsl.F(1)), dsl.F(100), dsl.U(1)))
	}, "scene", "hits")
	if err != nil {
		panic(err)
	}
	k, err := device.Compile(dev, trace)
	if err != nil {
		panic(err)
	}
	hits, err := device.NewBuffer[kernel.Hit](dev, 1)
	if err != nil {
		panic(err)
	}
	got := make([]kernel.Hit, 1)
	err = stream.Submit(mesh.Build(), scene.Build(), k.Dispatch([3]uint32{1}, scene, hits), hits.Download(got))
	if err == nil {
		err = stream.Synchronize(ctx)
	}
	if err != nil {
		panic(err)
	}
	h := got[0]
	u, v := h.Bary.X, h.Bary.Y
	uv := [2]float32{(1-u-v)*vs[0].UV[0] + u*vs[1].UV[0] + v*vs[2].UV[0], (1-u-v)*vs[0].UV[1] + u*vs[1].UV[1] + v*vs[2].UV[1]}
	fmt.Printf("instance %d, triangle %d, t=%g, uv %g\n", h.Instance, h.Prim, h.T, uv)
	// Output:
	// instance 5, triangle 0, t=1, uv [0.25 0.5]
}
