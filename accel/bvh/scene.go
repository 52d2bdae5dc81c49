package bvh

import (
	"fmt"
	"math"
)

// Instance places a mesh in a scene. Transform is the object→world 3×4
// matrix, row-major (world = Transform · [object, 1]). A ray skips the
// instance when Mask & Ray.Mask == 0. The triangles of an instance that is
// not Opaque are handed to Query's callback as candidates instead of being
// committed. ID is the user's id, reported in Hit.ID.
type Instance struct {
	Mesh      *Mesh
	Transform [12]float32
	Mask      uint8
	Opaque    bool
	ID        uint32
}

// Identity is the identity transform.
var Identity = [12]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}

// Scene is a top-level hierarchy over instances. Its leaves' entries are
// Order[LeftFirst : LeftFirst+Count], each an index into Instances. Inverse[i]
// is instance i's world→object transform, computed once when the instance is
// set; a ray is moved into object space with it and keeps its t there.
//
// Closest, Any and Query only read the scene and its meshes: any number may
// run at once, but not alongside Update or a Refit of one of its meshes.
type Scene struct {
	Nodes     []Node
	Order     []uint32
	Instances []Instance
	Inverse   [][12]float32
	World     []AABB // instance i's box in world space
}

func checkInstance(i int, inst *Instance) (inv [12]float32, world AABB, err error) {
	if inst.Mesh == nil {
		return inv, world, fmt.Errorf("bvh: instance %d: nil mesh: %w", i, ErrInvalidArgument)
	}
	for j, x := range inst.Transform {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return inv, world, fmt.Errorf("bvh: instance %d: transform element %d (row %d, column %d) is %v: %w", i, j, j/4, j%4, x, ErrInvalidArgument)
		}
	}
	inv, ok := Invert(&inst.Transform)
	if !ok {
		return inv, world, fmt.Errorf("bvh: instance %d: transform %v is singular: %w", i, inst.Transform, ErrInvalidArgument)
	}
	return inv, worldBox(inst), nil
}

// Invert returns the inverse of the affine 3×4 matrix m, computed in
// float64 and rounded to float32 (false: m is singular, or the inverse
// overflows float32). It is the one world→object inverse of every path that
// does not ask a driver: Scene.Inverse, the software accel's instance
// records, device/cpu and kernel.Run (accel.Host) all hold its bits.
func Invert(m *[12]float32) ([12]float32, bool) {
	var a [3][3]float64
	var t [3]float64
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			a[r][c] = float64(m[4*r+c])
		}
		t[r] = float64(m[4*r+3])
	}
	c00 := a[1][1]*a[2][2] - a[1][2]*a[2][1]
	c01 := a[1][2]*a[2][0] - a[1][0]*a[2][2]
	c02 := a[1][0]*a[2][1] - a[1][1]*a[2][0]
	det := a[0][0]*c00 + a[0][1]*c01 + a[0][2]*c02
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return [12]float32{}, false
	}
	id := 1 / det
	var b [3][3]float64
	b[0][0] = c00 * id
	b[0][1] = (a[0][2]*a[2][1] - a[0][1]*a[2][2]) * id
	b[0][2] = (a[0][1]*a[1][2] - a[0][2]*a[1][1]) * id
	b[1][0] = c01 * id
	b[1][1] = (a[0][0]*a[2][2] - a[0][2]*a[2][0]) * id
	b[1][2] = (a[0][2]*a[1][0] - a[0][0]*a[1][2]) * id
	b[2][0] = c02 * id
	b[2][1] = (a[0][1]*a[2][0] - a[0][0]*a[2][1]) * id
	b[2][2] = (a[0][0]*a[1][1] - a[0][1]*a[1][0]) * id
	var out [12]float32
	for r := 0; r < 3; r++ {
		tr := -(b[r][0]*t[0] + b[r][1]*t[1] + b[r][2]*t[2])
		for c := 0; c < 3; c++ {
			out[4*r+c] = float32(b[r][c])
		}
		out[4*r+3] = float32(tr)
		if !finite([3]float32{float32(b[r][0]), float32(b[r][1]), float32(b[r][2])}) || math.IsInf(float64(float32(tr)), 0) {
			return out, false
		}
	}
	return out, true
}

