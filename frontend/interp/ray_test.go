package interp_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/raytest"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/rayquery"
)

// The interpreter traces the ray-query kernels (Go subset and DSL) with
// accel/bvh and agrees with the brute-force reference.
func TestInterpRayQueries(t *testing.T) {
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/rayquery")
	require.Empty(t, errs)
	byName := map[string]*ir.Function{}
	for _, k := range ks {
		byName[k.Name] = k.Func
	}
	closest, err := raytest.DSLClosest()
	require.NoError(t, err)
	fields, err := raytest.DSLFields()
	require.NoError(t, err)
	rayT := byName["Closest"].Params[1].Type.Elem()

	s := raytest.Random(11)
	sc, err := s.BVH()
	require.NoError(t, err)
	rays := raytest.Rays(12, 600)
	n := uint32(len(rays))
	size := [3]uint32{n, 1, 1}

	hb := interp.NewBuffer(ir.RayHit, len(rays))
	ab := interp.NewBuffer(ir.TU32, len(rays))
	rb := buf(rayT, rays)
	require.NoError(t, interp.Run(byName["Closest"], size, sc, rb, hb))
	require.NoError(t, interp.Run(byName["Shadow"], size, sc, rb, ab))
	s.Check(t, "interp, Go subset", rays, sliceOf[kernel.Hit](hb.Data), sliceOf[uint32](ab.Data))
	// The CPU runner over accel.Host traces with the same bvh.Scene.Trace:
	// the same bits.
	acc, err := accel.Host(sc)
	require.NoError(t, err)
	want := make([]kernel.Hit, n)
	require.NoError(t, kernel.Run(context.Background(), kernel.Grid1(64, n), func() { rayquery.Closest(acc, rays, want) }))
	require.Equal(t, want, sliceOf[kernel.Hit](hb.Data))

	ib, tb := interp.NewBuffer(ir.TU32, 3*len(rays)), interp.NewBuffer(ir.TF32, 3*len(rays))
	require.NoError(t, interp.Run(byName["Fields"], size, sc, rb, ib, tb))
	hits, err := raytest.FromFields(rays, sliceOf[uint32](ib.Data), sliceOf[float32](tb.Data), true)
	require.NoError(t, err)
	s.Check(t, "interp, Go subset, fields", rays, hits, nil)

	org, dir, masks := raytest.Pack(rays)
	v4 := ir.Vector(ir.TF32, 4)
	ob, db, mb := buf(v4, org), buf(v4, dir), buf(ir.TU32, masks)
	hb, ab = interp.NewBuffer(ir.RayHit, len(rays)), interp.NewBuffer(ir.TU32, len(rays))
	require.NoError(t, interp.Run(closest, size, sc, ob, db, mb, hb, ab))
	s.Check(t, "interp, DSL", rays, sliceOf[kernel.Hit](hb.Data), sliceOf[uint32](ab.Data))
	ib, tb = interp.NewBuffer(ir.TU32, 3*len(rays)), interp.NewBuffer(ir.TF32, 3*len(rays))
	require.NoError(t, interp.Run(fields, size, sc, ob, db, mb, ib, tb))
	hits, err = raytest.FromFields(rays, sliceOf[uint32](ib.Data), sliceOf[float32](tb.Data), false)
	require.NoError(t, err)
	s.Check(t, "interp, DSL, fields", rays, hits, nil)

	err = interp.Run(closest, size, nil, ob, db, mb, hb, ab)
	require.ErrorContains(t, err, "argument 0 (scene) wants an accel")
}

// The interpreter runs the candidate loop of rayquery.Spheres (procedural
// spheres intersected in the loop, a non-opaque instance's odd triangles
// rejected) as bvh's Query callback: every ray's committed result agrees
// with the reference and with the CPU runner's; terminated at
// its first candidate, no ray sees a second one.
func TestInterpCandidateLoops(t *testing.T) {
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/rayquery")
	require.Empty(t, errs)
	var spheres *ir.Function
	for _, k := range ks {
		if k.Name == "Spheres" {
			spheres = k.Func
		}
	}
	require.NotNil(t, spheres)
	rayT := spheres.Params[1].Type.Elem()
	for seed := range uint64(2) {
		s := raytest.Random(seed + 60)
		sc, err := s.BVH()
		require.NoError(t, err)
		acc, err := accel.Host(sc)
		require.NoError(t, err)
		rays := raytest.Rays(seed+61, 600)
		n := uint32(len(rays))
		for _, first := range []uint32{0, 1} {
			what := fmt.Sprintf("seed %d, first %d", seed, first)
			ob, sb, lb := interp.NewBuffer(ir.RayCommitted, len(rays)), interp.NewBuffer(ir.TU32, len(rays)), interp.NewBuffer(ir.RayCandidate, len(rays))
			require.NoError(t, interp.Run(spheres, [3]uint32{n, 1, 1}, sc, buf(rayT, rays), ob, sb, lb, first))
			res, seen := sliceOf[kernel.QueryResult](ob.Data), sliceOf[uint32](sb.Data)
			s.CheckQuery(t, "interp, "+what, rays, res, seen, first != 0, raytest.HostInverse)
			s.CheckCandidates(t, "interp, "+what, rays, sliceOf[kernel.Candidate](lb.Data), seen, raytest.HostInverse)

			want, wantSeen, wantLast := make([]kernel.QueryResult, n), make([]uint32, n), make([]kernel.Candidate, n)
			require.NoError(t, kernel.Run(context.Background(), kernel.Grid1(64, n), func() { rayquery.Spheres(acc, rays, want, wantSeen, wantLast, first) }))
			s.CheckQuery(t, "kernel.Run, "+what, rays, want, wantSeen, first != 0, raytest.HostInverse)
			s.CheckCandidates(t, "kernel.Run, "+what, rays, wantLast, wantSeen, raytest.HostInverse)
			// The same traversal: the same candidates and hits (the sphere's
			// t may round apart: Go may fuse a*b+c).
			require.Equal(t, wantSeen, seen, what)
			for i := range res {
				require.Equal(t, [3]uint32{want[i].Hit.Kind, want[i].Hit.Instance, want[i].Hit.Prim}, [3]uint32{res[i].Hit.Kind, res[i].Hit.Instance, res[i].Hit.Prim}, "%s: ray %d", what, i)
			}
		}
	}
}
