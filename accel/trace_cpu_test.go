package accel_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/raytest"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/kernel"
)

// Ray queries on the cpu backend: the Go-subset kernels of
// testdata/gokernel/rayquery and the DSL kernels of internal/raytest, over
// an accel built on the device, agree with the brute-force reference.

func rayKernels(t *testing.T) map[string]*ir.Function {
	t.Helper()
	testenv.NeedGoCommand(t)
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/rayquery")
	require.Empty(t, errs)
	out := map[string]*ir.Function{}
	for _, k := range ks {
		out[k.Name] = k.Func
	}
	var err error
	out["DSLClosest"], err = raytest.DSLClosest()
	require.NoError(t, err)
	out["DSLFields"], err = raytest.DSLFields()
	require.NoError(t, err)
	return out
}

type rayRig struct {
	t  *testing.T
	d  *device.Device
	s  *device.Stream
	ks map[string]*device.Kernel
}

func newRayRig(t *testing.T, d *device.Device) *rayRig {
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	closeAll(t, s)
	r := &rayRig{t: t, d: d, s: s, ks: map[string]*device.Kernel{}}
	for name, f := range rayKernels(t) {
		k, err := device.Compile(d, f, device.WithKernelName(name))
		require.NoError(t, err, name)
		closeAll(t, k)
		r.ks[name] = k
	}
	return r
}

func (r *rayRig) run(cmds ...device.Command) {
	r.t.Helper()
	require.NoError(r.t, r.s.Submit(cmds...))
	require.NoError(r.t, r.s.Synchronize(context.Background()))
}

func buffer[T any](t *testing.T, d *device.Device, n int) *device.Buffer[T] {
	b, err := device.NewBuffer[T](d, n)
	require.NoError(t, err)
	closeAll(t, b)
	return b
}

func from[T any](t *testing.T, d *device.Device, v []T) *device.Buffer[T] {
	b, err := device.NewBufferFrom(d, v)
	require.NoError(t, err)
	closeAll(t, b)
	return b
}

// trace runs every kernel over rays (with cmds first in the same list) and
// checks each against the reference of s; it returns the Go-subset hits.
func (r *rayRig) trace(s *raytest.Scene, a *accel.Accel, rays []kernel.Ray, what string, cmds ...device.Command) []kernel.Hit {
	t, d, n := r.t, r.d, len(rays)
	size := [3]uint32{uint32(n)}
	rb := from(t, d, rays)
	hb, ab := buffer[kernel.Hit](t, d, n), buffer[uint32](t, d, n)
	ib, tb := buffer[uint32](t, d, 3*n), buffer[float32](t, d, 3*n)
	org, dir, masks := raytest.Pack(rays)
	ob, db, mb := from(t, d, org), from(t, d, dir), from(t, d, masks)
	dh, da := buffer[kernel.Hit](t, d, n), buffer[uint32](t, d, n)
	di, dt := buffer[uint32](t, d, 3*n), buffer[float32](t, d, 3*n)
	r.run(append(cmds,
		r.ks["Closest"].Dispatch(size, a, rb, hb),
		r.ks["Shadow"].Dispatch(size, a, rb, ab),
		r.ks["Fields"].Dispatch(size, a, rb, ib, tb),
		r.ks["DSLClosest"].Dispatch(size, a, ob, db, mb, dh, da),
		r.ks["DSLFields"].Dispatch(size, a, ob, db, mb, di, dt))...)
	get := func(b any) any {
		switch b := b.(type) {
		case *device.Buffer[kernel.Hit]:
			out := make([]kernel.Hit, b.Len())
			r.run(b.Download(out))
			return out
		case *device.Buffer[uint32]:
			out := make([]uint32, b.Len())
			r.run(b.Download(out))
			return out
		case *device.Buffer[float32]:
			out := make([]float32, b.Len())
			r.run(b.Download(out))
			return out
		}
		panic("buffer type")
	}
	goHits := get(hb).([]kernel.Hit)
	s.Check(t, what+": Go subset", rays, goHits, get(ab).([]uint32))
	hits, err := raytest.FromFields(rays, get(ib).([]uint32), get(tb).([]float32), true)
	require.NoError(t, err)
	s.Check(t, what+": Go subset, fields", rays, hits, nil)
	s.Check(t, what+": DSL", rays, get(dh).([]kernel.Hit), get(da).([]uint32))
	hits, err = raytest.FromFields(rays, get(di).([]uint32), get(dt).([]float32), false)
	require.NoError(t, err)
	s.Check(t, what+": DSL, fields", rays, hits, nil)
	return goHits
}

