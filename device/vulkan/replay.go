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
// The content is a list's replay key, walked without a Vulkan call: compared
// in place with the most recently used kept key, built only from where it
// differs (walkKey); a replay needs the key equal byte for byte and every
// handle in it alive. A device never hands out a handle number twice (device.HandleSpace),
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
	gone     uint64 // the table's removals when the key's handles were last seen alive
	barriers int
	bind     bindState // the recording's skip counts (for tests)
}

// retiredCmd is an evicted replay's command buffer, spare once value completes.
type retiredCmd struct {
	cmd   vk.CommandBuffer
	value uint64
}

// keyer walks a list's replay key: it compares the list with a kept key in
// place, writing nothing, while every piece equals the kept one; at the first
// piece that differs it copies the equal prefix and appends the rest. A hit
// then costs the walk and no key, a miss one walk too.
type keyer struct {
	key []byte // the key built, once a piece differed
	ref []byte // the kept key compared with
	n   int    // bytes of ref matched
	cmp bool   // every piece so far equals ref's
}

// differ leaves comparing: key becomes the matched prefix of ref.
func (k *keyer) differ() {
	k.key = append(k.key[:0], k.ref[:k.n]...)
	k.cmp = false
}

// put walks the next piece of the key, b.
func (k *keyer) put(b []byte) {
	if k.cmp {
		if len(k.ref)-k.n >= len(b) && string(k.ref[k.n:k.n+len(b)]) == string(b) {
			k.n += len(b)
			return
		}
		k.differ()
	}
	k.key = append(k.key, b...)
}

// put4 and put5 walk a piece of four or five words, compared as words (a
// call to the runtime's byte comparison cost more than the piece).
func (k *keyer) put4(a, b, c, d uint64) {
	if k.cmp {
		if r := k.ref[k.n:]; len(r) >= 32 {
			le := binary.LittleEndian
			if (le.Uint64(r)^a)|(le.Uint64(r[8:])^b)|(le.Uint64(r[16:])^c)|(le.Uint64(r[24:])^d) == 0 { // ^ and | bind alike: the brackets matter
				k.n += 32
				return
			}
		}
		k.differ()
	}
	k.add(a, b, c, d)
}

func (k *keyer) put5(a, b, c, d, e uint64) {
	if k.cmp {
		if r := k.ref[k.n:]; len(r) >= 40 {
			le := binary.LittleEndian
			if (le.Uint64(r)^a)|(le.Uint64(r[8:])^b)|(le.Uint64(r[16:])^c)|(le.Uint64(r[24:])^d)|(le.Uint64(r[32:])^e) == 0 {
				k.n += 40
				return
			}
		}
		k.differ()
	}
	k.add(a, b, c, d, e)
}

func (k *keyer) put1(a uint64) {
	if k.cmp {
		if r := k.ref[k.n:]; len(r) >= 8 && binary.LittleEndian.Uint64(r) == a {
			k.n += 8
			return
		}
		k.differ()
	}
	k.add(a)
}

func (k *keyer) add(w ...uint64) {
	for _, v := range w {
		k.key = binary.LittleEndian.AppendUint64(k.key, v)
	}
}

// replayMatch walks list's replay key against the most recently used kept
// recording not in flight, checking that every handle in it is alive. It
// returns the recording to submit again (hit), or, for a list that is
// replayable but recorded afresh, ok with the key built in s.rkey; ok is
// false for a list that is not replayed. Callers hold d.live (shared) and
// s.mu.
func (s *stream) replayMatch(list *device.CommandList) (hit *replay, ok bool) {
	d := s.d
	if d.noReplay || list.Timings != nil || d.reads.n.Load() != 0 || len(s.enc.hidden) > 0 {
		return nil, false
	}
	var ref *replay
	done := s.completed.Load()
	for _, r := range s.replays {
		if r.value <= done && (ref == nil || r.tick > ref.tick) {
			ref = r
		}
	}
	k := keyer{key: s.rkey[:0]}
	gone := d.removals()
	trust := false
	if ref != nil {
		k.ref, k.cmp = ref.key, true
		trust = ref.gone == gone
	}
	if !s.walkKey(&k, list, trust) {
		s.rkey = k.key
		return nil, false
	}
	if k.cmp {
		if k.n == len(k.ref) {
			ref.gone = gone
			return ref, true
		}
		k.differ() // the list is a prefix of ref's
	}
	s.rkey, s.rgone = k.key, gone
	for _, r := range s.replays {
		if r != ref && r.value <= done && bytes.Equal(r.key, k.key) {
			r.gone = gone
			return r, true
		}
	}
	return nil, true
}

