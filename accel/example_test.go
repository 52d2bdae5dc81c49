package accel_test

import (
	"context"
	"fmt"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/accel/bvh"
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
