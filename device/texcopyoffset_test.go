package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// TestBufferTextureCopyOffsets copies a level from and to views of a buffer:
// at a byte offset that is a multiple of the texel size and of 4 the pixels
// arrive; at another the copy is refused naming the offset and the format,
// on every backend. The cpu backend used to make the copy the Vulkan backend
// refuses (vkCmdCopyBufferToImage's bufferOffset rule).
func TestBufferTextureCopyOffsets(t *testing.T) {
	d := openDevice(t)
	img, err := device.NewImage[[2]uint8](d, device.RG8Unorm, 3, 5, 1)
	require.NoError(t, err)
	defer img.Close()
	px := make([][2]uint8, 15)
	for i := range px {
		px[i] = [2]uint8{uint8(i), uint8(100 + i)}
	}
	buf := upload(t, d, append(make([][2]uint8, 2), px...))
	out := upload(t, d, make([][2]uint8, 20))
	run(t, d, img.Level(0).CopyFromBuffer(buf.View(2, 15)), img.Level(0).CopyToBuffer(out.View(4, 15)))
	require.Equal(t, px, download(t, d, out)[4:19])

	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	for _, cmd := range []device.Command{img.Level(0).CopyFromBuffer(buf.View(1, 15)), img.Level(0).CopyToBuffer(out.View(3, 15))} {
		err := s.Submit(cmd)
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		require.Regexp(t, `buffer offset [26] of a RG8Unorm copy is not a multiple of the texel size 2 and of 4`, err.Error())
	}
}
