package vk

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// The Go-memory rule under pressure: many goroutines build nested
// create-infos (a pointer to a create-info carrying a pNext chain and arrays)
// in fresh Go memory and hand them to the driver while the collector runs
// continuously; the driver's answers must equal those computed beforehand,
// and the validation layer (which reads every chained struct) must stay quiet.

type bufferCase struct {
	size  DeviceSize
	usage BufferUsageFlags
}

type imageCase struct {
	w, h uint32
}

// bufferRequirements asks for the requirements of a buffer described by a
// nested create-info built from scratch.
func bufferRequirements(td *testDevice, c bufferCase) (MemoryRequirements, bool, error) {
	families := []uint32{td.family, td.family}
	ext := &ExternalMemoryBufferCreateInfo{SType: STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO}
	info := &DeviceBufferMemoryRequirements{
		SType: STRUCTURE_TYPE_DEVICE_BUFFER_MEMORY_REQUIREMENTS,
		PCreateInfo: &BufferCreateInfo{
			SType:                 STRUCTURE_TYPE_BUFFER_CREATE_INFO,
			PNext:                 unsafe.Pointer(ext),
			Size:                  c.size,
			Usage:                 c.usage,
			SharingMode:           SHARING_MODE_EXCLUSIVE,
			QueueFamilyIndexCount: uint32(len(families)),
			PQueueFamilyIndices:   &families[0],
		},
	}
	dedicated := &MemoryDedicatedRequirements{SType: STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS}
	out := &MemoryRequirements2{SType: STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, PNext: unsafe.Pointer(dedicated)}
	err := td.dt.GetDeviceBufferMemoryRequirements(td.dev, info, out)
	return out.MemoryRequirements, dedicated.RequiresDedicatedAllocation != 0, err
}

// imageRequirements does the same for an image with a view-format list.
func imageRequirements(td *testDevice, c imageCase) (MemoryRequirements, error) {
	formats := []Format{FORMAT_R32_UINT, FORMAT_R32_SFLOAT}
	list := &ImageFormatListCreateInfo{
		SType:           STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO,
		ViewFormatCount: uint32(len(formats)),
		PViewFormats:    &formats[0],
	}
	info := &DeviceImageMemoryRequirements{
		SType: STRUCTURE_TYPE_DEVICE_IMAGE_MEMORY_REQUIREMENTS,
		PCreateInfo: &ImageCreateInfo{
			SType:         STRUCTURE_TYPE_IMAGE_CREATE_INFO,
			PNext:         unsafe.Pointer(list),
			Flags:         IMAGE_CREATE_MUTABLE_FORMAT_BIT,
			ImageType:     IMAGE_TYPE_2D,
			Format:        FORMAT_R32_UINT,
			Extent:        Extent3D{Width: c.w, Height: c.h, Depth: 1},
			MipLevels:     1,
			ArrayLayers:   1,
			Samples:       SAMPLE_COUNT_1_BIT,
			Tiling:        IMAGE_TILING_OPTIMAL,
			Usage:         IMAGE_USAGE_STORAGE_BIT | IMAGE_USAGE_TRANSFER_SRC_BIT,
			SharingMode:   SHARING_MODE_EXCLUSIVE,
			InitialLayout: IMAGE_LAYOUT_UNDEFINED,
		},
		PlaneAspect: IMAGE_ASPECT_COLOR_BIT,
	}
	out := &MemoryRequirements2{SType: STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2}
	err := td.dt.GetDeviceImageMemoryRequirements(td.dev, info, out)
	return out.MemoryRequirements, err
}

func TestGoMemoryRuleUnderGC(t *testing.T) {
	td := newTestDevice(t, true)
	defer debug.SetGCPercent(debug.SetGCPercent(1))

	var bufs []bufferCase
	for i := 0; i < 16; i++ {
		bufs = append(bufs, bufferCase{size: DeviceSize(1 + i*4099), usage: BUFFER_USAGE_STORAGE_BUFFER_BIT})
		bufs = append(bufs, bufferCase{size: DeviceSize(64 << i), usage: BUFFER_USAGE_TRANSFER_SRC_BIT | BUFFER_USAGE_UNIFORM_BUFFER_BIT})
	}
	var imgs []imageCase
	for i := uint32(1); i <= 16; i++ {
		imgs = append(imgs, imageCase{w: 3 * i, h: 17*i + 5})
	}
	wantBuf := make([]MemoryRequirements, len(bufs))
	wantImg := make([]MemoryRequirements, len(imgs))
	for i, c := range bufs {
		req, _, err := bufferRequirements(td, c)
		require.NoError(t, err)
		require.GreaterOrEqual(t, req.Size, c.size)
		wantBuf[i] = req
	}
	for i, c := range imgs {
		req, err := imageRequirements(td, c)
		require.NoError(t, err)
		require.GreaterOrEqual(t, req.Size, DeviceSize(4*c.w*c.h))
		wantImg[i] = req
	}

	wantExts, err := InstanceExtensions(validationLayer)
	require.NoError(t, err)
	require.NotEmpty(t, wantExts)

	stop := make(chan struct{})
	var churn sync.WaitGroup
	churn.Add(1)
	go func() { // keep the collector busy and the heap moving
		defer churn.Done()
		var keep [][]byte
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			keep = append(keep, make([]byte, 1<<(i%14)))
			if len(keep) > 256 {
				keep = keep[:0]
			}
			if i%64 == 0 {
				runtime.GC()
			}
		}
	}()

	const workers, rounds = 8, 1000
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				i := (w*31 + r) % len(bufs)
				req, _, err := bufferRequirements(td, bufs[i])
				if err == nil && req != wantBuf[i] {
					err = fmt.Errorf("buffer case %d: got %+v, want %+v", i, req, wantBuf[i])
				}
				if err == nil {
					j := (w*7 + r) % len(imgs)
					var ireq MemoryRequirements
					ireq, err = imageRequirements(td, imgs[j])
					if err == nil && ireq != wantImg[j] {
						err = fmt.Errorf("image case %d: got %+v, want %+v", j, ireq, wantImg[j])
					}
				}
				if err == nil && r%50 == w {
					// A fresh C string argument, results copied out of fresh arrays.
					var exts []string
					exts, err = InstanceExtensions(validationLayer)
					if err == nil && !slices.Equal(exts, wantExts) {
						err = fmt.Errorf("layer extensions: got %v, want %v", exts, wantExts)
					}
				}
				if err != nil {
					errs <- err
					return
				}
				if r%50 == 0 {
					runtime.GC()
				}
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	churn.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}
