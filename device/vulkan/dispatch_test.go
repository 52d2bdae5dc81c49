package vulkan

import (
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/vk"
	"github.com/stretchr/testify/require"
)

// fixture is an open device with one compute stream.
type fixture struct {
	t    *testing.T
	d    *Device
	s    device.Handle
	msgs *messages
}

func newFixture(t *testing.T) *fixture {
	d, msgs := openDevice(t)
	s, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.DestroyStream(s)) })
	return &fixture{t, d, s, msgs}
}

func (f *fixture) buffer(size uint64) device.Handle {
	h, err := f.d.CreateBuffer(device.BufferDesc{Size: size})
	require.NoError(f.t, err)
	f.t.Cleanup(func() { require.NoError(f.t, f.d.DestroyBuffer(h)) })
	return h
}

func (f *fixture) shader(name string) (device.Handle, device.Signature) {
	h, sig, err := f.d.CreateShader(device.ShaderDesc{SPIRV: compile(f.t, name), Name: name})
	require.NoError(f.t, err)
	f.t.Cleanup(func() { require.NoError(f.t, f.d.DestroyShader(h)) })
	return h, sig
}

func (f *fixture) run(cmds ...device.Command) {
	f.t.Helper()
	require.NoError(f.t, f.d.Dispatch(f.s, (&device.CommandList{}).Add(cmds...)))
	require.NoError(f.t, f.d.SynchronizeStream(context.Background(), f.s))
}

func TestReflectRawModule(t *testing.T) {
	f := newFixture(t)
	h, sig := f.shader("add")
	require.Equal(t, [3]uint32{64, 1, 1}, sig.BlockSize)
	lay := f.layout(h)
	require.False(t, lay.header)
	require.Len(t, sig.Args, 5)
	for i, want := range []device.Access{device.Read, device.Read, device.Write} {
		require.Equal(t, device.ArgBuffer, sig.Args[i].Kind)
		require.Equal(t, uint32(i), lay.args[i].binding)
		require.Equal(t, want, sig.Args[i].Access, "argument %d", i)
		require.Equal(t, uint32(4), sig.Args[i].ElemSize)
	}
	require.Equal(t, device.Argument{Name: "n", Kind: device.ArgUniform, Size: 4,
		Scalar: device.ScalarUint, ScalarBits: 32, Components: 1}, sig.Args[3])
	require.Equal(t, device.Argument{Name: "scale", Kind: device.ArgUniform, Size: 4,
		Scalar: device.ScalarFloat, ScalarBits: 32, Components: 1}, sig.Args[4])
	require.Equal(t, argLayout{desc: noDescriptor, offset: 0, size: 4}, lay.args[3])
	require.Equal(t, argLayout{desc: noDescriptor, offset: 4, size: 4}, lay.args[4])
	require.Equal(t, uint32(8), lay.pushSize)
	bh, bsig := f.shader("bda")
	blay := f.layout(bh)
	require.True(t, bsig.Args[0].ByAddress)
	require.Equal(t, device.ArgBuffer, bsig.Args[1].Kind)
	require.Equal(t, uint32(8), blay.args[1].offset)
	require.Equal(t, device.ArgUniform, bsig.Args[2].Kind)
}

// layout is the Vulkan layout the device keeps for shader h.
func (f *fixture) layout(h device.Handle) shaderLayout {
	f.t.Helper()
	f.d.live.RLock()
	defer f.d.live.RUnlock()
	sh, err := lookup[*shader](f.d, h, "shader")
	require.NoError(f.t, err)
	return sh.lay
}

func TestDispatchAdd(t *testing.T) {
	f := newFixture(t)
	sh, _ := f.shader("add")
	const n = 1000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), float32(3*i+1)
	}
	ba, bb, bc := f.buffer(4*n), f.buffer(4*n), f.buffer(4*n)
	out := make([]byte, 4*n)
	f.run(
		&device.BufferUpload{Buffer: ba, Data: bytesOfF32(a)},
		&device.BufferUpload{Buffer: bb, Data: bytesOfF32(b)},
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgBuffer, Handle: ba, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: bb, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: bc, Size: device.WholeSize},
			{Kind: device.ArgUniform, Uniform: uniform32(n)}, {Kind: device.ArgUniform, Uniform: uniformF(0.5)},
		}},
		&device.BufferDownload{Buffer: bc, Data: out},
	)
	got := f32s(out)
	for i := range got {
		require.Equal(t, a[i]+b[i]*0.5, got[i], "element %d", i)
	}
}

// stepArgs runs one link of the chain: dst[i] = src[(i+1)%n]*3 + k.
func stepArgs(src, dst device.Handle, n, k uint32) []device.Arg {
	return []device.Arg{
		{Kind: device.ArgBuffer, Handle: src, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: dst, Size: device.WholeSize},
		{Kind: device.ArgUniform, Uniform: uniform32(n)}, {Kind: device.ArgUniform, Uniform: uniform32(k)},
	}
}

