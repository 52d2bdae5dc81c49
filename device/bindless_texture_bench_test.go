package device_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// BenchmarkBindlessTextureSample samples a 512×512 RGBA32Float texture once
// per pixel (bilinear, clamp to edge) into a buffer, the texture reached
// three ways side by side: bound directly as a kernel argument (sampling
// emulated on the storage image), through a bindless slot (the linear mirror
// refreshed before the dispatch, sampling emulated on it; also with a
// nearest sampler: one fetch instead of four), and, for the mirror refresh
// alone, a bindless kernel that only asks the slot's size.
// Each iteration is one dispatch and a wait (docs/PERFORMANCE.md, bindless).
// On a device with descriptor indexing the bindless variants run twice: on
// the native path (descriptor arrays, the device's samplers) and on the
// emulated one forced (mirrors, sampling in code).
func BenchmarkBindlessTextureSample(b *testing.B) {
	open := func(b *testing.B) *device.Device {
		dev, err := device.Open(context.Background(), "vulkan", device.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		testenv.Need(b, "a Vulkan device", err)
		b.Cleanup(func() { _ = dev.Close() })
		return dev
	}
	dev := open(b)
	path := dev.Capabilities().Sampling
	b.Run(path.String(), func(b *testing.B) { benchBindlessTextureSample(b, dev) })
	if path == device.PathNative {
		b.Run("emulated", func(b *testing.B) {
			b.Setenv(vulkan.EnvEmulateBindlessTextures, "1")
			benchBindlessTextureSample(b, open(b))
		})
	}
}

func benchBindlessTextureSample(b *testing.B, dev *device.Device) {
	const w, h = 512, 512
	fatal := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	uvOf := func(k *dsl.K) dsl.F32x2 {
		x, y := k.DispatchID().X(), k.DispatchID().Y()
		// Half a texel off the centres: every sample blends four texels.
		return dsl.V2(dsl.Convert[float32](x).Add(dsl.F(1)).Div(dsl.F(w)), dsl.Convert[float32](y).Add(dsl.F(1)).Div(dsl.F(h)))
	}
	direct, err := dsl.Kernel2D(8, 8, func(k *dsl.K, src dsl.Tex2D, out dsl.Buf[dsl.F32x4]) {
		out.Write(k.DispatchID().Y().Mul(dsl.U(w)).Add(k.DispatchID().X()), src.Sample(uvOf(k)))
	})
	fatal(err)
	bindless, err := dsl.Kernel2D(8, 8, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32x4]) {
		out.Write(k.DispatchID().Y().Mul(dsl.U(w)).Add(k.DispatchID().X()), arr.Texture2D(dsl.U(0)).Sample(uvOf(k)))
	})
	fatal(err)
	sizeOnly, err := dsl.Kernel2D(8, 8, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32x4]) {
		sz := dsl.Convert[float32](arr.Texture2D(dsl.U(0)).Size().X())
		out.Write(k.DispatchID().Y().Mul(dsl.U(w)).Add(k.DispatchID().X()), dsl.V4(sz, sz, sz, sz))
	})
	fatal(err)
	kd, err := device.Compile(dev, direct)
	fatal(err)
	kb, err := device.Compile(dev, bindless)
	fatal(err)
	ks, err := device.Compile(dev, sizeOnly)
	fatal(err)
	img, err := device.NewImage[[4]float32](dev, device.RGBA32Float, w, h, 1)
	fatal(err)
	out, err := device.NewBuffer[[4]float32](dev, w*h)
	fatal(err)
	arr, err := dev.NewBindlessArray(1)
	fatal(err)
	fatal(arr.EmplaceTexture(0, img, device.Sampler{Filter: device.FilterLinear, Address: device.AddressEdge}))
	nearest, err := dev.NewBindlessArray(1)
	fatal(err)
	fatal(nearest.EmplaceTexture(0, img, device.Sampler{Filter: device.FilterPoint, Address: device.AddressEdge}))
	s, err := dev.NewStream(device.StreamCompute)
	fatal(err)
	px := make([][4]float32, w*h)
	for i := range px {
		px[i] = [4]float32{float32(i % w), float32(i / w), 1, 0.5}
	}
	fatal(s.Submit(img.Upload(px), arr.Update(), nearest.Update()))
	fatal(s.Synchronize(context.Background()))
	for _, c := range []struct {
		name string
		cmd  device.Command
	}{
		{"direct", kd.Dispatch([3]uint32{w, h}, img, out)},
		{"bindless", kb.Dispatch([3]uint32{w, h}, arr, out)},
		{"bindless-nearest", kb.Dispatch([3]uint32{w, h}, nearest, out)},
		{"bindless-size-only", ks.Dispatch([3]uint32{w, h}, arr, out)},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				fatal(s.Submit(c.cmd))
				fatal(s.Synchronize(context.Background()))
			}
		})
	}
}
