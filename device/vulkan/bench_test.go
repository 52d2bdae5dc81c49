package vulkan

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// The benchmarks below have twins in bench/vkbench.c, which does the same
// work with raw Vulkan; bench/compare.sh runs both and prints the ratios
// (docs/PERFORMANCE.md, runtime).

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

// mustShader creates a test shader, trusted: the suite validates these
// modules with spirv-val, and a benchmark machine may lack SPIRV-Tools.
func (f *fixture) mustShader(b *testing.B, name string) device.Handle {
	h, _, err := f.d.CreateShader(device.ShaderDesc{SPIRV: compile(b, name), Name: name, Trusted: true})
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
func BenchmarkDispatchChain(b *testing.B) { benchDispatchChain(b) }

const chainLength = 10000

func benchDispatchChain(b *testing.B) {
	op := chainOp(b, benchFixture(b))
	b.ResetTimer()
	for range b.N {
		op()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chainLength), "ns/dispatch")
}

// chainOp sets up BenchmarkDispatchChain and returns one operation of it.
func chainOp(b *testing.B, f *fixture) func() {
	sh := f.mustShader(b, "empty")
	buf := f.mustBuffer(b, 256)
	list := &device.CommandList{}
	for range chainLength {
		list.Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1}, Args: []device.Arg{{Kind: device.ArgBuffer, Handle: buf, Size: device.WholeSize}}})
	}
	f.submitWait(b, list)
	return func() { f.submitWait(b, list) }
}

// BenchmarkRoundTrip: one empty dispatch submitted and waited for.
func BenchmarkRoundTrip(b *testing.B) { benchRoundTrip(b) }

func benchRoundTrip(b *testing.B) {
	op := roundTripOp(b, benchFixture(b))
	b.ResetTimer()
	for range b.N {
		op()
	}
}

func roundTripOp(b *testing.B, f *fixture) func() {
	sh := f.mustShader(b, "empty")
	buf := f.mustBuffer(b, 256)
	list := (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1}, Args: []device.Arg{{Kind: device.ArgBuffer, Handle: buf, Size: device.WholeSize}}})
	f.submitWait(b, list)
	return func() { f.submitWait(b, list) }
}

// BenchmarkDescriptorPath runs BenchmarkDispatchChain and BenchmarkRoundTrip
// side by side with push descriptors and with cached descriptor sets
// (LUCENT_VULKAN_BINDING=push, =sets): the steady-state cost of each way.
func BenchmarkDescriptorPath(b *testing.B) {
	for _, path := range []string{"push", "sets"} {
		b.Run("chain/"+path, func(b *testing.B) {
			b.Setenv(EnvBinding, path)
			benchDispatchChain(b)
		})
		b.Run("roundtrip/"+path, func(b *testing.B) {
			b.Setenv(EnvBinding, path)
			benchRoundTrip(b)
		})
	}
}

const transferBytes = 64 << 20

// BenchmarkUpload: 64 MiB from host memory into a buffer, waited for.
func BenchmarkUpload(b *testing.B) { benchOp(b, uploadOp, transferBytes) }

func uploadOp(b *testing.B, f *fixture) func() {
	buf := f.mustBuffer(b, transferBytes)
	data := make([]byte, transferBytes)
	for i := range data {
		data[i] = byte(i)
	}
	list := (&device.CommandList{}).Add(&device.BufferUpload{Buffer: buf, Data: data})
	f.submitWait(b, list)
	return func() { f.submitWait(b, list) }
}

// BenchmarkDownload: 64 MiB from a buffer into host memory, waited for.
func BenchmarkDownload(b *testing.B) { benchOp(b, downloadOp, transferBytes) }

func downloadOp(b *testing.B, f *fixture) func() {
	buf := f.mustBuffer(b, transferBytes)
	data := make([]byte, transferBytes)
	f.submitWait(b, (&device.CommandList{}).Add(&device.BufferUpload{Buffer: buf, Data: data}))
	list := (&device.CommandList{}).Add(&device.BufferDownload{Buffer: buf, Data: data})
	f.submitWait(b, list)
	return func() { f.submitWait(b, list) }
}

