package vulkan

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// TestBindlessArrayStartsEmpty: device memory starts undefined (on a
// discrete GPU it is not mapped, and holds whatever was there), so an array's
// slots must be emptied on the GPU before the first command reads them. The
// table is poisoned here with records pointing at a buffer of 777s — what a
// stale allocation could hold — and a dispatch that was never preceded by an
// update must read every slot as empty. A list that fails after taking the
// clear on must leave it to the next list.
func TestBindlessArrayStartsEmpty(t *testing.T) {
	f := newFixture(t)
	sh := f.bindlessShader()
	stale := f.buffer(16)
	f.run(&device.BufferUpload{Buffer: stale, Data: bytesOfU32([]uint32{777, 777, 777, 777})})
	f.d.live.RLock()
	staleBuf, err := lookup[*buffer](f.d, stale, "buffer")
	f.d.live.RUnlock()
	require.NoError(t, err)

	newPoisoned := func() device.Handle {
		arr, err := f.d.CreateBindlessArray(4)
		require.NoError(t, err)
		t.Cleanup(func() { f.d.DestroyBindlessArray(arr) })
		f.d.live.RLock()
		b, err := lookup[*bindless](f.d, arr, "bindless array")
		f.d.live.RUnlock()
		require.NoError(t, err)
		poison(t, b, staleBuf)
		return arr
	}
	out := f.buffer(16)
	got := make([]byte, 16)
	dispatch := func(arr device.Handle) device.Command {
		return &device.ShaderDispatch{Shader: sh, Size: [3]uint32{4, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgBindlessArray, Handle: arr}, {Kind: device.ArgBuffer, Handle: out, Size: device.WholeSize}}}
	}

	arr := newPoisoned()
	f.run(dispatch(arr), &device.BufferDownload{Buffer: out, Data: got})
	require.Equal(t, []uint32{0, 0, 0, 0}, u32s(got), "slots never updated read as empty")

	arr = newPoisoned()
	err = f.d.Dispatch(f.s, (&device.CommandList{}).Add(dispatch(arr),
		&device.BufferCopy{Src: out, Dst: out, Size: 8})) // invalid: overlapping copy
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	f.run(dispatch(arr), &device.BufferDownload{Buffer: out, Data: got})
	require.Equal(t, []uint32{0, 0, 0, 0}, u32s(got), "the failed list left the clear to this one")
}

// poison fills b's records with slots pointing at 16 bytes of buf.
func poison(t *testing.T, b *bindless, buf *buffer) {
	t.Helper()
	p := b.table.raw.bytes()
	if p == nil {
		t.Skip("the table is not host-visible on this device: nothing to poison from the host")
	}
	for i := 0; i+slotRecordSize <= len(p); i += slotRecordSize {
		binary.LittleEndian.PutUint64(p[i:], buf.raw.addr)
		binary.LittleEndian.PutUint64(p[i+8:], 16)
	}
}

// TestFailedListLeavesTextureInit: a list that fails after a texture's first
// use took on its layout transition gives it back; the next list records
// it (the validation layer reports an image used in an undefined layout
// otherwise).
func TestFailedListLeavesTextureInit(t *testing.T) {
	f := newFixture(t)
	tex := f.texture(device.TextureDesc{Dim: 2, Format: device.RGBA8Unorm, Width: 4, Height: 4, Depth: 1, Levels: 1})
	buf := f.buffer(64)
	data := make([]byte, 64)
	for i := range data {
		data[i] = byte(i)
	}
	err := f.d.Dispatch(f.s, (&device.CommandList{}).Add(
		&device.TextureUpload{Texture: tex, Data: data},
		&device.BufferCopy{Src: buf, Dst: buf, Size: 8})) // invalid: overlapping copy
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	got := make([]byte, 64)
	f.run(&device.TextureUpload{Texture: tex, Data: data}, &device.TextureDownload{Texture: tex, Data: got})
	require.Equal(t, data, got)
}

// TestFailedListLeavesSlotBuffers: a list whose update puts a buffer in a
// slot and then fails leaves the slot as it was on the device, and so in the
// array's record of its buffer slots: after the buffer the slot still holds
// is closed, a dispatch binding the array is refused naming the slot (the
// record had taken the failed list's buffer, and the kernel would have read
// the closed one's memory).
func TestFailedListLeavesSlotBuffers(t *testing.T) {
	f := newFixture(t)
	sh := f.bindlessShader()
	arr, err := f.d.CreateBindlessArray(4)
	require.NoError(t, err)
	defer f.d.DestroyBindlessArray(arr)
	held, err := f.d.CreateBuffer(device.BufferDesc{Size: 64})
	require.NoError(t, err)
	other, out := f.buffer(64), f.buffer(16)
	set := func(b device.Handle) *device.BindlessUpdate {
		return &device.BindlessUpdate{Array: arr, Slots: []device.BindlessSlot{{Slot: 0, Op: device.BindlessSetBuffer, Buffer: b, Size: device.WholeSize}}}
	}
	dispatch := &device.ShaderDispatch{Shader: sh, Size: [3]uint32{4, 1, 1}, Args: []device.Arg{
		{Kind: device.ArgBindlessArray, Handle: arr}, {Kind: device.ArgBuffer, Handle: out, Size: device.WholeSize}}}
	f.run(set(held), dispatch)

	err = f.d.Dispatch(f.s, (&device.CommandList{}).Add(set(other),
		&device.BufferCopy{Src: out, Dst: out, Size: 8})) // invalid: overlapping copy
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.NoError(t, f.d.DestroyBuffer(held))
	err = f.d.Dispatch(f.s, (&device.CommandList{}).Add(dispatch))
	require.ErrorIs(t, err, device.ErrClosed)
	require.ErrorContains(t, err, "bindless array slot 0 holds a closed buffer")

	// Set in the list that binds it, the slot's buffer is the new one.
	f.run(set(other), dispatch)
}

// TestSlotBufferOutlivesDispatch: a buffer closed while a dispatch that can
// reach it through a bindless slot is queued is released only after that
// dispatch: its lifetime takes the work of the arrays holding it. Before,
// it waited for its own commands only (the update that put it in the slot),
// so the queued kernel could read freed memory.
func TestSlotBufferOutlivesDispatch(t *testing.T) {
	f := newFixture(t)
	sh := f.bindlessShader()
	arr, err := f.d.CreateBindlessArray(4)
	require.NoError(t, err)
	defer f.d.DestroyBindlessArray(arr)
	x, out := f.buffer(64), f.buffer(16)
	f.run(&device.BindlessUpdate{Array: arr, Slots: []device.BindlessSlot{{Slot: 2, Op: device.BindlessSetBuffer, Buffer: x, Size: device.WholeSize}}})
	require.NoError(t, f.d.Dispatch(f.s, (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{4, 1, 1}, Args: []device.Arg{
		{Kind: device.ArgBindlessArray, Handle: arr}, {Kind: device.ArgBuffer, Handle: out, Size: device.WholeSize}}})))
	f.d.live.RLock()
	xb, err := lookup[*buffer](f.d, x, "buffer")
	require.NoError(t, err)
	ab, err := lookup[*bindless](f.d, arr, "bindless array")
	require.NoError(t, err)
	f.d.live.RUnlock()
	dispatched := ab.waits()
	require.NotEmpty(t, dispatched)
	lifetime := xb.lifetime()
	for s, v := range dispatched {
		require.GreaterOrEqual(t, lifetime[s], v, "the buffer's release would not wait for the dispatch")
	}
	require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
}
