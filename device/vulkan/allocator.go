package vulkan

// The sub-allocator carves buffers and images out of a few large
// VkDeviceMemory blocks instead of calling vkAllocateMemory per resource
// (drivers cap the number of live allocations at maxMemoryAllocationCount,
// often 4096, and each call is slow).
//
// Worked example, one 64 MiB block, bufferImageGranularity 1 KiB:
//
//	alloc(100 B, align 256, linear)    -> [0, 100)        free: [100, 64Mi)
//	alloc(4 KiB, align 16, optimal)    -> [1024, 5120)    the image starts on a new
//	                                                      granularity page because a
//	                                                      linear range ends on page 0
//	free([0, 100))                     -> free: [0, 1024) [5120, 64Mi)   (coalesced
//	                                                      with the gap left by padding)
//
// Each block keeps its free ranges sorted by offset (first fit, merged on
// free). Allocations larger than a quarter of the block size get a dedicated
// block of their own, which is released as soon as it is empty.

import (
	"errors"
	"fmt"
	"sort"
	"sync"
)

// defaultBlockSize is the size of a shared memory block.
const defaultBlockSize = 64 << 20

// memoryBacking allocates and frees the device memory behind blocks; the
// Vulkan implementation calls vkAllocateMemory / vkFreeMemory (and maps
// host-visible memory), tests use a fake.
type memoryBacking interface {
	allocate(typeIndex uint32, size uint64) (memory uint64, mapped uintptr, err error)
	free(typeIndex uint32, memory, size uint64)
}

// allocation is one carved range.
type allocation struct {
	block  *memoryBlock
	offset uint64
	size   uint64
}

// Memory returns the VkDeviceMemory that holds the allocation.
func (a *allocation) memory() uint64 { return a.block.memory }

// mapped returns the host address of the allocation's first byte, or 0 when
// the memory is not host-visible.
func (a *allocation) mapped() uintptr {
	if a.block.mapped == 0 {
		return 0
	}
	return a.block.mapped + uintptr(a.offset)
}

type freeRange struct{ offset, size uint64 }

// usedRange remembers the kind (linear or optimal tiling) of what occupies a
// range so that neighbours of the other kind keep bufferImageGranularity apart.
type usedRange struct {
	offset, size uint64
	optimal      bool
}

type memoryBlock struct {
	typeIndex uint32
	memory    uint64
	mapped    uintptr
	size      uint64
	dedicated bool
	free      []freeRange // sorted by offset, never adjacent
	used      []usedRange // sorted by offset
}

// allocator sub-allocates device memory of every memory type.
type allocator struct {
	mu          sync.Mutex
	backing     memoryBacking
	blockSize   uint64
	granularity uint64 // bufferImageGranularity
	blocks      map[uint32][]*memoryBlock
	calls       int // live backing allocations, for tests and statistics
}

func newAllocator(b memoryBacking, granularity uint64) *allocator {
	if granularity == 0 {
		granularity = 1
	}
	return &allocator{backing: b, blockSize: defaultBlockSize, granularity: granularity, blocks: map[uint32][]*memoryBlock{}}
}

func alignUp(v, a uint64) uint64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) / a * a
}

func alignDown(v, a uint64) uint64 {
	if a <= 1 {
		return v
	}
	return v / a * a
}

// errBackingOOM is returned by a backing that ran out of memory.
var errBackingOOM = errors.New("device memory exhausted")

// alloc carves size bytes aligned to align from memory type typeIndex.
// optimal says whether the range will hold an optimally tiled image.
func (a *allocator) alloc(typeIndex uint32, size, align uint64, optimal bool) (*allocation, error) {
	if size == 0 {
		return nil, fmt.Errorf("vulkan: zero-sized allocation")
	}
	if align == 0 {
		align = 1
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if size <= a.blockSize/4 {
		for _, b := range a.blocks[typeIndex] {
			if b.dedicated {
				continue
			}
			if off, ok := b.fit(size, align, optimal, a.granularity); ok {
				b.take(off, size, optimal)
				return &allocation{block: b, offset: off, size: size}, nil
			}
		}
		mem, mapped, err := a.backing.allocate(typeIndex, a.blockSize)
		if err != nil {
			return nil, err
		}
		a.calls++
		b := &memoryBlock{typeIndex: typeIndex, memory: mem, mapped: mapped, size: a.blockSize,
			free: []freeRange{{0, a.blockSize}}}
		a.blocks[typeIndex] = append(a.blocks[typeIndex], b)
		off, _ := b.fit(size, align, optimal, a.granularity)
		b.take(off, size, optimal)
		return &allocation{block: b, offset: off, size: size}, nil
	}
	mem, mapped, err := a.backing.allocate(typeIndex, size)
	if err != nil {
		return nil, err
	}
	a.calls++
	b := &memoryBlock{typeIndex: typeIndex, memory: mem, mapped: mapped, size: size, dedicated: true,
		used: []usedRange{{0, size, optimal}}}
	a.blocks[typeIndex] = append(a.blocks[typeIndex], b)
	return &allocation{block: b, offset: 0, size: size}, nil
}

// release returns an allocation's range to its block; an empty dedicated
// block goes back to the driver at once, an empty shared block stays for
// reuse unless another empty block of the same type exists.
func (a *allocator) release(al *allocation) {
	if al == nil || al.block == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	b := al.block
	al.block = nil
	b.give(al.offset, al.size)
	if len(b.used) > 0 {
		return
	}
	if !b.dedicated {
		empty := 0
		for _, o := range a.blocks[b.typeIndex] {
			if !o.dedicated && len(o.used) == 0 {
				empty++
			}
		}
		if empty <= 1 {
			return
		}
	}
	list := a.blocks[b.typeIndex]
	for i, o := range list {
		if o == b {
			a.blocks[b.typeIndex] = append(list[:i], list[i+1:]...)
			break
		}
	}
	a.backing.free(b.typeIndex, b.memory, b.size)
	a.calls--
}

// releaseAll frees every block (device close).
func (a *allocator) releaseAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for t, list := range a.blocks {
		for _, b := range list {
			a.backing.free(t, b.memory, b.size)
			a.calls--
		}
	}
	a.blocks = map[uint32][]*memoryBlock{}
}

