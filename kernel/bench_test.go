package kernel_test

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/kernel"
)

// BenchmarkDispatchID measures one id lookup inside a kernel thread (the
// goroutine-identity path), against the cost of the thread itself.
func BenchmarkDispatchID(b *testing.B) {
	for _, calls := range []int{0, 1, 16} {
		b.Run(map[int]string{0: "0-calls", 1: "1-call", 16: "16-calls"}[calls], func(b *testing.B) {
			const n = 4096
			sink := make([]uint32, n)
			for b.Loop() {
				err := kernel.Run(context.Background(), kernel.Grid1(256, n), func() {
					var s uint32
					for range calls {
						s += kernel.DispatchID().X
					}
					if s == 1<<31 {
						sink[0] = s
					}
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/thread")
		})
	}
}

// BenchmarkSample measures one texel access on the CPU: an integer Read
// against Texture2D.Sample and bindless Sample with a point and a bilinear
// sampler (outside kernel.Run: the access itself, no thread).
func BenchmarkSample(b *testing.B) {
	tex, err := kernel.NewTexture2D[kernel.Float4](64, 64)
	if err != nil {
		b.Fatal(err)
	}
	arr := kernel.NewBindless(2)
	if err := kernel.SetBindlessTexture2D(arr, 0, tex, kernel.Sampler{Filter: kernel.FilterPoint, Address: kernel.AddressRepeat}); err != nil {
		b.Fatal(err)
	}
	if err := kernel.SetBindlessTexture2D(arr, 1, tex, kernel.Sampler{Filter: kernel.FilterLinear, Address: kernel.AddressZero}); err != nil {
		b.Fatal(err)
	}
	var sink kernel.Float4
	uv := func(i int) kernel.Float2 { return kernel.F2(float32(i%97)/50-0.4, float32(i%89)/40-0.3) }
	b.Run("read", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			sink = sink.Add(tex.Read(uint32(i%61), uint32(i%59)))
		}
	})
	b.Run("sample-texture", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			sink = sink.Add(tex.Sample(uv(i)))
		}
	})
	b.Run("sample-bindless-point", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			sink = sink.Add(arr.Texture2D(0).Sample(uv(i)))
		}
	})
	b.Run("sample-bindless-linear", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			sink = sink.Add(arr.Texture2D(1).Sample(uv(i)))
		}
	})
	if sink.X != 0 {
		b.Fatal("the texture is zero")
	}
}
