package vulkan

import (
	"sync"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/internal/vkc"
)

// samplerCache holds the 16 samplers (4 filters × 4 address modes), each
// created on first use and kept until the device closes.
type samplerCache struct {
	mu       sync.Mutex
	samplers [16]uint64
}

func (c *samplerCache) get(d *Device, s device.Sampler) (uint64, error) {
	if !s.Valid() {
		return 0, invalidf("sampler %v", s)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i := s.Index()
	if c.samplers[i] != 0 {
		return c.samplers[i], nil
	}
	ci := vkc.SamplerCreateInfo{SType: vkc.StructureTypeSamplerCreateInfo, MaxLod: 1000}
	switch s.Filter {
	case device.FilterPoint:
		ci.MagFilter, ci.MinFilter, ci.MipmapMode = vkc.FilterNearest, vkc.FilterNearest, vkc.SamplerMipmapModeNearest
	case device.FilterLinearPoint:
		ci.MagFilter, ci.MinFilter, ci.MipmapMode = vkc.FilterLinear, vkc.FilterLinear, vkc.SamplerMipmapModeNearest
	default:
		ci.MagFilter, ci.MinFilter, ci.MipmapMode = vkc.FilterLinear, vkc.FilterLinear, vkc.SamplerMipmapModeLinear
	}
	if s.Filter == device.FilterAnisotropic && d.phys.f.SamplerAnisotropy != 0 {
		ci.AnisotropyEnable = 1
		ci.MaxAnisotropy = min(16, d.phys.props.Limits.MaxSamplerAnisotropy)
	}
	mode := int32(vkc.SamplerAddressModeClampToEdge)
	switch s.Address {
	case device.AddressRepeat:
		mode = vkc.SamplerAddressModeRepeat
	case device.AddressMirror:
		mode = vkc.SamplerAddressModeMirroredRepeat
	case device.AddressZero:
		mode = vkc.SamplerAddressModeClampToBorder // border: transparent black (0)
	}
	ci.AddressModeU, ci.AddressModeV, ci.AddressModeW = mode, mode, mode
	var h uint64
	if err := check("vkCreateSampler", vkc.CallResult(d.fn.CreateSampler, d.vk, vkc.Ptr(&ci), 0, vkc.Ptr(&h))); err != nil {
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
			vkc.Call(d.fn.DestroySampler, d.vk, uintptr(h), 0)
			c.samplers[i] = 0
		}
	}
}
