package accel_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/raytest"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/rayquery"
)

// Candidate loops on a device: rayquery.Spheres (Go subset; SpheresJumps,
// the same with continue and break) and raytest.DSLSpheres intersect the spheres inscribed in the procedural
// boxes in the loop and reject a non-opaque instance's odd triangles; every
// ray's committed hit, its instance's transforms and the object-space ray
// agree with the brute-force reference, and so do the CPU runner's; with
// termination at the first candidate no ray sees a second.
func checkCandidateLoops(t *testing.T, d *device.Device, what string) {
	testenv.NeedGoCommand(t)
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/rayquery")
	require.Empty(t, errs)
	fns := map[string]*ir.Function{}
	var occluded, firstSeen *ir.Function
	for _, k := range ks {
		switch k.Name {
		case "Spheres":
			fns["Go subset"] = k.Func
		case "SpheresJumps":
			fns["Go subset, continue and break"] = k.Func
		case "Occluded":
			occluded = k.Func
		case "FirstSeen":
			firstSeen = k.Func
		}
	}
	require.Len(t, fns, 2)
	require.NotNil(t, occluded)
	require.NotNil(t, firstSeen)
	var err error
	fns["DSL"], err = raytest.DSLSpheres()
	require.NoError(t, err)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	closeAll(t, s)
	run := func(cmds ...device.Command) {
		t.Helper()
		require.NoError(t, s.Submit(cmds...))
		require.NoError(t, s.Synchronize(context.Background()))
	}
	ran := false
	for seed := range uint64(2) {
		sc := raytest.Random(seed + 70)
		o, err := sc.Make(d, accel.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, o.Close()) })
		run(o.Build()...)
		rays := raytest.Rays(seed+71, 700)
		n := len(rays)
		bs, err := sc.BVH()
		require.NoError(t, err)
		host, err := accel.Host(bs)
		require.NoError(t, err)
		for name, f := range fns {
			k, err := device.Compile(d, f, device.WithKernelName(name))
			require.NoError(t, err, name)
			closeAll(t, k)
			for _, first := range []uint32{0, 1} {
				w := fmt.Sprintf("%s, %s, seed %d, first %d", what, name, seed, first)
				ob, sb, lb := buffer[kernel.QueryResult](t, d, n), buffer[uint32](t, d, n), buffer[kernel.Candidate](t, d, n)
				if name == "DSL" {
					org, dir, masks := raytest.Pack(rays)
					run(k.Dispatch([3]uint32{uint32(n)}, o.Accel, from(t, d, org), from(t, d, dir), from(t, d, masks), ob, sb, lb, first))
				} else {
					run(k.Dispatch([3]uint32{uint32(n)}, o.Accel, from(t, d, rays), ob, sb, lb, first))
				}
				res, seen, last := make([]kernel.QueryResult, n), make([]uint32, n), make([]kernel.Candidate, n)
				run(ob.Download(res), sb.Download(seen), lb.Download(last))
				sc.CheckQuery(t, w, rays, res, seen, first != 0, raytest.InverseOf(d))
				sc.CheckCandidates(t, w, rays, last, seen, raytest.InverseOf(d))
				if !ran && name != "DSL" {
					spheres := rayquery.Spheres
					if name != "Go subset" {
						spheres = rayquery.SpheresJumps
					}
					want, wantSeen, wantLast := make([]kernel.QueryResult, n), make([]uint32, n), make([]kernel.Candidate, n)
					require.NoError(t, kernel.Run(context.Background(), kernel.Grid1(64, uint32(n)), func() { spheres(host, rays, want, wantSeen, wantLast, first) }))
					sc.CheckQuery(t, w+", kernel.Run", rays, want, wantSeen, first != 0, raytest.HostInverse)
					sc.CheckCandidates(t, w+", kernel.Run", rays, wantLast, wantSeen, raytest.HostInverse)
				}
			}
		}
		// Occluded returns from its candidate loop at the first accepted
		// candidate: a ray is occluded where Spheres commits a hit.
		k, err := device.Compile(d, occluded, device.WithKernelName("Occluded"))
		require.NoError(t, err)
		closeAll(t, k)
		res, seen, last := make([]kernel.QueryResult, n), make([]uint32, n), make([]kernel.Candidate, n)
		require.NoError(t, kernel.Run(context.Background(), kernel.Grid1(64, uint32(n)), func() { rayquery.Spheres(host, rays, res, seen, last, 0) }))
		sc.CheckQuery(t, what+", Spheres for Occluded", rays, res, seen, false, raytest.HostInverse)
		want, host2 := make([]uint32, n), make([]uint32, n)
		hits := 0
		for i, r := range res {
			if r.Hit.Kind != kernel.HitMiss {
				want[i] = 1
				hits++
			}
		}
		require.NoError(t, kernel.Run(context.Background(), kernel.Grid1(64, uint32(n)), func() { rayquery.Occluded(host, rays, host2) }))
		require.Equal(t, want, host2, "%s, seed %d: Occluded under kernel.Run", what, seed)
		ob := buffer[uint32](t, d, n)
		run(k.Dispatch([3]uint32{uint32(n)}, o.Accel, from(t, d, rays), ob))
		got := make([]uint32, n)
		run(ob.Download(got))
		require.Equal(t, want, got, "%s, seed %d: Occluded", what, seed)
		require.Greater(t, hits, n/10, "rays that hit")
		require.Less(t, hits, n*9/10, "rays that miss")

		// FirstSeen leaves the loop over rays with break and continue from
		// its candidate loops: the first ray of three, the second skipped,
		// that the device's own traversal (Spheres' seen) gives a candidate.
		spheres, err := device.Compile(d, fns["Go subset"])
		require.NoError(t, err)
		closeAll(t, spheres)
		rb, sb, lb := buffer[kernel.QueryResult](t, d, n), buffer[uint32](t, d, n), buffer[kernel.Candidate](t, d, n)
		run(spheres.Dispatch([3]uint32{uint32(n)}, o.Accel, from(t, d, rays), rb, sb, lb, uint32(0)))
		devSeen := make([]uint32, n)
		run(sb.Download(devSeen))
		// Each jump ends its traversal: one body run for each ray tried
		// that has candidates.
		first := func(seen []uint32) (w, runs []uint32) {
			w, runs = make([]uint32, n), make([]uint32, n)
			for i := range w {
				w[i] = 3
				for j := range 3 {
					if seen[(i+j)%n] == 0 {
						continue
					}
					runs[i]++
					if j != 1 {
						w[i] = uint32(j)
						break
					}
				}
			}
			return w, runs
		}
		fk, err := device.Compile(d, firstSeen, device.WithKernelName("FirstSeen"))
		require.NoError(t, err)
		closeAll(t, fk)
		fb, rub := buffer[uint32](t, d, n), buffer[uint32](t, d, n)
		run(fk.Dispatch([3]uint32{uint32(n)}, o.Accel, from(t, d, rays), fb, rub))
		got, runs := make([]uint32, n), make([]uint32, n)
		run(fb.Download(got), rub.Download(runs))
		wantFirst, wantRuns := first(devSeen)
		require.Equal(t, wantFirst, got, "%s, seed %d: FirstSeen", what, seed)
		require.Equal(t, wantRuns, runs, "%s, seed %d: FirstSeen's candidate loop bodies", what, seed)
		hostRuns := make([]uint32, n)
		require.NoError(t, kernel.Run(context.Background(), kernel.Grid1(64, uint32(n)), func() { rayquery.FirstSeen(host, rays, host2, hostRuns) }))
		wantFirst, wantRuns = first(seen)
		require.Equal(t, wantFirst, host2, "%s, seed %d: FirstSeen under kernel.Run", what, seed)
		require.Equal(t, wantRuns, hostRuns, "%s, seed %d: FirstSeen's bodies under kernel.Run", what, seed)
		require.Contains(t, got, uint32(2), "a ray whose first does not meet a candidate")
		ran = true
	}
}

func TestCPUCandidateLoops(t *testing.T) {
	for _, validated := range []bool{true, false} {
		checkCandidateLoops(t, openCPU(t, validated), fmt.Sprintf("cpu (validated %v)", validated))
	}
}

// On Vulkan: native on Mesa 25's lavapipe, software on 22.3 and with
// LUCENT_ACCEL=software; the validation layer stays silent.
func TestVulkanCandidateLoops(t *testing.T) {
	d := nativeDevice(t)
	checkCandidateLoops(t, d, "vulkan, "+d.Capabilities().RayTracing.String())
}
