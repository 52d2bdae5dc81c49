package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestBindlessClosedBufferSlot: a dispatch binding an array whose slot holds
// a buffer closed after the update that put it there is refused naming the
// slot, as one with a closed texture is, on every backend. The Vulkan
// backend let the kernel follow the slot's address into memory the closed
// buffer no longer owned: it read the values of the buffer created after it.
func TestBindlessClosedBufferSlot(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, func() (*ir.Function, error) {
		return dsl.Kernel1D(32, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32]) {
			i := k.DispatchID().X()
			out.Write(i, dsl.ReadBuffer[dsl.F32](arr, dsl.U(1), i))
		}, "arr", "out")
	})
	s := newStream(t, d, device.StreamCompute)
	arr, err := d.NewBindlessArray(2)
	require.NoError(t, err)
	defer arr.Close()
	const n = 64
	fill := func(v float32) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = v + float32(i)
		}
		return x
	}
	out := newBuffer[float32](t, d, n)
	got := make([]float32, n)
	dispatch := func() error {
		clear(got)
		if err := s.Submit(k.Dispatch([3]uint32{n}, arr, out), out.Download(got)); err != nil {
			return err
		}
		return s.Synchronize(ctxT(t))
	}

	old, err := device.NewBuffer[float32](d, n)
	require.NoError(t, err)
	require.NoError(t, arr.EmplaceBuffer(1, old))
	require.NoError(t, s.Submit(old.Upload(fill(1)), arr.Update()))
	require.NoError(t, dispatch())
	require.Equal(t, fill(1), got)

	require.NoError(t, old.Close())
	require.NoError(t, s.Synchronize(ctxT(t)))
	// A buffer of the same size, likely placed where the closed one was.
	next, err := device.NewBuffer[float32](d, n)
	require.NoError(t, err)
	defer next.Close()
	require.NoError(t, s.Submit(next.Upload(fill(100))))
	err = dispatch()
	require.ErrorIs(t, err, device.ErrClosed)
	require.ErrorContains(t, err, "slot 1 holds a ")
	require.ErrorContains(t, err, "buffer")
	require.NotEqual(t, fill(100), got, "the kernel read another buffer through the closed one's slot")

	// Emptied, the slot reads as zero; refilled, it reads the new buffer.
	require.NoError(t, arr.Remove(1))
	require.NoError(t, s.Submit(arr.Update()))
	require.NoError(t, dispatch())
	require.Equal(t, make([]float32, n), got)
	require.NoError(t, arr.EmplaceBuffer(1, next))
	require.NoError(t, s.Submit(arr.Update()))
	require.NoError(t, dispatch())
	require.Equal(t, fill(100), got)
}

// TestBindlessBufferOpsOnTextureSlot: a buffer read, write or length through
// a slot holding a texture reads zero, drops the write and gives length 0, as
// for a slot of the other kind on every backend and path. The emulated path
// followed the texture record's address into the texture's mirror: the read
// gave the first texel's bits, the length the mirror's bytes, and the write
// changed what a later texture read in the thread saw.
func TestBindlessBufferOpsOnTextureSlot(t *testing.T) {
	samplingPaths(t, openDevice, testBindlessBufferOpsOnTextureSlot)
	t.Run("cpu", func(t *testing.T) {
		d, err := device.Open(ctxT(t), "cpu")
		require.NoError(t, err)
		defer d.Close()
		testBindlessBufferOpsOnTextureSlot(t, d)
	})
}

func testBindlessBufferOpsOnTextureSlot(t *testing.T, d *device.Device) {
	k := compile(t, d, func() (*ir.Function, error) {
		return dsl.Kernel1D(1, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32]) {
			out.Write(dsl.U(0), dsl.ReadBuffer[dsl.F32](arr, dsl.U(0), dsl.U(0)))
			out.Write(dsl.U(1), dsl.Convert[float32](dsl.BufferLen[dsl.F32](arr, dsl.U(0))))
			dsl.WriteBuffer(arr, dsl.U(0), dsl.U(0), dsl.F(99))
			out.Write(dsl.U(2), arr.Texture2D(dsl.U(0)).Read(dsl.V2(dsl.U(0), dsl.U(0))).X())
		}, "arr", "out")
	})
	arr, err := d.NewBindlessArray(1)
	require.NoError(t, err)
	defer arr.Close()
	img, err := device.NewImage[float32](d, device.R32Float, 2, 2, 1)
	require.NoError(t, err)
	defer img.Close()
	require.NoError(t, arr.EmplaceTexture(0, img, device.Sampler{}))
	out := upload(t, d, []float32{-1, -1, -1})
	run(t, d, img.Upload([]float32{5, 6, 7, 8}), arr.Update(), k.Dispatch([3]uint32{1}, arr, out))
	require.Equal(t, []float32{0, 0, 5}, download(t, d, out))
}

