package vulkan

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
	"github.com/stretchr/testify/require"
)

// TestDescriptorSetFallback re-runs the dispatch tests with
// LUCENT_VULKAN_NO_PUSH_DESCRIPTORS=1: every resource argument is bound
// through a cached descriptor set, results are checked element by element
// by the tests themselves and the validation layer is on.
func TestDescriptorSetFallback(t *testing.T) {
	t.Setenv(EnvNoPushDescriptors, "1")
	d, _ := openDevice(t)
	require.False(t, d.Capabilities().PushDescriptors, "the forced fallback must be reported")
	runBindingSuite(t)
}

// TestPushDescriptorPath re-runs the same tests with push descriptors
// forced (LUCENT_VULKAN_BINDING=push), so the path the binding table does
// not choose on this driver stays tested.
func TestPushDescriptorPath(t *testing.T) {
	t.Setenv(EnvBinding, "push")
	d, _ := openDevice(t)
	if !d.Capabilities().PushDescriptors {
		t.Skip("no VK_KHR_push_descriptor on this device")
	}
	runBindingSuite(t)
}

func runBindingSuite(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"DispatchAdd", TestDispatchAdd},
		{"DependentChain", TestDependentChain},
		{"BarriersFollowDependencies", TestBarriersFollowDependencies},
		{"SyncValidationCatchesMissingBarrier", TestSyncValidationCatchesMissingBarrier},
		{"SplitDispatch", TestSplitDispatch},
		{"BufferBeyondStorageRange", TestBufferBeyondStorageRange},
		{"IndirectDispatch", TestIndirectDispatch},
		{"BindlessBuffers", TestBindlessBuffers},
		{"StorageImageDispatch", TestStorageImageDispatch},
		{"SampledTexture", TestSampledTexture},
		{"ImageLayouts", TestImageLayoutsNoPerformanceWarnings},
		{"ConcurrentUse", TestConcurrentUse},
		{"DestroyWhileInFlight", TestDestroyWhileInFlight},
		{"BadInput", TestBadInput},
	} {
		t.Run(tc.name, tc.fn)
	}
}

// TestPushDescriptorsReported: without an override, the capabilities say
// what the binding table chose, and PushDescriptors agrees with it.
func TestPushDescriptorsReported(t *testing.T) {
	t.Setenv(EnvNoPushDescriptors, "")
	t.Setenv(EnvBinding, "")
	d, _ := openDevice(t)
	want, why := chooseBinding(d.phys, d.phys.exts["VK_KHR_push_descriptor"])
	c := d.Capabilities()
	require.Equal(t, want, c.Binding)
	require.Equal(t, why, c.BindingReason)
	require.Equal(t, want == BindPush, c.PushDescriptors)
	if d.phys.p12.DriverID == vk.DRIVER_ID_MESA_LLVMPIPE {
		require.Equal(t, BindSets, c.Binding, "lavapipe binds cached sets (BenchmarkBindingChoice)")
	}
}

// TestBindingTable: the table's rows, the default, the missing extension and
// the overrides.
func TestBindingTable(t *testing.T) {
	phys := func(id vk.DriverId, version uint32) *physical {
		p := &physical{}
		p.p12.DriverID, p.props.DriverVersion = id, version
		return p
	}
	for _, tc := range []struct {
		name    string
		p       *physical
		hasPush bool
		env     string
		want    string
	}{
		{"lavapipe 22.3", phys(vk.DRIVER_ID_MESA_LLVMPIPE, 22<<22|3<<12|6), true, "", BindSets},
		{"lavapipe 25", phys(vk.DRIVER_ID_MESA_LLVMPIPE, 25<<22), true, "", BindSets},
		{"nvidia", phys(vk.DRIVER_ID_NVIDIA_PROPRIETARY, 570<<22), true, "", BindPush},
		{"no extension", phys(vk.DRIVER_ID_NVIDIA_PROPRIETARY, 570<<22), false, "", BindSets},
		{"forced push", phys(vk.DRIVER_ID_MESA_LLVMPIPE, 25<<22), true, "push", BindPush},
		{"forced push, no extension", phys(vk.DRIVER_ID_MESA_LLVMPIPE, 25<<22), false, "push", BindSets},
		{"forced sets", phys(vk.DRIVER_ID_NVIDIA_PROPRIETARY, 570<<22), true, "sets", BindSets},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvNoPushDescriptors, "")
			t.Setenv(EnvBinding, tc.env)
			got, why := chooseBinding(tc.p, tc.hasPush)
			require.Equal(t, tc.want, got)
			require.NotEmpty(t, why)
		})
	}
}

