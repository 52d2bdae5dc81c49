package bvh_test

import (
	"fmt"
	"math"

	"github.com/lucent-gpu/lucent/accel/bvh"
)

// A quad of two triangles, instanced twice: once where it was modelled,
// once moved 5 units along z. The ray meets the nearer copy.
func ExampleScene_Closest() {
	quad, err := bvh.BuildTriangles([]bvh.Triangle{
		{A: [3]float32{-1, -1, 0}, B: [3]float32{1, -1, 0}, C: [3]float32{1, 1, 0}},
		{A: [3]float32{-1, -1, 0}, B: [3]float32{1, 1, 0}, C: [3]float32{-1, 1, 0}},
	}, bvh.Options{})
	if err != nil {
		panic(err)
	}
	moved := bvh.Identity
	moved[11] = 5 // translation z
	scene, err := bvh.BuildScene([]bvh.Instance{
		{Mesh: quad, Transform: moved, Mask: 0xff, Opaque: true, ID: 20},
		{Mesh: quad, Transform: bvh.Identity, Mask: 0xff, Opaque: true, ID: 10},
	}, bvh.Options{})
	if err != nil {
		panic(err)
	}
	h := scene.Closest(bvh.Ray{Origin: [3]float32{0.5, -0.5, 10}, Dir: [3]float32{0, 0, -1}, TMax: 100, Mask: 1})
	fmt.Printf("instance %d (id %d), triangle %d at t=%g, barycentrics %.2f\n", h.Instance, h.ID, h.Prim, h.T, h.Bary)
	fmt.Println("shadowed:", scene.Any(bvh.Ray{Origin: [3]float32{0, 0, 1}, Dir: [3]float32{0, 0, 1}, TMax: 100, Mask: 1}))
	// Output:
	// instance 0 (id 20), triangle 0 at t=5, barycentrics [0.50 0.25]
	// shadowed: true
}

// A procedural sphere: the mesh holds its box, and Query's callback
// intersects the sphere itself and commits the distance.
func ExampleScene_Query() {
	spheres := [][4]float32{{0, 0, 0, 1}}
	mesh, err := bvh.BuildAABBs([]bvh.AABB{{Min: [3]float32{-1, -1, -1}, Max: [3]float32{1, 1, 1}}}, bvh.Options{})
	if err != nil {
		panic(err)
	}
	scene, err := bvh.BuildScene([]bvh.Instance{{Mesh: mesh, Transform: bvh.Identity, Mask: 1}}, bvh.Options{})
	if err != nil {
		panic(err)
	}
	h := scene.Query(bvh.Ray{Origin: [3]float32{0, 0, -3}, Dir: [3]float32{0, 0, 1}, TMax: 10, Mask: 1},
		func(c bvh.Candidate) (float32, bool, bool) {
			s, r := spheres[c.Prim], c.ObjectRay
			var b, cc, a float64
			for k := 0; k < 3; k++ {
				oc := float64(r.Origin[k] - s[k])
				a += float64(r.Dir[k]) * float64(r.Dir[k])
				b += oc * float64(r.Dir[k])
				cc += oc * oc
			}
			disc := b*b - a*(cc-float64(s[3]*s[3]))
			if disc < 0 {
				return 0, false, false
			}
			return float32((-b - math.Sqrt(disc)) / a), true, false
		})
	fmt.Println(h.Kind == bvh.KindProcedural, h.T)
	// Output: true 2
}

func ExampleMesh_Refit() {
	tris := []bvh.Triangle{{A: [3]float32{0, 0, 0}, B: [3]float32{1, 0, 0}, C: [3]float32{0, 1, 0}}}
	mesh, _ := bvh.BuildTriangles(tris, bvh.Options{})
	tris[0].C = [3]float32{0, 3, 0} // the vertex moves; the topology stays
	if err := mesh.Refit(tris); err != nil {
		panic(err)
	}
	fmt.Println(mesh.Bounds())
	// Output: {[0 0 0] [1 3 0]}
}

func ExampleIntersectTriangle() {
	t, u, v, ok := bvh.IntersectTriangle(
		bvh.Ray{Origin: [3]float32{0.25, 0.25, -1}, Dir: [3]float32{0, 0, 1}, TMax: 10},
		bvh.Triangle{A: [3]float32{0, 0, 0}, B: [3]float32{1, 0, 0}, C: [3]float32{0, 1, 0}})
	fmt.Println(t, u, v, ok)
	// Output: 1 0.25 0.25 true
}

// Moving one instance refits the top level; nothing is rebuilt.
func ExampleScene_Update() {
	tri, _ := bvh.BuildTriangles([]bvh.Triangle{{A: [3]float32{-1, -1, 0}, B: [3]float32{1, -1, 0}, C: [3]float32{0, 1, 0}}}, bvh.Options{})
	inst := bvh.Instance{Mesh: tri, Transform: bvh.Identity, Mask: 1, Opaque: true}
	scene, _ := bvh.BuildScene([]bvh.Instance{inst}, bvh.Options{})
	ray := bvh.Ray{Origin: [3]float32{0, 0, -5}, Dir: [3]float32{0, 0, 1}, TMax: 100, Mask: 1}
	fmt.Println(scene.Closest(ray).T)
	inst.Transform[11] = 2 // 2 units further along z
	if err := scene.Update(0, inst); err != nil {
		panic(err)
	}
	fmt.Println(scene.Closest(ray).T)
	// Output:
	// 5
	// 7
}
