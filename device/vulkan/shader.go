package vulkan

import (
	"fmt"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/internal/vkc"
)

// shader is a compute pipeline with its layout. Resource arguments are bound
// with push descriptors (set 0) and uniforms with push constants, so a
// dispatch allocates no descriptor set (kernel ABI v1).
type shader struct {
	tracked
	d        *Device
	sig      device.Signature
	descType []int32 // per argument: VkDescriptorType, or -1
	module   uint64
	setLay   uint64
	layout   uint64
	pipeline uint64
	pushSize uint32 // push-constant range, bytes
	name     string
}

func (s *shader) setName(n string) { s.name = n }

func (s *shader) release() {
	d := s.d
	vkc.Call(d.fn.DestroyPipeline, d.vk, uintptr(s.pipeline), 0)
	vkc.Call(d.fn.DestroyPipelineLayout, d.vk, uintptr(s.layout), 0)
	vkc.Call(d.fn.DestroyDescriptorSetLayout, d.vk, uintptr(s.setLay), 0)
	vkc.Call(d.fn.DestroyShaderModule, d.vk, uintptr(s.module), 0)
}

// descriptorTypeOf is the descriptor a lucent argument takes.
func descriptorTypeOf(a device.Argument) int32 {
	switch a.Kind {
	case device.ArgBuffer:
		if a.Form == device.FormAddress {
			return -1
		}
		return vkc.DescriptorTypeStorageBuffer
	case device.ArgTexture:
		return vkc.DescriptorTypeStorageImage
	case device.ArgSampledTexture:
		return vkc.DescriptorTypeCombinedImageSampler
	case device.ArgBindlessArray:
		return vkc.DescriptorTypeStorageBuffer // the slot table (emulated bindless)
	}
	return -1
}

// CreateShader builds a compute pipeline from SPIR-V, reflecting its
// signature when desc.Signature is nil.
func (d *Device) CreateShader(desc device.ShaderDesc) (device.Handle, device.Signature, error) {
	if err := d.alive(); err != nil {
		return 0, device.Signature{}, err
	}
	entry := desc.EntryPoint
	if entry == "" {
		entry = "main"
	}
	label := desc.Name
	if label == "" {
		label = entry
	}
	sh := &shader{d: d, name: desc.Name}
	if desc.Signature != nil {
		sh.sig = *desc.Signature
		for _, a := range sh.sig.Args {
			sh.descType = append(sh.descType, descriptorTypeOf(a))
		}
		if sh.sig.BlockSize == ([3]uint32{}) {
			m, err := parseSPIRV(desc.SPIRV, entry)
			if err != nil {
				return 0, device.Signature{}, fmt.Errorf("shader %q: %w", label, err)
			}
			sh.sig.BlockSize = m.localSize
		}
	} else {
		r, err := reflectSPIRV(desc.SPIRV, entry)
		if err != nil {
			return 0, device.Signature{}, fmt.Errorf("shader %q: %w", label, err)
		}
		sh.sig, sh.descType = r.sig, r.descType
	}
	for i := range sh.sig.BlockSize {
		sh.sig.BlockSize[i] = max(sh.sig.BlockSize[i], 1)
	}
	sh.pushSize = alignUp32(sh.sig.PushConstantSize, 4)
	if sh.pushSize > d.caps.MaxPushConstantSize {
		return 0, device.Signature{}, unsupportedf("shader %q: %d bytes of push constants exceed the device's %d", label, sh.pushSize, d.caps.MaxPushConstantSize)
	}
	if err := d.buildPipeline(sh, desc.SPIRV, entry, label); err != nil {
		sh.release()
		return 0, device.Signature{}, err
	}
	h, err := d.add(sh)
	if err != nil {
		sh.release()
		return 0, device.Signature{}, err
	}
	return h, sh.sig, nil
}

func alignUp32(v, a uint32) uint32 { return (v + a - 1) / a * a }