// addArgs binds c = a + b*scale over n elements of views starting at
// element off of each buffer.
func addArgs(a, b, c device.Handle, off, n uint64) []device.Arg {
	return []device.Arg{
		{Kind: device.ArgBuffer, Handle: a, Offset: 4 * off, Size: 4 * n},
		{Kind: device.ArgBuffer, Handle: b, Offset: 4 * off, Size: 4 * n},
		{Kind: device.ArgBuffer, Handle: c, Offset: 4 * off, Size: 4 * n},
		{Kind: device.ArgUniform, Uniform: uniform32(uint32(n))}, {Kind: device.ArgUniform, Uniform: uniformF(2)},
	}
}

func cacheState(d *Device, sh device.Handle) (allocated, cached, spare, pools int) {
	d.live.RLock()
	s := d.objects[sh].(*shader)
	d.live.RUnlock()
	s.sets.mu.Lock()
	defer s.sets.mu.Unlock()
	return s.sets.allocated, len(s.sets.sets), len(s.sets.spare), len(s.sets.pools)
}

// TestDescriptorSetCache: repeated dispatches with the same resources reuse
// one set; new views get new sets from pools that grow; destroying a buffer
// drops its sets, which are then rewritten for new resources instead of
// allocating.
func TestDescriptorSetCache(t *testing.T) {
	t.Setenv(EnvNoPushDescriptors, "1")
	f := newFixture(t)
	sh, _ := f.shader("add")
	const n, views, per = 64 * 20, 20, 64
	g := uint64(f.d.caps.MemoryGranularity / 4)
	if g == 0 {
		g = 1
	}
	total := uint64(n) * g
	in := make([]float32, total)
	for i := range in {
		in[i] = float32(i % 1013)
	}
	a, b := f.buffer(4*total), f.buffer(4*total)
	f.run(&device.BufferUpload{Buffer: a, Data: bytesOfF32(in)}, &device.BufferUpload{Buffer: b, Data: bytesOfF32(in)})
	check := func(c device.Handle, off, cnt uint64) {
		t.Helper()
		out := make([]byte, 4*total)
		f.run(&device.BufferDownload{Buffer: c, Data: out})
		got := f32s(out)
		for i := off; i < off+cnt; i++ {
			require.Equal(t, in[i]*3, got[i], "element %d", i)
		}
	}

	c := f.d2buffer(4 * total)
	for range 30 {
		f.run(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: addArgs(a, b, c, 0, n)})
	}
	check(c, 0, n)
	alloc, cached, _, pools := cacheState(f.d, sh)
	require.Equal(t, 1, alloc, "30 dispatches with the same resources allocate one set")
	require.Equal(t, 1, cached)
	require.Equal(t, 1, pools)

	// Views at distinct offsets: one set each, pools grow past the first.
	var list device.CommandList
	for v := uint64(0); v < views; v++ {
		list.Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{per, 1, 1}, Args: addArgs(a, b, c, (v+1)*g, per)})
	}
	require.NoError(t, f.d.Dispatch(f.s, &list))
	require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
	for v := uint64(0); v < views; v++ {
		check(c, (v+1)*g, per)
	}
	alloc, cached, _, pools = cacheState(f.d, sh)
	require.Equal(t, 1+views, alloc)
	require.Equal(t, 1+views, cached)
	require.Equal(t, 2, pools, "16 sets, then 32")
	require.NoError(t, f.d.Dispatch(f.s, &list)) // all cached now
	require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
	alloc, _, _, _ = cacheState(f.d, sh)
	require.Equal(t, 1+views, alloc)

	// Destroying c drops every set naming it; they are recycled, not leaked.
	require.NoError(t, f.d.DestroyBuffer(c))
	alloc, cached, spare, _ := cacheState(f.d, sh)
	require.Equal(t, 1+views, alloc)
	require.Zero(t, cached)
	require.Equal(t, 1+views, spare, "the GPU was idle: the sets are spare at once")
	f.d.setIdx.mu.Lock()
	require.Empty(t, f.d.setIdx.byRes, "no resource still names a dropped set")
	f.d.setIdx.mu.Unlock()

	c2 := f.buffer(4 * total)
	f.run(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: addArgs(a, b, c2, 0, n)})
	check(c2, 0, n)
	alloc, cached, spare, _ = cacheState(f.d, sh)
	require.Equal(t, 1+views, alloc, "a spare set is rewritten")
	require.Equal(t, 1, cached)
	require.Equal(t, views, spare)
}

