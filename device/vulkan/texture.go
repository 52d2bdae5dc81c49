package vulkan

import (
	"fmt"
	"sync/atomic"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// Textures rest in SHADER_READ_ONLY_OPTIMAL (GENERAL where the format cannot
// be sampled) between command lists; the encoder moves them to the layout
// each command needs (imagelayout.go).

// vkFormats maps device formats to VkFormat.
var vkFormats = map[device.Format]vk.Format{
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
	format    vk.Format
	image     vk.Image
	al        *allocation
	levels    []vk.ImageView // one view per mip level (storage binding)
	full      vk.ImageView   // a view of every level (sampling)
	storage   bool           // usable as a storage image
	sampled   bool           // usable as a sampled image
	rest      vk.ImageLayout // its layout between command lists (imagelayout.go)
	needsInit atomic.Bool
	name      string
}

func (t *texture) setName(n string) { t.name = n }

func (t *texture) release() {
	d := t.d
	for _, v := range t.levels {
		d.fn.DestroyImageView(d.vk, v, nil)
	}
	if t.full != 0 {
		d.fn.DestroyImageView(d.vk, t.full, nil)
	}
	d.fn.DestroyImage(d.vk, t.image, nil)
	if t.al != nil {
		d.mem.alloc.release(t.al)
	}
}

// extent returns the size of mip level l.
func (t *texture) extent(l uint32) [3]uint32 { return t.desc.LevelExtent(l) }

// CreateTexture creates a 2D or 3D texture with its mip chain.
func (d *Device) CreateTexture(desc device.TextureDesc) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	if desc.Dim == 2 && desc.Depth == 0 {
		desc.Depth = 1
	}
	if desc.Levels == 0 {
		desc.Levels = 1
	}
	if err := desc.Check(); err != nil {
		return 0, fmt.Errorf("vulkan: %w", err)
	}
	maxDim := d.caps.MaxTextureSize2D
	if desc.Dim == 3 {
		maxDim = d.caps.MaxTextureSize3D
	}
	if max(desc.Width, desc.Height, desc.Depth) > maxDim {
		return 0, unsupportedf("texture of %dx%dx%d exceeds the device's %d", desc.Width, desc.Height, desc.Depth, maxDim)
	}
	vf, ok := vkFormats[desc.Format]
	if !ok {
		return 0, unsupportedf("texture format %v has no Vulkan format", desc.Format)
	}
	var fp vk.FormatProperties
	d.in.fn.GetPhysicalDeviceFormatProperties(d.phys.handle, vf, &fp)
	feat := fp.OptimalTilingFeatures
	t := &texture{d: d, desc: desc, format: vf}
	t.storage = feat&vk.FORMAT_FEATURE_STORAGE_IMAGE_BIT != 0
	t.sampled = feat&vk.FORMAT_FEATURE_SAMPLED_IMAGE_BIT != 0
	t.rest = restingLayout(t)
	const copyBits = vk.FORMAT_FEATURE_TRANSFER_SRC_BIT | vk.FORMAT_FEATURE_TRANSFER_DST_BIT
	if feat&copyBits != copyBits || (!t.storage && !t.sampled) {
		return 0, unsupportedf("texture format %v is not supported by %s for storage or sampling", desc.Format, d.phys.name())
	}
	usage := vk.IMAGE_USAGE_TRANSFER_SRC_BIT | vk.IMAGE_USAGE_TRANSFER_DST_BIT
	if t.storage {
		usage |= vk.IMAGE_USAGE_STORAGE_BIT
	}
	if t.sampled {
		usage |= vk.IMAGE_USAGE_SAMPLED_BIT
	}
	ici := vk.ImageCreateInfo{
		SType:       vk.STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		ImageType:   vk.IMAGE_TYPE_2D,
		Format:      vf,
		Extent:      vk.Extent3D{Width: desc.Width, Height: desc.Height, Depth: desc.Depth},
		MipLevels:   desc.Levels,
		ArrayLayers: 1,
		Samples:     vk.SAMPLE_COUNT_1_BIT,
		Tiling:      vk.IMAGE_TILING_OPTIMAL,
		Usage:       usage,
	}
	viewType := vk.IMAGE_VIEW_TYPE_2D
	if desc.Dim == 3 {
		ici.ImageType, viewType = vk.IMAGE_TYPE_3D, vk.IMAGE_VIEW_TYPE_3D
	}
	if err := check("vkCreateImage", d.fn.CreateImage(d.vk, &ici, nil, &t.image)); err != nil {
		return 0, fmt.Errorf("vulkan: texture %v %dx%dx%d: %w", desc.Format, desc.Width, desc.Height, desc.Depth, err)
	}
	var req vk.MemoryRequirements
	d.fn.GetImageMemoryRequirements(d.vk, t.image, &req)
	ti, err := d.mem.memoryType(req.MemoryTypeBits, placeDevice)
	if err == nil {
		t.al, err = d.mem.alloc.alloc(ti, uint64(req.Size), uint64(req.Alignment), true)
	}
	if err == nil {
		err = check("vkBindImageMemory", d.fn.BindImageMemory(d.vk, t.image, vk.DeviceMemory(t.al.memory()), vk.DeviceSize(t.al.offset)))
	}
	mkView := func(base, count uint32) (vk.ImageView, error) {
		vci := vk.ImageViewCreateInfo{
			SType: vk.STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, Image: t.image, ViewType: viewType, Format: vf,
			SubresourceRange: vk.ImageSubresourceRange{AspectMask: vk.IMAGE_ASPECT_COLOR_BIT, BaseMipLevel: base, LevelCount: count, LayerCount: 1},
		}
		var v vk.ImageView
		err := check("vkCreateImageView", d.fn.CreateImageView(d.vk, &vci, nil, &v))
		return v, err
	}
	for l := uint32(0); err == nil && l < desc.Levels; l++ {
		var v vk.ImageView
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
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	t, err := remove[*texture](d, h, "texture")
	if err != nil {
		return err
	}
	recycle := d.dropResource(h)
	d.graveyard.bury(t.waits(), func() { t.release(); recycle() })
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

func (t *texture) copyRegion(bufOffset uint64, level uint32, origin, size [3]uint32) vk.BufferImageCopy {
	return vk.BufferImageCopy{
		BufferOffset:     vk.DeviceSize(bufOffset),
		ImageSubresource: vk.ImageSubresourceLayers{AspectMask: vk.IMAGE_ASPECT_COLOR_BIT, MipLevel: level, LayerCount: 1},
		ImageOffset:      vk.Offset3D{X: int32(origin[0]), Y: int32(origin[1]), Z: int32(origin[2])},
		ImageExtent:      vk.Extent3D{Width: size[0], Height: size[1], Depth: size[2]},
	}
}

// objectOf returns the VkObjectType and handle to name for a resource.
func objectOf(obj any) (vk.ObjectType, uint64) {
	switch o := obj.(type) {
	case *buffer:
		return vk.OBJECT_TYPE_BUFFER, uint64(o.raw.handle)
	case *texture:
		return vk.OBJECT_TYPE_IMAGE, uint64(o.image)
	case *event:
		return vk.OBJECT_TYPE_SEMAPHORE, uint64(o.sem)
	case *stream:
		return vk.OBJECT_TYPE_SEMAPHORE, uint64(o.sem)
	case *shader:
		return vk.OBJECT_TYPE_PIPELINE, uint64(o.pipeline)
	case *bindless:
		return vk.OBJECT_TYPE_BUFFER, uint64(o.table.raw.handle)
	}
	return 0, 0
}