func (d *Device) buildPipeline(sh *shader, code []uint32, entry, label string) error {
	mci := vkc.ShaderModuleCreateInfo{
		SType: vkc.StructureTypeShaderModuleCreateInfo, CodeSize: uintptr(len(code) * 4), PCode: unsafe.Pointer(&code[0]),
	}
	if err := check("vkCreateShaderModule", vkc.CallResult(d.fn.CreateShaderModule, d.vk, vkc.Ptr(&mci), 0, vkc.Ptr(&sh.module))); err != nil {
		return fmt.Errorf("shader %q: %w", label, err)
	}
	var bindings []vkc.DescriptorSetLayoutBinding
	for i, a := range sh.sig.Args {
		if sh.descType[i] < 0 {
			continue
		}
		bindings = append(bindings, vkc.DescriptorSetLayoutBinding{
			Binding: a.Binding, DescriptorType: sh.descType[i], DescriptorCount: 1, StageFlags: vkc.ShaderStageComputeBit,
		})
	}
	if len(bindings) > 0 && !d.caps.PushDescriptors {
		return unsupportedf("shader %q: the device lacks VK_KHR_push_descriptor (descriptor-set caching is not implemented)", label)
	}
	if max := d.phys.pushDs.MaxPushDescriptors; len(bindings) > int(max) {
		return unsupportedf("shader %q: %d resource arguments exceed the device's %d push descriptors", label, len(bindings), max)
	}
	lci := vkc.DescriptorSetLayoutCreateInfo{
		SType: vkc.StructureTypeDescriptorSetLayoutCreateInfo, BindingCount: uint32(len(bindings)),
	}
	if len(bindings) > 0 {
		lci.Flags = vkc.DescriptorSetLayoutCreatePushDescriptorBitKHR
		lci.PBindings = unsafe.Pointer(&bindings[0])
	}
	if err := check("vkCreateDescriptorSetLayout", vkc.CallResult(d.fn.CreateDescriptorSetLayout, d.vk, vkc.Ptr(&lci), 0, vkc.Ptr(&sh.setLay))); err != nil {
		return fmt.Errorf("shader %q: %w", label, err)
	}
	pr := vkc.PushConstantRange{StageFlags: vkc.ShaderStageComputeBit, Size: sh.pushSize}
	pli := vkc.PipelineLayoutCreateInfo{
		SType: vkc.StructureTypePipelineLayoutCreateInfo, SetLayoutCount: 1, PSetLayouts: unsafe.Pointer(&sh.setLay),
	}
	if sh.pushSize > 0 {
		pli.PushConstantRangeCount = 1
		pli.PPushConstantRanges = unsafe.Pointer(&pr)
	}
	if err := check("vkCreatePipelineLayout", vkc.CallResult(d.fn.CreatePipelineLayout, d.vk, vkc.Ptr(&pli), 0, vkc.Ptr(&sh.layout))); err != nil {
		return fmt.Errorf("shader %q: %w", label, err)
	}
	cpi := vkc.ComputePipelineCreateInfo{
		SType: vkc.StructureTypeComputePipelineCreateInfo,
		Stage: vkc.PipelineShaderStageCreateInfo{
			SType: vkc.StructureTypePipelineShaderStageCreateInfo, Stage: vkc.ShaderStageComputeBit,
			Module: uintptr(sh.module), PName: unsafe.Pointer(vkc.CString(entry)),
		},
		Layout: uintptr(sh.layout),
	}
	if !sh.sig.DispatchHeader {
		cpi.Flags = pipelineCreateDispatchBase // split dispatches of raw modules use vkCmdDispatchBase
	}
	if err := check("vkCreateComputePipelines", vkc.CallResult(d.fn.CreateComputePipelines, d.vk, 0, 1, vkc.Ptr(&cpi), 0, vkc.Ptr(&sh.pipeline))); err != nil {
		return fmt.Errorf("shader %q: %w", label, err)
	}
	return nil
}

// pipelineCreateDispatchBase is VK_PIPELINE_CREATE_DISPATCH_BASE_BIT.
const pipelineCreateDispatchBase = 0x10

// DestroyShader releases the shader once the work using it has finished.
func (d *Device) DestroyShader(h device.Handle) error {
	s, err := remove[*shader](d, h, "shader")
	if err != nil {
		return err
	}
	d.graveyard.bury(s.waits(), s.release)
	return nil
}
