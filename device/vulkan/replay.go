package vulkan

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// Replays. A list submitted again with the same content — the same commands
// naming the same live objects with the same arguments, uniform bytes
// included — records the same command buffer, so the stream submits the one
// it recorded before instead of recording it again (the encoder's Go and the
// driver's recording: ~2k instructions of each for a one-dispatch list on
// lavapipe). A stream keeps up to maxReplays recorded lists, the least
// recently used going first.
//
// The content is a list's replay key, built by a walk that makes no Vulkan
// call; a replay needs the key equal byte for byte and every handle in it
// alive. A device never hands out a handle number twice (device.HandleSpace),
// so a live handle names the object it named when the list was recorded, and
// a buffer freed and created again is another handle: a miss. Only what the
// recording depends on through the key alone is replayed:
//
//   - lists of ShaderDispatch commands only, untimed, whose shaders neither
//     print nor spill arguments into staging memory, whose arguments are
//     buffers (by descriptor or device address) and uniforms (push
//     constants, recorded in the command buffer);
//   - the recording's barriers then depend on the list alone: it opens with
//     the barrier after everything before it, whatever the stream ran;
//   - descriptor sets (where the binding table uses cached sets) are never
//     rewritten while every resource they name is alive (descset.go), and
//     the key's handles are those resources;
//   - no direct read is outstanding: a dispatch that overwrites a buffer
//     being read settles the read first (directread.go), which the encoder
//     does and a replay would not;
//   - the recorded buffer is not still in flight: a list submitted again
//     before its first submission completed is recorded into another
//     command buffer (and kept too, up to maxReplays).
//
// Everything else is recorded afresh, as before.

const maxReplays = 4

// replay is one recorded list kept for submitting again.
type replay struct {
	key      []byte
	used     []*tracked
	cmd      vk.CommandBuffer
	value    uint64 // the last submission of cmd
	tick     uint64 // when last used, for eviction
	barriers int
	bind     bindState // the recording's skip counts (for tests)
}

// retiredCmd is an evicted replay's command buffer, spare once value completes.
type retiredCmd struct {
	cmd   vk.CommandBuffer
	value uint64
}

// replayKey builds list's key in s.rkey, checking that every handle in it is
// alive; ok is false for a list that is not replayed. Callers hold d.live
// (shared) and s.mu. A handle looked up is remembered for the next command
// naming it (a chain names the same few thousands of times).
func (s *stream) replayKey(list *device.CommandList) (ok bool) {
	d := s.d
	if d.noReplay || list.Timings != nil || d.reads.n.Load() != 0 || len(s.enc.hidden) > 0 {
		return false
	}
	key := s.rkey[:0]
	defer func() { s.rkey = key }() // its capacity, and on success the key
	var lastSh, lastBuf device.Handle
	var sh *shader
	alive := func(h device.Handle) bool {
		if h == lastBuf {
			return true
		}
		if _, err := lookup[*buffer](d, h, "buffer"); err != nil {
			return false
		}
		lastBuf = h
		return true
	}
	for _, c := range list.Commands {
		sd, isDispatch := c.(*device.ShaderDispatch)
		if !isDispatch {
			return false
		}
		if sd.Shader != lastSh || sh == nil {
			var err error
			if sh, err = lookup[*shader](d, sd.Shader, "shader"); err != nil {
				return false
			}
			lastSh = sd.Shader
		}
		if sh.lay.prints || sh.lay.spillSize > 0 || len(sd.Args) != len(sh.sig.Args) {
			return false
		}
		key = binary.LittleEndian.AppendUint64(key, uint64(sd.Shader))
		key = binary.LittleEndian.AppendUint32(key, sd.Size[0])
		key = binary.LittleEndian.AppendUint32(key, sd.Size[1])
		key = binary.LittleEndian.AppendUint32(key, sd.Size[2])
		key = binary.LittleEndian.AppendUint64(key, uint64(sd.Indirect))
		key = binary.LittleEndian.AppendUint64(key, sd.IndirectOffset)
		key = binary.LittleEndian.AppendUint32(key, uint32(len(sd.Args)))
		if sd.Indirect != 0 && !alive(sd.Indirect) {
			return false
		}
		for _, a := range sd.Args {
			key = append(key, byte(a.Kind))
			switch a.Kind {
			case device.ArgUniform:
				key = binary.LittleEndian.AppendUint32(key, uint32(len(a.Uniform)))
				key = append(key, a.Uniform...)
			case device.ArgBuffer:
				if !alive(a.Handle) {
					return false
				}
				key = binary.LittleEndian.AppendUint64(key, uint64(a.Handle))
				key = binary.LittleEndian.AppendUint64(key, a.Offset)
				key = binary.LittleEndian.AppendUint64(key, a.Size)
			default:
				return false
			}
		}
	}
	return true
}

