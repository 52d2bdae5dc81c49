package vulkan

import (
	"slices"

	"github.com/lucent-gpu/lucent/vk"
)

// Image layouts. Each texture has a resting layout, which it is in between
// command lists: SHADER_READ_ONLY_OPTIMAL where its format can be sampled,
// GENERAL otherwise. Within a list the encoder tracks the layout of each mip
// level of each texture it touches, moves a level to the layout a command
// needs just before it — TRANSFER_DST_OPTIMAL or TRANSFER_SRC_OPTIMAL for
// copies, SHADER_READ_ONLY_OPTIMAL for sampling, GENERAL where a kernel
// writes the texture or a custom command may touch it — and returns every
// level to the resting layout at the end of the list. The transitions go
// into the same barriers as the memory dependencies (encoder.order), so a
// layout change is one more reason for a barrier, not a mechanism of its
// own.
//
// Layouts are settled per list, not across lists, because lists of
// different streams may run in another order than they were encoded (one
// parked behind an event runs after lists encoded later): a layout tracked
// across lists would be right in encode order only.
//
//	list: upload t; dispatch sample(t); dispatch write(t, level 0)
//	upload t      rest → TRANSFER_DST (level 0), copy
//	sample(t)     TRANSFER_DST → SHADER_READ_ONLY
//	write(t, 0)   SHADER_READ_ONLY → GENERAL (level 0)
//	end           GENERAL → rest (SHADER_READ_ONLY)
//
// A texture never used before starts in UNDEFINED (its first list claims
// that, see encoder.texture), which zeroes every level in TRANSFER_DST.

// texLayout is a texture's layout per mip level in the list being encoded.
type texLayout struct {
	t   *texture
	cur []vk.ImageLayout
}

// texWant is the layout levels [base, base+count) of t must be in.
type texWant struct {
	t           *texture
	base, count uint32
	layout      vk.ImageLayout
}

// restingLayout is the layout t is in between command lists.
func restingLayout(t *texture) vk.ImageLayout {
	if t.sampled {
		return vk.IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
	}
	return vk.IMAGE_LAYOUT_GENERAL
}

// layoutOf returns t's entry in the list's layouts, adding it (every level
// at from) on t's first use in the list.
func (e *encoder) layoutOf(t *texture, from vk.ImageLayout) *texLayout {
	for i := range e.layouts {
		if e.layouts[i].t == t {
			return &e.layouts[i]
		}
	}
	n := len(e.layouts)
	if n < cap(e.layouts) {
		e.layouts = e.layouts[:n+1] // reuses the level slice left there
	} else {
		e.layouts = append(e.layouts, texLayout{})
	}
	tl := &e.layouts[n]
	tl.t = t
	tl.cur = slices.Grow(tl.cur[:0], int(t.desc.Levels))[:t.desc.Levels]
	for i := range tl.cur {
		tl.cur[i] = from
	}
	return tl
}

// transition moves levels [base, base+count) of t to want before the next
// command (the next order call records the barrier).
func (e *encoder) transition(t *texture, base, count uint32, want vk.ImageLayout) {
	tl := e.layoutOf(t, t.rest)
	for l := base; l < base+count; l++ {
		if tl.cur[l] == want {
			continue
		}
		e.imgBarriers = append(e.imgBarriers, layoutBarrier(t, l, tl.cur[l], want))
		tl.cur[l] = want
	}
}

// restLayouts returns every texture the list touched to its resting layout,
// with a barrier after everything the list recorded.
func (e *encoder) restLayouts() {
	for i := range e.layouts {
		tl := &e.layouts[i]
		for l, cur := range tl.cur {
			if cur != tl.t.rest {
				e.imgBarriers = append(e.imgBarriers, layoutBarrier(tl.t, uint32(l), cur, tl.t.rest))
				tl.cur[l] = tl.t.rest
			}
		}
	}
	if len(e.imgBarriers) > 0 {
		e.barrier(false)
	}
}

// layoutBarrier is the transition of one level of t. It waits for all
// earlier commands (a level's earlier users may be anywhere since the last
// memory barrier) and makes the image visible to all later ones.
func layoutBarrier(t *texture, level uint32, from, to vk.ImageLayout) vk.ImageMemoryBarrier2 {
	return vk.ImageMemoryBarrier2{
		SType:        vk.STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
		SrcStageMask: stageAll, SrcAccessMask: accessMemoryWrite,
		DstStageMask: stageAll, DstAccessMask: dstAccess,
		OldLayout: from, NewLayout: to,
		SrcQueueFamilyIndex: vk.QUEUE_FAMILY_IGNORED, DstQueueFamilyIndex: vk.QUEUE_FAMILY_IGNORED,
		Image:            t.image,
		SubresourceRange: vk.ImageSubresourceRange{AspectMask: vk.IMAGE_ASPECT_COLOR_BIT, BaseMipLevel: level, LevelCount: 1, LayerCount: 1},
	}
}
