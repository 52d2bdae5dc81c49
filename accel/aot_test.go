package accel_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/internal/raytest"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/shadercache"
)

// aotRay is what one device made of the ahead-of-time ray kernels.
type aotRay struct {
	what    string
	hits    []kernel.Hit
	results []kernel.QueryResult
}

// TestAOTRayKernelEveryPath saves ray kernels once (Closest, and Spheres, a
// candidate loop returning its instance's transforms) and loads them on
// every path there is: the Vulkan device as it comes (native on Mesa 25's
// lavapipe, software on 22.3), a Vulkan device forced to software
// structures, and the cpu backend. Each traces the same scene with the
// reference's hits, and they agree with each other on every ray the
// reference does not call ambiguous. The Vulkan artefact is software SPIR-V:
// a software device runs it as stored, a native one compiles the IR.
func TestAOTRayKernelEveryPath(t *testing.T) {
	testenv.NeedGoCommand(t)
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/rayquery")
	require.Empty(t, errs)
	store := shadercache.NewMemory()
	sigs := map[string]string{}
	for _, k := range ks {
		if k.Name == "Closest" || k.Name == "Spheres" {
			sig, err := device.SaveKernel(store, k.Name, k.Func) // no device involved
			require.NoError(t, err, k.Name)
			sigs[k.Name] = sig
		}
	}
	require.Len(t, sigs, 2)

	sc := raytest.Random(91)
	rays := raytest.Rays(92, 600)
	n := len(rays)
	run := func(d *device.Device, what string) aotRay {
		t.Helper()
		s, err := d.NewStream(device.StreamCompute)
		require.NoError(t, err)
		closeAll(t, s)
		sync := func(cmds ...device.Command) {
			t.Helper()
			require.NoError(t, s.Submit(cmds...), what)
			require.NoError(t, s.Synchronize(context.Background()), what)
		}
		load := func(name string) *device.Kernel {
			k, err := device.LoadKernel(d, store, name, sigs[name])
			require.NoError(t, err, "%s: %s", what, name)
			closeAll(t, k)
			if d.Backend() == "vulkan" {
				// The artefact is for the software path; a native device
				// compiles the kernel's IR instead.
				require.Equal(t, native(d), k.Function() != nil, "%s: %s compiled from its IR", what, name)
			}
			return k
		}
		closest, spheres := load("Closest"), load("Spheres")
		o, err := sc.Make(d, accel.Options{})
		require.NoError(t, err, what)
		t.Cleanup(func() { require.NoError(t, o.Close()) })
		sync(o.Build()...)
		rb := from(t, d, rays)
		hb := buffer[kernel.Hit](t, d, n)
		ob, sb, lb := buffer[kernel.QueryResult](t, d, n), buffer[uint32](t, d, n), buffer[kernel.Candidate](t, d, n)
		size := [3]uint32{uint32(n)}
		sync(closest.Dispatch(size, o.Accel, rb, hb), spheres.Dispatch(size, o.Accel, rb, ob, sb, lb, uint32(0)))
		r := aotRay{what: what, hits: make([]kernel.Hit, n), results: make([]kernel.QueryResult, n)}
		seen, last := make([]uint32, n), make([]kernel.Candidate, n)
		sync(hb.Download(r.hits), ob.Download(r.results), sb.Download(seen), lb.Download(last))
		sc.Check(t, what+": Closest", rays, r.hits, nil)
		sc.CheckQuery(t, what+": Spheres", rays, r.results, seen, false, raytest.InverseOf(d))
		sc.CheckCandidates(t, what+": Spheres", rays, last, seen, raytest.InverseOf(d))
		return r
	}

	var got []aotRay
	d := nativeDevice(t)
	got = append(got, run(d, "vulkan, "+d.Capabilities().RayTracing.String()))
	t.Setenv("LUCENT_ACCEL", "software")
	d = openVulkan(t)
	require.Equal(t, device.PathEmulated, d.Capabilities().RayTracing)
	got = append(got, run(d, "vulkan, forced software"))
	got = append(got, run(openCPU(t, true), "cpu"))

	same := func(a, b kernel.Hit) bool { return a.Kind == b.Kind && a.Instance == b.Instance && a.Prim == b.Prim }
	for i, r := range rays {
		closestAmbig, queryAmbig := sc.Reference(r).Ambiguous, sc.QueryReference(r).Ambiguous
		for _, g := range got[1:] {
			if !closestAmbig {
				require.True(t, same(got[0].hits[i], g.hits[i]), "ray %d: Closest: %s %+v, %s %+v", i, got[0].what, got[0].hits[i], g.what, g.hits[i])
			}
			if !queryAmbig {
				a, b := got[0].results[i], g.results[i]
				require.True(t, same(a.Hit, b.Hit) && a.Index == b.Index, "ray %d: Spheres: %s %+v, %s %+v", i, got[0].what, a, g.what, b)
				require.Equal(t, a.ObjectToWorld, b.ObjectToWorld, "ray %d: Spheres: object to world, %s and %s", i, got[0].what, g.what)
			}
		}
	}
}

// BenchmarkAOTRayLoad measures device.LoadKernel of an ahead-of-time ray
// kernel (Spheres, a candidate loop) with the device's SPIR-V cache off:
// from the stored artefact on a device with software structures, and from
// the IR (codegen, then the pipeline) where the device's path is native or
// the record holds no artefact.
func BenchmarkAOTRayLoad(b *testing.B) {
	testenv.NeedGoCommand(b)
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/rayquery")
	require.Empty(b, errs)
	store := shadercache.NewMemory()
	var sig string
	for _, k := range ks {
		if k.Name == "Spheres" {
			var err error
			sig, err = device.SaveKernel(store, "Spheres", k.Func)
			require.NoError(b, err)
		}
	}
	rec, ok, err := shadercache.LoadKernel(store, "Spheres", sig)
	require.NoError(b, err)
	require.True(b, ok)
	rec.Artefacts = nil
	require.NoError(b, shadercache.SaveKernel(store, "Spheres IR", rec))
	load := func(b *testing.B, name string) {
		d, err := device.Open(context.Background(), "vulkan", device.WithShaderCache(shadercache.Disabled))
		testenv.Need(b, "a Vulkan device", err)
		defer d.Close()
		b.ResetTimer()
		for range b.N {
			k, err := device.LoadKernel(d, store, name, sig)
			require.NoError(b, err)
			require.NoError(b, k.Close())
		}
		b.StopTimer()
		b.Logf("%s path", d.Capabilities().RayTracing)
	}
	b.Run("device", func(b *testing.B) { load(b, "Spheres") })
	b.Run("device-IR", func(b *testing.B) { load(b, "Spheres IR") })
	b.Run("software", func(b *testing.B) {
		b.Setenv("LUCENT_ACCEL", "software")
		load(b, "Spheres")
	})
	b.Run("software-IR", func(b *testing.B) {
		b.Setenv("LUCENT_ACCEL", "software")
		load(b, "Spheres IR")
	})
}
