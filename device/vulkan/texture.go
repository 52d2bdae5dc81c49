package vulkan

import (
	"fmt"
	"sync/atomic"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/internal/vkc"
)

// Textures live in VK_IMAGE_LAYOUT_GENERAL for their whole life: compute
// kernels (storage and sampled reads) and copies all accept it, so the only
// layout transition is the first one, out of UNDEFINED, which the encoder
// records before a texture's first use. On lavapipe layouts make no
// difference; on GPUs where TRANSFER_DST_OPTIMAL would be faster for uploads,
// per-command transitions can be derived from usages the same way.

// vkFormats maps device formats to VkFormat.
var vkFormats = map[device.Format]int32{
	device.R8Unorm:     9,
	device.RG8Unorm:    16,
	device.RGB8Unorm:   23,
	device.RGBA8Unorm:  37,
	device.R16Unorm:    70,
	device.RG16Unorm:   77,
	device.RGB16Unorm:  84,
	device.RGBA16Unorm: 91,
	device.R8Snorm:     10,
	device.RG8Snorm:    17,
	device.RGB8Snorm:   24,
	device.RGBA8Snorm:  38,
	device.R16Snorm:    71,
	device.RG16Snorm:   78,
	device.RGB16Snorm:  85,
	device.RGBA16Snorm: 92,
	device.R8Uint:      13,
	device.RG8Uint:     20,
	device.RGB8Uint:    27,
	device.RGBA8Uint:   41,
	device.R16Uint:     74,
	device.RG16Uint:    81,
	device.RGB16Uint:   88,
	device.RGBA16Uint:  95,
	device.R32Uint:     98,
	device.RG32Uint:    101,
	device.RGB32Uint:   104,
	device.RGBA32Uint:  107,
	device.R8Sint:      14,
	device.RG8Sint:     21,
	device.RGB8Sint:    28,
	device.RGBA8Sint:   42,
	device.R16Sint:     75,
	device.RG16Sint:    82,
	device.RGB16Sint:   89,
	device.RGBA16Sint:  96,
	device.R32Sint:     99,
	device.RG32Sint:    102,
	device.RGB32Sint:   105,
	device.RGBA32Sint:  108,
	device.R16Float:    76,
	device.RG16Float:   83,
	device.RGB16Float:  90,
	device.RGBA16Float: 97,
	device.R32Float:    100,
	device.RG32Float:   103,
	device.RGB32Float:  106,
	device.RGBA32Float: 109,
}

type texture struct {
	tracked
	d         *Device
	desc      device.TextureDesc
	format    int32
	image     uint64
	al        *allocation
	levels    []uint64 // one view per mip level (storage binding)
	full      uint64   // a view of every level (sampling)
	storage   bool     // usable as a storage image
	sampled   bool     // usable as a sampled image
	needsInit atomic.Bool
	name      string
}

func (t *texture) setName(n string) { t.name = n }

func (t *texture) release() {
	d := t.d
	for _, v := range t.levels {
		vkc.Call(d.fn.DestroyImageView, d.vk, uintptr(v), 0)
	}
	if t.full != 0 {
		vkc.Call(d.fn.DestroyImageView, d.vk, uintptr(t.full), 0)
	}
	vkc.Call(d.fn.DestroyImage, d.vk, uintptr(t.image), 0)
	if t.al != nil {
		d.mem.alloc.release(t.al)
	}
}

// extent returns the size of mip level l.
func (t *texture) extent(l uint32) [3]uint32 { return t.desc.LevelExtent(l) }

