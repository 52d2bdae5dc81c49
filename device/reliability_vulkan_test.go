package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// Two devices once handed out the same handle numbers, so a buffer of device
// B uploaded on a stream of device A wrote A's buffer of that number. Every
// way a handle enters — commands, arguments, bindless slots, events, the raw
// contract — now refuses another device's, wrapper on or off.
func TestVulkanForeignHandles(t *testing.T) {
	for _, validation := range []bool{true, false} {
		name := "wrapper off"
		if validation {
			name = "wrapper on"
		}
		t.Run(name, func(t *testing.T) {
			var opts []device.Option
			if !validation {
				opts = append(opts, func(o *device.Options) { o.Validation = false })
			}
			a, b := openVulkan(t, opts...), openVulkan(t, opts...)
			sa := newStream(t, a, device.StreamCompute)
			sb := newStream(t, b, device.StreamCompute)
			// Created in the same order, so the per-device counters agree.
			ba := newBuffer[float32](t, a, 64)
			bb := newBuffer[float32](t, b, 64)
			require.NotEqual(t, ba.Handle(), bb.Handle(), "handles of two devices must differ")

			ones := make([]float32, 64)
			for i := range ones {
				ones[i] = 1
			}
			require.NoError(t, sa.Submit(ba.Upload(make([]float32, 64))))
			foreign := func(err error) {
				t.Helper()
				require.ErrorIs(t, err, device.ErrInvalidArgument)
				require.ErrorContains(t, err, "another device")
			}
			foreign(sa.Submit(bb.Upload(ones)))
			foreign(sa.Submit(bb.Download(make([]float32, 64))))
			foreign(sa.Submit(ba.CopyFrom(bb.All())))

			sh := newShader(t, a, "saxpy", saxpySPIRV)
			foreign(sa.Submit(sh.Dispatch([3]uint32{64}, ba, bb, float32(2), uint32(64))))
			foreign(device.CommandError(sh.Dispatch([3]uint32{64}, bb, ba, float32(2), uint32(64))))

			// The raw contract refuses them too.
			foreign(a.Interface().Dispatch(sa.Handle(), (&device.CommandList{}).Add(
				&device.BufferUpload{Buffer: bb.Handle(), Data: make([]byte, 16)})))

			eb, err := b.NewEvent()
			require.NoError(t, err)
			defer eb.Close()
			foreign(eb.Signal(sa, 1))
			foreign(a.Interface().SignalEvent(eb.Handle(), sa.Handle(), 1))

			if a.Capabilities().BufferDeviceAddress {
				arr, err := a.NewBindlessArray(4)
				require.NoError(t, err)
				defer arr.Close()
				foreign(arr.EmplaceBuffer(0, bb))
				foreign(a.Interface().Dispatch(sa.Handle(), (&device.CommandList{}).Add(&device.BindlessUpdate{
					Array: arr.Handle(), Slots: []device.BindlessSlot{{Slot: 0, Op: device.BindlessSetBuffer, Buffer: bb.Handle(), Size: device.WholeSize}}})))
			}

			// Device A's buffer was never written by any of it.
			got := make([]float32, 64)
			require.NoError(t, sa.Submit(ba.Download(got)))
			require.NoError(t, sa.Synchronize(ctxT(t)))
			require.Equal(t, make([]float32, 64), got)
			require.NoError(t, sb.Synchronize(ctxT(t)))
		})
	}
}

// An empty view once bound the rest of the buffer (Size 0 meant "to the end"):
// View(16, 0) let a kernel write 48 elements, and View(n, 0) sent a zero-range
// descriptor to the driver. Now it is a buffer of length 0.
func TestVulkanEmptyViews(t *testing.T) {
	d := openVulkan(t)
	s := newStream(t, d, device.StreamCompute)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out, n dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		k.If(i.Eq(dsl.Lit[uint32](0)), func() { n.Write(i, out.Len()) })
		k.If(i.Lt(out.Len()), func() { out.Write(i, dsl.Lit[uint32](7)) })
	}, "out", "n")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()

	buf := newBuffer[uint32](t, d, 64)
	lens := newBuffer[uint32](t, d, 1)
	for _, off := range []int{0, 16, 63, 64} {
		v := buf.View(off, 0)
		require.NoError(t, v.Err())
		got, n := make([]uint32, 64), []uint32{99}
		require.NoError(t, s.Submit(
			buf.Upload(make([]uint32, 64)), lens.Upload(n),
			k.Dispatch([3]uint32{64}, v, lens),
			v.Upload(nil), v.Download(nil), v.CopyFrom(buf.View(0, 0)),
			buf.Download(got), lens.Download(n),
		))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.Equal(t, make([]uint32, 64), got, "View(%d, 0) must reach no element", off)
		require.Equal(t, []uint32{0}, n, "View(%d, 0) has length 0 in the kernel", off)
	}
	// An empty view in a bindless slot is an empty slot.
	if d.Capabilities().BufferDeviceAddress {
		arr, err := d.NewBindlessArray(2)
		require.NoError(t, err)
		defer arr.Close()
		require.NoError(t, arr.EmplaceBuffer(0, buf.View(16, 0)))
		require.NoError(t, s.Submit(arr.Update()))
		require.NoError(t, s.Synchronize(ctxT(t)))
	}
}
