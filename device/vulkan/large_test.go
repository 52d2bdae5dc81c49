package vulkan

import (
	"encoding/binary"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/stretchr/testify/require"
)

// abiSignature is abi.comp's signature as lucent's compiler would give it
// (abi.comp follows kernel ABI v1: o at binding 0, the dispatch header, mul
// at push offset 24).
var abiSignature = device.Signature{
	Args: []device.Argument{
		{Name: "o", Kind: device.ArgBuffer, ElemSize: 4, Access: device.Write},
		{Name: "mul", Kind: device.ArgUniform, Size: 4, Scalar: device.ScalarUint, ScalarBits: 32, Components: 1},
	},
	BlockSize: [3]uint32{32, 1, 1},
}

// TestSplitDispatch runs more workgroups than maxComputeWorkGroupCount
// allows in one call: lucent kernels get block_offset per piece, raw modules
// vkCmdDispatchBase. Every element is checked.
func TestSplitDispatch(t *testing.T) {
	f := newFixture(t)
	limit := f.d.caps.MaxWorkgroupCount[0]
	t.Run("abi", func(t *testing.T) {
		sh, _, err := f.d.CreateShader(device.ShaderDesc{SPIRV: compile(t, "abi"), Signature: &abiSignature})
		require.NoError(t, err)
		defer f.d.DestroyShader(sh)
		n := limit*32 + 1000
		out := f.buffer(4 * uint64(n))
		got := make([]byte, 4*n)
		f.run(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgBuffer, Handle: out, Size: device.WholeSize}, {Kind: device.ArgUniform, Uniform: uniform32(3)}}},
			&device.BufferDownload{Buffer: out, Data: got})
		for i := uint32(0); i < n; i++ {
			if v := binary.LittleEndian.Uint32(got[4*i:]); v != i*3 {
				t.Fatalf("element %d: got %d, want %d", i, v, i*3)
			}
		}
	})
	t.Run("raw", func(t *testing.T) {
		sh, _ := f.shader("add")
		n := limit*64 + 100
		a, b, c := f.buffer(4*uint64(n)), f.buffer(4*uint64(n)), f.buffer(4*uint64(n))
		in := make([]float32, n)
		for i := range in {
			in[i] = float32(i % 4099)
		}
		got := make([]byte, 4*n)
		f.run(&device.BufferUpload{Buffer: a, Data: bytesOfF32(in)},
			&device.BufferCopy{Src: a, Dst: b, Size: 4 * uint64(n)},
			&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: []device.Arg{
				{Kind: device.ArgBuffer, Handle: a, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: b, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: c, Size: device.WholeSize},
				{Kind: device.ArgUniform, Uniform: uniform32(n)}, {Kind: device.ArgUniform, Uniform: uniformF(2)}}},
			&device.BufferDownload{Buffer: c, Data: got})
		for i, v := range f32s(got) {
			if v != in[i]*3 {
				t.Fatalf("element %d: got %v, want %v", i, v, in[i]*3)
			}
		}
	})
}

// TestBufferBeyondStorageRange: a buffer larger than maxStorageBufferRange
// is uploaded, copied, downloaded and processed by a kernel reaching it by
// device address past the descriptor limit; binding it whole by descriptor
// fails with a clear error.
func TestBufferBeyondStorageRange(t *testing.T) {
	f := newFixture(t)
	limit := f.d.caps.MaxStorageBufferRange
	size := limit + 16<<20
	n := size / 4
	a, b, c := f.buffer(size), f.buffer(size), f.buffer(size)
	in := make([]byte, size)
	for i := uint64(0); i < n; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(i*2654435761))
	}
	sh, _ := f.shader("bda")
	first := (limit - 4<<20) / 4 // straddles the descriptor limit
	count := uint32(n - first)
	tail := make([]byte, 4*uint64(count))
	copied := make([]byte, 4*uint64(count))
	f.run(
		&device.BufferUpload{Buffer: a, Data: in},
		&device.BufferCopy{Src: a, Dst: b, Size: size},
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{count, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgBuffer, Handle: b, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: c, Size: device.WholeSize},
			{Kind: device.ArgUniform, Uniform: binary.LittleEndian.AppendUint64(nil, first)},
			{Kind: device.ArgUniform, Uniform: uniform32(count)}}},
		&device.BufferDownload{Buffer: c, Offset: 4 * first, Data: tail},
		&device.BufferDownload{Buffer: b, Offset: 4 * first, Data: copied},
	)
	require.Equal(t, in[4*first:], copied)
	for i := uint64(0); i < uint64(count); i++ {
		want := binary.LittleEndian.Uint32(in[4*(first+i):]) + 1
		if got := binary.LittleEndian.Uint32(tail[4*i:]); got != want {
			t.Fatalf("element %d: got %d, want %d", first+i, got, want)
		}
	}
	add, _ := f.shader("add")
	err := f.d.Dispatch(f.s, (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: add, Size: [3]uint32{1, 1, 1}, Args: []device.Arg{
		{Kind: device.ArgBuffer, Handle: a, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: b, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: c, Size: device.WholeSize},
		{Kind: device.ArgUniform, Uniform: uniform32(1)}, {Kind: device.ArgUniform, Uniform: uniformF(1)}}}))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.Contains(t, err.Error(), "maxStorageBufferRange")
}

