package vulkan

import (
	"os"
	"sync"
	"sync/atomic"

	"github.com/lucent-gpu/lucent/device"
)

// Direct reads, the mirror of direct uploads (direct.go). Where a buffer
// lives in host-visible, host-coherent, host-cached memory (lavapipe,
// integrated GPUs), a download can be a plain copy out of the buffer's
// mapping once the GPU has done the list, instead of a GPU copy into staging
// and a host copy from there. Host reads of uncached (write-combined) memory
// are slow, so such buffers stay staged, as does every texture download.
//
// The host copy happens after the list's GPU work, so nothing may write the
// buffer between the two. Work encoded before the list cannot: the list's
// later commands are checked at encode (one that writes the buffer, binds a
// bindless array or is a custom command makes the download staged), and work
// of other streams encoded earlier is either ordered before the download,
// unordered with it (a race of the caller's, staged or not), or parked
// behind an event signal not yet submitted, so a download is direct only
// while no stream has parked work. Work encoded after the list settles the
// reads it could overwrite before it is submitted: a command writing the
// buffer (or one that may write anything) waits for the read's list on the
// GPU and makes the copy itself. That wait needs no host work, so it cannot
// deadlock: the read's list is submitted at once (nothing is parked) and
// waits for nothing.
//
//	list 1: dispatch k(write a); download a     direct: read after the GPU
//	list 2: upload a (from another goroutine)   settles list 1's read first
//
// A read registers itself before it checks for parked work, and a parking
// stream joins the parked set before its later lists encode, so a list
// parked behind a signal either makes the read staged or sees it registered.
// Lists with direct reads encode one at a time (d.readMu, from planning to
// enqueueing): a list settling another's read that is not yet enqueued waits
// for that, and two lists each settling the other's read cannot both wait.

// directRead is one download the host copies out of a buffer's mapping.
type directRead struct {
	d      *Device
	b      *buffer
	lo, hi uint64 // the buffer range read
	src    []byte // that range of the mapping
	dst    []byte
	s      *stream
	sub    *submission
	value  uint64 // sub's timeline value
	once   sync.Once
	queued atomic.Bool // the list is enqueued on its stream
	done   atomic.Bool // the copy was made (or dropped)
	drop   atomic.Bool // the list was not submitted: nothing to copy
}

// readSet holds the direct reads not yet made.
type readSet struct {
	n     atomic.Int32 // len(reads), read without mu on every command
	mu    sync.Mutex
	reads []*directRead
}

func (rs *readSet) add(r *directRead) {
	rs.mu.Lock()
	rs.reads = append(rs.reads, r)
	rs.n.Store(int32(len(rs.reads)))
	rs.mu.Unlock()
}

func (rs *readSet) remove(r *directRead) {
	rs.mu.Lock()
	for i, x := range rs.reads {
		if x == r {
			rs.reads = append(rs.reads[:i], rs.reads[i+1:]...)
			break
		}
	}
	rs.n.Store(int32(len(rs.reads)))
	rs.mu.Unlock()
}

// matching returns the reads of other submissions than sub that a write of
// [lo, hi) of b (of anything, with b nil) could overwrite.
func (rs *readSet) matching(sub *submission, b *buffer, lo, hi uint64, out []*directRead) []*directRead {
	rs.mu.Lock()
	for _, r := range rs.reads {
		if r.sub != sub && (b == nil || (r.b == b && r.lo < hi && lo < r.hi)) {
			out = append(out, r)
		}
	}
	rs.mu.Unlock()
	return out
}

// read makes the copy, once, whoever asks first (the stream completing the
// list, or a later list about to overwrite the buffer).
func (r *directRead) read() {
	r.once.Do(func() {
		if !r.drop.Load() {
			hostCopy(r.dst, r.src)
		}
		r.done.Store(true)
		r.d.reads.remove(r)
	})
}

// settle waits for the read's list on the GPU and makes the copy. A list
// still encoding holds d.readMu until it is enqueued (or fails); the caller
// holds no reads of its own unqueued (those are excluded by matching).
func (r *directRead) settle() {
	if !r.queued.Load() {
		r.d.readMu.Lock()
		r.d.readMu.Unlock() // only to wait: the list is now enqueued or dropped
	}
	for !r.done.Load() && !r.drop.Load() && r.s.failed.Load() == nil && !r.d.abandoned.Load() {
		ok, err := r.d.waitSemaphore(r.s.sem, r.value, waitSlice)
		if ok || err != nil {
			break
		}
	}
	r.read()
}