// worldBox bounds the instance's mesh in world space: the eight corners of
// the root box through the transform, in float64, widened by a relative
// 2⁻²⁰ so that rounding in the ray's move to object space cannot cull a hit.
func worldBox(inst *Instance) AABB {
	m := &inst.Transform
	ob := inst.Mesh.Bounds()
	if len(inst.Mesh.Nodes) == 0 {
		p := [3]float32{m[3], m[7], m[11]}
		return AABB{p, p}
	}
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for c := 0; c < 8; c++ {
		p := [3]float64{float64(ob.Min[0]), float64(ob.Min[1]), float64(ob.Min[2])}
		if c&1 != 0 {
			p[0] = float64(ob.Max[0])
		}
		if c&2 != 0 {
			p[1] = float64(ob.Max[1])
		}
		if c&4 != 0 {
			p[2] = float64(ob.Max[2])
		}
		for r := 0; r < 3; r++ {
			w := float64(m[4*r])*p[0] + float64(m[4*r+1])*p[1] + float64(m[4*r+2])*p[2] + float64(m[4*r+3])
			lo[r] = min(lo[r], w)
			hi[r] = max(hi[r], w)
		}
	}
	var b AABB
	for r := 0; r < 3; r++ {
		pad := (hi[r]-lo[r])*0x1p-20 + (math.Abs(lo[r])+math.Abs(hi[r]))*0x1p-20 + 1e-30
		b.Min[r] = clampF32(lo[r] - pad)
		b.Max[r] = clampF32(hi[r] + pad)
	}
	return b
}

func clampF32(x float64) float32 {
	return float32(max(-math.MaxFloat32, min(math.MaxFloat32, x)))
}

// BuildScene builds the top-level hierarchy over inst. An instance with a nil
// mesh or a non-finite or singular transform is an error naming it; no
// instances give an empty scene, which every ray misses.
func BuildScene(inst []Instance, opt Options) (*Scene, error) {
	if err := checkCount(len(inst)); err != nil {
		return nil, err
	}
	s := &Scene{
		Instances: append([]Instance(nil), inst...),
		Inverse:   make([][12]float32, len(inst)),
		World:     make([]AABB, len(inst)),
	}
	refs := make([]ref, len(inst))
	for i := range inst {
		inv, wb, err := checkInstance(i, &inst[i])
		if err != nil {
			return nil, err
		}
		s.Inverse[i], s.World[i] = inv, wb
		refs[i] = ref{min: wb.Min, max: wb.Max, id: uint32(i)}
	}
	s.Nodes, refs = newBuilder(refs, opt).build()
	s.Order = make([]uint32, len(refs))
	for i := range refs {
		s.Order[i] = refs[i].id
	}
	return s, nil
}

// Update replaces instance i (its mesh, transform, mask, flags or id) and
// refits the top level, keeping its topology. A mesh that was refitted or
// rebuilt is taken into account the same way: Update(i, s.Instances[i]).
func (s *Scene) Update(i int, inst Instance) error {
	if i < 0 || i >= len(s.Instances) {
		return fmt.Errorf("bvh: Update of instance %d, the scene has %d: %w", i, len(s.Instances), ErrInvalidArgument)
	}
	inv, wb, err := checkInstance(i, &inst)
	if err != nil {
		return err
	}
	s.Instances[i], s.Inverse[i], s.World[i] = inst, inv, wb
	refitNodes(s.Nodes, func(j int) AABB { return s.World[s.Order[j]] })
	return nil
}

// ToObject moves r into object space by the world→object matrix inv (an
// Invert result), in float32 without fused operations: the object-space
// ray of every host-inverse path, bit for bit (the software accel's shader
// computes it the same way, NoContraction). The direction is not
// renormalised, so t is the same in both spaces.
func ToObject(inv *[12]float32, r Ray) Ray { return objectRay(inv, &r) }

// objectRay is ToObject on a pointer.
func objectRay(inv *[12]float32, r *Ray) Ray {
	o := r
	out := *r
	for k := 0; k < 3; k++ {
		out.Origin[k] = float32(inv[4*k]*o.Origin[0]) + float32(inv[4*k+1]*o.Origin[1]) + float32(inv[4*k+2]*o.Origin[2]) + inv[4*k+3]
		out.Dir[k] = float32(inv[4*k]*o.Dir[0]) + float32(inv[4*k+1]*o.Dir[1]) + float32(inv[4*k+2]*o.Dir[2])
	}
	return out
}
