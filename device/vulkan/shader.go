package vulkan

import (
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// shader is a compute pipeline with its layout. Resource arguments are bound
// with push descriptors (set 0) and uniforms with push constants, so a
// dispatch allocates no descriptor set (kernel ABI v1). Without push
// descriptors, set 0 comes from the shader's cache of written sets
// (descset.go).
type shader struct {
	tracked
	d   *Device
	sig device.Signature
	lay shaderLayout // where each argument goes (layout.go)
	// noMirrors, by argument: a bindless array through which the kernel
	// reads, samples and sizes no texture slot (ir.Function.BindlessTextureArgs),
	// so a dispatch does not refresh the array's texture mirrors for it;
	// nil for modules without their IR.
	noMirrors []bool
	module    vk.ShaderModule
	setLay    vk.DescriptorSetLayout
	layout    vk.PipelineLayout
	pipeline  vk.Pipeline
	pushSize  uint32 // push-constant range, bytes
	name      string
	kernel    string   // the name timings give its dispatches: the kernel's, else the debug name or entry point
	sets      setCache // descriptor sets, when push descriptors are not in use
	// nativeRay: the module traces accels with ray queries (it declares
	// RayQueryKHR); otherwise its accel arguments are software buffers.
	nativeRay bool
	prints    []printSite // the kernel's print sites (print.go)
}

// errName names the shader h in errors: by its kernel's name where it has one.
func (sh *shader) errName(h device.Handle) string {
	if sh.kernel != "" {
		return "kernel " + sh.kernel
	}
	return fmt.Sprintf("shader %d", h)
}

func (s *shader) setName(n string) { s.name = n }

func (s *shader) release() {
	d := s.d
	s.sets.release(d)
	d.fn.DestroyPipeline(d.vk, s.pipeline, nil)
	d.fn.DestroyPipelineLayout(d.vk, s.layout, nil)
	d.fn.DestroyDescriptorSetLayout(d.vk, s.setLay, nil)
	d.fn.DestroyShaderModule(d.vk, s.module, nil)
}

// noDescriptor marks an argument that takes no descriptor (a uniform, or a
// buffer passed by device address).
const noDescriptor vk.DescriptorType = -1

// CreateShader builds a compute pipeline from a lucent kernel
// (desc.Kernel: codegen through the shader cache, kernel.go) or from SPIR-V,
// reflecting its signature when desc.Signature is nil. Before the driver
// sees a module from elsewhere it is validated by spirv-val unless
// desc.Trusted; every module is parsed and checked against the device's
// limits (modulecheck.go).
func (d *Device) CreateShader(desc device.ShaderDesc) (device.Handle, device.Signature, error) {
	if err := d.enter(); err != nil {
		return 0, device.Signature{}, err
	}
	defer d.exit()
	if desc.Kernel != nil {
		if len(desc.SPIRV) != 0 {
			return 0, device.Signature{}, fmt.Errorf("shader %q: %w: both a kernel and SPIR-V", desc.Name, device.ErrInvalidArgument)
		}
		return d.createKernel(desc)
	}
	return d.createModule(desc, nil, nil)
}

// createModule is CreateShader for desc.SPIRV; textureSets gives, by
// argument, the descriptor sets of native bindless texture slots, and
// noMirrors the bindless arguments through which no texture slot is read
// (kernels compiled here; nil for other modules). The caller holds the gate.
func (d *Device) createModule(desc device.ShaderDesc, textureSets []uint32, noMirrors []bool) (device.Handle, device.Signature, error) {
	entry := desc.EntryPoint
	if entry == "" {
		entry = "main"
	}
	label := desc.Name
	if label == "" {
		label = entry
	}
	m, err := d.checkModule(desc, entry, label)
	if err != nil {
		return 0, device.Signature{}, err
	}
	if err := d.checkFeatures(m, label); err != nil {
		return 0, device.Signature{}, err
	}
	if m.rayQuery && d.phys.rq.RayQuery == 0 {
		return 0, device.Signature{}, unsupportedf("shader %q uses ray queries (RayQueryKHR), which %s lacks", label, d.phys.name())
	}
	sh := &shader{d: d, name: desc.Name, kernel: label, nativeRay: m.rayQuery}
	if desc.Kernel != nil && desc.Name == "" {
		sh.kernel = desc.Kernel.Name
	}
	if desc.Signature != nil {
		// A signature is logical: the module follows kernel ABI v1, which
		// says where each argument goes.
		sh.sig = *desc.Signature
		sh.sig.Args = append([]device.Argument(nil), sh.sig.Args...)
		if sh.lay, err = abiLayout(sh.sig, label, !m.rayQuery); err != nil {
			return 0, device.Signature{}, err
		}
		if sh.lay.spillSize > 0 && !d.caps.BufferDeviceAddress {
			return 0, device.Signature{}, unsupportedf("shader %q: its arguments need %d bytes past the %d of the push constants, passed by buffer device address, which %s lacks",
				label, sh.lay.spillSize, abiMaxPush, d.phys.name())
		}
		for i, set := range textureSets {
			if i < len(sh.lay.args) {
				sh.lay.args[i].textureSet = set
			}
		}
		sh.noMirrors = noMirrors
		if sh.sig.BlockSize == ([3]uint32{}) {
			sh.sig.BlockSize = m.localSize
		}
		if sh.prints, err = printSites(sh.sig, label); err != nil {
			return 0, device.Signature{}, err
		}
		if err := d.checkRayPath(sh.sig, m.rayQuery, label); err != nil {
			return 0, device.Signature{}, err
		}
	} else {
		r, err := m.reflect(entry)
		if err != nil {
			return 0, device.Signature{}, fmt.Errorf("shader %q: %w", label, err)
		}
		sh.sig, sh.lay = r.sig, r.lay
	}
	for i := range sh.sig.BlockSize {
		sh.sig.BlockSize[i] = max(sh.sig.BlockSize[i], 1)
	}
	if err := d.checkLimits(m, sh.sig.BlockSize, label); err != nil {
		return 0, device.Signature{}, err
	}
	if err := checkBindings(sh.sig, sh.lay, label); err != nil {
		return 0, device.Signature{}, err
	}
	sh.pushSize = alignUp32(sh.lay.pushSize, 4)
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
	mci := vk.ShaderModuleCreateInfo{
		SType: vk.STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, CodeSize: uintptr(len(code) * 4), PCode: &code[0],
	}
	if err := check("vkCreateShaderModule", d.fn.CreateShaderModule(d.vk, &mci, nil, &sh.module)); err != nil {
		return driverRefused(label, err)
	}
	var bindings []vk.DescriptorSetLayoutBinding
	for _, l := range sh.lay.args {
		if l.desc == noDescriptor {
			continue
		}
		bindings = append(bindings, vk.DescriptorSetLayoutBinding{
			Binding: l.binding, DescriptorType: l.desc, DescriptorCount: 1, StageFlags: vk.SHADER_STAGE_COMPUTE_BIT,
		})
	}
	if max := d.phys.pushDs.MaxPushDescriptors; d.caps.PushDescriptors && len(bindings) > int(max) {
		return unsupportedf("shader %q: %d resource arguments exceed the device's %d push descriptors", label, len(bindings), max)
	}
	lci := vk.DescriptorSetLayoutCreateInfo{
		SType: vk.STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, BindingCount: uint32(len(bindings)),
	}
	if len(bindings) > 0 {
		if d.caps.PushDescriptors {
			lci.Flags = vk.DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR
		}
		lci.PBindings = &bindings[0]
	}
	sh.sets.init(bindings)
	if err := check("vkCreateDescriptorSetLayout", d.fn.CreateDescriptorSetLayout(d.vk, &lci, nil, &sh.setLay)); err != nil {
		return fmt.Errorf("shader %q: %w", label, err)
	}
	// Sets 1..n: the texture slots of bindless arguments sampled natively.
	setLayouts := []vk.DescriptorSetLayout{sh.setLay}
	for i, a := range sh.sig.Args {
		set := sh.lay.args[i].textureSet
		if set == 0 {
			continue
		}
		if a.Kind != device.ArgBindlessArray || d.texLayout == 0 || set > maxTextureSets {
			return unsupportedf("shader %q: %s: texture set %d needs a bindless array on a device with descriptor indexing (Capabilities.Sampling native) and a set of at most %d",
				label, a.Label(i), set, maxTextureSets)
		}
		for uint32(len(setLayouts)) <= set {
			setLayouts = append(setLayouts, d.texLayout)
		}
	}
	pli := vk.PipelineLayoutCreateInfo{
		SType: vk.STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, SetLayoutCount: uint32(len(setLayouts)), PSetLayouts: &setLayouts[0],
	}
	if sh.pushSize > 0 {
		pli.PushConstantRangeCount = 1
		pli.PPushConstantRanges = &vk.PushConstantRange{StageFlags: vk.SHADER_STAGE_COMPUTE_BIT, Size: sh.pushSize}
	}
	if err := check("vkCreatePipelineLayout", d.fn.CreatePipelineLayout(d.vk, &pli, nil, &sh.layout)); err != nil {
		return fmt.Errorf("shader %q: %w", label, err)
	}
	cpi := vk.ComputePipelineCreateInfo{
		SType: vk.STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		Stage: vk.PipelineShaderStageCreateInfo{
			SType: vk.STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, Stage: vk.SHADER_STAGE_COMPUTE_BIT,
			Module: sh.module, PName: vk.CString(entry),
		},
		Layout: sh.layout,
	}
	if !sh.lay.header {
		cpi.Flags = vk.PIPELINE_CREATE_DISPATCH_BASE_BIT // split dispatches of raw modules use vkCmdDispatchBase
	}
	if err := check("vkCreateComputePipelines", d.createComputePipeline(&cpi, &sh.pipeline)); err != nil {
		return driverRefused(label, err)
	}
	return nil
}

// DestroyShader releases the shader once the work using it has finished.
func (d *Device) DestroyShader(h device.Handle) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	s, err := remove[*shader](d, h, "shader")
	if err != nil {
		return err
	}
	d.closedKernels.Add(h, s.kernel)
	d.dropShader(s)
	d.graveyard.bury(s.waits(), s.release)
	return nil
}

// checkRayPath refuses a module that traces accels by the other ray path
// than the device's (kernel ABI v1, "Accels": its accels are all native
// structures, or all software ones), with ErrUnsupported, so that
// device.LoadKernel and lucentc's launchers compile the kernel's IR for
// the device instead: an ahead-of-time kernel carries software SPIR-V.
// rayQuery says the module declares RayQueryKHR.
func (d *Device) checkRayPath(sig device.Signature, rayQuery bool, label string) error {
	if rayQuery != d.softAccel {
		return nil
	}
	for i, a := range sig.Args {
		if a.Kind == device.ArgAccel {
			path := map[bool]string{false: "the software traversal", true: "native ray queries"}
			return unsupportedf("shader %q traces %s by %s, the device's accels take %s (kernel ABI v1, \"Accels\")",
				label, a.Label(i), path[rayQuery], path[!d.softAccel])
		}
	}
	return nil
}