// planReads decides which downloads of list read directly and registers
// them (e.readDirect, e.reads); s.mu held, so the list's timeline value is
// the stream's next.
func (e *encoder) planReads(list *device.CommandList) {
	e.readDirect = e.readDirect[:0]
	if e.d.stagedDownloads || len(e.presents) > 0 || !hasReadableDownload(e.d, list) {
		return
	}
	e.d.readMu.Lock()
	e.readLocked = true
	e.readDirect = append(e.readDirect, make([]bool, len(list.Commands))...)
	if e.written == nil {
		e.written = map[device.Handle]bool{}
	}
	clear(e.written)
	anything := false // a later command may write any buffer
	for i := len(list.Commands) - 1; i >= 0; i-- {
		c := list.Commands[i]
		switch c := c.(type) {
		case *device.BufferDownload:
			if !anything && !e.written[c.Buffer] && len(c.Data) > 0 {
				b, err := lookup[*buffer](e.d, c.Buffer, "buffer")
				if err == nil && b.raw.readable && c.Offset+uint64(len(c.Data)) <= b.desc.Size && c.Offset+uint64(len(c.Data)) >= c.Offset {
					e.readDirect[i] = true
					lo, hi := c.Offset, c.Offset+uint64(len(c.Data))
					e.reads = append(e.reads, &directRead{d: e.d, b: b, lo: lo, hi: hi, src: b.raw.bytes()[lo:hi], dst: c.Data,
						s: e.s, sub: e.sub, value: e.s.next + 1})
				}
			}
			continue
		case *device.ShaderDispatch:
			for _, a := range c.Args {
				switch a.Kind {
				case device.ArgBindlessArray:
					anything = true // the kernel may write any buffer a slot points at
				case device.ArgBuffer:
					e.written[a.Handle] = true // whatever the argument says, the signature decides
				}
			}
			continue
		case *device.Custom:
			anything = true
		}
		for _, u := range c.Usages() {
			if u.Access&device.Write != 0 {
				e.written[u.Handle] = true
			}
		}
	}
	for _, r := range e.reads {
		e.d.reads.add(r)
	}
	// Registered first, then checked: see the comment at the top.
	if len(e.reads) > 0 && !e.d.parked.empty() {
		e.dropReads()
		clear(e.readDirect)
	}
	if len(e.reads) == 0 {
		e.finishReads()
	}
}

// finishReads marks the list's reads enqueued (the list was, or they were
// dropped) and lets the next list with direct reads encode.
func (e *encoder) finishReads() {
	for _, r := range e.reads {
		r.queued.Store(true)
	}
	clear(e.reads)
	e.reads = e.reads[:0]
	if e.readLocked {
		e.readLocked = false
		e.d.readMu.Unlock()
	}
}

// EnvStagedDownloads, set to 1 before Open, stages every download (to
// measure one path against the other, and to test the staged one on a
// unified device).
const EnvStagedDownloads = "LUCENT_VULKAN_STAGED_DOWNLOADS"

func stagedDownloadsForced() bool { return os.Getenv(EnvStagedDownloads) == "1" }

func hasReadableDownload(d *Device, list *device.CommandList) bool {
	for _, c := range list.Commands {
		if c, ok := c.(*device.BufferDownload); ok {
			if b, err := lookup[*buffer](d, c.Buffer, "buffer"); err == nil && b.raw.readable {
				return true
			}
		}
	}
	return false
}

// isReadDirect reports whether command i of the list being encoded reads directly.
func (e *encoder) isReadDirect(i int) bool { return i < len(e.readDirect) && e.readDirect[i] }

// directRead returns the registered read of command i.
func (e *encoder) directRead(i int) *directRead {
	// e.reads is in reverse command order (planReads walks backwards).
	k := 0
	for j := len(e.readDirect) - 1; j > i; j-- {
		if e.readDirect[j] {
			k++
		}
	}
	return e.reads[k]
}

// dropReads withdraws the list's reads (it was not submitted, or planning
// found parked work).
func (e *encoder) dropReads() {
	for _, r := range e.reads {
		r.drop.Store(true)
		r.read()
	}
	e.finishReads()
}

// settleWrites makes the pending reads of other lists that the uses' writes
// (everything, with anything set) could overwrite.
func (e *encoder) settleWrites(anything bool, uses []use) {
	if e.d.reads.n.Load() == 0 {
		return
	}
	pending := e.settling[:0]
	if anything {
		pending = e.d.reads.matching(e.sub, nil, 0, 0, pending)
	} else {
		for _, u := range uses {
			if b, ok := u.key.(*buffer); ok && u.write {
				pending = e.d.reads.matching(e.sub, b, u.lo, u.hi, pending)
			}
		}
	}
	for _, r := range pending {
		r.settle()
	}
	clear(pending)
	e.settling = pending[:0]
}