const saxpyN = 16 << 20

// BenchmarkSaxpy: y = a*x + y over 16M floats, one dispatch waited for;
// bytes are the 12 per element the kernel moves.
func BenchmarkSaxpy(b *testing.B) { benchOp(b, saxpyOp, 12*saxpyN) }

func saxpyOp(b *testing.B, f *fixture) func() {
	sh := f.mustShader(b, "saxpy")
	x, y := f.mustBuffer(b, 4*saxpyN), f.mustBuffer(b, 4*saxpyN)
	f.submitWait(b, (&device.CommandList{}).Add(
		&device.BufferUpload{Buffer: x, Data: bytesOfF32(make([]float32, saxpyN))},
		&device.BufferUpload{Buffer: y, Data: bytesOfF32(make([]float32, saxpyN))}))
	list := (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{saxpyN, 1, 1}, Args: []device.Arg{
		{Kind: device.ArgBuffer, Handle: x, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: y, Size: device.WholeSize},
		{Kind: device.ArgUniform, Uniform: uniform32(saxpyN)}, {Kind: device.ArgUniform, Uniform: uniformF(2)}}})
	f.submitWait(b, list)
	return func() { f.submitWait(b, list) }
}

// BenchmarkSaxpySize is BenchmarkSaxpy over LUCENT_BENCH_SAXPY_N floats
// (default 16M; bench/gpu.sh runs 256M, the size a big GPU needs to reach
// its bandwidth), by device address where a buffer exceeds
// maxStorageBufferRange. The buffers are not initialised: the figure is the
// memory traffic, 12 bytes an element.
func BenchmarkSaxpySize(b *testing.B) {
	n := uint64(saxpyN)
	if s := os.Getenv("LUCENT_BENCH_SAXPY_N"); s != "" {
		v, err := strconv.ParseUint(s, 10, 32)
		if err != nil || v == 0 {
			b.Fatalf("LUCENT_BENCH_SAXPY_N=%q: want a count of floats below 2^32", s)
		}
		n = v
	}
	f := benchFixture(b)
	name := "saxpy"
	if 4*n > f.d.caps.MaxStorageBufferRange {
		name = "saxpy_bda"
	}
	sh := f.mustShader(b, name)
	x, y := f.mustBuffer(b, 4*n), f.mustBuffer(b, 4*n)
	list := (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{uint32(n), 1, 1}, Args: []device.Arg{
		{Kind: device.ArgBuffer, Handle: x, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: y, Size: device.WholeSize},
		{Kind: device.ArgUniform, Uniform: uniform32(uint32(n))}, {Kind: device.ArgUniform, Uniform: uniformF(2)}}})
	f.submitWait(b, list)
	b.SetBytes(int64(12 * n))
	b.ResetTimer()
	for range b.N {
		f.submitWait(b, list)
	}
	b.ReportMetric(float64(12*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// benchOp times one operation set up by setup; bytes > 0 reports MB/s.
func benchOp(b *testing.B, setup func(*testing.B, *fixture) func(), bytes int64) {
	op := setup(b, benchFixture(b))
	if bytes > 0 {
		b.SetBytes(bytes)
	}
	b.ResetTimer()
	for range b.N {
		op()
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
				list.Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1}, Args: []device.Arg{{Kind: device.ArgBuffer, Handle: buf, Size: device.WholeSize}}})
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
				{Kind: device.ArgBuffer, Handle: x, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: y, Size: device.WholeSize},
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

// BenchmarkRoundTripRawVk is BenchmarkRoundTrip written directly against the
// vk package (one command buffer re-recorded, one timeline semaphore): what
// the same Vulkan calls cost from Go, without the runtime around them.
func BenchmarkRoundTripRawVk(b *testing.B) {
	b.Setenv(EnvBinding, "push") // it records push descriptors, as bench/vkbench.c does
	benchOp(b, rawVkRoundTripOp, 0)
}

// rawVkRoundTripOp sets up BenchmarkRoundTripRawVk; its semaphore is
// destroyed when the benchmark ends.
func rawVkRoundTripOp(b *testing.B, f *fixture) func() {
	d := f.d
	if !d.caps.PushDescriptors {
		b.Skip("it records push descriptors; the device binds with sets (LUCENT_VULKAN_BINDING=push)")
	}
	shH := f.mustShader(b, "empty")
	bufH := f.mustBuffer(b, 256)
	d.live.RLock()
	sh, _ := lookup[*shader](d, shH, "shader")
	buf, _ := lookup[*buffer](d, bufH, "buffer")
	s, _ := lookup[*stream](d, f.s, "stream")
	d.live.RUnlock()
	s.mu.Lock()
	cb, err := s.commandBuffer()
	s.mu.Unlock()
	if err != nil {
		b.Fatal(err)
	}
	sem, err := d.newTimeline(0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		d.fn.DeviceWaitIdle(d.vk)
		d.fn.DestroySemaphore(d.vk, sem, nil)
	})
	var value uint64
	info := vk.DescriptorBufferInfo{Buffer: buf.raw.handle, Range: 256}
	write := vk.WriteDescriptorSet{SType: vk.STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, DescriptorCount: 1,
		DescriptorType: vk.DESCRIPTOR_TYPE_STORAGE_BUFFER, PBufferInfo: &info}
	mb := vk.MemoryBarrier2{SType: vk.STRUCTURE_TYPE_MEMORY_BARRIER_2, SrcStageMask: stageAll, SrcAccessMask: accessMemoryWrite,
		DstStageMask: stageAll, DstAccessMask: dstAccess}
	dep := vk.DependencyInfo{SType: vk.STRUCTURE_TYPE_DEPENDENCY_INFO, MemoryBarrierCount: 1, PMemoryBarriers: &mb}
	begin := vk.CommandBufferBeginInfo{SType: vk.STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, Flags: vk.COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT}
	cbi := vk.CommandBufferSubmitInfo{SType: vk.STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, CommandBuffer: cb}
	sig := vk.SemaphoreSubmitInfo{SType: vk.STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, Semaphore: sem, StageMask: stageAll}
	si := vk.SubmitInfo2{SType: vk.STRUCTURE_TYPE_SUBMIT_INFO_2, CommandBufferInfoCount: 1, PCommandBufferInfos: &cbi,
		SignalSemaphoreInfoCount: 1, PSignalSemaphoreInfos: &sig}
	wi := vk.SemaphoreWaitInfo{SType: vk.STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, SemaphoreCount: 1, PSemaphores: &sem, PValues: &value}
	q := s.q
	round := func() {
		d.fn.BeginCommandBuffer(cb, &begin)
		d.fn.CmdPipelineBarrier2(cb, &dep)
		d.fn.CmdBindPipeline(cb, vk.PIPELINE_BIND_POINT_COMPUTE, sh.pipeline)
		d.fn.CmdPushDescriptorSetKHR(cb, vk.PIPELINE_BIND_POINT_COMPUTE, sh.layout, 0, 1, &write)
		d.fn.CmdDispatch(cb, 1, 1, 1)
		d.fn.EndCommandBuffer(cb)
		value++
		sig.Value = value
		q.mu.Lock()
		r := d.fn.QueueSubmit2(q.handle, 1, &si, 0)
		q.mu.Unlock()
		if r != vk.SUCCESS {
			b.Fatal(r)
		}
		if r := d.fn.WaitSemaphores(d.vk, &wi, ^uint64(0)); r != vk.SUCCESS {
			b.Fatal(r)
		}
	}
	round()
	return round
}