// TestDependentChain runs 50 dependent dispatches ping-ponging between two
// buffers in one command list. Synchronization validation (on in every test)
// reports a missing barrier as an error; the result is checked against the
// CPU element by element.
func TestDependentChain(t *testing.T) {
	f := newFixture(t)
	sh, _ := f.shader("step")
	const n, links = 4096, 50
	init := make([]uint32, n)
	for i := range init {
		init[i] = uint32(i)
	}
	x, y := f.buffer(4*n), f.buffer(4*n)
	cmds := []device.Command{&device.BufferUpload{Buffer: x, Data: bytesOfU32(init)}}
	want := append([]uint32(nil), init...)
	src, dst := x, y
	for k := uint32(0); k < links; k++ {
		cmds = append(cmds, &device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: stepArgs(src, dst, n, k)})
		next := make([]uint32, n)
		for i := range next {
			next[i] = want[(i+1)%n]*3 + k
		}
		want = next
		src, dst = dst, src
	}
	out := make([]byte, 4*n)
	cmds = append(cmds, &device.BufferDownload{Buffer: src, Data: out})
	f.run(cmds...)
	require.Equal(t, want, u32s(out))
}

// TestBarriersFollowDependencies: independent dispatches get no barrier
// between them, dependent ones get exactly one.
func TestBarriersFollowDependencies(t *testing.T) {
	f := newFixture(t)
	sh, _ := f.shader("step")
	a, b, c, e := f.buffer(256), f.buffer(256), f.buffer(256), f.buffer(256)
	s, err := lookupStream(f.d, f.s)
	require.NoError(t, err)
	barriers := func(cmds ...device.Command) int {
		require.NoError(t, f.d.Dispatch(f.s, (&device.CommandList{}).Add(cmds...)))
		require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.enc.last
	}
	k := func(src, dst device.Handle) device.Command {
		return &device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1}, Args: stepArgs(src, dst, 64, 1)}
	}
	// One barrier orders each list after the stream's earlier work.
	require.Equal(t, 1, barriers(k(a, b), k(c, e)), "independent dispatches")
	require.Equal(t, 2, barriers(k(a, b), k(b, c)), "read after write")
	require.Equal(t, 2, barriers(k(a, b), k(c, a)), "write after read")
	require.Equal(t, 1, barriers(k(a, b), k(a, c)), "two readers of one buffer")
}

// TestBarrierSecondScopeNarrowed: a barrier between dispatches orders the
// writes before it for compute only (the stage of the command that needed
// it); a later command of another stage touching them gets a barrier for all
// commands, one that touches nothing written gets none. Synchronization
// validation (on in every test) checks each scope is wide enough.
func TestBarrierSecondScopeNarrowed(t *testing.T) {
	f := newFixture(t)
	sh, _ := f.shader("step")
	a, b, c, e, g := f.buffer(256), f.buffer(256), f.buffer(256), f.buffer(256), f.buffer(256)
	s, err := lookupStream(f.d, f.s)
	require.NoError(t, err)
	barriers := func(cmds ...device.Command) [2]int {
		require.NoError(t, f.d.Dispatch(f.s, (&device.CommandList{}).Add(cmds...)))
		require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
		s.mu.Lock()
		defer s.mu.Unlock()
		return [2]int{s.enc.last, s.enc.lastWide}
	}
	k := func(src, dst device.Handle) device.Command {
		return &device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1}, Args: stepArgs(src, dst, 64, 1)}
	}
	cp := func(src, dst device.Handle) device.Command {
		return &device.BufferCopy{Src: src, Dst: dst, Size: 256}
	}
	// [barriers, of which for all commands]; the list's leading one is wide.
	require.Equal(t, [2]int{3, 1}, barriers(k(a, b), k(b, c), k(c, a)), "a chain: compute to compute")
	require.Equal(t, [2]int{3, 2}, barriers(k(a, b), k(b, c), cp(b, e)),
		"a copy reading what a dispatch wrote before the narrow barrier")
	require.Equal(t, [2]int{2, 1}, barriers(k(a, b), k(b, c), cp(e, g)),
		"a copy touching nothing written")
	require.Equal(t, [2]int{3, 2}, barriers(k(a, b), k(b, c), cp(e, a)),
		"a copy overwriting what a dispatch read before the narrow barrier")
	require.Empty(t, formatMessages(f.msgs.take()), "validation")
}

