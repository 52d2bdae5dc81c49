package accel_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/raytest"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/rayquery"
)

// hostRun runs the rayquery kernels on the CPU runner over a scene.
func hostRun(t *testing.T, sc *bvh.Scene, rays []kernel.Ray) ([]kernel.Hit, []uint32) {
	t.Helper()
	acc, err := accel.Host(sc)
	require.NoError(t, err)
	n := uint32(len(rays))
	hits, anys := make([]kernel.Hit, n), make([]uint32, n)
	ctx := context.Background()
	require.NoError(t, kernel.Run(ctx, kernel.Grid1(64, n), func() { rayquery.Closest(acc, rays, hits) }))
	require.NoError(t, kernel.Run(ctx, kernel.Grid1(64, n), func() { rayquery.Shadow(acc, rays, anys) }))
	return hits, anys
}

func TestHostTraceRandomScenes(t *testing.T) {
	for seed := range uint64(3) {
		s := raytest.Random(seed)
		sc, err := s.BVH()
		require.NoError(t, err)
		rays := raytest.Rays(seed, 1500)
		hits, anys := hostRun(t, sc, rays)
		s.Check(t, "kernel.Run", rays, hits, anys)
	}
}

func TestHostTraceAfterMovingInstances(t *testing.T) {
	s := raytest.Random(7)
	sc, err := s.BVH()
	require.NoError(t, err)
	rays := raytest.Rays(8, 1500)
	before, _ := hostRun(t, sc, rays)
	s.Check(t, "before", rays, before, nil)
	r := raytest.Rand(9)
	for i := 0; i < len(s.Insts); i += 2 {
		s.Insts[i].Transform = raytest.RandomTransform(r)
		in := sc.Instances[i]
		in.Transform = s.Insts[i].Transform
		require.NoError(t, sc.Update(i, in))
	}
	after, anys := hostRun(t, sc, rays)
	s.Check(t, "after Update", rays, after, anys)
	require.NotEqual(t, before, after)
}

func TestHostBadInput(t *testing.T) {
	_, err := accel.Host(nil)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	var zero kernel.Accel
	rays := []kernel.Ray{{Dir: kernel.F3(0, 0, 1), TMax: 1, Mask: 1}}
	err = kernel.Run(context.Background(), kernel.Grid1(64, 1), func() { rayquery.Closest(zero, rays, make([]kernel.Hit, 1)) })
	require.ErrorIs(t, err, kernel.ErrKernelPanic)
	require.ErrorContains(t, err, "zero Accel")
}