// BenchmarkDownloadSizes downloads 16 MiB and then 256 MiB (the second after
// the first: a staging keep that counted the small buffer re-faulted the big
// one every time) and makes Go's copy of the same bytes, interleaved in each
// iteration; the metrics are the medians over iterations of each download's
// time over its copy's (medians: one preempted copy of a few milliseconds
// would swamp a mean on a loaded machine).
func BenchmarkDownloadSizes(b *testing.B) {
	f := benchFixture(b)
	sizes := []int{16 << 20, 256 << 20}
	type leg struct {
		list     *device.CommandList
		src, dst []byte
		ratios   []float64
	}
	legs := make([]*leg, len(sizes))
	for i, n := range sizes {
		buf := f.mustBuffer(b, uint64(n))
		src, dst := make([]byte, n), make([]byte, n)
		for j := range src {
			src[j] = byte(j)
		}
		f.submitWait(b, (&device.CommandList{}).Add(&device.BufferUpload{Buffer: buf, Data: src}))
		legs[i] = &leg{list: (&device.CommandList{}).Add(&device.BufferDownload{Buffer: buf, Data: dst}), src: src, dst: dst}
	}
	for _, l := range legs { // touch everything once
		f.submitWait(b, l.list)
		copy(l.dst, l.src)
	}
	b.ResetTimer()
	for range b.N {
		for _, l := range legs {
			t0 := time.Now()
			f.submitWait(b, l.list)
			t1 := time.Now()
			copy(l.dst, l.src)
			l.ratios = append(l.ratios, float64(t1.Sub(t0))/float64(time.Since(t1)))
		}
	}
	for i, l := range legs {
		b.ReportMetric(quantile(l.ratios, 0.5), fmt.Sprintf("x_copy_%dMiB", sizes[i]>>20))
	}
}