// d2buffer creates a buffer the test destroys itself.
func (f *fixture) d2buffer(size uint64) device.Handle {
	h, err := f.d.CreateBuffer(device.BufferDesc{Size: size})
	require.NoError(f.t, err)
	return h
}

// TestDescriptorSetRecycledAfterGPU destroys a buffer while dispatches that
// bind its set are in flight, then binds a new buffer at once: the dropped
// set must not be rewritten before the GPU is done with it (the validation
// layer reports updating a set in use), and both results must be right.
func TestDescriptorSetRecycledAfterGPU(t *testing.T) {
	t.Setenv(EnvNoPushDescriptors, "1")
	f := newFixture(t)
	sh, _ := f.shader("step")
	const n, links = 1 << 16, 20
	init := make([]uint32, n)
	for i := range init {
		init[i] = uint32(i)
	}
	x := f.buffer(4 * n)
	y := f.d2buffer(4 * n)
	cmds := []device.Command{&device.BufferUpload{Buffer: x, Data: bytesOfU32(init)}}
	want := append([]uint32(nil), init...)
	src, dst := x, y
	for k := uint32(0); k < links; k++ {
		cmds = append(cmds, &device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: stepArgs(src, dst, n, k)})
		next := make([]uint32, n)
		for i := range next {
			next[i] = want[(i+1)%n]*3 + k
		}
		want, src, dst = next, dst, src
	}
	first := make([]byte, 4*n)
	cmds = append(cmds, &device.BufferDownload{Buffer: src, Data: first})
	require.NoError(t, f.d.Dispatch(f.s, (&device.CommandList{}).Add(cmds...)))
	require.NoError(t, f.d.DestroyBuffer(y)) // its two sets are still bound by work in flight

	z := f.buffer(4 * n)
	second := make([]byte, 4*n)
	require.NoError(t, f.d.Dispatch(f.s, (&device.CommandList{}).Add(
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: stepArgs(x, z, n, 7)},
		&device.BufferDownload{Buffer: z, Data: second})))
	require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
	require.Equal(t, want, u32s(first))
	final, got := u32s(first), u32s(second) // x holds the chain's result (links is even)
	for i := range n {
		if w := final[(i+1)%n]*3 + 7; got[i] != w {
			t.Fatalf("element %d: got %d, want %d", i, got[i], w)
		}
	}
	alloc, cached, _, _ := cacheState(f.d, sh)
	require.LessOrEqual(t, alloc, 3, "at most one set more than the chain needed")
	require.Equal(t, 1, cached, "only the set naming x and z is still cached")
}

// TestDescriptorSetDroppedWithTexture: destroying a texture drops the sets
// naming it (per mip level) from the cache and the resource index.
func TestDescriptorSetDroppedWithTexture(t *testing.T) {
	t.Setenv(EnvNoPushDescriptors, "1")
	f := newFixture(t)
	sh, _ := f.shader("image")
	const w, h = 8, 4
	desc := device.TextureDesc{Dim: 2, Format: device.RGBA32Float, Width: w, Height: h, Depth: 1, Levels: 2}
	src := f.texture(desc)
	dst, err := f.d.CreateTexture(desc)
	require.NoError(t, err)
	in := make([]float32, w*h*4)
	for i := range in {
		in[i] = float32(i)
	}
	out := make([]byte, 4*len(in))
	args := func(level uint32) []device.Arg {
		return []device.Arg{{Kind: device.ArgTexture, Handle: src, Level: level}, {Kind: device.ArgTexture, Handle: dst, Level: level}}
	}
	ext1 := desc.LevelExtent(1)
	f.run(&device.TextureUpload{Texture: src, Data: bytesOfF32(in)},
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{w, h, 1}, Args: args(0)},
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{ext1[0], ext1[1], 1}, Args: args(1)},
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{w, h, 1}, Args: args(0)},
		&device.TextureDownload{Texture: dst, Data: out})
	got := f32s(out)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := (y*w + x) * 4
			require.Equal(t, []float32{in[i]*2 + float32(x), in[i+1]*2 + float32(y), in[i+2] * 2, in[i+3]*2 + 1}, got[i:i+4], "texel (%d, %d)", x, y)
		}
	}
	alloc, cached, _, _ := cacheState(f.d, sh)
	require.Equal(t, 2, alloc, "one set per mip level")
	require.Equal(t, 2, cached)
	require.NoError(t, f.d.DestroyTexture(dst))
	_, cached, spare, _ := cacheState(f.d, sh)
	require.Zero(t, cached)
	require.Equal(t, 2, spare)
	f.d.setIdx.mu.Lock()
	require.Empty(t, f.d.setIdx.byRes)
	f.d.setIdx.mu.Unlock()
}
