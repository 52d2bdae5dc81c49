package vulkan

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// directs is how many uploads of the stream's last list were direct.
func (f *fixture) directs() int {
	s, err := lookupStream(f.d, f.s)
	require.NoError(f.t, err)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc.lastDirect
}

func f32Seq(n int, k float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)*k + 1
	}
	return v
}

// TestDirectUploads: on a device whose buffers are host-visible and coherent
// (lavapipe), an upload to a buffer nothing else touches is a host copy;
// one after a command that reads the buffer in the same list is staged, and
// both land in stream order.
func TestDirectUploads(t *testing.T) {
	f := newFixture(t)
	if !f.d.phys.unified() {
		t.Skip("buffers are device-local on this device: every upload is staged")
	}
	sh, _ := f.shader("add")
	const n = 256
	ba, bb, bc := f.buffer(4*n), f.buffer(4*n), f.buffer(4*n)
	a, b, b2 := f32Seq(n, 1), f32Seq(n, 2), f32Seq(n, -3)
	outC, outB := make([]byte, 4*n), make([]byte, 4*n)
	f.run(
		&device.BufferUpload{Buffer: ba, Data: bytesOfF32(a)},
		&device.BufferUpload{Buffer: bb, Data: bytesOfF32(b)},
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgBuffer, Handle: ba, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: bb, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: bc, Size: device.WholeSize},
			{Kind: device.ArgUniform, Uniform: uniform32(n)}, {Kind: device.ArgUniform, Uniform: uniformF(1)},
		}},
		// Read by the dispatch above: staged, after it.
		&device.BufferUpload{Buffer: bb, Data: bytesOfF32(b2)},
		&device.BufferDownload{Buffer: bc, Data: outC},
		&device.BufferDownload{Buffer: bb, Data: outB},
	)
	require.Equal(t, 2, f.directs(), "the first two uploads are direct")
	c := f32s(outC)
	for i := range c {
		require.Equal(t, a[i]+b[i], c[i], "element %d", i)
	}
	require.Equal(t, b2, f32s(outB))
}

// TestDirectUploadWaitsForOutstandingWork: a list parked behind an event
// wait reads a buffer, and the next list of the stream uploads to it; the
// upload must be staged (the device has outstanding work), so the read sees
// the old data.
func TestDirectUploadWaitsForOutstandingWork(t *testing.T) {
	f := newFixture(t)
	if !f.d.phys.unified() {
		t.Skip("buffers are device-local on this device: every upload is staged")
	}
	const n = 64
	buf, out := f.buffer(4*n), f.buffer(4*n)
	old, fresh := f32Seq(n, 1), f32Seq(n, 7)
	f.run(&device.BufferUpload{Buffer: buf, Data: bytesOfF32(old)})
	e, err := f.d.CreateEvent()
	require.NoError(t, err)
	defer f.d.DestroyEvent(e)
	other, err := f.d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	defer f.d.DestroyStream(other)
	require.NoError(t, f.d.WaitEvent(e, f.s, 1)) // parked: nothing signals 1 yet
	require.NoError(t, f.d.Dispatch(f.s, (&device.CommandList{}).Add(&device.BufferCopy{Src: buf, Dst: out, Size: 4 * n})))
	require.NoError(t, f.d.Dispatch(f.s, (&device.CommandList{}).Add(&device.BufferUpload{Buffer: buf, Data: bytesOfF32(fresh)})))
	require.Equal(t, 0, f.directs(), "work is outstanding: the upload is staged")
	require.NoError(t, f.d.SignalEvent(e, other, 1))
	got, gotBuf := make([]byte, 4*n), make([]byte, 4*n)
	f.run(&device.BufferDownload{Buffer: out, Data: got}, &device.BufferDownload{Buffer: buf, Data: gotBuf})
	require.Equal(t, old, f32s(got), "the copy ran before the upload, as the stream orders them")
	require.Equal(t, fresh, f32s(gotBuf))
	require.NoError(t, f.d.SynchronizeStream(context.Background(), other))
}

// TestDirectUploadFailedList: a list whose upload would be direct but that
// fails later leaves the buffer as it was.
func TestDirectUploadFailedList(t *testing.T) {
	f := newFixture(t)
	const n = 64
	buf, other := f.buffer(4*n), f.buffer(4*n)
	old := f32Seq(n, 1)
	f.run(&device.BufferUpload{Buffer: buf, Data: bytesOfF32(old)})
	err := f.d.Dispatch(f.s, (&device.CommandList{}).Add(
		&device.BufferUpload{Buffer: buf, Data: bytesOfF32(f32Seq(n, 5))},
		&device.BufferCopy{Src: other, Dst: other, Size: 8})) // invalid: overlapping copy
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	got := make([]byte, 4*n)
	f.run(&device.BufferDownload{Buffer: buf, Data: got})
	require.Equal(t, old, f32s(got))
}

// TestDirectUploadAfterBindless: an upload after a dispatch that binds a
// bindless array is staged (the kernel may read the buffer through a slot),
// so the kernel sees the buffer as it was.
func TestDirectUploadAfterBindless(t *testing.T) {
	f := newFixture(t)
	sh := f.bindlessShader()
	arr, err := f.d.CreateBindlessArray(1)
	require.NoError(t, err)
	defer f.d.DestroyBindlessArray(arr)
	buf, out := f.buffer(16), f.buffer(4)
	f.run(&device.BufferUpload{Buffer: buf, Data: bytesOfU32([]uint32{1, 2, 3, 4})},
		&device.BindlessUpdate{Array: arr, Slots: []device.BindlessSlot{{Slot: 0, Op: device.BindlessSetBuffer, Buffer: buf, Size: device.WholeSize}}})
	got, gotBuf := make([]byte, 4), make([]byte, 16)
	f.run(
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{1, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgBindlessArray, Handle: arr}, {Kind: device.ArgBuffer, Handle: out, Size: device.WholeSize}}},
		&device.BufferUpload{Buffer: buf, Data: bytesOfU32([]uint32{100, 200, 300, 400})},
		&device.BufferDownload{Buffer: out, Data: got},
		&device.BufferDownload{Buffer: buf, Data: gotBuf},
	)
	require.Equal(t, 0, f.directs())
	require.Equal(t, []uint32{10}, u32s(got), "the kernel read the buffer before the upload")
	require.Equal(t, []uint32{100, 200, 300, 400}, u32s(gotBuf))
}