// walkKey feeds list's replay key to k and checks that the list is replayed:
// its shaders qualify and its handles are alive; false for a list that is
// not. A command whose key would be the one before's is one zero word (a
// chain of one kernel on the same buffers walks a ninth of the bytes, read
// from memory on every submission); any other command's key is a header of five words (shader, size, argument
// count, indirect buffer and offset) and each argument's piece (a buffer's
// kind, handle, offset and size: four words; a uniform's kind and length
// in a word, then its bytes). With trust,
// a piece equal to k.ref's needs no check: nothing left the resource table
// since ref's handles were seen alive (removals), and a shader's properties
// do not change. A handle looked up is remembered for the next command
// naming it (a chain names the same few thousands of times).
func (s *stream) walkKey(k *keyer, list *device.CommandList, trust bool) bool {
	d := s.d
	var lastSh, lastBuf device.Handle
	var sh *shader
	var prev *device.ShaderDispatch
	for _, c := range list.Commands {
		sd, isDispatch := c.(*device.ShaderDispatch)
		if !isDispatch || sd.Shader == 0 {
			return false // (shader 0: no header opens with a zero word)
		}
		if prev != nil && sameKey(sd, prev) {
			// Its checks are the one before's; no header opens with a
			// zero word, so the key still names one content.
			k.put1(0)
			continue
		}
		prev = sd
		k.put5(uint64(sd.Shader), uint64(sd.Size[0])|uint64(sd.Size[1])<<32,
			uint64(sd.Size[2])|uint64(len(sd.Args))<<32, uint64(sd.Indirect), sd.IndirectOffset)
		if !trust || !k.cmp {
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
			if sd.Indirect != 0 && sd.Indirect != lastBuf {
				if _, err := lookup[*buffer](d, sd.Indirect, "buffer"); err != nil {
					return false
				}
				lastBuf = sd.Indirect
			}
		}
		for i := range sd.Args {
			a := &sd.Args[i]
			switch a.Kind {
			case device.ArgUniform:
				var n [8]byte
				binary.LittleEndian.PutUint64(n[:], uint64(a.Kind)|uint64(len(a.Uniform))<<32)
				k.put(n[:])
				k.put(a.Uniform)
			case device.ArgBuffer:
				k.put4(uint64(a.Kind), uint64(a.Handle), a.Offset, a.Size)
				if (!trust || !k.cmp) && a.Handle != lastBuf {
					if _, err := lookup[*buffer](d, a.Handle, "buffer"); err != nil {
						return false
					}
					lastBuf = a.Handle
				}
			default:
				return false
			}
		}
	}
	return true
}

// sameKey reports whether a and b have the same replay key.
func sameKey(a, b *device.ShaderDispatch) bool {
	if a == b {
		return true
	}
	if a.Shader != b.Shader || a.Size != b.Size || a.Indirect != b.Indirect || a.IndirectOffset != b.IndirectOffset || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		x, y := &a.Args[i], &b.Args[i]
		if x.Kind != y.Kind || x.Handle != y.Handle || x.Offset != y.Offset || x.Size != y.Size ||
			(x.Kind == device.ArgUniform && string(x.Uniform) != string(y.Uniform)) {
			return false
		}
	}
	return true
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
		cmd: sub.cmd, value: sub.value, tick: s.tick, gone: s.rgone, barriers: e.barriers,
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