func TestCPUTraceRandomScenes(t *testing.T) {
	for _, validated := range []bool{true, false} {
		d := openCPU(t, validated)
		r := newRayRig(t, d)
		for seed := range uint64(2) {
			s := raytest.Random(seed + 20)
			o, err := s.Make(d, accel.Options{})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, o.Close()) })
			// Built in the same list as the dispatches: they wait for it.
			rays := raytest.Rays(seed, 800)
			got := r.trace(s, o.Accel, rays, "cpu", o.Build()...)
			// The same hierarchy and traversal as the CPU runner's: the same bits.
			sc, err := s.BVH()
			require.NoError(t, err)
			want, _ := hostRun(t, sc, rays)
			require.Equal(t, want, got)
		}
	}
}

func TestCPUTraceAfterUpdate(t *testing.T) {
	d := openCPU(t, true)
	r := newRayRig(t, d)
	s := raytest.Random(31)
	o, err := s.Make(d, accel.Options{AllowUpdate: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, o.Close()) })
	rays := raytest.Rays(32, 800)
	r.trace(s, o.Accel, rays, "built", o.Build()...)
	g := raytest.Rand(33)
	for i := 1; i < len(s.Insts); i += 2 {
		s.Insts[i].Transform = raytest.RandomTransform(g)
		require.NoError(t, o.Accel.SetTransform(i, s.Insts[i].Transform))
	}
	r.trace(s, o.Accel, rays, "after Update", o.Accel.Update())
	for i := 0; i < len(s.Insts); i += 3 {
		s.Insts[i].Mask = 0
		require.NoError(t, o.Accel.SetMask(i, 0))
	}
	r.trace(s, o.Accel, rays, "after a rebuild with masks changed", o.Accel.Build())
}

func TestCPUTraceBadAccel(t *testing.T) {
	for _, validated := range []bool{true, false} {
		d := openCPU(t, validated)
		r := newRayRig(t, d)
		s := raytest.Random(41)
		o, err := s.Make(d, accel.Options{})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, o.Close()) })
		rays := from(t, d, raytest.Rays(42, 64))
		hits := buffer[kernel.Hit](t, d, 64)
		k := r.ks["Closest"]

		// Not built: the validation wrapper refuses the list; unvalidated,
		// the dispatch finds it when it runs.
		err = r.s.Submit(k.Dispatch([3]uint32{64}, o.Accel, rays, hits))
		if err == nil {
			require.False(t, validated)
			err = r.s.Synchronize(context.Background())
		}
		require.ErrorIs(t, err, device.ErrInvalidArgument, "validated %v", validated)
		require.ErrorContains(t, err, "argument 0 (scene)")
		require.ErrorContains(t, err, "has not been built")

		for _, bad := range []any{(*accel.Accel)(nil), &accel.Accel{}, hits} {
			err = r.s.Submit(k.Dispatch([3]uint32{64}, bad, rays, hits))
			require.ErrorIs(t, err, device.ErrInvalidArgument, "%T", bad)
			require.ErrorContains(t, err, "argument 0 (scene)", "%T", bad)
		}

		r.run(o.Build()...)
		require.NoError(t, o.Accel.Close())
		err = r.s.Submit(k.Dispatch([3]uint32{64}, o.Accel, rays, hits))
		require.ErrorIs(t, err, device.ErrClosed)
		require.ErrorContains(t, err, "argument 0 (scene)")
	}
}

// A dispatch reads its accel: one built on another stream with no event
// between is a hazard.
func TestCPUTraceHazard(t *testing.T) {
	d := openCPU(t, true)
	r := newRayRig(t, d)
	s := raytest.Random(51)
	o, err := s.Make(d, accel.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, o.Close()) })
	builder, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	closeAll(t, builder)
	rays := from(t, d, raytest.Rays(52, 64))
	hits := buffer[kernel.Hit](t, d, 64)
	require.NoError(t, builder.Submit(o.Build()...))
	err = r.s.Submit(r.ks["Closest"].Dispatch([3]uint32{64}, o.Accel, rays, hits))
	require.ErrorIs(t, err, device.ErrHazard)
	require.NoError(t, builder.Synchronize(context.Background()))
	r.run(r.ks["Closest"].Dispatch([3]uint32{64}, o.Accel, rays, hits))
}
