package vulkan

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/device"
)

// The benchmarks below have twins in bench/vkbench.c, which does the same
// work with raw Vulkan; bench/compare.sh runs both and prints the ratios
// (docs/notes/runtime-performance.md).

func benchFixture(b *testing.B) *fixture {
	b.Helper()
	d, _ := openBenchDevice(b)
	s, err := d.CreateStream(device.StreamCompute)
	if err != nil {
		b.Fatal(err)
	}
	return &fixture{d: d, s: s}
}

// openBenchDevice opens the device without the validation layer: the figures
// are the runtime's, not the layer's.
func openBenchDevice(b *testing.B) (*Device, error) {
	d, err := Open(device.Options{DeviceIndex: -1})
	if err != nil {
		b.Skipf("no Vulkan device: %v", err)
	}
	b.Cleanup(func() { d.Close() })
	return d, nil
}

func (f *fixture) mustBuffer(b *testing.B, size uint64) device.Handle {
	h, err := f.d.CreateBuffer(device.BufferDesc{Size: size})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

func (f *fixture) mustShader(b *testing.B, name string) device.Handle {
	h, _, err := f.d.CreateShader(device.ShaderDesc{SPIRV: compile(b, name), Name: name})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

func (f *fixture) submitWait(b *testing.B, list *device.CommandList) {
	if err := f.d.Dispatch(f.s, list); err != nil {
		b.Fatal(err)
	}
	if err := f.d.SynchronizeStream(context.Background(), f.s); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDispatchChain: 10,000 empty dispatches on one buffer, each
// depending on the one before (a barrier between each pair), encoded,
// submitted and waited for. The figure is per dispatch.
func BenchmarkDispatchChain(b *testing.B) {
	f := benchFixture(b)
	sh := f.mustShader(b, "empty")
	buf := f.mustBuffer(b, 256)
	const n = 10000
	list := &device.CommandList{}
	for range n {
		list.Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1}, Args: []device.Arg{{Kind: device.ArgBuffer, Handle: buf}}})
	}
	f.submitWait(b, list)
	b.ResetTimer()
	for range b.N {
		f.submitWait(b, list)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/dispatch")
}

// BenchmarkRoundTrip: one empty dispatch submitted and waited for.
func BenchmarkRoundTrip(b *testing.B) {
	f := benchFixture(b)
	sh := f.mustShader(b, "empty")
	buf := f.mustBuffer(b, 256)
	list := (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1}, Args: []device.Arg{{Kind: device.ArgBuffer, Handle: buf}}})
	f.submitWait(b, list)
	b.ResetTimer()
	for range b.N {
		f.submitWait(b, list)
	}
}

const transferBytes = 64 << 20

// BenchmarkUpload: 64 MiB from host memory into a buffer, waited for.
func BenchmarkUpload(b *testing.B) {
	f := benchFixture(b)
	buf := f.mustBuffer(b, transferBytes)
	data := make([]byte, transferBytes)
	for i := range data {
		data[i] = byte(i)
	}
	list := (&device.CommandList{}).Add(&device.BufferUpload{Buffer: buf, Data: data})
	f.submitWait(b, list)
	b.SetBytes(transferBytes)
	b.ResetTimer()
	for range b.N {
		f.submitWait(b, list)
	}
}

// BenchmarkDownload: 64 MiB from a buffer into host memory, waited for.
func BenchmarkDownload(b *testing.B) {
	f := benchFixture(b)
	buf := f.mustBuffer(b, transferBytes)
	data := make([]byte, transferBytes)
	f.submitWait(b, (&device.CommandList{}).Add(&device.BufferUpload{Buffer: buf, Data: data}))
	list := (&device.CommandList{}).Add(&device.BufferDownload{Buffer: buf, Data: data})
	f.submitWait(b, list)
	b.SetBytes(transferBytes)
	b.ResetTimer()
	for range b.N {
		f.submitWait(b, list)
	}
}

// BenchmarkSaxpy: y = a*x + y over 16M floats, one dispatch waited for;
// bytes are the 12 per element the kernel moves.
func BenchmarkSaxpy(b *testing.B) {
	f := benchFixture(b)
	sh := f.mustShader(b, "saxpy")
	const n = 16 << 20
	x, y := f.mustBuffer(b, 4*n), f.mustBuffer(b, 4*n)
	f.submitWait(b, (&device.CommandList{}).Add(
		&device.BufferUpload{Buffer: x, Data: bytesOfF32(make([]float32, n))},
		&device.BufferUpload{Buffer: y, Data: bytesOfF32(make([]float32, n))}))
	list := (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: []device.Arg{
		{Kind: device.ArgBuffer, Handle: x}, {Kind: device.ArgBuffer, Handle: y},
		{Kind: device.ArgUniform, Uniform: uniform32(n)}, {Kind: device.ArgUniform, Uniform: uniformF(2)}}})
	f.submitWait(b, list)
	b.SetBytes(12 * n)
	b.ResetTimer()
	for range b.N {
		f.submitWait(b, list)
	}
}

// BenchmarkBinding compares the two ways kernel ABI v1 can pass buffers:
// push descriptors (the default) and device addresses in push constants
// (what buffers beyond maxStorageBufferRange use), on a chain of empty
// dispatches (binding cost) and on saxpy (access cost).
func BenchmarkBinding(b *testing.B) {
	for _, scheme := range []string{"descriptors", "addresses"} {
		suffix := ""
		if scheme == "addresses" {
			suffix = "_bda"
		}
		b.Run("chain/"+scheme, func(b *testing.B) {
			f := benchFixture(b)
			sh := f.mustShader(b, "empty"+suffix)
			buf := f.mustBuffer(b, 256)
			const n = 10000
			list := &device.CommandList{}
			for range n {
				list.Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1}, Args: []device.Arg{{Kind: device.ArgBuffer, Handle: buf}}})
			}
			f.submitWait(b, list)
			b.ResetTimer()
			for range b.N {
				f.submitWait(b, list)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/dispatch")
		})
		b.Run("saxpy/"+scheme, func(b *testing.B) {
			f := benchFixture(b)
			sh := f.mustShader(b, "saxpy"+suffix)
			const n = 16 << 20
			x, y := f.mustBuffer(b, 4*n), f.mustBuffer(b, 4*n)
			f.submitWait(b, (&device.CommandList{}).Add(
				&device.BufferUpload{Buffer: x, Data: bytesOfF32(make([]float32, n))},
				&device.BufferUpload{Buffer: y, Data: bytesOfF32(make([]float32, n))}))
			list := (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: []device.Arg{
				{Kind: device.ArgBuffer, Handle: x}, {Kind: device.ArgBuffer, Handle: y},
				{Kind: device.ArgUniform, Uniform: uniform32(n)}, {Kind: device.ArgUniform, Uniform: uniformF(2)}}})
			f.submitWait(b, list)
			b.SetBytes(12 * n)
			b.ResetTimer()
			for range b.N {
				f.submitWait(b, list)
			}
		})
	}
}
