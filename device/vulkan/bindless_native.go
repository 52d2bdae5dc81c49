package vulkan

import (
	"os"
	"sync/atomic"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// Bindless texture slots with descriptor indexing. Where the device can
// index an array of sampled images with a run-time, non-uniform value, a
// bindless array's texture slots are also combined image samplers in a
// descriptor set of its own (one variable-count binding, partially bound),
// and kernels compiled for it (codegen.Options.NativeBindlessTextures)
// sample them with the device's samplers: no mirror refresh, mip levels and
// every sampled float format.
//
// A bound set is never written: descriptor writes are host operations, but a
// BindlessUpdate is ordered in its stream like any command. The first update
// after a set was bound writes a new version (all texture slots) and keeps
// the old one as a spare until the work that bound it is done; an update
// before any bind writes in place. Worked example, one list:
//
//	update slot 0 = A     set v1 (never bound): written in place
//	dispatch k1           binds v1 (k1 samples A)
//	update slot 0 = B     v1 is bound: v2 = {0: B}; v1 spare until k1 is done
//	dispatch k2           binds v2 (k2 samples B)
//
// A new version reuses a spare whose work is done, and allocates a set only
// where none is: lavapipe (Mesa 25) sizes a set's memory by the layout's
// MaxBindlessTextures slots whatever the array's size, so an allocation took
// 30 ms, once per update between dispatches, where a reused set is written
// in microseconds (RATIONALE.md, "Bindless texture sets are reused").
//
// A version records the timeline value of a binding when it is bound (the
// stream's next value, under the stream's lock): a concurrent update on
// another stream that retires it then waits for that value too.

// EnvEmulateBindlessTextures, set to 1, keeps bindless texture slots on the
// emulated path (linear mirrors, sampling in code) on a device that could
// index descriptor arrays: for testing the emulation there.
const EnvEmulateBindlessTextures = "LUCENT_VULKAN_EMULATE_BINDLESS_TEXTURES"

// maxTextureSets is how many bindless arguments of one kernel can sample
// natively (sets 1..maxTextureSets; set 0 holds the other resources).
const maxTextureSets = 4

// nativeTextures reports whether p can index arrays of sampled images at run
// time, non-uniformly, with slots left empty.
func (p *physical) nativeTextures() bool {
	return p.f12.DescriptorIndexing != 0 && p.f12.RuntimeDescriptorArray != 0 &&
		p.f12.ShaderSampledImageArrayNonUniformIndexing != 0 && p.f12.DescriptorBindingPartiallyBound != 0 &&
		p.f12.DescriptorBindingVariableDescriptorCount != 0 && p.props.Limits.MaxBoundDescriptorSets > maxTextureSets &&
		os.Getenv(EnvEmulateBindlessTextures) != "1"
}

// maxBindlessTextures is the slots per array: the device's per-stage and
// per-set sampler and sampled-image limits shared by maxTextureSets arrays.
func (p *physical) maxBindlessTextures() uint32 {
	l := &p.props.Limits
	n := min(l.MaxPerStageDescriptorSamplers, l.MaxPerStageDescriptorSampledImages,
		l.MaxDescriptorSetSamplers, l.MaxDescriptorSetSampledImages, l.MaxPerStageResources-min(l.MaxPerStageResources, 64))
	return min(n/maxTextureSets, 1<<20)
}

// createTextureLayout creates the set layout of texture slots (native path).
func (d *Device) createTextureLayout() error {
	b := vk.DescriptorSetLayoutBinding{
		Binding: 0, DescriptorType: vk.DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
		DescriptorCount: d.caps.MaxBindlessTextures, StageFlags: vk.SHADER_STAGE_COMPUTE_BIT,
	}
	flags := vk.DescriptorBindingFlags(vk.DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT | vk.DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT)
	bf := vk.DescriptorSetLayoutBindingFlagsCreateInfo{
		SType: vk.STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO, BindingCount: 1, PBindingFlags: &flags,
	}
	lci := vk.DescriptorSetLayoutCreateInfo{
		SType: vk.STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, PNext: unsafe.Pointer(&bf), BindingCount: 1, PBindings: &b,
	}
	return check("vkCreateDescriptorSetLayout", d.fn.CreateDescriptorSetLayout(d.vk, &lci, nil, &d.texLayout))
}

// texDesc is what a texture slot's descriptor holds.
type texDesc struct {
	tex  device.Handle
	info vk.DescriptorImageInfo
}

// texSet is one version of an array's texture descriptors.
type texSet struct {
	tracked
	pool  vk.DescriptorPool
	set   vk.DescriptorSet
	bound bool // bound by a dispatch: never written again
}

// texHeap is a bindless array's texture descriptors (under bindless.texMu).
type texHeap struct {
	slots   map[uint32]texDesc
	changed []uint32 // slots set since the last commit
	cur     *texSet
	spare   []*texSet // earlier versions, reused once the work that bound them is done
}

// maxSpareTexSets bounds an array's spare versions: past it the oldest is
// released once its work is done.
const maxSpareTexSets = 4

// texSetsMade counts the texture sets allocated, for tests.
var texSetsMade atomic.Int64

// nextTexSet returns a set for a new version of the array's texture slots:
// a spare whose work is done, else a new one. The current version, bound,
// becomes a spare.
func (e *encoder) nextTexSet(arr *bindless) (*texSet, error) {
	h := &arr.heap
	var ts *texSet
	for i, sp := range h.spare {
		if done(sp.waits()) {
			ts = sp
			h.spare = append(h.spare[:i], h.spare[i+1:]...)
			break
		}
	}
	if ts == nil {
		var err error
		if ts, err = e.d.newTexSet(arr.textureSlots()); err != nil {
			return nil, err
		}
	}
	ts.bound = false
	if old := h.cur; old != nil {
		h.spare = append(h.spare, old)
	}
	if len(h.spare) > maxSpareTexSets {
		old := h.spare[0]
		h.spare = append(h.spare[:0], h.spare[1:]...)
		e.d.graveyard.bury(old.waits(), func() { old.release(e.d) })
	}
	return ts, nil
}

// newTexSet allocates a set of n texture slots, none written.
func (d *Device) newTexSet(n uint32) (*texSet, error) {
	ts := &texSet{}
	size := vk.DescriptorPoolSize{Type: vk.DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, DescriptorCount: n}
	pci := vk.DescriptorPoolCreateInfo{SType: vk.STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, MaxSets: 1, PoolSizeCount: 1, PPoolSizes: &size}
	if err := check("vkCreateDescriptorPool", d.fn.CreateDescriptorPool(d.vk, &pci, nil, &ts.pool)); err != nil {
		return nil, err
	}
	vc := vk.DescriptorSetVariableDescriptorCountAllocateInfo{
		SType: vk.STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO, DescriptorSetCount: 1, PDescriptorCounts: &n,
	}
	ai := vk.DescriptorSetAllocateInfo{
		SType: vk.STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, PNext: unsafe.Pointer(&vc),
		DescriptorPool: ts.pool, DescriptorSetCount: 1, PSetLayouts: &d.texLayout,
	}
	if err := check("vkAllocateDescriptorSets", d.fn.AllocateDescriptorSets(d.vk, &ai, &ts.set)); err != nil {
		d.fn.DestroyDescriptorPool(d.vk, ts.pool, nil)
		return nil, err
	}
	texSetsMade.Add(1)
	return ts, nil
}

func (ts *texSet) release(d *Device) { d.fn.DestroyDescriptorPool(d.vk, ts.pool, nil) }

// textureSlots is the array's slot count on the native path.
func (b *bindless) textureSlots() uint32 { return min(b.size, b.d.caps.MaxBindlessTextures) }

// checkNativeTexture says whether a 2D texture can sit in a native slot.
func checkNativeTexture(arr *bindless, sl device.BindlessSlot, t *texture) error {
	if !t.sampled {
		return unsupportedf("format %v cannot be sampled on this device", t.desc.Format)
	}
	if k := t.desc.Format.Kind(); k == device.Uint || k == device.Sint {
		return unsupportedf("integer format %v (bindless textures sample as float)", t.desc.Format)
	}
	if sl.Slot >= arr.textureSlots() {
		return unsupportedf("the device indexes %d texture slots per array", arr.textureSlots())
	}
	return nil
}

// setNativeTexture records the descriptor of a texture checkTexture took for
// a native slot; commitTextures writes it at the end of the update.
func (e *encoder) setNativeTexture(arr *bindless, sl device.BindlessSlot, t *texture) error {
	smp, err := e.d.samplers.get(e.d, sl.Sampler)
	if err != nil {
		return err
	}
	arr.texMu.Lock()
	defer arr.texMu.Unlock()
	if arr.heap.slots == nil {
		arr.heap.slots = map[uint32]texDesc{}
	}
	e.logSlot(arr, sl.Slot)
	arr.heap.slots[sl.Slot] = texDesc{tex: sl.Texture, info: vk.DescriptorImageInfo{Sampler: smp, ImageView: t.full, ImageLayout: t.rest}}
	arr.heap.changed = append(arr.heap.changed, sl.Slot)
	return nil
}

// commitTextures writes the texture slots set by one update: in place while
// the current set was never bound, else into a new version.
func (e *encoder) commitTextures(arr *bindless) error {
	arr.texMu.Lock()
	defer arr.texMu.Unlock()
	h := &arr.heap
	if len(h.changed) == 0 {
		return nil
	}
	slots := append([]uint32(nil), h.changed...)
	h.changed = h.changed[:0]
	e.wroteTextures(arr)
	if h.cur == nil || h.cur.bound {
		return e.newTexVersion(arr)
	}
	e.writeTexSlots(arr, slots)
	return nil
}

// newTexVersion makes a new current version of arr's texture set holding
// every slot; arr.texMu held.
func (e *encoder) newTexVersion(arr *bindless) error {
	h := &arr.heap
	ts, err := e.nextTexSet(arr)
	if err != nil {
		return err
	}
	h.cur = ts
	slots := make([]uint32, 0, len(h.slots))
	for s := range h.slots {
		slots = append(slots, s)
	}
	e.writeTexSlots(arr, slots)
	return nil
}

// writeTexSlots writes slots of arr's current texture set; arr.texMu held.
func (e *encoder) writeTexSlots(arr *bindless, slots []uint32) {
	h := &arr.heap
	writes := make([]vk.WriteDescriptorSet, 0, len(slots))
	infos := make([]vk.DescriptorImageInfo, len(slots))
	for _, s := range slots {
		td, ok := h.slots[s]
		if !ok {
			continue // emptied again by the same update
		}
		if _, err := lookup[*texture](e.d, td.tex, "texture"); err != nil {
			// Destroyed while in the slot: its view may be gone, so it is
			// not written; a dispatch binding the array fails naming the
			// slot until the slot is set again (bindTextures).
			continue
		}
		infos[len(writes)] = td.info
		writes = append(writes, vk.WriteDescriptorSet{
			SType: vk.STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, DstSet: h.cur.set, DstBinding: 0, DstArrayElement: s,
			DescriptorCount: 1, DescriptorType: vk.DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, PImageInfo: &infos[len(writes)],
		})
	}
	if len(writes) > 0 {
		e.d.fn.UpdateDescriptorSets(e.d.vk, uint32(len(writes)), &writes[0], 0, nil)
	}
}

// bindTextures returns the array's current texture set for a dispatch,
// marking it bound, and appends the reads of its textures to uses.
func (e *encoder) bindTextures(arr *bindless, uses []use) (vk.DescriptorSet, []use, error) {
	arr.texMu.Lock()
	defer arr.texMu.Unlock()
	h := &arr.heap
	if h.cur == nil {
		// None yet, or a refused list's was dropped (undoTextures).
		if err := e.newTexVersion(arr); err != nil {
			return 0, uses, err
		}
	}
	for slot, td := range h.slots {
		t, err := e.texture(td.tex)
		if err != nil {
			return 0, uses, invalidf("bindless array slot %d: %v", slot, err)
		}
		e.transition(t, 0, t.desc.Levels, t.rest) // the layout its descriptor names
		uses = append(uses, use{t, 0, ^uint64(0), false})
	}
	h.cur.bound = true
	// The value this list's submission will take (the stream's lock is held
	// from encoding to enqueueing).
	h.cur.use(e.s, e.s.next+1)
	return h.cur.set, uses, nil
}

// releaseHeap frees the array's current set (the GPU is done with it).
func (b *bindless) releaseHeap() {
	b.texMu.Lock()
	defer b.texMu.Unlock()
	if b.heap.cur != nil {
		b.heap.cur.release(b.d)
		b.heap.cur = nil
	}
	for _, ts := range b.heap.spare {
		ts.release(b.d)
	}
	b.heap.spare = nil
	b.heap.slots = nil
}
