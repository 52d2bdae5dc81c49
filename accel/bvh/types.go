package bvh

import (
	"errors"
	"math"
)

// ErrInvalidArgument is wrapped by every error about bad input: a non-finite
// coordinate, a mismatched count, a singular transform, a nil mesh.
var ErrInvalidArgument = errors.New("bvh: invalid argument")

// Triangle is three vertices; either winding is hit (both sides are front).
type Triangle struct{ A, B, C [3]float32 }

// AABB is an axis-aligned box, Min ≤ Max on every axis.
type AABB struct{ Min, Max [3]float32 }

// Node is one node of a hierarchy, 32 bytes, laid out for upload as-is to a
// GPU buffer (docs/bvh.md):
//
//	offset  0: Min       [3]float32  the node's box
//	offset 12: LeftFirst uint32      interior: index of the first child (the
//	                                 second is LeftFirst+1); leaf: index of the
//	                                 leaf's first entry in the primitive order
//	offset 16: Max       [3]float32
//	offset 28: Count     uint32      0: interior; ≥ 1: a leaf of Count entries
//
// Node 0 is the root; every child comes after its parent in the array.
type Node struct {
	Min       [3]float32
	LeftFirst uint32
	Max       [3]float32
	Count     uint32
}

// Leaf reports whether n is a leaf.
func (n *Node) Leaf() bool { return n.Count != 0 }

// Bounds returns n's box.
func (n *Node) Bounds() AABB { return AABB{n.Min, n.Max} }

// Ray is a ray for Closest, Any and Query: points Origin + t·Dir for t in
// [TMin, TMax], 0 ≤ TMin (a ray with a negative TMin misses everything,
// as Vulkan's ray queries require TMin ≥ 0). Dir need not be normalised; t
// is in units of Dir. A ray misses every instance whose Mask shares no bit
// with the ray's Mask.
type Ray struct {
	Origin [3]float32
	TMin   float32
	Dir    [3]float32
	TMax   float32
	Mask   uint8
}

// Hit kinds, as Hit.Kind and Candidate.Kind report them.
const (
	KindMiss       = 0
	KindTriangle   = 1
	KindProcedural = 2
)

// Hit is the committed intersection of a ray. Instance is the index of the
// instance in the slice given to BuildScene, ID its user id, Prim the
// primitive's index in the mesh's input. For a triangle, Bary is (u, v) with
// the hit point at (1−u−v)·A + u·B + v·C, as in Vulkan. T is the ray parameter.
// Kind is KindMiss, KindTriangle or KindProcedural; a miss has the other
// fields zero.
type Hit struct {
	Instance, Prim uint32
	Bary           [2]float32
	T              float32
	Kind           uint8
	ID             uint32
}

// Candidate is what Query hands its callback: a procedural primitive whose box
// the ray enters before the committed hit, or a triangle of a non-opaque
// instance that the ray hits before it. ObjectRay is the ray in the
// instance's object space (the same t); T and Bary are the triangle's hit
// (for a procedural candidate, T is where the ray enters the box and Bary is
// zero). Committed is the ray's current TMax: the committed hit's T, or the
// ray's TMax while nothing is committed. Box is a procedural candidate's box
// in object space (zero for a triangle).
type Candidate struct {
	Instance, Prim uint32
	ID             uint32
	Kind           uint8
	T              float32
	Bary           [2]float32
	ObjectRay      Ray
	Committed      float32
	Box            AABB
}

// Options steer a build. The zero value is a sound default: a binned SAH
// build (docs/bvh.md §8).
type Options struct {
	// FastBuild trades trace speed for build speed: a linear BVH over
	// Morton codes instead of the surface area heuristic.
	FastBuild bool
	// LeafSize is the most primitives one leaf holds (default 4, at most
	// MaxLeafSize). The SAH build cuts leaves smaller where the heuristic
	// says it pays.
	LeafSize int
	// Bins is the number of SAH bins per axis (default 16, clamped to
	// [4, 64]); FastBuild has none.
	Bins int
}

// MaxLeafSize bounds Options.LeafSize.
const MaxLeafSize = 255

// StackSize is the traversal stack a hierarchy built here never exceeds, on
// each level: no path from the root to a leaf is longer than StackSize nodes.
const StackSize = 64

// finite reports whether no coordinate of v is NaN or infinite (an
// exponent of all ones).
func finite(v [3]float32) bool {
	const exp = 0x7f800000
	return math.Float32bits(v[0])&exp != exp && math.Float32bits(v[1])&exp != exp && math.Float32bits(v[2])&exp != exp
}

// finite reports whether no coordinate of t is NaN or infinite: x - x is 0
// for every finite x and NaN for the rest, and a sum of them is 0 only when
// every term is.
func (t *Triangle) finite() bool {
	s := (t.A[0] - t.A[0]) + (t.A[1] - t.A[1]) + (t.A[2] - t.A[2]) +
		(t.B[0] - t.B[0]) + (t.B[1] - t.B[1]) + (t.B[2] - t.B[2]) +
		(t.C[0] - t.C[0]) + (t.C[1] - t.C[1]) + (t.C[2] - t.C[2])
	return s == 0
}

func emptyBox() AABB {
	const m = math.MaxFloat32
	return AABB{[3]float32{m, m, m}, [3]float32{-m, -m, -m}}
}

func (b *AABB) grow(p [3]float32) {
	for k := 0; k < 3; k++ {
		if p[k] < b.Min[k] {
			b.Min[k] = p[k]
		}
		if p[k] > b.Max[k] {
			b.Max[k] = p[k]
		}
	}
}

func (b *AABB) union(o *AABB) {
	for k := 0; k < 3; k++ {
		if o.Min[k] < b.Min[k] {
			b.Min[k] = o.Min[k]
		}
		if o.Max[k] > b.Max[k] {
			b.Max[k] = o.Max[k]
		}
	}
}

// halfArea is half the surface area, in float64 so huge finite boxes do not
// overflow to Inf.
func (b *AABB) halfArea() float64 {
	dx := float64(b.Max[0]) - float64(b.Min[0])
	dy := float64(b.Max[1]) - float64(b.Min[1])
	dz := float64(b.Max[2]) - float64(b.Min[2])
	if dx < 0 || dy < 0 || dz < 0 {
		return 0
	}
	return dx*dy + dy*dz + dz*dx
}

func (t *Triangle) bounds() AABB {
	var b AABB
	for k := 0; k < 3; k++ {
		lo, hi := t.A[k], t.A[k]
		if t.B[k] < lo {
			lo = t.B[k]
		} else if t.B[k] > hi {
			hi = t.B[k]
		}
		if t.C[k] < lo {
			lo = t.C[k]
		} else if t.C[k] > hi {
			hi = t.C[k]
		}
		b.Min[k], b.Max[k] = lo, hi
	}
	return b
}
