package device

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tests in this file exercise the typed API's own checks: they all fail
// (or build a command) before anything reaches a backend, so the resources are
// built without one. End-to-end behaviour is in device_vulkan_test.go.

func detached(h Handle, kind ResourceKind) *resource {
	return &resource{dev: &Device{live: map[Handle]*resource{}}, h: h, kind: kind}
}

func testBuffer[T any](h Handle, n int) *Buffer[T] {
	return &Buffer[T]{resource: detached(h, KindBuffer), n: n}
}

func testImage[T any](h Handle, f Format, w, hgt, levels uint32) *Image[T] {
	return &Image[T]{texture[T]{resource: detached(h, KindTexture),
		desc: TextureDesc{Dim: 2, Format: f, Width: w, Height: hgt, Depth: 1, Levels: levels}}}
}

func TestBufferViewRanges(t *testing.T) {
	b := testBuffer[float32](7, 10)
	for _, c := range []struct {
		off, n int
		ok     bool
	}{
		{0, 10, true}, {0, 0, true}, {10, 0, true}, {3, 7, true}, {9, 1, true},
		{3, 8, false}, {-1, 2, false}, {0, -1, false}, {11, 0, false}, {10, 1, false},
		{1, int(^uint(0) >> 1), false},
	} {
		v := b.View(c.off, c.n)
		if c.ok {
			require.NoError(t, v.Err(), "View(%d, %d)", c.off, c.n)
			require.Equal(t, c.off, v.Offset())
			require.Equal(t, c.n, v.Len())
		} else {
			require.ErrorIs(t, v.Err(), ErrInvalidArgument, "View(%d, %d)", c.off, c.n)
			// The error travels with every command built from the view.
			require.ErrorIs(t, CommandError(v.Upload(nil)), ErrInvalidArgument)
		}
	}
	sub := b.View(2, 6).View(1, 3)
	require.NoError(t, sub.Err())
	require.Equal(t, 3, sub.Offset())
	require.Equal(t, 3, sub.Len())
	require.ErrorIs(t, b.View(2, 6).View(4, 3).Err(), ErrInvalidArgument)
	require.ErrorIs(t, BufferView[float32]{}.Err(), ErrInvalidArgument)
}

func TestBufferCommands(t *testing.T) {
	b := testBuffer[[2]uint32](7, 10)
	src := make([][2]uint32, 4)
	up := b.View(3, 5).Upload(src)
	require.NoError(t, CommandError(up))
	require.Equal(t, &BufferUpload{Buffer: 7, Offset: 24, Data: asBytes(src)}, up)
	require.Len(t, up.(*BufferUpload).Data, 32)

	down := b.Download(make([][2]uint32, 10))
	require.NoError(t, CommandError(down))
	require.Equal(t, uint64(0), down.(*BufferDownload).Offset)
	require.Len(t, down.(*BufferDownload).Data, 80)

	require.ErrorIs(t, CommandError(b.View(3, 5).Upload(make([][2]uint32, 6))), ErrInvalidArgument)
	require.ErrorIs(t, CommandError(b.Download(make([][2]uint32, 11))), ErrInvalidArgument)

	c := testBuffer[[2]uint32](8, 4)
	cp := b.View(5, 4).CopyFrom(c.All())
	require.Equal(t, &BufferCopy{Src: 8, SrcOffset: 0, Dst: 7, DstOffset: 40, Size: 32}, cp)
	require.ErrorIs(t, CommandError(c.CopyFrom(b.All())), ErrInvalidArgument)
}

func TestBufferClosed(t *testing.T) {
	b := testBuffer[int32](7, 4)
	b.closed.Store(true)
	err := CommandError(b.Upload([]int32{1}))
	require.ErrorIs(t, err, ErrClosed)
	require.Contains(t, err.Error(), "buffer #7")
}

