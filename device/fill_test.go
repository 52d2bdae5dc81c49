package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// TestFill fills views with values whose bytes repeat every 4 (a native
// fill) and with values that do not (an upload of the filled range), on the
// test backend and with validation on.
func TestFill(t *testing.T) {
	d := openDevice(t)
	s, err := d.NewStream(device.StreamCopy)
	require.NoError(t, err)
	defer s.Close()

	f32, err := device.NewBuffer[float32](d, 64)
	require.NoError(t, err)
	defer f32.Close()
	u8, err := device.NewBuffer[uint8](d, 64)
	require.NoError(t, err)
	defer u8.Close()
	type rgb struct{ R, G, B float32 }
	v3, err := device.NewBuffer[rgb](d, 10)
	require.NoError(t, err)
	defer v3.Close()

	require.NoError(t, s.Submit(
		f32.Fill(0),
		f32.View(8, 16).Fill(2.5),
		u8.Fill(7),
		u8.View(1, 5).Fill(9), // unaligned: uploaded
		v3.Fill(rgb{1, 2, 3}), // 12-byte pattern: uploaded
		v3.View(4, 2).Fill(rgb{}),
	))
	require.NoError(t, s.Synchronize(ctxT(t))) // Read orders itself after no other stream
	gotF, err := f32.Read(ctxT(t))
	require.NoError(t, err)
	gotU, err := u8.Read(ctxT(t))
	require.NoError(t, err)
	gotV, err := v3.Read(ctxT(t))
	require.NoError(t, err)
	for i, v := range gotF {
		want := float32(0)
		if i >= 8 && i < 24 {
			want = 2.5
		}
		require.Equal(t, want, v, "f32[%d]", i)
	}
	for i, v := range gotU {
		want := uint8(7)
		if i >= 1 && i < 6 {
			want = 9
		}
		require.Equal(t, want, v, "u8[%d]", i)
	}
	for i, v := range gotV {
		want := rgb{1, 2, 3}
		if i == 4 || i == 5 {
			want = rgb{}
		}
		require.Equal(t, want, v, "rgb[%d]", i)
	}
}

// TestFillCommand: a raw BufferFill states its write and refuses unaligned
// ranges; Fill picks the native command exactly when the pattern allows.
func TestFillCommand(t *testing.T) {
	c := &device.BufferFill{Buffer: 1, Offset: 2, Size: 8}
	require.ErrorIs(t, c.Check(), device.ErrInvalidArgument)
	require.ErrorContains(t, c.Check(), "multiples of 4")
	c = &device.BufferFill{Buffer: 1, Offset: 4, Size: 8, Value: 0xdeadbeef}
	require.NoError(t, c.Check())
	require.Equal(t, []device.Usage{{Handle: 1, Kind: device.KindBuffer, Access: device.Write, Offset: 4, Size: 8}}, c.Usages())

	d := openDevice(t)
	b, err := device.NewBuffer[uint16](d, 16)
	require.NoError(t, err)
	defer b.Close()
	fill, ok := b.Fill(0x0102).(*device.BufferFill)
	require.True(t, ok, "a 2-byte value over an aligned range is a native fill")
	require.Equal(t, uint32(0x01020102), fill.Value)
	_, ok = b.View(1, 4).Fill(3).(*device.BufferUpload)
	require.True(t, ok, "an unaligned range is uploaded")
	var nilBuf *device.Buffer[uint16]
	require.ErrorIs(t, s0(t, d).Submit(nilBuf.Fill(1)), device.ErrInvalidArgument)
}

func s0(t *testing.T, d *device.Device) *device.Stream {
	s, err := d.NewStream(device.StreamCopy)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}