func TestIndirectDispatch(t *testing.T) {
	f := newFixture(t)
	sh, _ := f.shader("add")
	const n, groups = 1024, 5 // the kernel covers groups*64 = 320 elements
	a, b, c := f.buffer(4*n), f.buffer(4*n), f.buffer(4*n)
	ind := f.buffer(32)
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i) + 0.5
	}
	got := make([]byte, 4*n)
	f.run(
		&device.BufferUpload{Buffer: a, Data: bytesOfF32(in)},
		&device.BufferUpload{Buffer: b, Data: bytesOfF32(in)},
		&device.BufferUpload{Buffer: c, Data: make([]byte, 4*n)},
		&device.BufferUpload{Buffer: ind, Offset: 8, Data: bytesOfU32([]uint32{groups, 1, 1})},
		&device.ShaderDispatch{Shader: sh, Indirect: ind, IndirectOffset: 8, Args: []device.Arg{
			{Kind: device.ArgBuffer, Handle: a, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: b, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: c, Size: device.WholeSize},
			{Kind: device.ArgUniform, Uniform: uniform32(n)}, {Kind: device.ArgUniform, Uniform: uniformF(1)}}},
		&device.BufferDownload{Buffer: c, Data: got},
	)
	for i, v := range f32s(got) {
		want := float32(0)
		if i < groups*64 {
			want = in[i] * 2
		}
		require.Equal(t, want, v, "element %d", i)
	}
	// A lucent kernel through the same path: dispatch_size does not clip.
	abi, _, err := f.d.CreateShader(device.ShaderDesc{SPIRV: compile(t, "abi"), Signature: &abiSignature})
	require.NoError(t, err)
	defer f.d.DestroyShader(abi)
	got2 := make([]byte, 4*n)
	f.run(&device.ShaderDispatch{Shader: abi, Indirect: ind, IndirectOffset: 8, Args: []device.Arg{
		{Kind: device.ArgBuffer, Handle: c, Size: device.WholeSize}, {Kind: device.ArgUniform, Uniform: uniform32(5)}}},
		&device.BufferDownload{Buffer: c, Data: got2})
	for i, v := range u32s(got2)[:groups*32] {
		require.Equal(t, uint32(i*5), v, "element %d", i)
	}
}

// bindlessShader is testdata/device/bindless.comp: out[i] is the sum of the
// uints in slot i's range of the bindless array argument.
func (f *fixture) bindlessShader() device.Handle {
	f.t.Helper()
	sig := device.Signature{
		Args: []device.Argument{
			{Name: "slots", Kind: device.ArgBindlessArray, Access: device.Read},
			{Name: "o", Kind: device.ArgBuffer, ElemSize: 4, Access: device.Write},
		},
		BlockSize: [3]uint32{1, 1, 1},
	}
	sh, _, err := f.d.CreateShader(device.ShaderDesc{SPIRV: compile(f.t, "bindless"), Signature: &sig})
	require.NoError(f.t, err)
	f.t.Cleanup(func() { require.NoError(f.t, f.d.DestroyShader(sh)) })
	return sh
}

func TestBindlessBuffers(t *testing.T) {
	f := newFixture(t)
	sh := f.bindlessShader()
	arr, err := f.d.CreateBindlessArray(4)
	require.NoError(t, err)
	defer f.d.DestroyBindlessArray(arr)
	x, y := f.buffer(64), f.buffer(40)
	xs := []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	ys := []uint32{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}
	out := f.buffer(16)
	got := make([]byte, 16)
	f.run(
		&device.BufferUpload{Buffer: x, Data: bytesOfU32(xs)},
		&device.BufferUpload{Buffer: y, Data: bytesOfU32(ys)},
		&device.BindlessUpdate{Array: arr, Slots: []device.BindlessSlot{
			{Slot: 0, Op: device.BindlessSetBuffer, Buffer: x, Size: device.WholeSize},
			{Slot: 1, Op: device.BindlessSetBuffer, Buffer: y, Offset: 8, Size: 12},
			{Slot: 3, Op: device.BindlessSetBuffer, Buffer: x, Offset: 60, Size: device.WholeSize},
		}},
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{4, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgBindlessArray, Handle: arr}, {Kind: device.ArgBuffer, Handle: out, Size: device.WholeSize}}},
		&device.BufferDownload{Buffer: out, Data: got},
		// Then empty slot 0 and run again.
		&device.BindlessUpdate{Array: arr, Slots: []device.BindlessSlot{{Slot: 0, Op: device.BindlessRemove}}},
	)
	require.Equal(t, []uint32{136, 300 + 400 + 500, 0, 16}, u32s(got))
	f.run(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{4, 1, 1}, Args: []device.Arg{
		{Kind: device.ArgBindlessArray, Handle: arr}, {Kind: device.ArgBuffer, Handle: out, Size: device.WholeSize}}},
		&device.BufferDownload{Buffer: out, Data: got})
	require.Equal(t, []uint32{0, 1200, 0, 16}, u32s(got))
	err = f.d.Dispatch(f.s, (&device.CommandList{}).Add(&device.BindlessUpdate{Array: arr, Slots: []device.BindlessSlot{
		{Slot: 4, Op: device.BindlessSetBuffer, Buffer: x, Size: device.WholeSize}}}))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
}
