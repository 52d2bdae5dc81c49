package kernels

import "github.com/lucent-gpu/lucent/kernel"

// Helpers that take resources: buffers, textures and bindless arrays are
// passed to ordinary Go functions, which read and write them in place.

// Node is a node of a one-level bounding-interval hierarchy over spheres on
// the x axis: spheres First … First+Count-1 lie within [MinX, MaxX].
type Node struct {
	MinX, MaxX   float32
	First, Count uint32
}

// Sphere is a sphere.
type Sphere struct {
	Center kernel.Float3
	Radius float32
}

// Ray is a ray.
type Ray struct {
	Origin, Dir kernel.Float3
}

// Hit is the closest hit of a ray: the distance along it and the sphere's
// index (T is 1e30 and Index 0xffffffff on a miss).
type Hit struct {
	T     float32
	Index uint32
}

// hitSphere updates best with sphere j of spheres if r hits it closer.
func hitSphere(spheres []Sphere, j uint32, r Ray, best *Hit) {
	s := spheres[j]
	oc := r.Origin.Sub(s.Center)
	b := oc.Dot(r.Dir)
	c := oc.Dot(oc) - s.Radius*s.Radius
	disc := b*b - c
	if disc >= 0 {
		t := -b - kernel.Sqrt(disc)
		if t > 0 && t < best.T {
			best.T, best.Index = t, j
		}
	}
}

// closestHit walks the nodes whose interval the ray's x range meets and
// tests their spheres (through hitSphere, which takes the sphere buffer on).
func closestHit(nodes []Node, spheres []Sphere, r Ray) Hit {
	best := Hit{T: 1e30, Index: 0xffffffff}
	x0, x1 := r.Origin.X, r.Origin.X+r.Dir.X*100
	lo, hi := min(x0, x1), max(x0, x1)
	for n := range uint32(len(nodes)) {
		node := nodes[n]
		if node.MaxX >= lo && node.MinX <= hi {
			for j := node.First; j < node.First+node.Count && j < uint32(len(spheres)); j++ {
				hitSphere(spheres, j, r, &best)
			}
		}
	}
	return best
}

// record stores h for ray i, counting hits in the last element of out.
func record(out []Hit, i uint32, h Hit) {
	out[i] = h
	if h.Index != 0xffffffff {
		kernel.AtomicAdd(&out[len(out)-1].Index, 1)
	}
}

// ClosestHits traces each ray against two sphere sets sharing one node
// buffer: out[i] is the hit in a, out[n+i] the hit in b (n rays); the last
// element of out counts the hits.
//
//lucent:kernel block=64
func ClosestHits(nodes []Node, a, b []Sphere, rays []Ray, out []Hit) {
	i := kernel.DispatchID().X
	n := uint32(len(rays))
	if i >= n {
		return
	}
	r := rays[i]
	record(out, i, closestHit(nodes, a, r))
	record(out, n+i, closestHit(nodes, b, r))
}

// readState reads cell (x, y) of a texture of states, clamped to its edge.
func readState(prev kernel.Texture2D[kernel.Float4], x, y int32) float32 {
	size := prev.Size()
	cx := uint32(max(0, min(x, int32(size.X)-1)))
	cy := uint32(max(0, min(y, int32(size.Y)-1)))
	return prev.Read(cx, cy).X
}

// neighbours sums the eight neighbours of (x, y) through readState.
func neighbours(prev kernel.Texture2D[kernel.Float4], x, y int32) float32 {
	s := float32(0)
	for dy := int32(-1); dy <= 1; dy++ {
		for dx := int32(-1); dx <= 1; dx++ {
			if dx != 0 || dy != 0 {
				s += readState(prev, x+dx, y+dy)
			}
		}
	}
	return s
}

// writeState stores a state.
func writeState(next kernel.Texture2D[kernel.Float4], x, y uint32, v float32) {
	next.Write(x, y, kernel.Float4{X: v, W: 1})
}

// TextureLife is one step of the game of life on textures, the reads and
// the write in helpers.
//
//lucent:kernel block=8,8
func TextureLife(prev, next kernel.Texture2D[kernel.Float4]) {
	id := kernel.DispatchID()
	size := prev.Size()
	if id.X >= size.X || id.Y >= size.Y {
		return
	}
	x, y := int32(id.X), int32(id.Y)
	n := neighbours(prev, x, y)
	alive := readState(prev, x, y)
	v := float32(0)
	if n == 3 || n == 2 && alive == 1 {
		v = 1
	}
	writeState(next, id.X, id.Y, v)
}

// load reads element i of the buffer in slot of arr, zero past its end.
func load(arr kernel.Bindless, slot, i uint32) float32 {
	buf := kernel.BindlessBuffer[float32](arr, slot)
	if i >= uint32(len(buf)) {
		return 0
	}
	return buf[i]
}

// BindlessLoad sums, for each i, element i of the slots 0 … slots-1 of arr
// through the loader helper.
//
//lucent:kernel block=64
func BindlessLoad(arr kernel.Bindless, slots uint32, out []float32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(out)) {
		return
	}
	s := float32(0)
	for slot := range slots {
		s += load(arr, slot, i) * float32(slot+1)
	}
	out[i] = s
}