// CreateTexture creates a 2D or 3D texture with its mip chain.
func (d *Device) CreateTexture(desc device.TextureDesc) (device.Handle, error) {
	if err := d.alive(); err != nil {
		return 0, err
	}
	if desc.Dim != 2 && desc.Dim != 3 {
		return 0, invalidf("texture of dimension %d (want 2 or 3)", desc.Dim)
	}
	if desc.Dim == 2 && desc.Depth == 0 {
		desc.Depth = 1
	}
	if desc.Width == 0 || desc.Height == 0 || desc.Depth == 0 {
		return 0, invalidf("texture of size %dx%dx%d", desc.Width, desc.Height, desc.Depth)
	}
	if desc.Dim == 2 && desc.Depth != 1 {
		return 0, invalidf("2D texture with depth %d", desc.Depth)
	}
	if desc.Levels == 0 {
		desc.Levels = 1
	}
	maxDim := d.caps.MaxTextureSize2D
	if desc.Dim == 3 {
		maxDim = d.caps.MaxTextureSize3D
	}
	if max(desc.Width, desc.Height, desc.Depth) > maxDim {
		return 0, unsupportedf("texture of %dx%dx%d exceeds the device's %d", desc.Width, desc.Height, desc.Depth, maxDim)
	}
	full := uint32(1)
	for e := max(desc.Width, desc.Height, desc.Depth); e > 1; e >>= 1 {
		full++
	}
	if desc.Levels > full {
		return 0, invalidf("texture of %dx%dx%d with %d mip levels (at most %d)", desc.Width, desc.Height, desc.Depth, desc.Levels, full)
	}
	vf, ok := vkFormats[desc.Format]
	if !ok {
		return 0, invalidf("texture format %v", desc.Format)
	}
	var fp vkc.FormatProperties
	vkc.Call(d.in.fn.GetPhysicalDeviceFormatProperties, d.phys.handle, uintptr(vf), vkc.Ptr(&fp))
	feat := fp.OptimalTilingFeatures
	t := &texture{d: d, desc: desc, format: vf}
	t.storage = feat&vkc.FormatFeatureStorageImageBit != 0
	t.sampled = feat&vkc.FormatFeatureSampledImageBit != 0
	const copyBits = vkc.FormatFeatureTransferSrcBit | vkc.FormatFeatureTransferDstBit
	if feat&copyBits != copyBits || (!t.storage && !t.sampled) {
		return 0, unsupportedf("texture format %v is not supported by %s for storage or sampling", desc.Format, d.phys.name())
	}
	usage := uint32(vkc.ImageUsageTransferSrcBit | vkc.ImageUsageTransferDstBit)
	if t.storage {
		usage |= vkc.ImageUsageStorageBit
	}
	if t.sampled {
		usage |= vkc.ImageUsageSampledBit
	}
	ici := vkc.ImageCreateInfo{
		SType:       vkc.StructureTypeImageCreateInfo,
		ImageType:   vkc.ImageType2D,
		Format:      vf,
		Extent:      vkc.Extent3D{Width: desc.Width, Height: desc.Height, Depth: desc.Depth},
		MipLevels:   desc.Levels,
		ArrayLayers: 1,
		Samples:     vkc.SampleCount1Bit,
		Tiling:      vkc.ImageTilingOptimal,
		Usage:       usage,
	}
	viewType := int32(vkc.ImageViewType2D)
	if desc.Dim == 3 {
		ici.ImageType, viewType = vkc.ImageType3D, vkc.ImageViewType3D
	}
	if err := check("vkCreateImage", vkc.CallResult(d.fn.CreateImage, d.vk, vkc.Ptr(&ici), 0, vkc.Ptr(&t.image))); err != nil {
		return 0, fmt.Errorf("vulkan: texture %v %dx%dx%d: %w", desc.Format, desc.Width, desc.Height, desc.Depth, err)
	}
	var req vkc.MemoryRequirements
	vkc.Call(d.fn.GetImageMemoryRequirements, d.vk, uintptr(t.image), vkc.Ptr(&req))
	ti, err := d.mem.memoryType(req.MemoryTypeBits, placeDevice)
	if err == nil {
		t.al, err = d.mem.alloc.alloc(ti, req.Size, req.Alignment, true)
	}
	if err == nil {
		err = check("vkBindImageMemory", vkc.CallResult(d.fn.BindImageMemory, d.vk, uintptr(t.image), uintptr(t.al.memory()), uintptr(t.al.offset)))
	}
	mkView := func(base, count uint32) (uint64, error) {
		vci := vkc.ImageViewCreateInfo{
			SType: vkc.StructureTypeImageViewCreateInfo, Image: uintptr(t.image), ViewType: viewType, Format: vf,
			SubresourceRange: vkc.ImageSubresourceRange{AspectMask: vkc.ImageAspectColorBit, BaseMipLevel: base, LevelCount: count, LayerCount: 1},
		}
		var v uint64
		err := check("vkCreateImageView", vkc.CallResult(d.fn.CreateImageView, d.vk, vkc.Ptr(&vci), 0, vkc.Ptr(&v)))
		return v, err
	}
	for l := uint32(0); err == nil && l < desc.Levels; l++ {
		var v uint64
		if v, err = mkView(l, 1); err == nil {
			t.levels = append(t.levels, v)
		}
	}
	if err == nil {
		t.full, err = mkView(0, desc.Levels)
	}
	if err != nil {
		t.release()
		return 0, fmt.Errorf("vulkan: texture %v %dx%dx%d: %w", desc.Format, desc.Width, desc.Height, desc.Depth, err)
	}
	t.needsInit.Store(true)
	h, err := d.add(t)
	if err != nil {
		t.release()
		return 0, err
	}
	return h, nil
}

