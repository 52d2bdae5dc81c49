package vulkan

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// asDeviceLocal makes new buffer h what a buffer of memory the host does not
// write is (a discrete GPU's): its first list clears it with a fill, and
// its uploads and downloads are staged. Where the buffer is mapped its
// bytes are first set to garbage, as a freed buffer's memory may hold.
func (f *fixture) asDeviceLocal(h device.Handle) {
	f.t.Helper()
	b, err := lookup[*buffer](f.d, h, "buffer")
	require.NoError(f.t, err)
	for i, m := 0, b.raw.bytes(); i < len(m); i++ {
		m[i] = 0xab
	}
	b.raw.coherent, b.raw.readable = false, false
	b.needsClear.Store(true)
}

// TestBufferClearedByFirstList: a new buffer the host cannot write is
// zeroed by a fill in the first list that uses it, once: not again when
// that list fails (the next list does it) nor when it is replayed.
func TestBufferClearedByFirstList(t *testing.T) {
	f, add, _, b := replayFixture(t, "sets")
	read := func(h device.Handle) []float32 {
		out := make([]byte, 4*replayN)
		f.run(&device.BufferDownload{Buffer: h, Data: out})
		return f32s(out)
	}
	all := func(v float32) []float32 {
		out := make([]float32, replayN)
		for i := range out {
			out[i] = v
		}
		return out
	}

	c := f.buffer(4 * replayN)
	f.asDeviceLocal(c)
	require.Equal(t, all(0), read(c), "first read of a new buffer")

	// A list that fails gives the clear back to the next one.
	c = f.buffer(4 * replayN)
	f.asDeviceLocal(c)
	err := f.d.Dispatch(f.s, (&device.CommandList{}).Add(
		&device.BufferUpload{Buffer: c, Data: bytesOfF32([]float32{5})},
		&device.BufferDownload{Buffer: c, Offset: 4 * replayN, Data: make([]byte, 4)}))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.Equal(t, all(0), read(c), "after a failed first list")

	// c += b (b is 2), three times: the first list clears c and is not kept,
	// the second is kept, the third replays it without clearing c again.
	c = f.buffer(4 * replayN)
	f.asDeviceLocal(c)
	list := addList(add, c, b, c, 1)
	before, _ := f.replayed()
	for i := range 3 {
		f.submit(list)
		require.Equal(t, all(float32(2*(i+1))), read(c), "after list %d", i+1)
	}
	after, _ := f.replayed()
	require.Equal(t, before+1, after, "the third list replays the second")
}