// findReplay returns a kept recording of key whose command buffer is not in
// flight, or nil; s.mu held.
func (s *stream) findReplay(key []byte) *replay {
	done := s.completed.Load()
	for _, r := range s.replays {
		if r.value <= done && bytes.Equal(r.key, key) {
			return r
		}
	}
	return nil
}

// keepReplay keeps the list just recorded into sub.cmd under the key in
// s.rkey, evicting the least recently used recording past maxReplays; s.mu
// held, the encoder not yet reset.
func (s *stream) keepReplay(sub *submission, key []byte) {
	e := &s.enc
	var r *replay
	if len(s.replays) < maxReplays {
		r = &replay{}
		s.replays = append(s.replays, r)
	} else {
		r = s.replays[0]
		for _, o := range s.replays[1:] {
			if o.tick < r.tick {
				r = o
			}
		}
		s.retire(r.cmd, r.value)
	}
	used := r.used[:0]
	if len(e.used) <= 16 { // a short list: the duplicates found by scanning
		for _, t := range e.used {
			if !slices.Contains(used, t) {
				used = append(used, t)
			}
		}
	} else {
		seen := make(map[*tracked]bool, 16)
		for _, t := range e.used {
			if !seen[t] {
				seen[t] = true
				used = append(used, t)
			}
		}
	}
	s.tick++
	*r = replay{
		key: append(r.key[:0], key...), used: used,
		cmd: sub.cmd, value: sub.value, tick: s.tick, barriers: e.barriers,
		bind: bindState{skippedSets: e.bind.skippedSets, skippedPush: e.bind.skippedPush},
	}
	sub.kept = true
}

// retire makes an evicted recording's command buffer spare once the GPU is
// done with it; s.mu held.
func (s *stream) retire(cmd vk.CommandBuffer, value uint64) {
	if value <= s.completed.Load() {
		s.spare = append(s.spare, cmd)
		return
	}
	s.retired = append(s.retired, retiredCmd{cmd, value})
}

// reclaim moves retired command buffers the GPU is done with to spare; s.mu
// held.
func (s *stream) reclaim() {
	done := s.completed.Load()
	kept := s.retired[:0]
	for _, rc := range s.retired {
		if rc.value <= done {
			s.spare = append(s.spare, rc.cmd)
		} else {
			kept = append(kept, rc)
		}
	}
	clear(s.retired[len(kept):])
	s.retired = kept
}

// submitReplay enqueues r's command buffer as sub; s.mu held.
func (s *stream) submitReplay(sub *submission, r *replay) {
	e := &s.enc
	sub.cmd, sub.kept = r.cmd, true
	s.enqueue(sub)
	s.tick++
	r.value, r.tick = sub.value, s.tick
	for _, t := range r.used {
		t.use(s, sub.value)
	}
	e.last, e.lastBind = r.barriers, r.bind
	e.lastDirect, e.lastReads = 0, 0
	s.replayed++
}
