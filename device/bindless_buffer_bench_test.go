package device_test

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// BenchmarkBindlessBufferGather reads src[idx[i]] (F32x4 elements, idx a
// fixed random permutation) for 512×512 threads, the source buffer reached
// two ways side by side: bound as a Buf argument (a storage-buffer
// descriptor) and through a bindless slot (a device address in the slot
// record). It is the measurement behind reaching bindless buffer slots by
// address on every device (RATIONALE.md, bindless arrays).
func BenchmarkBindlessBufferGather(b *testing.B) {
	const n = 512 * 512
	dev, err := device.Open(context.Background(), "vulkan", device.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	testenv.Need(b, "a Vulkan device", err)
	b.Cleanup(func() { _ = dev.Close() })
	fatal := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	direct, err := dsl.Kernel1D(64, func(k *dsl.K, src dsl.Buf[dsl.F32x4], idx dsl.Buf[dsl.U32], out dsl.Buf[dsl.F32x4]) {
		i := k.DispatchID().X()
		out.Write(i, src.Read(idx.Read(i)))
	})
	fatal(err)
	bindless, err := dsl.Kernel1D(64, func(k *dsl.K, arr dsl.BindlessArray, idx dsl.Buf[dsl.U32], out dsl.Buf[dsl.F32x4]) {
		i := k.DispatchID().X()
		out.Write(i, dsl.ReadBuffer[dsl.F32x4](arr, dsl.U(0), idx.Read(i)))
	})
	fatal(err)
	kd, err := device.Compile(dev, direct)
	fatal(err)
	kb, err := device.Compile(dev, bindless)
	fatal(err)
	src, err := device.NewBuffer[[4]float32](dev, n)
	fatal(err)
	idx, err := device.NewBuffer[uint32](dev, n)
	fatal(err)
	out, err := device.NewBuffer[[4]float32](dev, n)
	fatal(err)
	arr, err := dev.NewBindlessArray(1)
	fatal(err)
	fatal(arr.EmplaceBuffer(0, src))
	perm := rand.New(rand.NewPCG(1, 2)).Perm(n)
	ix := make([]uint32, n)
	px := make([][4]float32, n)
	for i := range ix {
		ix[i] = uint32(perm[i])
		px[i] = [4]float32{float32(i), 1, 2, 3}
	}
	s, err := dev.NewStream(device.StreamCompute)
	fatal(err)
	fatal(s.Submit(src.Upload(px), idx.Upload(ix), arr.Update()))
	fatal(s.Synchronize(context.Background()))
	for _, c := range []struct {
		name string
		cmd  device.Command
	}{
		{"descriptor", kd.Dispatch([3]uint32{n}, src, idx, out)},
		{"bindless-address", kb.Dispatch([3]uint32{n}, arr, idx, out)},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				fatal(s.Submit(c.cmd))
				fatal(s.Synchronize(context.Background()))
			}
		})
	}
}
