package accel

import (
	"fmt"
	"unsafe"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/kernel"
)

// Host returns the kernel.Accel that traces scene on the CPU, for kernels
// run by kernel.Run: the same queries, with the same results, as an accel
// of those instances traced on a device (bvh.Scene.Trace). A nil scene is
// an error.
func Host(scene *bvh.Scene) (kernel.Accel, error) {
	if scene == nil {
		return kernel.Accel{}, fmt.Errorf("accel: Host: %w: nil scene", device.ErrInvalidArgument)
	}
	return kernel.NewAccel(hostScene{scene}), nil
}

// HostTriangles returns the triangles of a mesh as NewMeshOf reads them
// (the position three float32 at byte offset pos of V, the same checks),
// from host memory: the input of bvh.BuildTriangles, for a scene Host traces
// with the hits a device gives the same vertices and triangles. An index
// past the vertices is an error naming the triangle.
func HostTriangles[V any, T Index](vertices []V, pos uintptr, triangles []T) ([]bvh.Triangle, error) {
	if _, err := positionOf[V](pos); err != nil {
		return nil, fmt.Errorf("accel: HostTriangles: %w", err)
	}
	at := func(v *V) [3]float32 { return *(*[3]float32)(unsafe.Add(unsafe.Pointer(v), pos)) }
	out := make([]bvh.Triangle, len(triangles))
	for i, tri := range triangles {
		var abc [3]uint32
		for j := range 3 {
			abc[j] = indexOf(tri, j)
			if v := abc[j]; uint64(v) >= uint64(len(vertices)) {
				return nil, fmt.Errorf("accel: HostTriangles: %w: triangle %d: index %d past its %d vertices", device.ErrInvalidArgument, i, v, len(vertices))
			}
		}
		out[i] = bvh.Triangle{A: at(&vertices[abc[0]]), B: at(&vertices[abc[1]]), C: at(&vertices[abc[2]])}
	}
	return out, nil
}

// indexOf is index j of triangle t.
func indexOf[T Index](t T, j int) uint32 {
	switch t := any(t).(type) {
	case [3]uint16:
		return uint32(t[j])
	case [3]uint32:
		return t[j]
	}
	panic("unreachable")
}

type hostScene struct{ s *bvh.Scene }

// hostRay is r as accel/bvh traces it (the mask's low 8 bits: instance
// masks have 8).
func hostRay(r kernel.Ray) bvh.Ray {
	return bvh.Ray{
		Origin: [3]float32{r.Origin.X, r.Origin.Y, r.Origin.Z}, TMin: r.TMin,
		Dir: [3]float32{r.Dir.X, r.Dir.Y, r.Dir.Z}, TMax: r.TMax, Mask: uint8(r.Mask),
	}
}

// kernelHit is h as a kernel reads it: Instance is the instance's user id.
func kernelHit(h bvh.Hit) kernel.Hit {
	if h.Kind == bvh.KindMiss {
		return kernel.Hit{}
	}
	return kernel.Hit{Instance: h.ID, Prim: h.Prim, Bary: kernel.Float2{X: h.Bary[0], Y: h.Bary[1]}, T: h.T, Kind: uint32(h.Kind)}
}

func (h hostScene) TraceClosest(r kernel.Ray) kernel.Hit {
	return kernelHit(h.s.Trace(hostRay(r), false))
}

func (h hostScene) TraceAny(r kernel.Ray) bool {
	return h.s.Trace(hostRay(r), true).Kind != bvh.KindMiss
}

func transform(m [12]float32) kernel.Transform {
	var t kernel.Transform
	for r := range t {
		t[r] = kernel.Float4{X: m[4*r], Y: m[4*r+1], Z: m[4*r+2], W: m[4*r+3]}
	}
	return t
}

func float3(v [3]float32) kernel.Float3 { return kernel.Float3{X: v[0], Y: v[1], Z: v[2]} }

func (h hostScene) Query(r kernel.Ray, visit func(c kernel.Candidate) (float32, bool, bool)) kernel.QueryResult {
	s := h.s
	hit := s.Query(hostRay(r), func(c bvh.Candidate) (float32, bool, bool) {
		return visit(kernel.Candidate{
			Instance: c.ID, Index: c.Instance, Prim: c.Prim, Kind: uint32(c.Kind),
			Bary: kernel.Float2{X: c.Bary[0], Y: c.Bary[1]}, T: c.T,
			ObjectOrigin: float3(c.ObjectRay.Origin), ObjectDir: float3(c.ObjectRay.Dir),
			BoxMin: float3(c.Box.Min), BoxMax: float3(c.Box.Max),
			ObjectToWorld: transform(s.Instances[c.Instance].Transform), WorldToObject: transform(s.Inverse[c.Instance]),
		})
	})
	if hit.Kind == bvh.KindMiss {
		return kernel.QueryResult{}
	}
	or := s.ObjectRay(hit.Instance, hostRay(r))
	return kernel.QueryResult{
		Hit: kernelHit(hit), Index: hit.Instance,
		ObjectOrigin: float3(or.Origin), ObjectDir: float3(or.Dir),
		ObjectToWorld: transform(s.Instances[hit.Instance].Transform), WorldToObject: transform(s.Inverse[hit.Instance]),
	}
}
