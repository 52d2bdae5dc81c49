package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// TestNewResourcesReadZero: a buffer, an image and a volume read as zeros
// when first made, on every backend, though each takes the memory of one
// just filled and closed. On Vulkan a new resource used to show the closed
// one's bytes (its sub-allocated range was handed out again as it was),
// where the cpu backend gave zeros.
func TestNewResourcesReadZero(t *testing.T) {
	d := openDevice(t)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	ctx := ctxT(t)
	for round := range 3 {
		// 16 KiB shares a memory block with others; 24 MiB has one of its own.
		for _, n := range []int{4099, 6 << 20} {
			b, err := device.NewBuffer[uint32](d, n)
			require.NoError(t, err)
			got := make([]uint32, b.Len())
			require.NoError(t, s.Submit(b.Download(got), b.Fill(0xdeadbeef)))
			require.NoError(t, s.Synchronize(ctx))
			for i, v := range got {
				if v != 0 {
					require.Failf(t, "not zero", "round %d: element %d of a new %d-element buffer is %#x", round, i, n, v)
				}
			}
			require.NoError(t, b.Close())
		}

		img, err := device.NewImage[float32](d, device.R32Float, 33, 17, 3)
		require.NoError(t, err)
		vol, err := device.NewVolume[[4]uint8](d, device.RGBA8Uint, 5, 3, 7, 2)
		require.NoError(t, err)
		var cmds []device.Command
		var imgGot [][]float32
		for l := range img.Levels() {
			lv := img.Level(l)
			px := make([]float32, lv.Pixels())
			imgGot = append(imgGot, px)
			full := make([]float32, lv.Pixels())
			for i := range full {
				full[i] = 7.5
			}
			cmds = append(cmds, lv.Download(px), lv.Upload(full))
		}
		var volGot [][][4]uint8
		for l := range vol.Levels() {
			lv := vol.Level(l)
			px := make([][4]uint8, lv.Pixels())
			volGot = append(volGot, px)
			full := make([][4]uint8, lv.Pixels())
			for i := range full {
				full[i] = [4]uint8{1, 2, 3, 4}
			}
			cmds = append(cmds, lv.Download(px), lv.Upload(full))
		}
		require.NoError(t, s.Submit(cmds...))
		require.NoError(t, s.Synchronize(ctx))
		for l, px := range imgGot {
			require.Equal(t, make([]float32, len(px)), px, "round %d: level %d of a new image", round, l)
		}
		for l, px := range volGot {
			require.Equal(t, make([][4]uint8, len(px)), px, "round %d: level %d of a new volume", round, l)
		}
		require.NoError(t, img.Close())
		require.NoError(t, vol.Close())
	}
}
