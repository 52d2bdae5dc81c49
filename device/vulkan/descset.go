package vulkan

// Descriptor sets, for devices without VK_KHR_push_descriptor and those the
// binding table (binding.go) binds this way (kernel ABI v1, "descriptor-set
// fallback"). Each shader with resource arguments owns pools
// of sets of its layout; a set is written once for one tuple of bound
// resources (binding, handle, offset, range, mip level, sampler) and cached
// under that tuple, so the steady state allocates and writes no set per
// dispatch. A cached set is never rewritten while cached: command buffers
// still in flight may bind it. Destroying a resource drops the sets that name
// it; once the GPU is done with the resource (and so with those sets) they
// go back to their shader's spare list and are rewritten for new tuples.
// Pools grow geometrically and are destroyed with the shader.

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// EnvNoPushDescriptors, set to 1, makes Open bind resources with cached
// descriptor sets even where VK_KHR_push_descriptor exists (to exercise and
// measure the fallback). Capabilities.PushDescriptors then reports false.
const EnvNoPushDescriptors = "LUCENT_VULKAN_NO_PUSH_DESCRIPTORS"

func noPushDescriptorsForced() bool { return os.Getenv(EnvNoPushDescriptors) == "1" }

const (
	firstPoolSets = 16
	maxPoolSets   = 1024
)

// cachedSet is one written descriptor set and the resources it names.
type cachedSet struct {
	sh  *shader
	key string
	set vk.DescriptorSet
	res []device.Handle
}

// setCache is a shader's descriptor sets, by bound-resource tuple.
type setCache struct {
	mu        sync.Mutex
	sets      map[string]*cachedSet
	spare     []vk.DescriptorSet // written before, free to rewrite
	pools     []vk.DescriptorPool
	left      uint32 // sets the newest pool can still give
	next      uint32 // sets in the next pool
	perSet    []vk.DescriptorPoolSize
	allocated int  // sets allocated from pools
	dead      bool // the shader is destroyed
}

// initSetCache records what one set of the layout holds.
func (c *setCache) init(bindings []vk.DescriptorSetLayoutBinding) {
	c.sets = map[string]*cachedSet{}
	c.next = firstPoolSets
	count := map[vk.DescriptorType]uint32{}
	var order []vk.DescriptorType
	for _, b := range bindings {
		if count[b.DescriptorType] == 0 {
			order = append(order, b.DescriptorType)
		}
		count[b.DescriptorType] += b.DescriptorCount
	}
	for _, t := range order {
		c.perSet = append(c.perSet, vk.DescriptorPoolSize{Type: t, DescriptorCount: count[t]})
	}
}

// alloc returns an unused set: a spare one, or a new one from the pools.
// Callers hold c.mu.
func (c *setCache) alloc(d *Device, sh *shader) (vk.DescriptorSet, error) {
	if n := len(c.spare); n > 0 {
		s := c.spare[n-1]
		c.spare = c.spare[:n-1]
		return s, nil
	}
	if c.left == 0 {
		sizes := make([]vk.DescriptorPoolSize, len(c.perSet))
		for i, p := range c.perSet {
			sizes[i] = vk.DescriptorPoolSize{Type: p.Type, DescriptorCount: p.DescriptorCount * c.next}
		}
		pci := vk.DescriptorPoolCreateInfo{
			SType: vk.STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, MaxSets: c.next,
			PoolSizeCount: uint32(len(sizes)), PPoolSizes: &sizes[0],
		}
		var pool vk.DescriptorPool
		if err := check("vkCreateDescriptorPool", d.fn.CreateDescriptorPool(d.vk, &pci, nil, &pool)); err != nil {
			return 0, fmt.Errorf("shader %q: descriptor pool of %d sets: %w", sh.name, c.next, err)
		}
		c.pools = append(c.pools, pool)
		c.left = c.next
		c.next = min(2*c.next, maxPoolSets)
	}
	ai := vk.DescriptorSetAllocateInfo{
		SType: vk.STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, DescriptorPool: c.pools[len(c.pools)-1],
		DescriptorSetCount: 1, PSetLayouts: &sh.setLay,
	}
	var s vk.DescriptorSet
	if err := check("vkAllocateDescriptorSets", d.fn.AllocateDescriptorSets(d.vk, &ai, &s)); err != nil {
		return 0, fmt.Errorf("shader %q: descriptor set: %w", sh.name, err)
	}
	c.left--
	c.allocated++
	return s, nil
}