// TestSyncValidationCatchesMissingBarrier records the same dependent pair of
// dispatches by hand, without the barrier the encoder would add, and checks
// that synchronization validation (on in every test) reports the hazard: the
// check the other tests pass is a real one.
func TestSyncValidationCatchesMissingBarrier(t *testing.T) {
	f := newFixture(t)
	sh, _ := f.shader("step")
	x, y := f.buffer(256), f.buffer(256)
	f.d.live.RLock()
	shd, _ := lookup[*shader](f.d, sh, "shader")
	bx, _ := lookup[*buffer](f.d, x, "buffer")
	by, _ := lookup[*buffer](f.d, y, "buffer")
	f.d.live.RUnlock()
	fn := f.d.fn
	record := func(cb vk.CommandBuffer, src, dst *buffer) {
		infos := []vk.DescriptorBufferInfo{{Buffer: src.raw.handle, Range: 256}, {Buffer: dst.raw.handle, Range: 256}}
		writes := []vk.WriteDescriptorSet{
			{SType: vk.STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, DstBinding: 0, DescriptorCount: 1, DescriptorType: vk.DESCRIPTOR_TYPE_STORAGE_BUFFER, PBufferInfo: &infos[0]},
			{SType: vk.STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, DstBinding: 1, DescriptorCount: 1, DescriptorType: vk.DESCRIPTOR_TYPE_STORAGE_BUFFER, PBufferInfo: &infos[1]},
		}
		pc := uniform32(64, 1)
		fn.CmdBindPipeline(cb, vk.PIPELINE_BIND_POINT_COMPUTE, shd.pipeline)
		if f.d.caps.PushDescriptors {
			fn.CmdPushDescriptorSetKHR(cb, vk.PIPELINE_BIND_POINT_COMPUTE, shd.layout, 0, 2, &writes[0])
		} else { // a set from the shader's pool, as the encoder's fallback does
			shd.sets.mu.Lock()
			set, err := shd.sets.alloc(f.d, shd)
			shd.sets.mu.Unlock()
			require.NoError(t, err)
			writes[0].DstSet, writes[1].DstSet = set, set
			require.NoError(t, fn.UpdateDescriptorSets(f.d.vk, 2, &writes[0], 0, nil))
			fn.CmdBindDescriptorSets(cb, vk.PIPELINE_BIND_POINT_COMPUTE, shd.layout, 0, 1, &set, 0, nil)
		}
		fn.CmdPushConstants(cb, shd.layout, vk.SHADER_STAGE_COMPUTE_BIT, 0, 8, unsafe.Pointer(&pc[0]))
		fn.CmdDispatch(cb, 1, 1, 1)
	}
	custom := &device.Custom{
		Name:      "unsynchronised pair",
		Resources: []device.Usage{{Handle: x, Kind: device.KindBuffer, Access: device.ReadWrite}, {Handle: y, Kind: device.KindBuffer, Access: device.ReadWrite}},
		Func: func(native uintptr) error {
			cb := vk.CommandBuffer(native)
			record(cb, bx, by)
			record(cb, by, bx) // reads y right after the first dispatch wrote it
			return nil
		},
	}
	require.NoError(t, f.d.Dispatch(f.s, (&device.CommandList{}).Add(custom)))
	require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
	got := formatMessages(f.msgs.take())
	require.Contains(t, got, "SYNC-HAZARD", "synchronization validation reports the missing barrier")
}

// TestManySmallTransfersInOneList submits 100,000 one-element uploads of one
// buffer in one list, consecutive and then at scattered offsets, and reads
// every element back. order compared each command with every access since
// the last barrier: the lists took 23 s and about as long to encode; they
// now take well under a second, the consecutive uploads merged into one
// access and the scattered ones ordered by a barrier every maxAccesses.
// Without the validation layer, whose own checks of 100,000 copies take
// seconds.
func TestManySmallTransfersInOneList(t *testing.T) {
	d, err := Open(device.Options{DeviceIndex: -1})
	testenv.Need(t, "a Vulkan device", err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	sh, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	f := &fixture{t, d, sh, &messages{}}
	const n = 100_000
	b := f.buffer(4 * n)
	for _, stride := range []int{1, 7919} {
		list := &device.CommandList{}
		for i := range n {
			j := i * stride % n
			list.Add(&device.BufferUpload{Buffer: b, Offset: 4 * uint64(j), Data: bytesOfU32([]uint32{uint32(j) + uint32(stride)})})
		}
		start := time.Now()
		f.submit(list)
		require.Less(t, time.Since(start), 5*time.Second, "stride %d", stride)
		s, err := lookupStream(f.d, f.s)
		require.NoError(t, err)
		s.mu.Lock()
		barriers := s.enc.last
		s.mu.Unlock()
		require.LessOrEqual(t, barriers, 2+n/maxAccesses, "stride %d", stride)
		out := make([]byte, 4*n)
		f.run(&device.BufferDownload{Buffer: b, Data: out})
		for i, v := range u32s(out) {
			if v != uint32(i)+uint32(stride) {
				require.Failf(t, "wrong element", "stride %d: element %d is %d", stride, i, v)
			}
		}
	}
}