func TestImageLevels(t *testing.T) {
	img := testImage[[4]uint8](9, RGBA8Unorm, 16, 8, 3)
	require.Equal(t, [3]uint32{4, 2, 1}, img.Level(2).Extent())
	require.Equal(t, 8, img.Level(2).Pixels())
	require.ErrorIs(t, img.Level(3).Err(), ErrInvalidArgument)
	require.ErrorIs(t, img.Level(-1).Err(), ErrInvalidArgument)

	up := img.Level(1).Upload(make([][4]uint8, 32))
	require.NoError(t, CommandError(up))
	require.Equal(t, Region{Level: 1, Size: [3]uint32{8, 4, 1}}, up.(*TextureUpload).Region)
	require.Len(t, up.(*TextureUpload).Data, 128)

	err := CommandError(img.Upload(make([][4]uint8, 127)))
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "127 pixels")

	buf := testBuffer[[4]uint8](10, 200)
	c := img.Level(0).CopyFromBuffer(buf.View(8, 128))
	require.Equal(t, &BufferToTexture{Buffer: 10, Offset: 32, Texture: 9, Region: Region{Size: [3]uint32{16, 8, 1}}}, c)
	require.ErrorIs(t, CommandError(img.Level(0).CopyToBuffer(buf.View(0, 100))), ErrInvalidArgument)

	other := testImage[[4]uint8](11, RGBA8Unorm, 8, 4, 1)
	require.Equal(t, &TextureCopy{Src: 11, SrcLevel: 0, Dst: 9, DstLevel: 1}, img.Level(1).CopyFrom(other.Level(0)))
	require.ErrorIs(t, CommandError(img.Level(0).CopyFrom(other.Level(0))), ErrInvalidArgument)
}

func TestBindlessSlots(t *testing.T) {
	arr := &BindlessArray{resource: detached(12, KindBindlessArray), size: 4, pending: map[uint32]BindlessSlot{}}
	buf := testBuffer[float32](7, 10)
	img := testImage[float32](9, R32Float, 4, 4, 1)
	require.NoError(t, arr.EmplaceTexture(3, img, Sampler{FilterLinear, AddressRepeat}))
	require.NoError(t, arr.EmplaceBuffer(1, buf.View(2, 4)))
	require.NoError(t, arr.Remove(0))
	require.ErrorIs(t, arr.EmplaceBuffer(4, buf), ErrInvalidArgument)
	require.ErrorIs(t, arr.EmplaceBuffer(-1, buf), ErrInvalidArgument)
	require.ErrorIs(t, arr.EmplaceBuffer(0, buf.View(8, 4)), ErrInvalidArgument)
	require.ErrorIs(t, arr.EmplaceTexture(0, img, Sampler{Filter: 7}), ErrInvalidArgument)

	up := arr.Update().(*BindlessUpdate)
	require.Equal(t, Handle(12), up.Array)
	require.Equal(t, []BindlessSlot{
		{Slot: 0, Op: BindlessRemove},
		{Slot: 1, Op: BindlessSetBuffer, Buffer: 7, Offset: 8, Size: 16},
		{Slot: 3, Op: BindlessSetTexture, Texture: 9, Sampler: Sampler{FilterLinear, AddressRepeat}},
	}, up.Slots)
	// An Update no Submit took (here: never submitted) is sent again by the
	// next, but for slots changed since; once one is taken, nothing is left.
	require.NoError(t, arr.Remove(1))
	again := arr.Update().(*BindlessUpdate)
	require.Equal(t, []BindlessSlot{
		{Slot: 0, Op: BindlessRemove},
		{Slot: 1, Op: BindlessRemove},
		{Slot: 3, Op: BindlessSetTexture, Texture: 9, Sampler: Sampler{FilterLinear, AddressRepeat}},
	}, again.Slots, "a dropped Update's changes go again, the newer change of slot 1 in place of its own")
	again.accept()
	require.True(t, again.Accepted())
	require.Empty(t, arr.Update().(*BindlessUpdate).Slots, "an Update a Submit took leaves nothing pending")

	buf.closed.Store(true)
	require.ErrorIs(t, arr.EmplaceBuffer(0, buf), ErrClosed)
}

func TestSubmitRejectsBeforeBackend(t *testing.T) {
	dev := &Device{live: map[Handle]*resource{}} // no backend: every case must fail first
	copyStream := &Stream{resource: &resource{dev: dev, h: 3, kind: KindStream}, kind: StreamCopy}
	sh := &Shader{resource: &resource{dev: dev, h: 4, kind: KindShader}, name: "k"}
	buf := &Buffer[float32]{resource: &resource{dev: dev, h: 5, kind: KindBuffer}, n: 4}

	err := copyStream.Submit(buf.Upload([]float32{1}), sh.Dispatch([3]uint32{4}))
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "command 1 (dispatch)")
	require.Contains(t, err.Error(), "copy stream")

	err = copyStream.Submit(buf.View(2, 3).Upload(nil))
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "command 0")

	err = copyStream.Submit(nil)
	require.ErrorIs(t, err, ErrInvalidArgument)

	require.ErrorIs(t, copyStream.SubmitList(&CommandList{Callbacks: []func(){nil}}), ErrInvalidArgument)
	require.NoError(t, copyStream.Submit(), "an empty submission does nothing")

	copyStream.closed.Store(true)
	require.True(t, errors.Is(copyStream.Submit(buf.Upload(nil)), ErrClosed))
}