// release destroys the pools (and with them every set); the GPU is done
// with the shader.
func (c *setCache) release(d *Device) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dead = true
	for _, p := range c.pools {
		d.fn.DestroyDescriptorPool(d.vk, p, nil)
	}
	c.pools, c.spare, c.sets, c.left = nil, nil, nil, 0
}

// setIndex maps each resource to the cached sets that name it, across
// shaders, so destroying the resource drops them.
type setIndex struct {
	mu    sync.Mutex
	byRes map[device.Handle]map[*cachedSet]struct{}
}

func (x *setIndex) add(cs *cachedSet) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.byRes == nil {
		x.byRes = map[device.Handle]map[*cachedSet]struct{}{}
	}
	for _, r := range cs.res {
		m := x.byRes[r]
		if m == nil {
			m = map[*cachedSet]struct{}{}
			x.byRes[r] = m
		}
		m[cs] = struct{}{}
	}
}

// unlink removes the sets from every resource's list; callers hold x.mu.
func (x *setIndex) unlink(sets []*cachedSet) {
	for _, cs := range sets {
		for _, r := range cs.res {
			if m := x.byRes[r]; m != nil {
				delete(m, cs)
				if len(m) == 0 {
					delete(x.byRes, r)
				}
			}
		}
	}
}

// dropResource forgets the sets naming resource h and returns what recycles
// them; the caller runs it once the GPU is done with h (every command
// buffer binding one of the sets also used h).
func (d *Device) dropResource(h device.Handle) func() {
	x := &d.setIdx
	x.mu.Lock()
	var sets []*cachedSet
	for cs := range x.byRes[h] {
		sets = append(sets, cs)
	}
	x.unlink(sets)
	x.mu.Unlock()
	if len(sets) == 0 {
		return func() {}
	}
	for _, cs := range sets {
		c := &cs.sh.sets
		c.mu.Lock()
		if c.sets[cs.key] == cs {
			delete(c.sets, cs.key)
		}
		c.mu.Unlock()
	}
	return func() {
		for _, cs := range sets {
			c := &cs.sh.sets
			c.mu.Lock()
			if !c.dead {
				c.spare = append(c.spare, cs.set)
			}
			c.mu.Unlock()
		}
	}
}

// dropShader forgets every set of sh in the resource index.
func (d *Device) dropShader(sh *shader) {
	c := &sh.sets
	c.mu.Lock()
	sets := make([]*cachedSet, 0, len(c.sets))
	for _, cs := range c.sets {
		sets = append(sets, cs)
	}
	c.dead = true // no set goes back to the spare list any more
	c.mu.Unlock()
	d.setIdx.mu.Lock()
	d.setIdx.unlink(sets)
	d.setIdx.mu.Unlock()
}

// setKey appends one descriptor binding to the tuple that names a set.
func setKey(key []byte, binding uint32, h device.Handle, a, b, c uint64) []byte {
	key = binary.LittleEndian.AppendUint32(key, binding)
	key = binary.LittleEndian.AppendUint64(key, uint64(h))
	key = binary.LittleEndian.AppendUint64(key, a)
	key = binary.LittleEndian.AppendUint64(key, b)
	return binary.LittleEndian.AppendUint64(key, c)
}

// descriptorSet returns the set holding writes for sh, written under key
// (naming resources res) on the first use of that tuple.
func (e *encoder) descriptorSet(sh *shader, key []byte, res []device.Handle, writes []vk.WriteDescriptorSet) (vk.DescriptorSet, error) {
	d := e.d
	c := &sh.sets
	c.mu.Lock()
	defer c.mu.Unlock()
	if cs, ok := c.sets[string(key)]; ok {
		return cs.set, nil
	}
	if c.dead {
		return 0, fmt.Errorf("vulkan: shader %q: %w", sh.name, device.ErrClosed)
	}
	s, err := c.alloc(d, sh)
	if err != nil {
		return 0, err
	}
	for i := range writes {
		writes[i].DstSet = s
	}
	if err := d.fn.UpdateDescriptorSets(d.vk, uint32(len(writes)), &writes[0], 0, nil); err != nil {
		c.spare = append(c.spare, s)
		return 0, fmt.Errorf("vulkan: vkUpdateDescriptorSets: %w", err)
	}
	cs := &cachedSet{sh: sh, key: string(key), set: s, res: append([]device.Handle(nil), res...)}
	c.sets[cs.key] = cs
	d.setIdx.add(cs)
	return s, nil
}
