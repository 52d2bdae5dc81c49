package vulkan

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/stretchr/testify/require"
)

func TestOpenCapabilities(t *testing.T) {
	d, _ := openDevice(t)
	c := d.Capabilities()
	require.Equal(t, "vulkan", c.Backend)
	require.NotEmpty(t, c.Adapter.Name)
	require.True(t, c.TimelineSemaphores)
	require.NotZero(t, c.MaxWorkgroupCount[0])
	require.NotZero(t, c.MaxStorageBufferRange)
	require.GreaterOrEqual(t, c.MaxPushConstantSize, uint32(128))
	require.Equal(t, uintptr(d.vk), d.NativeDevice())
	require.Equal(t, c.WarpSize, d.WarpSize())
	t.Logf("%s: %+v", c.Adapter, c)
}

func TestBufferRoundTrip(t *testing.T) {
	d, _ := openDevice(t)
	s, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	defer d.DestroyStream(s)
	const n = 1000
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i*7 + 3)
	}
	a, err := d.CreateBuffer(device.BufferDesc{Size: 4 * n, ElemSize: 4})
	require.NoError(t, err)
	b, err := d.CreateBuffer(device.BufferDesc{Size: 4 * n, ElemSize: 4})
	require.NoError(t, err)
	out := make([]byte, 4*n)
	half := make([]byte, 2*n)
	list := (&device.CommandList{}).Add(
		&device.BufferUpload{Buffer: a, Data: bytesOfU32(in)},
		&device.BufferCopy{Src: a, Dst: b, Size: 4 * n},
		&device.BufferDownload{Buffer: b, Data: out},
		&device.BufferDownload{Buffer: b, Offset: 2 * n, Data: half},
	)
	require.NoError(t, d.Dispatch(s, list))
	require.NoError(t, d.SynchronizeStream(context.Background(), s))
	require.Equal(t, in, u32s(out))
	require.Equal(t, in[n/2:], u32s(half))
	require.NoError(t, d.DestroyBuffer(a))
	require.NoError(t, d.DestroyBuffer(b))
}

func TestNativeObjects(t *testing.T) {
	d, _ := openDevice(t)
	b, err := d.CreateBuffer(device.BufferDesc{Size: 64})
	require.NoError(t, err)
	tex, err := d.CreateTexture(device.TextureDesc{Dim: 2, Format: device.RGBA8Unorm, Width: 4, Height: 4, Depth: 1, Levels: 1})
	require.NoError(t, err)
	s, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	d.live.RLock()
	want := map[device.Handle]uintptr{
		b:   uintptr(d.objects[b].(*buffer).raw.handle),
		tex: uintptr(d.objects[tex].(*texture).image),
		s:   uintptr(d.objects[s].(*stream).sem),
	}
	d.live.RUnlock()
	for h, w := range want {
		got, err := d.NativeObject(h)
		require.NoError(t, err)
		require.NotZero(t, got)
		require.Equal(t, w, got)
	}
	require.NoError(t, d.DestroyBuffer(b))
	_, err = d.NativeObject(b)
	require.ErrorIs(t, err, device.ErrClosed)
	require.NoError(t, d.DestroyTexture(tex))
	require.NoError(t, d.DestroyStream(s))
}