// TestBindlessRefusedUpdateKeepsSlots: an update the device refuses for one
// slot changes none: the other slots keep what they held until an update is
// accepted, on every backend and path. The emulated path had already taken
// the new texture of slot 0 into its mirror under slot 0's old record, so a
// kernel read the R8 texture's bytes as the RGBA32F texels of the old one.
func TestBindlessRefusedUpdateKeepsSlots(t *testing.T) {
	samplingPaths(t, openDevice, testBindlessRefusedUpdateKeepsSlots)
	t.Run("cpu", func(t *testing.T) {
		d, err := device.Open(ctxT(t), "cpu")
		require.NoError(t, err)
		defer d.Close()
		testBindlessRefusedUpdateKeepsSlots(t, d)
	})
}

func testBindlessRefusedUpdateKeepsSlots(t *testing.T, d *device.Device) {
	k := compile(t, d, func() (*ir.Function, error) {
		return dsl.Kernel1D(1, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32x4]) {
			tex := arr.Texture2D(dsl.U(0))
			out.Write(dsl.U(0), tex.Read(dsl.V2(dsl.U(0), dsl.U(0))))
			out.Write(dsl.U(1), dsl.V4(dsl.Convert[float32](tex.Size().X()), dsl.Convert[float32](tex.Size().Y()), dsl.F(0), dsl.F(0)))
		}, "arr", "out")
	})
	s := newStream(t, d, device.StreamCompute)
	arr, err := d.NewBindlessArray(2)
	require.NoError(t, err)
	defer arr.Close()
	a := rgbaImage(t, d, 2, 2, [][4]float32{{1, 2, 3, 4}, {}, {}, {}})
	b, err := device.NewImage[uint8](d, device.R8Unorm, 4, 4, 1)
	require.NoError(t, err)
	defer b.Close()
	refused, err := device.NewImage[uint32](d, device.R32Uint, 1, 1, 1)
	require.NoError(t, err)
	defer refused.Close()
	out := newBuffer[[4]float32](t, d, 2)
	read := func() [][4]float32 {
		got := make([][4]float32, 2)
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{1}, arr, out), out.Download(got)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		return got
	}
	px := make([]uint8, 16)
	px[0] = 255
	require.NoError(t, arr.EmplaceTexture(0, a, device.Sampler{}))
	require.NoError(t, s.Submit(b.Upload(px), arr.Update()))
	require.Equal(t, [][4]float32{{1, 2, 3, 4}, {2, 2, 0, 0}}, read())

	require.NoError(t, arr.EmplaceTexture(0, b, device.Sampler{}))
	require.NoError(t, arr.EmplaceTexture(1, refused, device.Sampler{}))
	require.ErrorIs(t, s.Submit(arr.Update()), device.ErrUnsupported)
	require.Equal(t, [][4]float32{{1, 2, 3, 4}, {2, 2, 0, 0}}, read(), "slot 0 after an update refused for slot 1")

	// Slot 1 emptied, the next update takes slot 0's change again.
	require.NoError(t, arr.Remove(1))
	require.NoError(t, s.Submit(arr.Update()))
	require.Equal(t, [][4]float32{{1, 0, 0, 1}, {4, 4, 0, 0}}, read())
}

