package accel_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/internal/raytest"
	"github.com/lucent-gpu/lucent/kernel"
)

// commitRays enter a box at t = 4, with TMin 3.5, 0 and 4.6.
var commitRays = []kernel.Ray{
	{Origin: kernel.F3(0, 0, -5), TMin: 3.5, Dir: kernel.F3(0, 0, 1), TMax: 100, Mask: 0xff},
	{Origin: kernel.F3(0, 0, -5), TMin: 0, Dir: kernel.F3(0, 0, 1), TMax: 100, Mask: 0xff},
	{Origin: kernel.F3(0, 0, -5), TMin: 4.6, Dir: kernel.F3(0, 0, 1), TMax: 100, Mask: 0xff},
}

// commitWant: the nearest commit at or above TMin, of entry−1, entry+0.5
// and entry+0.25 (a ray starting inside the box enters it at TMin).
var commitWant = []float32{4.25, 3, 4.85}

// TestCommitProceduralBelowTMin commits a box candidate three times, the
// first time below the ray's TMin: that call does nothing, and the nearest
// of the others is committed, on every path (before, the CPU paths and the
// software traversal kept the nearest call, dropped it for TMin after the
// body and committed nothing).
func TestCommitProceduralBelowTMin(t *testing.T) {
	s := &raytest.Scene{
		Procs: [][]bvh.AABB{{{Min: [3]float32{-1, -1, -1}, Max: [3]float32{1, 1, 1}}}},
		Insts: []raytest.Instance{{Procedural: true, Transform: bvh.Identity, Mask: 0xff, Opaque: true, ID: 3}},
	}
	check := func(what string, got []float32) {
		t.Helper()
		require.Equal(t, commitWant, got, "%s: the committed t of each ray", what)
	}
	bs, err := s.BVH()
	require.NoError(t, err)
	host, err := accel.Host(bs)
	require.NoError(t, err)
	got := make([]float32, len(commitRays))
	require.NoError(t, kernel.Run(context.Background(), kernel.Grid1(1, uint32(len(commitRays))), func() {
		i := kernel.DispatchID().X
		q := host.Query(commitRays[i])
		for q.Next() {
			c := q.Candidate()
			q.CommitProcedural(c.T - 1)
			q.CommitProcedural(c.T + 0.5)
			q.CommitProcedural(c.T + 0.25)
		}
		got[i] = q.Committed().T
	}))
	check("kernel.Run", got)

	f, err := dsl.Kernel1D(64, func(k *dsl.K, scene dsl.Accel, org, dir dsl.Buf[dsl.F32x4], ts dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		k.If(i.Lt(org.Len()), func() {
			o, d := org.Read(i), dir.Read(i)
			res := scene.Query(o.XYZ(), o.W(), d.XYZ(), d.W(), dsl.U(0xff), func(q dsl.Query) {
				c := q.Candidate()
				q.CommitProcedural(c.T().Sub(dsl.F(1)))
				q.CommitProcedural(c.T().Add(dsl.F(0.5)))
				q.CommitProcedural(c.T().Add(dsl.F(0.25)))
			})
			ts.Write(i, res.Hit().T())
		})
	}, "scene", "org", "dir", "ts")
	require.NoError(t, err)
	org, dir, _ := raytest.Pack(commitRays)
	on := func(d *device.Device) []float32 {
		st, err := d.NewStream(device.StreamCompute)
		require.NoError(t, err)
		closeAll(t, st)
		k, err := device.Compile(d, f)
		require.NoError(t, err)
		closeAll(t, k)
		o, err := s.Make(d, accel.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, o.Close()) })
		tb := buffer[float32](t, d, len(commitRays))
		out := make([]float32, len(commitRays))
		require.NoError(t, st.Submit(append(o.Build(), k.Dispatch([3]uint32{uint32(len(commitRays))}, o.Accel, from(t, d, org), from(t, d, dir), tb), tb.Download(out))...))
		require.NoError(t, st.Synchronize(context.Background()))
		return out
	}
	check("cpu", on(openCPU(t, true)))
	d := nativeDevice(t)
	check("vulkan", on(d))
	if native(d) {
		t.Setenv("LUCENT_ACCEL", "software")
		check("vulkan, software", on(openVulkan(t)))
	}
}
