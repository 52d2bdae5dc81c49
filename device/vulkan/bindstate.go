package vulkan

import (
	"bytes"

	"github.com/lucent-gpu/lucent/vk"
)

// bindState is what the command buffer being recorded has bound for
// compute since the last pipeline-layout change: set 0 (its push-descriptor
// writes, or the cached set), the other sets, and the push-constant bytes. A
// dispatch that would bind the same again under the same layout records
// nothing (issue 18: a push of descriptors costs ~5.9 µs on Mesa 25).
//
// Any change of layout forgets it all, so Vulkan's pipeline-layout
// compatibility rules never come into play; so does anything that records
// its own binds (a Custom command) and a new command buffer.
type bindState struct {
	layout  vk.PipelineLayout
	set0    []boundDesc      // set 0 as pushed (push descriptors)
	set0Set vk.DescriptorSet // set 0 as bound (cached sets)
	set0OK  bool
	sets    []texBind // other sets bound, by index
	push    []byte    // push-constant bytes, from offset 0
	pushOK  bool

	// Counted per list, for tests: binds and pushes skipped.
	skippedSets, skippedPush int
}

// boundDesc is one descriptor write's content: what the shader sees.
type boundDesc struct {
	binding uint32
	typ     vk.DescriptorType
	a, b, c uint64
}

func descOf(w *vk.WriteDescriptorSet) boundDesc {
	d := boundDesc{binding: w.DstBinding, typ: w.DescriptorType}
	if w.PBufferInfo != nil {
		d.a, d.b, d.c = uint64(w.PBufferInfo.Buffer), uint64(w.PBufferInfo.Offset), uint64(w.PBufferInfo.Range)
	} else if w.PImageInfo != nil {
		d.a, d.b, d.c = uint64(w.PImageInfo.ImageView), uint64(w.PImageInfo.Sampler), uint64(w.PImageInfo.ImageLayout)
	}
	return d
}

// forget drops the state: the next dispatch binds everything.
func (s *bindState) forget() {
	s.layout = 0
	s.set0, s.set0OK, s.set0Set = s.set0[:0], false, 0
	s.sets = s.sets[:0]
	s.push, s.pushOK = s.push[:0], false
}

// use starts a dispatch under layout, forgetting what was bound under
// another.
func (s *bindState) use(layout vk.PipelineLayout) {
	if s.layout != layout {
		s.forget()
		s.layout = layout
	}
}

// pushedSet0 reports whether set 0 already holds writes, and records them
// as bound when it does not.
func (s *bindState) pushedSet0(writes []vk.WriteDescriptorSet) bool {
	if s.set0OK && s.set0Set == 0 && len(s.set0) == len(writes) {
		same := true
		for i := range writes {
			if s.set0[i] != descOf(&writes[i]) {
				same = false
				break
			}
		}
		if same {
			s.skippedSets++
			return true
		}
	}
	s.set0 = s.set0[:0]
	for i := range writes {
		s.set0 = append(s.set0, descOf(&writes[i]))
	}
	s.set0Set, s.set0OK = 0, true
	return false
}

// boundSet reports whether set index already holds set, and records it as
// bound when it does not.
func (s *bindState) boundSet(index uint32, set vk.DescriptorSet) bool {
	if index == 0 {
		if s.set0OK && s.set0Set == set {
			s.skippedSets++
			return true
		}
		s.set0, s.set0Set, s.set0OK = s.set0[:0], set, true
		return false
	}
	for i, tb := range s.sets {
		if tb.index == index {
			if tb.set == set {
				s.skippedSets++
				return true
			}
			s.sets[i].set = set
			return false
		}
	}
	s.sets = append(s.sets, texBind{index, set})
	return false
}

// pushed reports whether the push constants already hold p, and records p
// as pushed when they do not.
func (s *bindState) pushed(p []byte) bool {
	if s.pushOK && bytes.Equal(s.push, p) {
		s.skippedPush++
		return true
	}
	s.push, s.pushOK = append(s.push[:0], p...), true
	return false
}
