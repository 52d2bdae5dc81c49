package vulkan

import (
	"sync"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// samplerCache holds the 16 samplers (4 filters × 4 address modes), each
// created on first use and kept until the device closes.
type samplerCache struct {
	mu       sync.Mutex
	samplers [16]vk.Sampler
}

func (c *samplerCache) get(d *Device, s device.Sampler) (vk.Sampler, error) {
	if !s.Valid() {
		return 0, invalidf("sampler %v", s)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i := s.Index()
	if c.samplers[i] != 0 {
		return c.samplers[i], nil
	}
	ci := vk.SamplerCreateInfo{SType: vk.STRUCTURE_TYPE_SAMPLER_CREATE_INFO, MaxLod: vk.LOD_CLAMP_NONE}
	switch s.Filter {
	case device.FilterPoint:
		ci.MagFilter, ci.MinFilter, ci.MipmapMode = vk.FILTER_NEAREST, vk.FILTER_NEAREST, vk.SAMPLER_MIPMAP_MODE_NEAREST
	case device.FilterLinearPoint:
		ci.MagFilter, ci.MinFilter, ci.MipmapMode = vk.FILTER_LINEAR, vk.FILTER_LINEAR, vk.SAMPLER_MIPMAP_MODE_NEAREST
	default:
		ci.MagFilter, ci.MinFilter, ci.MipmapMode = vk.FILTER_LINEAR, vk.FILTER_LINEAR, vk.SAMPLER_MIPMAP_MODE_LINEAR
	}
	if s.Filter == device.FilterAnisotropic && d.phys.f.SamplerAnisotropy != 0 {
		ci.AnisotropyEnable = 1
		ci.MaxAnisotropy = min(16, d.phys.props.Limits.MaxSamplerAnisotropy)
	}
	mode := vk.SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
	switch s.Address {
	case device.AddressRepeat:
		mode = vk.SAMPLER_ADDRESS_MODE_REPEAT
	case device.AddressMirror:
		mode = vk.SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT
	case device.AddressZero:
		mode = vk.SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER // border: transparent black (0)
	}
	ci.AddressModeU, ci.AddressModeV, ci.AddressModeW = mode, mode, mode
	var h vk.Sampler
	if err := check("vkCreateSampler", d.fn.CreateSampler(d.vk, &ci, nil, &h)); err != nil {
		return 0, err
	}
	c.samplers[i] = h
	return h, nil
}

func (c *samplerCache) release(d *Device) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, h := range c.samplers {
		if h != 0 {
			d.fn.DestroySampler(d.vk, h, nil)
			c.samplers[i] = 0
		}
	}
}