// fit finds the first offset where size bytes aligned to align fit, keeping
// granularity pages apart from neighbours of the other tiling kind.
func (b *memoryBlock) fit(size, align uint64, optimal bool, gran uint64) (uint64, bool) {
	for _, f := range b.free {
		off := alignUp(f.offset, align)
		if gran > 1 {
			// The range just before: if it is of the other kind and shares a page, move to the next page.
			if prev := b.usedBefore(f.offset); prev != nil && prev.optimal != optimal &&
				alignDown(prev.offset+prev.size-1, gran) == alignDown(off, gran) {
				off = alignUp(alignUp(off, gran), align)
			}
		}
		if off+size > f.offset+f.size {
			continue
		}
		if gran > 1 {
			if next := b.usedAfter(f.offset + f.size); next != nil && next.optimal != optimal &&
				alignDown(off+size-1, gran) == alignDown(next.offset, gran) {
				continue
			}
		}
		return off, true
	}
	return 0, false
}

func (b *memoryBlock) usedBefore(offset uint64) *usedRange {
	i := sort.Search(len(b.used), func(i int) bool { return b.used[i].offset >= offset })
	if i == 0 {
		return nil
	}
	return &b.used[i-1]
}

func (b *memoryBlock) usedAfter(end uint64) *usedRange {
	i := sort.Search(len(b.used), func(i int) bool { return b.used[i].offset >= end })
	if i == len(b.used) {
		return nil
	}
	return &b.used[i]
}

// take removes [off, off+size) from the free list.
func (b *memoryBlock) take(off, size uint64, optimal bool) {
	for i, f := range b.free {
		if off < f.offset || off+size > f.offset+f.size {
			continue
		}
		var repl []freeRange
		if off > f.offset {
			repl = append(repl, freeRange{f.offset, off - f.offset})
		}
		if end := off + size; end < f.offset+f.size {
			repl = append(repl, freeRange{end, f.offset + f.size - end})
		}
		b.free = append(b.free[:i], append(repl, b.free[i+1:]...)...)
		break
	}
	j := sort.Search(len(b.used), func(j int) bool { return b.used[j].offset >= off })
	b.used = append(b.used, usedRange{})
	copy(b.used[j+1:], b.used[j:])
	b.used[j] = usedRange{off, size, optimal}
}

// give returns [off, off+size) to the free list, merging neighbours.
func (b *memoryBlock) give(off, size uint64) {
	j := sort.Search(len(b.used), func(j int) bool { return b.used[j].offset >= off })
	if j < len(b.used) && b.used[j].offset == off {
		b.used = append(b.used[:j], b.used[j+1:]...)
	}
	if b.dedicated {
		return
	}
	i := sort.Search(len(b.free), func(i int) bool { return b.free[i].offset > off })
	b.free = append(b.free, freeRange{})
	copy(b.free[i+1:], b.free[i:])
	b.free[i] = freeRange{off, size}
	// Merge with the next, then the previous range.
	if i+1 < len(b.free) && b.free[i].offset+b.free[i].size == b.free[i+1].offset {
		b.free[i].size += b.free[i+1].size
		b.free = append(b.free[:i+1], b.free[i+2:]...)
	}
	if i > 0 && b.free[i-1].offset+b.free[i-1].size == b.free[i].offset {
		b.free[i-1].size += b.free[i].size
		b.free = append(b.free[:i], b.free[i+1:]...)
	}
}