// BenchmarkBindingChoice keeps the binding table (binding.go) true: the same
// chain of dispatches on a device bound each way, interleaved in one run,
// once on one buffer (rebinds skipped) and once alternating two buffers
// (every dispatch rebinds). The metrics are ns per dispatch for each way and
// the chosen way's time over the other's (below 1: the table is right).
func BenchmarkBindingChoice(b *testing.B) {
	for _, alternate := range []bool{false, true} {
		name := "same"
		if alternate {
			name = "alternating"
		}
		b.Run(name, func(b *testing.B) {
			const n = 2000
			type way struct {
				f    *fixture
				list *device.CommandList
				took time.Duration
			}
			var ways [2]*way
			chosen := ""
			for i, env := range []string{"push", "sets"} {
				b.Setenv(EnvBinding, env)
				f := benchFixture(b)
				if env == "push" && f.d.caps.Binding != BindPush {
					b.Skip("no push descriptors on this device")
				}
				b.Setenv(EnvBinding, "")
				if c, _ := chooseBinding(f.d.phys, f.d.phys.exts["VK_KHR_push_descriptor"]); chosen == "" {
					chosen = c
				}
				sh := f.mustShader(b, "empty")
				bufs := [2]device.Handle{f.mustBuffer(b, 256), f.mustBuffer(b, 256)}
				list := &device.CommandList{}
				for j := range n {
					buf := bufs[0]
					if alternate {
						buf = bufs[j%2]
					}
					list.Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1}, Args: []device.Arg{{Kind: device.ArgBuffer, Handle: buf, Size: device.WholeSize}}})
				}
				f.submitWait(b, list)
				ways[i] = &way{f: f, list: list}
			}
			b.ResetTimer()
			for r := range b.N {
				for k := range ways { // the side going first alternates
					w := ways[(k+r)%2]
					t0 := time.Now()
					w.f.submitWait(b, w.list)
					w.took += time.Since(t0)
				}
			}
			per := func(w *way) float64 { return float64(w.took.Nanoseconds()) / float64(b.N*n) }
			b.ReportMetric(per(ways[0]), "ns/dispatch_push")
			b.ReportMetric(per(ways[1]), "ns/dispatch_sets")
			ratio := per(ways[0]) / per(ways[1])
			if chosen == BindSets {
				ratio = 1 / ratio
			}
			b.ReportMetric(ratio, "chosen/other")
		})
	}
}
