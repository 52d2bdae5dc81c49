package codegen_test

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
)

// BenchmarkAddressGuard measures the bounds guard on accesses through
// device addresses: saxpy and a random gather over 1M floats, with the
// buffers bound by descriptor (robust access guards them), passed by
// address without the guard, and by address with it. The three forms run
// interleaved, one dispatch of each per iteration, each waited for, so
// their ratios compare the same moments of a loaded machine; it reports the
// median time of each and the medians of the per-iteration ratios
// (docs/PERFORMANCE.md, frontend).
//
//	go test -run '^$' -bench AddressGuard -benchtime 40x ./frontend
func BenchmarkAddressGuard(b *testing.B) {
	d, err := device.Open(context.Background(), "vulkan", device.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	testenv.Need(b, "a Vulkan device", err)
	b.Cleanup(func() { _ = d.Close() })
	if !d.Capabilities().BufferDeviceAddress {
		b.Skip("no buffer device addresses")
	}
	const n = 1 << 20
	x, y, idx := benchBuffer[float32](b, d, n), benchBuffer[float32](b, d, n), benchBuffer[uint32](b, d, n)
	s, err := d.NewStream(device.StreamCompute)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(1, 2))
	perm := make([]uint32, n)
	for i := range perm {
		perm[i] = r.Uint32N(n)
	}
	if err := s.Submit(x.Upload(make([]float32, n)), y.Upload(make([]float32, n)), idx.Upload(perm)); err != nil {
		b.Fatal(err)
	}
	saxpy := func(k *dsl.K, a dsl.F32, read func(int, dsl.U32) dsl.F32, write func(dsl.U32, dsl.F32), _ func(dsl.U32) dsl.U32) {
		i := k.DispatchID().X()
		write(i, a.Mul(read(0, i)).Add(read(1, i)))
	}
	gather := func(k *dsl.K, a dsl.F32, read func(int, dsl.U32) dsl.F32, write func(dsl.U32, dsl.F32), index func(dsl.U32) dsl.U32) {
		i := k.DispatchID().X()
		write(i, a.Mul(read(0, index(i))))
	}
	for _, kc := range []struct {
		name string
		body func(k *dsl.K, a dsl.F32, read func(int, dsl.U32) dsl.F32, write func(dsl.U32, dsl.F32), index func(dsl.U32) dsl.U32)
	}{{"saxpy", saxpy}, {"gather", gather}} {
		desc, err := dsl.Kernel1D(256, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32], idx dsl.Buf[dsl.U32]) {
			kc.body(k, a, func(w int, i dsl.U32) dsl.F32 { return [2]dsl.Buf[dsl.F32]{x, y}[w].Read(i) }, y.Write, idx.Read)
		}, "a", "x", "y", "idx")
		if err != nil {
			b.Fatal(err)
		}
		addr, err := dsl.Kernel1D(256, func(k *dsl.K, a dsl.F32, x, y dsl.BigBuf[dsl.F32], idx dsl.BigBuf[dsl.U32]) {
			kc.body(k, a, func(w int, i dsl.U32) dsl.F32 { return [2]dsl.BigBuf[dsl.F32]{x, y}[w].Read(i) }, y.Write, idx.Read)
		}, "a", "x", "y", "idx")
		if err != nil {
			b.Fatal(err)
		}
		opts := codegen.Options{Env: spirv.EnvVulkan1_2}
		forms := []struct {
			name string
			f    *ir.Function
			emit func(*ir.Function, codegen.Options) ([]uint32, error)
		}{{"descriptor", desc, codegen.Emit}, {"address-unguarded", addr, codegen.EmitUnguarded}, {"address", addr, codegen.Emit}}
		shaders := make([]*device.Shader, len(forms))
		for i, fm := range forms {
			words, err := fm.emit(fm.f, opts)
			if err != nil {
				b.Fatal(err)
			}
			sig, _, err := device.KernelSignature(fm.f)
			if err != nil {
				b.Fatal(err)
			}
			if shaders[i], err = d.NewShader(device.ShaderDesc{SPIRV: words, Signature: &sig}); err != nil {
				b.Fatal(err)
			}
			defer shaders[i].Close()
		}
		b.Run(kc.name, func(b *testing.B) {
			times := make([][]float64, len(forms))
			for b.Loop() {
				for i, sh := range shaders {
					t0 := time.Now()
					if err := s.Submit(sh.Dispatch([3]uint32{n}, float32(2), x, y, idx)); err != nil {
						b.Fatal(err)
					}
					if err := s.Synchronize(context.Background()); err != nil {
						b.Fatal(err)
					}
					times[i] = append(times[i], float64(time.Since(t0).Nanoseconds()))
				}
			}
			ratio := func(num, den int) float64 {
				rs := make([]float64, len(times[num]))
				for i := range rs {
					rs[i] = times[num][i] / times[den][i]
				}
				return median(rs)
			}
			for i, fm := range forms {
				b.ReportMetric(median(times[i])/1e6, fm.name+"-ms")
			}
			b.ReportMetric(ratio(2, 1), "guarded/unguarded")
			b.ReportMetric(ratio(2, 0), "guarded/descriptor")
			b.ReportMetric(0, "ns/op")
		})
	}
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

func benchBuffer[T any](b *testing.B, d *device.Device, n int) *device.Buffer[T] {
	buf, err := device.NewBuffer[T](d, n)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { buf.Close() })
	return buf
}