// TestBindlessUpdateOfRefusedList: an update accepted by the backend in a
// list refused for a later command takes effect with that list, that is
// never: the slots stay as the last submitted list left them until the
// update is submitted again, on every backend and path. The host's record
// of the texture slots had moved with the refused list, so later
// dispatches read the old texture's texels under the new one's size and
// format.
func TestBindlessUpdateOfRefusedList(t *testing.T) {
	samplingPaths(t, openDevice, testBindlessUpdateOfRefusedList)
	t.Run("cpu", func(t *testing.T) {
		d, err := device.Open(ctxT(t), "cpu")
		require.NoError(t, err)
		defer d.Close()
		testBindlessUpdateOfRefusedList(t, d)
	})
}

func testBindlessUpdateOfRefusedList(t *testing.T, d *device.Device) {
	k := compile(t, d, func() (*ir.Function, error) {
		return dsl.Kernel1D(1, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32x4]) {
			tex := arr.Texture2D(dsl.U(0))
			out.Write(dsl.U(0), tex.Read(dsl.V2(dsl.U(0), dsl.U(0))))
			out.Write(dsl.U(1), dsl.V4(dsl.Convert[float32](tex.Size().X()), dsl.Convert[float32](tex.Size().Y()), dsl.F(0), dsl.F(0)))
		}, "arr", "out")
	})
	s := newStream(t, d, device.StreamCompute)
	arr, err := d.NewBindlessArray(1)
	require.NoError(t, err)
	defer arr.Close()
	other, err := d.NewBindlessArray(1)
	require.NoError(t, err)
	defer other.Close()
	a := rgbaImage(t, d, 2, 2, [][4]float32{{1, 2, 3, 4}, {}, {}, {}})
	b, err := device.NewImage[uint8](d, device.R8Unorm, 4, 4, 1)
	require.NoError(t, err)
	defer b.Close()
	px := make([]uint8, 16)
	px[0] = 255
	run(t, d, b.Upload(px))
	refused, err := device.NewImage[uint32](d, device.R32Uint, 1, 1, 1)
	require.NoError(t, err)
	defer refused.Close()
	out := newBuffer[[4]float32](t, d, 2)
	read := func() [][4]float32 {
		got := make([][4]float32, 2)
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{1}, arr, out), out.Download(got)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		return got
	}
	oldA := [][4]float32{{1, 2, 3, 4}, {2, 2, 0, 0}}
	newB := [][4]float32{{1, 0, 0, 1}, {4, 4, 0, 0}}
	require.NoError(t, arr.EmplaceTexture(0, a, device.Sampler{}))
	require.NoError(t, s.Submit(arr.Update()))
	require.Equal(t, oldA, read())

	// The update of arr is accepted, the list refused for other's. Round 1
	// follows an update no dispatch bound (the native path writes the next
	// update's descriptors in place).
	for i := range 2 {
		if i == 1 {
			require.NoError(t, arr.EmplaceTexture(0, a, device.Sampler{Filter: device.FilterPoint}))
			require.NoError(t, s.Submit(arr.Update()))
		}
		require.NoError(t, arr.EmplaceTexture(0, b, device.Sampler{}))
		require.NoError(t, other.EmplaceTexture(0, refused, device.Sampler{}))
		scratch := newBuffer[[4]float32](t, d, 2)
		list := []device.Command{arr.Update(), k.Dispatch([3]uint32{1}, arr, scratch), other.Update()}
		if i == 1 {
			list = list[:1:1]
			list = append(list, other.Update()) // no dispatch binding arr in the refused list
		}
		require.ErrorIs(t, s.Submit(list...), device.ErrUnsupported)
		require.Equal(t, oldA, read(), "round %d: slot 0 after its update's list was refused", i)
		require.NoError(t, other.Remove(0))
		require.NoError(t, s.Submit(other.Update()))
		require.NoError(t, arr.EmplaceTexture(0, a, device.Sampler{}))
		require.NoError(t, s.Submit(arr.Update()))
		require.Equal(t, oldA, read())
	}

	// Submitted again, the update takes effect.
	require.NoError(t, arr.EmplaceTexture(0, b, device.Sampler{}))
	require.NoError(t, other.EmplaceTexture(0, refused, device.Sampler{}))
	require.ErrorIs(t, s.Submit(arr.Update(), other.Update()), device.ErrUnsupported)
	require.NoError(t, other.Remove(0))
	require.NoError(t, s.Submit(arr.Update(), other.Update()))
	require.Equal(t, newB, read())
}