// DestroyTexture releases the texture once the work using it has finished.
func (d *Device) DestroyTexture(h device.Handle) error {
	t, err := remove[*texture](d, h, "texture")
	if err != nil {
		return err
	}
	d.graveyard.bury(t.waits(), t.release)
	return nil
}

// region resolves a copy region against the texture: a zero size means the
// whole level. It returns the origin, the size and the packed byte count.
func (t *texture) region(r device.Region, h device.Handle) ([3]uint32, [3]uint32, uint64, error) {
	if r.Level >= t.desc.Levels {
		return r.Origin, r.Size, 0, invalidf("texture %d: mip level %d of %d", h, r.Level, t.desc.Levels)
	}
	ext := t.extent(r.Level)
	size := r.Size
	if size == ([3]uint32{}) {
		if r.Origin != ([3]uint32{}) {
			return r.Origin, size, 0, invalidf("texture %d: a whole-level region must start at the origin", h)
		}
		size = ext
	}
	for i := range 3 {
		if size[i] == 0 || r.Origin[i]+size[i] > ext[i] || r.Origin[i]+size[i] < r.Origin[i] {
			return r.Origin, size, 0, invalidf("texture %d: region %v+%v outside level %d of %v", h, r.Origin, size, r.Level, ext)
		}
	}
	n := uint64(size[0]) * uint64(size[1]) * uint64(size[2]) * uint64(t.desc.Format.PixelSize())
	return r.Origin, size, n, nil
}

func (t *texture) copyRegion(bufOffset uint64, level uint32, origin, size [3]uint32) vkc.BufferImageCopy {
	return vkc.BufferImageCopy{
		BufferOffset:     bufOffset,
		ImageSubresource: vkc.ImageSubresourceLayers{AspectMask: vkc.ImageAspectColorBit, MipLevel: level, LayerCount: 1},
		ImageOffset:      vkc.Offset3D{X: int32(origin[0]), Y: int32(origin[1]), Z: int32(origin[2])},
		ImageExtent:      vkc.Extent3D{Width: size[0], Height: size[1], Depth: size[2]},
	}
}

// objectOf returns the VkObjectType and handle to name for a resource.
func objectOf(obj any) (int32, uint64) {
	switch o := obj.(type) {
	case *buffer:
		return 9, o.raw.handle // VK_OBJECT_TYPE_BUFFER
	case *texture:
		return 10, o.image // VK_OBJECT_TYPE_IMAGE
	case *event:
		return 5, o.sem // VK_OBJECT_TYPE_SEMAPHORE
	case *stream:
		return 5, o.sem
	case *shader:
		return 19, o.pipeline // VK_OBJECT_TYPE_PIPELINE
	case *bindless:
		return 9, o.table.raw.handle
	}
	return 0, 0
}
