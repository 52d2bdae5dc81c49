package vulkan

// The encoder turns a device.CommandList into one VkCommandBuffer. It is one
// type switch over the commands; barriers come from what each command reads
// and writes, never from the user.
//
// Worked example (a, b, c buffers; k1 writes a, k2 writes b, k3 reads a, b):
//
//	k1(write a)           no earlier access: recorded as is
//	k2(write b)           independent of k1: no barrier, both may overlap
//	k3(read a, read b)    reads what k1 and k2 wrote: one barrier,
//	                      src = compute writes, dst = everything after
//
// After a barrier the set of accesses is cleared: the barrier orders
// everything before it with everything after it. Ranges of one buffer that do
// not overlap are independent (views of disjoint halves run together).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// access is one resource range touched since the last barrier.
type access struct {
	key    any // *buffer, *texture or *bindless
	lo, hi uint64
	write  bool
}

const (
	stageCompute  = vk.PIPELINE_STAGE_2_COMPUTE_SHADER_BIT
	stageCopy     = vk.PIPELINE_STAGE_2_ALL_TRANSFER_BIT
	stageIndirect = vk.PIPELINE_STAGE_2_DRAW_INDIRECT_BIT
	stageAll      = vk.PIPELINE_STAGE_2_ALL_COMMANDS_BIT

	accessShaderWrite   = vk.ACCESS_2_SHADER_WRITE_BIT
	accessTransferWrite = vk.ACCESS_2_TRANSFER_WRITE_BIT
	accessMemoryWrite   = vk.ACCESS_2_MEMORY_WRITE_BIT
	writeAccess         = accessShaderWrite | accessTransferWrite | accessMemoryWrite
	// everything after a barrier may read or write anything before it
	dstAccess = vk.ACCESS_2_MEMORY_READ_BIT | vk.ACCESS_2_MEMORY_WRITE_BIT
)

type encoder struct {
	d     *Device
	s     *stream
	cmd   vk.CommandBuffer
	sub   *submission
	begin vk.CommandBufferBeginInfo // here, not on the stack: it would escape

	accesses []access
	// older are the accesses before the last barrier whose second scope was
	// narrowed to the stages covered (one entry per resource, ranges
	// merged): commands of those stages are ordered after them, commands of
	// others are not yet.
	older       []access
	covered     vk.PipelineStageFlags2
	srcStage    vk.PipelineStageFlags2
	srcAccess   vk.AccessFlags2
	global      bool                     // unknown memory was touched (bindless, custom): next command needs a barrier
	imgBarriers []vk.ImageMemoryBarrier2 // layout transitions for the next barrier
	layouts     []texLayout              // the layouts of the textures the list touched (imagelayout.go)
	pipeline    vk.Pipeline
	downloads   bool
	barriers    int // memory barriers in the list being encoded
	wide        int // of which ordering everything after them (second scope all commands)
	last        int // barriers in the last list encoded (for tests)
	lastWide    int // wide ones among them

	staging    []byte
	stagingOff uint64
	used       []*tracked

	// Recording calls are queued in batch and made in one Go→C transition
	// per list. What they point at must not change before the flush, so
	// descriptor writes and push-constant bytes go to append-only arenas,
	// emptied after each flush.
	batch     *vk.CommandBatch
	uses      []use // scratch
	deps      []vk.DependencyInfo
	mbs       []vk.MemoryBarrier2
	push      [128]byte
	pushArena []byte
	writes    []vk.WriteDescriptorSet
	bufInfos  []vk.DescriptorBufferInfo
	imgInfos  []vk.DescriptorImageInfo

	// Without push descriptors: the tuple naming a dispatch's set, the
	// resources in it, and the set handles bound (an arena, like writes).
	setKey   []byte
	setRes   []device.Handle
	setArena []vk.DescriptorSet

	texBinds []texBind // a dispatch's native texture sets (scratch)
	texWants []texWant // the layouts a dispatch's texture arguments need (scratch)

	// What the command buffer has bound (bindstate.go); lastBind is the
	// last list's, for tests.
	bind, lastBind bindState

	// Direct uploads (direct.go): which commands write directly, what
	// they write, the handles seen while planning, the command encoding.
	direct       []bool
	writesDirect []directWrite
	seen         map[device.Handle]bool
	index        int
	lastDirect   int // direct uploads of the last list submitted (for tests)

	// Direct reads (directread.go): which downloads read directly, their
	// registered reads (in reverse command order), the buffers written by
	// later commands while planning, reads to settle (scratch), whether
	// the list holds d.readMu, and the last list's count (for tests).
	readDirect []bool
	reads      []*directRead
	written    map[device.Handle]bool
	settling   []*directRead
	readLocked bool
	hostReads  bool // the list has direct reads: its end barrier covers every write
	lastReads  int

	presents []*presentJob // the list's Present commands (present.go)
	reusable bool          // the list is kept for submitting again (replay.go)

	touched []*accelTouch             // structures the list changes (accel_encode.go)
	hidden  map[device.Handle]*buffer // buffers of the backend's own a dispatch sees (accel_indices.go)

	// One-time initialisations this list took on (a texture's first layout
	// transition, a buffer's or a bindless array's first clear): given back
	// if the list fails, so the next list records them.
	claims []*atomic.Bool
	// slotBufs are the bindless buffer slots this list's updates set, in
	// order (bindless.go): the arrays' records take them once it is submitted.
	slotBufs []slotBuffer
	// texUndo is how the arrays' texture slots were before this list's
	// updates changed them, put back if the list is refused.
	texUndo texUndo
}

// texBind is a bindless array's texture set bound at set index.
type texBind struct {
	index uint32
	set   vk.DescriptorSet
}

func (e *encoder) init(d *Device, s *stream) {
	e.d, e.s = d, s
	e.batch = d.fn.NewCommandBatch()
	e.pushArena = make([]byte, 0, 4096)
	e.writes = make([]vk.WriteDescriptorSet, 0, 64)
	e.bufInfos = make([]vk.DescriptorBufferInfo, 0, 64)
	e.imgInfos = make([]vk.DescriptorImageInfo, 0, 64)
	e.setArena = make([]vk.DescriptorSet, 0, 64)
}

func (e *encoder) release() {}

// stagingSize is the host-visible memory a list needs for its transfers
// (direct uploads need none).
func (e *encoder) stagingSize(list *device.CommandList) uint64 {
	var n uint64
	for i, c := range list.Commands {
		switch c := c.(type) {
		case *device.BufferUpload:
			if !e.isDirect(i) {
				n += alignUp(uint64(len(c.Data)), 16)
			}
		case *device.BufferDownload:
			if !e.isReadDirect(i) {
				n += alignUp(uint64(len(c.Data)), 16)
			}
		case *device.TextureUpload:
			n += alignUp(uint64(len(c.Data)), 16)
		case *device.TextureDownload:
			n += alignUp(uint64(len(c.Data)), 16)
		case *device.BindlessUpdate:
			n += alignUp(uint64(len(c.Slots))*slotRecordSize, 16)
		case *device.AccelBuild:
			n += alignUp(uint64(c.Count)*instanceRecord, 16)
		case *device.ShaderDispatch:
			// Arguments past the push budget (kernel ABI v1's spill block).
			if sh, err := lookup[*shader](e.d, c.Shader, "shader"); err == nil {
				n += alignUp(uint64(sh.lay.spillSize), 16)
			}
		}
	}
	return n
}

// Dispatch encodes list into a command buffer and submits it on the stream
// (in pieces where it builds structures in software, accel_soft.go). A list
// submitted again with the same content resubmits the command buffer
// recorded for it (replay.go).
func (d *Device) Dispatch(sh device.Handle, list *device.CommandList) error {
	sc := scanList(list)
	if d.softAccel && sc.accel {
		if err := d.enter(); err != nil {
			return err
		}
		defer d.exit()
		return d.dispatchSoftware(sh, list)
	}
	return d.dispatchScanned(sh, list, sc)
}

// listScan is what one pass over a list's commands found, so that the
// checks before encoding walk a long list once: a chain of 10,000 dispatches
// paid three walks besides its replay key's.
type listScan struct {
	nilAt    int  // the first nil command, -1: none
	presents bool // a Present
	accel    bool // a ray-tracing structure command (isAccelCommand)
}

func scanList(list *device.CommandList) listScan {
	sc := listScan{nilAt: -1}
	if list == nil {
		return sc
	}
	for i, c := range list.Commands {
		switch c.(type) {
		case *device.ShaderDispatch:
		case nil:
			if sc.nilAt < 0 {
				sc.nilAt = i
			}
		case *device.Present:
			sc.presents = true
		default:
			sc.accel = sc.accel || isAccelCommand(c)
		}
	}
	return sc
}

// dispatch and the functions it calls are split where a lock is taken, each
// with its defers and few returns: the compiler open-codes a function's
// defers only while returns × defers stays at most 15, and one function
// holding them all paid the runtime's deferred calls on every list.
func (d *Device) dispatch(sh device.Handle, list *device.CommandList) error {
	return d.dispatchScanned(sh, list, scanList(list))
}

func (d *Device) dispatchScanned(sh device.Handle, list *device.CommandList, sc listScan) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	return d.dispatchEntered(sh, list, sc)
}

func (d *Device) dispatchEntered(sh device.Handle, list *device.CommandList, sc listScan) error {
	if list == nil {
		return invalidf("nil command list")
	}
	if sc.nilAt >= 0 {
		return invalidf("command %d: nil command", sc.nilAt)
	}
	var presents []*presentJob
	if sc.presents {
		var err error
		if presents, err = d.beginPresents(sh, list); err != nil {
			return err
		}
		defer endPresents(presents)
	}
	d.live.RLock()
	defer d.live.RUnlock()
	return d.dispatchLive(sh, list, presents)
}

// dispatchLive is dispatch under d.live (shared).
func (d *Device) dispatchLive(sh device.Handle, list *device.CommandList, presents []*presentJob) error {
	if err := d.alive(); err != nil {
		return err
	}
	s, err := lookup[*stream](d, sh, "stream")
	if err != nil {
		return err
	}
	if len(presents) > 0 && len(s.parked) > 0 {
		// The blit would be parked too, and the present cannot wait for it.
		return invalidf("present on stream %d: it has work waiting for an event signal not yet submitted", sh)
	}
	if s.kind == device.StreamCopy {
		for i, c := range list.Commands {
			if c.Queue() == device.StreamCompute {
				return invalidf("command %d (%s) needs a compute stream; stream %d is a copy stream", i, c.CommandName(), sh)
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return d.dispatchLocked(s, list, presents)
}

// dispatchLocked encodes and enqueues list on s; s.mu held.
func (d *Device) dispatchLocked(s *stream, list *device.CommandList, presents []*presentJob) error {
	if err := s.err(); err != nil {
		return err
	}
	sub := s.newSubmission()
	sub.callbacks = list.Callbacks
	if len(list.Commands) == 0 {
		if list.Timings != nil {
			list.Timings.Reset(list) // nothing to time
		}
		s.enqueue(sub)
		return nil
	}
	e := &s.enc
	r, replayable := s.replayMatch(list)
	if r != nil {
		s.submitReplay(sub, r)
		return d.finishPresents(s, sub, presents)
	}
	e.presents = presents
	e.reusable = replayable
	if err := e.encode(sub, list); err != nil {
		failPresents(presents)
		for _, c := range e.claims {
			c.Store(true) // the initialisations this list would have done are still to do
		}
		if sub.cmd != 0 {
			if e.batch.Flush() == nil { // what was queued belongs to this command buffer
				d.fn.EndCommandBuffer(sub.cmd)
			}
			s.spare = append(s.spare, sub.cmd)
		}
		if sub.staging != nil {
			d.mem.releaseStaging(sub.staging)
		}
		s.releaseQueries(sub)
		e.settleAccels(false)
		e.dropReads()
		s.releaseRing(sub)
		e.undoTextures()
		e.reset()
		s.recycle(sub)
		return err
	}
	e.writeDirect()
	replayable = e.reusable // encoding may have found a first use (encoder.buffer)
	sub.kept = replayable
	s.enqueue(sub)
	if replayable {
		s.keepReplay(sub, s.rkey)
	}
	e.lastReads = len(e.reads)
	e.finishReads()
	for _, t := range e.used {
		t.use(s, sub.value)
	}
	e.commitSlotBuffers()
	e.settleAccels(true)
	e.reset()
	return d.finishPresents(s, sub, presents)
}

// runCustom calls a custom command's function; a panic in it fails the list
// (Dispatch returns it) instead of unwinding through the encoder.
func (e *encoder) runCustom(c *device.Custom, cmd vk.CommandBuffer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panicked: %v: %w", r, device.ErrPanicked)
			e.d.log.Error("vulkan: a custom command panicked", "command", c.Name, "panic", fmt.Sprint(r))
		}
	}()
	return c.Func(uintptr(cmd))
}

func (e *encoder) reset() {
	e.batch.Flush() // no-op after a successful encode; drops nothing on an error path
	clear(e.claims)
	e.claims = e.claims[:0]
	e.writes, e.bufInfos, e.imgInfos, e.pushArena = e.writes[:0], e.bufInfos[:0], e.imgInfos[:0], e.pushArena[:0]
	e.setArena = e.setArena[:0]
	e.deps, e.mbs = e.deps[:0], e.mbs[:0]
	e.last, e.barriers = e.barriers, 0
	e.lastWide, e.wide = e.wide, 0
	e.accesses = e.accesses[:0]
	e.older, e.covered = e.older[:0], 0
	e.srcStage, e.srcAccess, e.global = 0, 0, false
	e.imgBarriers = e.imgBarriers[:0]
	e.layouts = e.layouts[:0]
	e.pipeline = 0
	e.lastBind.skippedSets, e.lastBind.skippedPush = e.bind.skippedSets, e.bind.skippedPush
	e.bind.forget()
	e.bind.skippedSets, e.bind.skippedPush = 0, 0
	e.downloads, e.hostReads = false, false
	e.staging, e.stagingOff = nil, 0
	clear(e.writesDirect)
	e.writesDirect = e.writesDirect[:0]
	clear(e.used)
	e.used = e.used[:0]
	clear(e.slotBufs)
	e.slotBufs = e.slotBufs[:0]
	e.resetTextures()
	e.sub, e.cmd = nil, 0
	e.presents = nil // Dispatch's, which finishes them after the reset
	e.reusable = false
}

func (e *encoder) encode(sub *submission, list *device.CommandList) error {
	d := e.d
	e.sub = sub
	e.planDirect(list)
	e.planReads(list)
	if n := e.stagingSize(list); n > 0 {
		st, err := d.mem.newStaging(n)
		if err != nil {
			return fmt.Errorf("vulkan: staging memory for %d bytes: %w", n, err)
		}
		sub.staging = st
		e.staging = st.bytes()
	}
	cmd, err := e.s.commandBuffer()
	if err != nil {
		return err
	}
	sub.cmd, e.cmd = cmd, cmd
	e.begin = vk.CommandBufferBeginInfo{SType: vk.STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, Flags: vk.COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT}
	if e.reusable {
		e.begin.Flags = 0 // kept for submitting again (replay.go)
	}
	// Begin and End are batched with the commands: the list is recorded in
	// one transition to C (two fewer per list), and a failed Begin stops the
	// batch before anything is recorded.
	if err := e.batch.BeginCommandBuffer(cmd, &e.begin); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	// Order this list after the stream's earlier lists: submission order alone
	// makes no memory available or visible.
	e.srcStage, e.srcAccess = stageAll, accessMemoryWrite
	e.global = true
	timed := list.Timings != nil
	if timed {
		if err := e.beginTimings(list); err != nil {
			return err
		}
	}
	for i, c := range list.Commands {
		e.index = i
		if err := e.command(c); err != nil {
			return fmt.Errorf("command %d (%s): %w", i, c.CommandName(), err)
		}
		if timed {
			e.timestamp(i)
		}
	}
	e.restLayouts()
	if e.sub.ring != nil {
		// The host reads the records once the list is done.
		mb := vk.MemoryBarrier2{
			SType: vk.STRUCTURE_TYPE_MEMORY_BARRIER_2, SrcStageMask: stageCompute, SrcAccessMask: accessShaderWrite,
			DstStageMask: vk.PIPELINE_STAGE_2_HOST_BIT, DstAccessMask: vk.ACCESS_2_HOST_READ_BIT,
		}
		e.batch.CmdPipelineBarrier2(cmd, &vk.DependencyInfo{SType: vk.STRUCTURE_TYPE_DEPENDENCY_INFO, MemoryBarrierCount: 1, PMemoryBarriers: &mb})
	}
	if e.downloads {
		mb := vk.MemoryBarrier2{
			SType: vk.STRUCTURE_TYPE_MEMORY_BARRIER_2, SrcStageMask: stageCopy, SrcAccessMask: accessTransferWrite,
			DstStageMask: vk.PIPELINE_STAGE_2_HOST_BIT, DstAccessMask: vk.ACCESS_2_HOST_READ_BIT,
		}
		if e.hostReads { // the host reads buffers whatever wrote them, in this list or before
			mb.SrcStageMask, mb.SrcAccessMask = stageAll, accessMemoryWrite
		}
		e.batch.CmdPipelineBarrier2(cmd, &vk.DependencyInfo{SType: vk.STRUCTURE_TYPE_DEPENDENCY_INFO, MemoryBarrierCount: 1, PMemoryBarriers: &mb})
	}
	if err := e.batch.EndCommandBuffer(cmd); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	return e.flush()
}

// flush makes the batched calls; a failed Begin or End is reported as the
// command's error.
func (e *encoder) flush() error {
	err := e.batch.Flush()
	if err == nil {
		return nil
	}
	var be *vk.BatchError
	if errors.As(err, &be) {
		return check(be.Command, be.Result)
	}
	return err
}

// use records a resource range a command touches, emitting a barrier first
// when it conflicts with an access since the last barrier.
type use struct {
	key    any
	lo, hi uint64
	write  bool
}

// order emits the barrier the next command needs, then records its uses.
//
// A barrier's second scope is the stage of the command that needs it, not
// every command: a chain of dispatches is ordered compute to compute, as a
// hand-written one is. The accesses before it stay in older, ordered for
// that stage only; a later command of another stage that conflicts with them
// gets a barrier for all commands, as does one after unknown memory was
// touched.
func (e *encoder) order(stage vk.PipelineStageFlags2, acc vk.AccessFlags2, uses ...use) {
	e.settleWrites(false, uses)
	if len(e.accesses) >= maxAccesses {
		// The scan below is bounded: a barrier orders everything so far (one
		// per maxAccesses accesses that appendAccess does not merge; 30,000
		// one-element uploads at scattered offsets took 2.2 s without it).
		e.barrierTo(true, stageAll)
	}
	conflict, wide := e.global, e.global
	for _, u := range uses {
		if conflict {
			break
		}
		for _, a := range e.accesses {
			if a.key == u.key && a.lo < u.hi && u.lo < a.hi && (a.write || u.write) {
				conflict = true
				break
			}
		}
	}
	if stage&^e.covered != 0 && len(e.older) > 0 {
		for _, u := range uses {
			if wide {
				break
			}
			for _, a := range e.older {
				if a.key == u.key && a.lo < u.hi && u.lo < a.hi && (a.write || u.write) {
					wide = true
					break
				}
			}
		}
	}
	// A narrow barrier would leave older covered for two sets of stages:
	// one set is kept, so a change of stage orders everything.
	wide = wide || (conflict && len(e.older) > 0 && stage != e.covered)
	if conflict || wide || len(e.imgBarriers) > 0 {
		dst := stage
		if wide {
			dst = stageAll
		}
		e.barrierTo(conflict || wide, dst)
	}
	for _, u := range uses {
		e.accesses = appendAccess(e.accesses, access(u))
	}
	e.srcStage |= stage
	e.srcAccess |= acc & writeAccess
}

func (e *encoder) barrier(memory bool) { e.barrierTo(memory, stageAll) }

// barrierTo emits a barrier; with memory, one ordering the accesses since the
// last before the commands of stages dst after it (all of them: stageAll).
func (e *encoder) barrierTo(memory bool, dst vk.PipelineStageFlags2) {
	// From append-only arenas: the batch keeps pointing at them until it is
	// flushed (an append that moves an arena leaves the old array in place).
	e.deps = append(e.deps, vk.DependencyInfo{SType: vk.STRUCTURE_TYPE_DEPENDENCY_INFO})
	di := &e.deps[len(e.deps)-1]
	if memory && e.srcStage != 0 {
		e.mbs = append(e.mbs, vk.MemoryBarrier2{
			SType: vk.STRUCTURE_TYPE_MEMORY_BARRIER_2, SrcStageMask: e.srcStage, SrcAccessMask: e.srcAccess,
			DstStageMask: dst, DstAccessMask: dstAccess,
		})
		di.MemoryBarrierCount = 1
		di.PMemoryBarriers = &e.mbs[len(e.mbs)-1]
		e.barriers++
		if dst == stageAll {
			e.wide++
		}
	}
	if len(e.imgBarriers) > 0 {
		// A copy: imgBarriers is reused before the batch is flushed.
		imgs := append([]vk.ImageMemoryBarrier2(nil), e.imgBarriers...)
		di.ImageMemoryBarrierCount = uint32(len(imgs))
		di.PImageMemoryBarriers = &imgs[0]
	}
	if di.MemoryBarrierCount+di.ImageMemoryBarrierCount > 0 {
		e.batch.CmdPipelineBarrier2(e.cmd, di)
	}
	e.imgBarriers = e.imgBarriers[:0]
	if memory {
		if dst == stageAll {
			e.older, e.covered = e.older[:0], 0
		} else {
			for _, a := range e.accesses {
				e.older = mergeAccess(e.older, a)
			}
			e.covered = dst
		}
		e.accesses = e.accesses[:0]
		e.srcStage, e.srcAccess = 0, 0
		e.global = false
	}
}

// maxAccesses bounds the accesses order compares a command's uses with.
const maxAccesses = 512

// appendAccess records a, extending the last access instead where it is of
// the same resource and kind and its range meets a's: the union is the same
// bytes, so order finds the same conflicts, and a list of many consecutive
// small transfers keeps one entry instead of one each, which order scanned
// for every command (100,000 one-element uploads of a buffer: 23 s).
func appendAccess(as []access, a access) []access {
	if n := len(as); n > 0 {
		l := &as[n-1]
		if l.key == a.key && l.write == a.write && a.lo <= l.hi && l.lo <= a.hi {
			l.lo, l.hi = min(l.lo, a.lo), max(l.hi, a.hi)
			return as
		}
	}
	return append(as, a)
}

// mergeAccess adds a to as, merged into the entry of its resource (the range
// spanning both, a write if either is): a superset, so never a missed conflict.
func mergeAccess(as []access, a access) []access {
	for i := range as {
		if as[i].key == a.key {
			as[i].lo, as[i].hi = min(as[i].lo, a.lo), max(as[i].hi, a.hi)
			as[i].write = as[i].write || a.write
			return as
		}
	}
	return append(as, a)
}

// stage reserves n bytes of staging memory and returns them with their offset.
func (e *encoder) stage(n uint64) ([]byte, uint64) {
	off := e.stagingOff
	e.stagingOff += alignUp(n, 16)
	return e.staging[off : off+n], off
}

func (e *encoder) buffer(h device.Handle) (*buffer, error) { return e.bufferFor(h, 0, 0) }

// bufferFor is buffer for a command that first overwrites bytes [off,
// off+n) of it. A buffer's first list zeroes it (CreateBuffer) unless that
// command overwrites all of it (the claim is given back if the list fails):
// in mapped, coherent memory the host clears it at once (no GPU work has
// used the buffer yet), elsewhere a fill does, and a replay must not fill it
// again, so that list is not kept.
func (e *encoder) bufferFor(h device.Handle, off, n uint64) (*buffer, error) {
	if b, ok := e.hidden[h]; ok {
		return b, nil
	}
	b, err := lookup[*buffer](e.d, h, "buffer")
	if err != nil {
		return b, err
	}
	e.used = append(e.used, &b.tracked)
	if b.needsClear.CompareAndSwap(true, false) {
		switch m := b.raw.bytes(); {
		case b.whole(off, n):
			e.claims = append(e.claims, &b.needsClear)
		case m != nil && b.raw.coherent:
			clear(m)
		default:
			e.claims = append(e.claims, &b.needsClear)
			e.reusable = false
			e.order(stageCopy, accessTransferWrite, use{b, 0, b.raw.size, true})
			e.batch.CmdFillBuffer(e.cmd, b.raw.handle, 0, vk.DeviceSize(b.raw.size), 0)
		}
	}
	return b, nil
}

func (e *encoder) texture(h device.Handle) (*texture, error) {
	t, err := lookup[*texture](e.d, h, "texture")
	if err != nil {
		return nil, err
	}
	e.used = append(e.used, &t.tracked)
	if t.needsInit.CompareAndSwap(true, false) {
		// Its first list: every level starts out of UNDEFINED, and is
		// zeroed (its memory may be a freed resource's), as a new buffer is.
		e.claims = append(e.claims, &t.needsInit)
		e.layoutOf(t, vk.IMAGE_LAYOUT_UNDEFINED)
		e.transition(t, 0, t.desc.Levels, vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL)
		e.order(stageCopy, accessTransferWrite, use{t, 0, ^uint64(0), true})
		var zero vk.ClearColorValue
		all := vk.ImageSubresourceRange{AspectMask: vk.IMAGE_ASPECT_COLOR_BIT, LevelCount: t.desc.Levels, LayerCount: 1}
		e.batch.CmdClearColorImage(e.cmd, t.image, vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &all)
	}
	return t, nil
}

// bindlessArray looks a bindless array up for a command, emptying its slot
// records first if no command list has yet.
func (e *encoder) bindlessArray(h device.Handle) (*bindless, error) {
	arr, err := lookup[*bindless](e.d, h, "bindless array")
	if err != nil {
		return nil, err
	}
	e.used = append(e.used, &arr.tracked)
	if arr.needsClear.CompareAndSwap(true, false) {
		e.claims = append(e.claims, &arr.needsClear)
		e.order(stageCopy, accessTransferWrite, use{arr, 0, ^uint64(0), true})
		e.batch.CmdFillBuffer(e.cmd, arr.table.raw.handle, 0, vk.DeviceSize(arr.table.raw.size), 0)
	}
	return arr, nil
}

// bufferTexture resolves and checks the two sides of a buffer↔texture copy:
// the handles, the texture region, the buffer offset's alignment and the
// buffer range the region's n packed bytes occupy.
func (e *encoder) bufferTexture(bh device.Handle, off uint64, th device.Handle, reg device.Region) (*buffer, *texture, vk.BufferImageCopy, uint64, error) {
	var r vk.BufferImageCopy
	b, err := e.buffer(bh)
	if err != nil {
		return nil, nil, r, 0, err
	}
	t, err := e.texture(th)
	if err != nil {
		return nil, nil, r, 0, err
	}
	origin, size, n, err := t.region(reg, th)
	if err != nil {
		return nil, nil, r, 0, err
	}
	if err := e.texelOffset(t, off); err != nil {
		return nil, nil, r, 0, err
	}
	if _, err := span(b, bh, off, n); err != nil {
		return nil, nil, r, 0, err
	}
	return b, t, t.copyRegion(off, reg.Level, origin, size), n, nil
}

// span checks [off, off+size) against a buffer and returns its size
// (device.WholeSize: to the end; 0 is an empty range, its offset checked).
func span(b *buffer, h device.Handle, off, size uint64) (uint64, error) {
	if size == device.WholeSize {
		if off > b.desc.Size {
			return 0, invalidf("%s: offset %d beyond its %d bytes", b.label(h), off, b.desc.Size)
		}
		size = b.desc.Size - off
	}
	if off+size > b.desc.Size || off+size < off {
		return 0, invalidf("%s: range [%d, %d) beyond its %d bytes", b.label(h), off, off+size, b.desc.Size)
	}
	return size, nil
}

// command encodes one command: the one type switch.
func (e *encoder) command(c device.Command) error {
	cmd := e.cmd
	switch c := c.(type) {
	case *device.BufferUpload:
		b, err := e.bufferFor(c.Buffer, c.Offset, uint64(len(c.Data)))
		if err != nil {
			return err
		}
		n := uint64(len(c.Data))
		if _, err := span(b, c.Buffer, c.Offset, n); err != nil || n == 0 {
			return err
		}
		if e.isDirect(e.index) {
			e.writesDirect = append(e.writesDirect, directWrite{b.raw.bytes()[c.Offset : c.Offset+n], c.Data})
			return nil
		}
		dst, off := e.stage(n)
		hostCopy(dst, c.Data)
		e.order(stageCopy, accessTransferWrite, use{b, c.Offset, c.Offset + n, true})
		e.copyBuffer(e.sub.staging.handle, off, b.raw.handle, c.Offset, n)

	case *device.BufferDownload:
		b, err := e.buffer(c.Buffer)
		if err != nil {
			return err
		}
		n := uint64(len(c.Data))
		if _, err := span(b, c.Buffer, c.Offset, n); err != nil || n == 0 {
			return err
		}
		if e.isReadDirect(e.index) {
			// Read by the host after the list (no GPU command).
			e.sub.downloads = append(e.sub.downloads, download{dst: c.Data, read: e.directRead(e.index)})
			e.downloads, e.hostReads = true, true
			return nil
		}
		_, off := e.stage(n)
		e.order(stageCopy, accessTransferWrite, use{b, c.Offset, c.Offset + n, false})
		e.copyBuffer(b.raw.handle, c.Offset, e.sub.staging.handle, off, n)
		e.sub.downloads = append(e.sub.downloads, download{offset: off, dst: c.Data})
		e.downloads = true

	case *device.BufferCopy:
		src, err := e.buffer(c.Src)
		if err != nil {
			return err
		}
		dst, err := e.buffer(c.Dst)
		if err != nil {
			return err
		}
		if c.Size == 0 {
			return nil
		}
		if _, err := span(src, c.Src, c.SrcOffset, c.Size); err != nil {
			return err
		}
		if _, err := span(dst, c.Dst, c.DstOffset, c.Size); err != nil {
			return err
		}
		if src == dst && c.SrcOffset < c.DstOffset+c.Size && c.DstOffset < c.SrcOffset+c.Size {
			return invalidf("copy within %s: source and destination ranges overlap", src.label(c.Src))
		}
		e.order(stageCopy, accessTransferWrite,
			use{src, c.SrcOffset, c.SrcOffset + c.Size, false}, use{dst, c.DstOffset, c.DstOffset + c.Size, true})
		e.copyBuffer(src.raw.handle, c.SrcOffset, dst.raw.handle, c.DstOffset, c.Size)

	case *device.BufferFill:
		b, err := e.bufferFor(c.Buffer, c.Offset, c.Size)
		if err != nil {
			return err
		}
		if c.Size == 0 {
			return nil
		}
		if _, err := span(b, c.Buffer, c.Offset, c.Size); err != nil {
			return err
		}
		e.order(stageCopy, accessTransferWrite, use{b, c.Offset, c.Offset + c.Size, true})
		e.batch.CmdFillBuffer(e.cmd, b.raw.handle, vk.DeviceSize(c.Offset), vk.DeviceSize(c.Size), c.Value)

	case *device.BufferToTexture:
		b, t, r, n, err := e.bufferTexture(c.Buffer, c.Offset, c.Texture, c.Region)
		if err != nil {
			return err
		}
		e.transition(t, c.Region.Level, 1, vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL)
		e.order(stageCopy, accessTransferWrite, use{b, c.Offset, c.Offset + n, false}, use{t, 0, ^uint64(0), true})
		e.batch.CmdCopyBufferToImage(cmd, b.raw.handle, t.image, vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &r)

	case *device.TextureToBuffer:
		b, t, r, n, err := e.bufferTexture(c.Buffer, c.Offset, c.Texture, c.Region)
		if err != nil {
			return err
		}
		e.transition(t, c.Region.Level, 1, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)
		e.order(stageCopy, accessTransferWrite, use{t, 0, ^uint64(0), false}, use{b, c.Offset, c.Offset + n, true})
		e.batch.CmdCopyImageToBuffer(cmd, t.image, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, b.raw.handle, 1, &r)

	case *device.TextureUpload:
		t, err := e.texture(c.Texture)
		if err != nil {
			return err
		}
		origin, size, n, err := t.region(c.Region, c.Texture)
		if err != nil {
			return err
		}
		if uint64(len(c.Data)) != n {
			return invalidf("texture %d: %d bytes of data for a region of %d bytes", c.Texture, len(c.Data), n)
		}
		dst, off := e.stage(n)
		hostCopy(dst, c.Data)
		e.transition(t, c.Region.Level, 1, vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL)
		e.order(stageCopy, accessTransferWrite, use{t, 0, ^uint64(0), true})
		r := t.copyRegion(off, c.Region.Level, origin, size)
		e.batch.CmdCopyBufferToImage(cmd, e.sub.staging.handle, t.image, vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &r)

	case *device.TextureDownload:
		t, err := e.texture(c.Texture)
		if err != nil {
			return err
		}
		origin, size, n, err := t.region(c.Region, c.Texture)
		if err != nil {
			return err
		}
		if uint64(len(c.Data)) != n {
			return invalidf("texture %d: %d bytes of room for a region of %d bytes", c.Texture, len(c.Data), n)
		}
		_, off := e.stage(n)
		e.transition(t, c.Region.Level, 1, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)
		e.order(stageCopy, accessTransferWrite, use{t, 0, ^uint64(0), false})
		r := t.copyRegion(off, c.Region.Level, origin, size)
		e.batch.CmdCopyImageToBuffer(cmd, t.image, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, e.sub.staging.handle, 1, &r)
		e.sub.downloads = append(e.sub.downloads, download{offset: off, dst: c.Data})
		e.downloads = true

	case *device.TextureCopy:
		src, err := e.texture(c.Src)
		if err != nil {
			return err
		}
		dst, err := e.texture(c.Dst)
		if err != nil {
			return err
		}
		if c.SrcLevel >= src.desc.Levels || c.DstLevel >= dst.desc.Levels {
			return invalidf("texture copy: level %d of %d to level %d of %d", c.SrcLevel, src.desc.Levels, c.DstLevel, dst.desc.Levels)
		}
		if src.desc.Format != dst.desc.Format || src.extent(c.SrcLevel) != dst.extent(c.DstLevel) {
			return invalidf("texture copy: %v %v to %v %v", src.desc.Format, src.extent(c.SrcLevel), dst.desc.Format, dst.extent(c.DstLevel))
		}
		if src == dst && c.SrcLevel == c.DstLevel {
			return invalidf("texture copy of level %d onto itself", c.SrcLevel)
		}
		ext := src.extent(c.SrcLevel)
		r := vk.ImageCopy{
			SrcSubresource: vk.ImageSubresourceLayers{AspectMask: vk.IMAGE_ASPECT_COLOR_BIT, MipLevel: c.SrcLevel, LayerCount: 1},
			DstSubresource: vk.ImageSubresourceLayers{AspectMask: vk.IMAGE_ASPECT_COLOR_BIT, MipLevel: c.DstLevel, LayerCount: 1},
			Extent:         vk.Extent3D{Width: ext[0], Height: ext[1], Depth: ext[2]},
		}
		uses := []use{{dst, 0, ^uint64(0), true}}
		if src != dst {
			uses = append(uses, use{src, 0, ^uint64(0), false})
		}
		e.transition(src, c.SrcLevel, 1, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)
		e.transition(dst, c.DstLevel, 1, vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL)
		e.order(stageCopy, accessTransferWrite, uses...)
		e.batch.CmdCopyImage(cmd, src.image, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst.image, vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &r)

	case *device.ShaderDispatch:
		return e.dispatch(c)

	case *device.BindlessUpdate:
		arr, err := e.bindlessArray(c.Array)
		if err != nil {
			return err
		}
		if len(c.Slots) == 0 {
			return nil
		}
		// Every slot is checked before any changes: an update refused for
		// one slot leaves the others as they were too.
		for _, sl := range c.Slots {
			var err error
			switch {
			case sl.Slot >= arr.size:
				return invalidf("bindless array %d: slot %d of %d", c.Array, sl.Slot, arr.size)
			case sl.Op == device.BindlessSetBuffer:
				var b *buffer
				if b, err = e.buffer(sl.Buffer); err == nil {
					_, err = span(b, sl.Buffer, sl.Offset, sl.Size)
				}
			case sl.Op == device.BindlessSetTexture:
				_, err = e.checkTexture(arr, sl)
			}
			if err != nil {
				return fmt.Errorf("bindless array %d: slot %d: %w", c.Array, sl.Slot, err)
			}
		}
		recs, off := e.stage(uint64(len(c.Slots)) * slotRecordSize)
		type run struct{ src, dst, n uint64 }
		var runs []run
		for i, sl := range c.Slots {
			rec := recs[i*slotRecordSize : (i+1)*slotRecordSize]
			e.logTextures(arr, sl.Slot)
			switch sl.Op {
			case device.BindlessSetBuffer:
				b, err := e.buffer(sl.Buffer)
				if err != nil {
					return fmt.Errorf("bindless array %d: slot %d: %w", c.Array, sl.Slot, err)
				}
				n, err := span(b, sl.Buffer, sl.Offset, sl.Size)
				if err != nil {
					return fmt.Errorf("bindless array %d: slot %d: %w", c.Array, sl.Slot, err)
				}
				slotRecord(rec, b.raw.addr+sl.Offset, n)
				arr.clearTexture(sl.Slot)
				e.setBuffer(arr, sl.Slot, sl.Buffer, b)
			case device.BindlessSetTexture:
				if err := e.setTexture(arr, sl, rec); err != nil {
					return fmt.Errorf("bindless array %d: slot %d: %w", c.Array, sl.Slot, err)
				}
				e.setBuffer(arr, sl.Slot, 0, nil)
			case device.BindlessRemove:
				slotRecord(rec, 0, 0)
				arr.clearTexture(sl.Slot)
				e.setBuffer(arr, sl.Slot, 0, nil)
			default:
				return invalidf("bindless array %d: slot op %d", c.Array, sl.Op)
			}
			runs = append(runs, run{off + uint64(i)*slotRecordSize, uint64(sl.Slot) * slotRecordSize, slotRecordSize})
		}
		if err := e.commitTextures(arr); err != nil {
			return fmt.Errorf("bindless array %d: %w", c.Array, err)
		}
		e.order(stageCopy, accessTransferWrite, use{arr, 0, ^uint64(0), true})
		for _, r := range runs {
			e.copyBuffer(e.sub.staging.handle, r.src, arr.table.raw.handle, r.dst, r.n)
		}

	case *device.Present:
		return e.present(c)

	case *device.MeshBuild:
		return e.meshBuild(c)
	case *device.ProceduralBuild:
		return e.proceduralBuild(c)
	case *device.AccelBuild:
		return e.accelBuild(c)
	case *device.AccelCompact:
		return e.accelCompact(c)

	case *device.Custom:
		if c.Func == nil {
			return invalidf("custom command %q has no Func", c.Name)
		}
		var uses []use
		for _, u := range c.Resources {
			switch u.Kind {
			case device.KindBuffer:
				b, err := e.buffer(u.Handle)
				if err != nil {
					return err
				}
				size := u.Size
				if size == 0 {
					size = device.WholeSize // a usage's 0 means to the end
				}
				n, err := span(b, u.Handle, u.Offset, size)
				if err != nil {
					return err
				}
				uses = append(uses, use{b, u.Offset, u.Offset + n, u.Access&device.Write != 0})
			case device.KindTexture:
				t, err := e.texture(u.Handle)
				if err != nil {
					return err
				}
				e.transition(t, 0, t.desc.Levels, vk.IMAGE_LAYOUT_GENERAL) // what custom commands are promised
				uses = append(uses, use{t, 0, ^uint64(0), u.Access&device.Write != 0})
			}
		}
		e.settleWrites(true, nil) // the function may write anything
		e.order(stageAll, accessMemoryWrite, uses...)
		if err := e.flush(); err != nil { // the function records directly, after what is queued
			return err
		}
		e.pipeline = 0  // the function may bind its own
		e.bind.forget() // and its own sets and push constants
		if err := e.runCustom(c, cmd); err != nil {
			return fmt.Errorf("custom command %q: %w", c.Name, err)
		}

	default:
		return unsupportedf("command %T", c)
	}
	return nil
}

// storageArg reports whether args bind texture h as a storage image.
func storageArg(args []device.Arg, h device.Handle) bool {
	for _, a := range args {
		if a.Kind == device.ArgTexture && a.Handle == h {
			return true
		}
	}
	return false
}

// maxDispatchPieces bounds how many dispatches one ShaderDispatch may be split
// into (each at most maxComputeWorkGroupCount groups per axis).
const maxDispatchPieces = 1 << 20

// groupCounts returns the workgroup counts covering size threads in blocks of
// block, computed in 64 bits (a size near 2^32 must not wrap to a few groups),
// and refuses a size that would take more than maxDispatchPieces dispatches
// of at most limit groups per axis.
func groupCounts(size, block, limit [3]uint32) ([3]uint32, error) {
	var groups [3]uint32
	pieces := uint64(1)
	for i := range 3 {
		if block[i] == 0 || limit[i] == 0 {
			return groups, invalidf("block size %v or workgroup-count limit %v has a zero dimension", block, limit)
		}
		g := (uint64(size[i]) + uint64(block[i]) - 1) / uint64(block[i])
		// Where the last block's ids pass 2^32 they wrap; lucent's
		// kernels return early for such threads (kernel ABI).
		groups[i] = uint32(g) // at most size[i], so it fits
		pieces *= (g + uint64(limit[i]) - 1) / uint64(limit[i])
	}
	if pieces > maxDispatchPieces {
		return groups, invalidf("dispatch size %v in blocks of %v needs %v workgroups, %d dispatches of at most %v (the device's maxComputeWorkGroupCount); the most one dispatch is split into is %d",
			size, block, groups, pieces, limit, maxDispatchPieces)
	}
	return groups, nil
}

// texelOffset checks a buffer offset used with a texture copy.
func (e *encoder) texelOffset(t *texture, off uint64) error {
	if px := uint64(t.desc.Format.PixelSize()); off%px != 0 || off%4 != 0 {
		return invalidf("buffer offset %d of a %v copy is not a multiple of the texel size %d and of 4", off, t.desc.Format, px)
	}
	return nil
}

func (e *encoder) copyBuffer(src vk.Buffer, srcOff uint64, dst vk.Buffer, dstOff uint64, n uint64) {
	r := vk.BufferCopy{SrcOffset: vk.DeviceSize(srcOff), DstOffset: vk.DeviceSize(dstOff), Size: vk.DeviceSize(n)}
	e.batch.CmdCopyBuffer(e.cmd, src, dst, 1, &r)
}

// dispatch binds a shader's arguments (push descriptors, or cached descriptor
// sets without them, and push constants, kernel ABI v1) and dispatches it, split into pieces no larger than the
// device's workgroup-count limit.
func (e *encoder) dispatch(c *device.ShaderDispatch) error {
	d, cmd := e.d, e.cmd
	sh, err := lookup[*shader](d, c.Shader, "shader")
	if err != nil {
		return d.closedKernels.Wrap(c.Shader, err)
	}
	e.used = append(e.used, &sh.tracked)
	e.kernelName(sh)
	sig := &sh.sig
	if len(c.Args) != len(sig.Args) {
		return device.CheckArgCount(sh.errName(c.Shader), sig, len(c.Args))
	}
	wStart := len(e.writes)
	clear(e.push[:sh.pushSize])
	// The arguments past the push budget go to the spill block, in this
	// submission's staging memory: written by the host before the submit,
	// which makes them visible to the device (no barrier), and freed with
	// the submission. The push constants hold its address.
	var spill []byte
	if n := uint64(sh.lay.spillSize); n > 0 {
		var off uint64
		spill, off = e.stage(n)
		clear(spill)
		binary.LittleEndian.PutUint64(e.push[abiSpillOffset:], e.sub.staging.addr+off)
	}
	// at is where argument layout l goes.
	at := func(l argLayout) []byte {
		if l.spilled {
			return spill[l.offset:]
		}
		return e.push[l.offset:]
	}
	// Scratch slices, handed back once complete (below) and not by defers:
	// with this function's many returns they would not be open-coded, and
	// every dispatch would pay for them. An error return only loses the
	// capacity they grew to.
	uses := e.uses[:0]
	bindlessUsed := false
	cached := !d.caps.PushDescriptors
	key, res := e.setKey[:0], e.setRes[:0]
	e.texBinds = e.texBinds[:0]
	e.texWants = e.texWants[:0]
	for i, a := range c.Args {
		p, l := sig.Args[i], sh.lay.args[i]
		if a.Kind != p.Kind {
			return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), p.Label(i), device.CheckArg(p, a, device.ArgResource{}))
		}
		desc := l.desc
		switch a.Kind {
		case device.ArgUniform:
			if err := device.CheckArg(p, a, device.ArgResource{}); err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), p.Label(i), err)
			}
			copy(at(l), a.Uniform)
		case device.ArgBuffer:
			b, err := e.buffer(a.Handle)
			if err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), p.Label(i), err)
			}
			if err := device.CheckArg(p, a, device.ArgResource{Buffer: b.desc}); err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), p.Label(i), err)
			}
			n := a.Size // in range (CheckArg)
			if n == device.WholeSize {
				n = b.desc.Size - a.Offset
			}
			acc := p.Access
			if acc == 0 {
				acc = device.ReadWrite
			}
			uses = append(uses, use{b, a.Offset, a.Offset + n, acc&device.Write != 0})
			if desc == noDescriptor { // by device address
				if b.raw.addr == 0 {
					return unsupportedf("%s %s: buffer device addresses are unavailable", sh.errName(c.Shader), p.Label(i))
				}
				binary.LittleEndian.PutUint64(at(l), b.raw.addr+a.Offset)
				if l.size >= abiAddressSize { // lucent's form: the element count bounds every access
					binary.LittleEndian.PutUint64(at(l)[8:], n/uint64(max(p.ElemSize, 1)))
				}
				continue
			}
			info := vk.DescriptorBufferInfo{Buffer: b.raw.handle, Offset: vk.DeviceSize(a.Offset), Range: vk.DeviceSize(n)}
			if n == 0 {
				// An empty view: a null descriptor, whose length is 0, whose
				// reads give zero and whose writes are dropped. A zero range
				// is invalid Vulkan, and the rest of the buffer is not what
				// was asked for.
				if d.phys.r2.NullDescriptor == 0 {
					return unsupportedf("%s %s: an empty buffer view needs null descriptors (VK_EXT_robustness2), which %s lacks",
						sh.errName(c.Shader), p.Label(i), d.phys.name())
				}
				info = vk.DescriptorBufferInfo{Range: vk.WHOLE_SIZE}
			} else if a.Offset%d.caps.MemoryGranularity != 0 {
				return invalidf("%s %s: offset %d is not a multiple of %d", sh.errName(c.Shader), p.Label(i), a.Offset, d.caps.MemoryGranularity)
			}
			if n > d.caps.MaxStorageBufferRange {
				return invalidf("%s %s: a %d-byte range exceeds maxStorageBufferRange (%d); pass larger buffers by device address",
					sh.errName(c.Shader), p.Label(i), n, d.caps.MaxStorageBufferRange)
			}
			if cached {
				key, res = setKey(key, l.binding, a.Handle, a.Offset, n, 0), append(res, a.Handle)
			}
			e.bufInfos = append(e.bufInfos, info)
			e.writes = append(e.writes, vk.WriteDescriptorSet{
				SType: vk.STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, DstBinding: l.binding, DescriptorCount: 1, DescriptorType: desc,
				PBufferInfo: &e.bufInfos[len(e.bufInfos)-1],
			})
		case device.ArgTexture, device.ArgSampledTexture:
			t, err := e.texture(a.Handle)
			if err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), p.Label(i), err)
			}
			if err := device.CheckArg(p, a, device.ArgResource{Texture: t.desc}); err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), p.Label(i), err)
			}
			info := vk.DescriptorImageInfo{ImageLayout: vk.IMAGE_LAYOUT_GENERAL}
			if a.Kind == device.ArgTexture {
				if !t.storage {
					return unsupportedf("%s %s: format %v cannot be a storage image on this device", sh.errName(c.Shader), p.Label(i), t.desc.Format)
				}
				info.ImageView = t.levels[a.Level]
				e.texWants = append(e.texWants, texWant{t, a.Level, 1, vk.IMAGE_LAYOUT_GENERAL})
			} else {
				if !t.sampled {
					return unsupportedf("%s %s: format %v cannot be sampled on this device", sh.errName(c.Shader), p.Label(i), t.desc.Format)
				}
				smp, err := d.samplers.get(d, a.Sampler)
				if err != nil {
					return err
				}
				info.ImageView, info.Sampler = t.full, smp
				// Sampled through a view of every level: all of them in one
				// layout, GENERAL if the dispatch also writes the texture.
				if !storageArg(c.Args, a.Handle) {
					info.ImageLayout = vk.IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
				}
				e.texWants = append(e.texWants, texWant{t, 0, t.desc.Levels, info.ImageLayout})
			}
			acc := p.Access
			if acc == 0 {
				acc = device.ReadWrite
			}
			uses = append(uses, use{t, 0, ^uint64(0), acc&device.Write != 0})
			if cached {
				key, res = setKey(key, l.binding, a.Handle, uint64(a.Level), uint64(info.Sampler), uint64(a.Kind)+1+uint64(info.ImageLayout)<<8), append(res, a.Handle)
			}
			e.imgInfos = append(e.imgInfos, info)
			e.writes = append(e.writes, vk.WriteDescriptorSet{
				SType: vk.STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, DstBinding: l.binding, DescriptorCount: 1, DescriptorType: desc,
				PImageInfo: &e.imgInfos[len(e.imgInfos)-1],
			})
		case device.ArgBindlessArray:
			arr, err := e.bindlessArray(a.Handle)
			if err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), p.Label(i), err)
			}
			if err := e.slotBuffers(arr); err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), p.Label(i), err)
			}
			if l.textureSet != 0 {
				// Texture slots through the array's descriptor set (native).
				set, u, err := e.bindTextures(arr, uses)
				if err != nil {
					return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), p.Label(i), err)
				}
				uses = u
				e.texBinds = append(e.texBinds, texBind{l.textureSet, set})
			} else if i >= len(sh.noMirrors) || !sh.noMirrors[i] { // a kernel reading no texture slot needs no mirror
				if err := e.refreshTextures(arr); err != nil {
					return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), p.Label(i), err)
				}
			}
			bindlessUsed = true
			uses = append(uses, use{arr, 0, ^uint64(0), false})
			if cached {
				key, res = setKey(key, l.binding, a.Handle, uint64(arr.table.raw.handle), arr.table.raw.size, 0), append(res, a.Handle)
			}
			e.bufInfos = append(e.bufInfos, vk.DescriptorBufferInfo{Buffer: arr.table.raw.handle, Range: vk.DeviceSize(arr.table.raw.size)})
			e.writes = append(e.writes, vk.WriteDescriptorSet{
				SType: vk.STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, DstBinding: l.binding, DescriptorCount: 1, DescriptorType: vk.DESCRIPTOR_TYPE_STORAGE_BUFFER,
				PBufferInfo: &e.bufInfos[len(e.bufInfos)-1],
			})
		case device.ArgAccel:
			addr, aux, nodes, nodesH, err := e.accelArg(a.Handle, sh.nativeRay)
			if err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), p.Label(i), err)
			}
			if l.accelBuffer {
				// The software traversal reads the buffer through its
				// binding when all of it fits in one (the second word then
				// says so), else through the address; the binding holds
				// what fits either way, since the set layout has it.
				n := nodes.desc.Size
				if n <= d.accelDescriptorLimit() {
					aux = 1
				}
				rng := min(n, d.caps.MaxStorageBufferRange)
				uses = append(uses, use{nodes, 0, n, false})
				if cached {
					key, res = setKey(key, l.binding, nodesH, uint64(nodes.raw.handle), rng, 0), append(res, nodesH, a.Handle)
				}
				e.bufInfos = append(e.bufInfos, vk.DescriptorBufferInfo{Buffer: nodes.raw.handle, Range: vk.DeviceSize(rng)})
				e.writes = append(e.writes, vk.WriteDescriptorSet{
					SType: vk.STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, DstBinding: l.binding, DescriptorCount: 1, DescriptorType: vk.DESCRIPTOR_TYPE_STORAGE_BUFFER,
					PBufferInfo: &e.bufInfos[len(e.bufInfos)-1],
				})
			}
			binary.LittleEndian.PutUint64(at(l), addr)
			binary.LittleEndian.PutUint64(at(l)[8:], aux)
			bindlessUsed = true // a global barrier: the kernel reads the structures and what they point at
		default:
			return unsupportedf("%s %s: %v arguments", sh.errName(c.Shader), p.Label(i), a.Kind)
		}
	}

	if sh.lay.prints {
		if err := e.bindPrintRing(sh); err != nil {
			return fmt.Errorf("%s: %w", sh.errName(c.Shader), err)
		}
	}
	var groups [3]uint32
	stage := stageCompute
	var ind *buffer
	if c.Indirect != 0 {
		var err error
		if ind, err = e.buffer(c.Indirect); err != nil {
			return fmt.Errorf("indirect dispatch: %w", err)
		}
		if c.IndirectOffset%4 != 0 {
			return invalidf("indirect dispatch: offset %d is not a multiple of 4", c.IndirectOffset)
		}
		if _, err := span(ind, c.Indirect, c.IndirectOffset, 12); err != nil {
			return fmt.Errorf("indirect dispatch: %w", err)
		}
		uses = append(uses, use{ind, c.IndirectOffset, c.IndirectOffset + 12, false})
		stage |= stageIndirect
	} else {
		if c.Size[0] == 0 || c.Size[1] == 0 || c.Size[2] == 0 {
			return nil // nothing to run
		}
		if groups, err = groupCounts(c.Size, sig.BlockSize, d.caps.MaxWorkgroupCount); err != nil {
			return fmt.Errorf("%s: %w", sh.errName(c.Shader), err)
		}
	}
	if bindlessUsed {
		e.global = true           // the kernel may read anything the slots point at
		e.settleWrites(true, nil) // and write it
	}
	// After the loop: a bindless array's mirror refresh (a copy out of a
	// texture, recorded while the loop ran) comes before the dispatch.
	for _, w := range e.texWants {
		e.transition(w.t, w.base, w.count, w.layout)
	}
	clear(e.texWants)
	e.order(stage, accessShaderWrite, uses...)
	e.uses, e.setKey, e.setRes = uses[:0], key[:0], res[:0] // nothing below appends to them
	if sh.pipeline != e.pipeline {
		e.batch.CmdBindPipeline(cmd, vk.PIPELINE_BIND_POINT_COMPUTE, sh.pipeline)
		e.pipeline = sh.pipeline
		e.bind.forget() // a new pipeline binds everything again
	}
	e.bind.use(sh.layout)
	if n := len(e.writes) - wStart; n > 0 && cached {
		set, err := e.descriptorSet(sh, key, res, e.writes[wStart:])
		e.writes = e.writes[:wStart] // written (or cached) already
		if err != nil {
			return err
		}
		if !e.bind.boundSet(0, set) {
			e.setArena = append(e.setArena, set)
			e.batch.CmdBindDescriptorSets(cmd, vk.PIPELINE_BIND_POINT_COMPUTE, sh.layout, 0, 1, &e.setArena[len(e.setArena)-1], 0, nil)
		}
	} else if n > 0 {
		if e.bind.pushedSet0(e.writes[wStart:]) {
			e.writes = e.writes[:wStart] // bound already
		} else {
			e.batch.CmdPushDescriptorSetKHR(cmd, vk.PIPELINE_BIND_POINT_COMPUTE, sh.layout, 0, uint32(n), &e.writes[wStart])
		}
	}
	for _, tb := range e.texBinds {
		if e.bind.boundSet(tb.index, tb.set) {
			continue
		}
		e.setArena = append(e.setArena, tb.set)
		e.batch.CmdBindDescriptorSets(cmd, vk.PIPELINE_BIND_POINT_COMPUTE, sh.layout, tb.index, 1, &e.setArena[len(e.setArena)-1], 0, nil)
	}
	pushConstants := func() {
		if sh.pushSize > 0 && !e.bind.pushed(e.push[:sh.pushSize]) {
			off := len(e.pushArena)
			e.pushArena = append(e.pushArena, e.push[:sh.pushSize]...)
			e.batch.CmdPushConstants(cmd, sh.layout, vk.SHADER_STAGE_COMPUTE_BIT, 0, sh.pushSize, unsafe.Pointer(&e.pushArena[off]))
		}
	}
	header := sh.lay.header && sh.pushSize >= abiHeaderSize
	if ind != nil {
		if header {
			// The group count lives on the GPU: every launched thread is in
			// range, and lucent's codegen takes all-ones as the sign of an
			// indirect dispatch, whose DispatchSize and DispatchGroups then
			// come from NumWorkgroups (kernel ABI v1).
			for i := range 3 {
				binary.LittleEndian.PutUint32(e.push[4*i:], ^uint32(0))
			}
		}
		pushConstants()
		e.batch.CmdDispatchIndirect(cmd, ind.raw.handle, vk.DeviceSize(c.IndirectOffset))
	} else {
		if header {
			for i := range 3 {
				binary.LittleEndian.PutUint32(e.push[4*i:], c.Size[i])
			}
		}
		limit := d.caps.MaxWorkgroupCount
		// In 64 bits: the last step past a group count near 2^32 would wrap.
		for z64 := uint64(0); z64 < uint64(groups[2]); z64 += uint64(limit[2]) {
			for y64 := uint64(0); y64 < uint64(groups[1]); y64 += uint64(limit[1]) {
				for x64 := uint64(0); x64 < uint64(groups[0]); x64 += uint64(limit[0]) {
					x, y, z := uint32(x64), uint32(y64), uint32(z64)
					n := [3]uint32{min(limit[0], groups[0]-x), min(limit[1], groups[1]-y), min(limit[2], groups[2]-z)}
					if header {
						binary.LittleEndian.PutUint32(e.push[12:], x)
						binary.LittleEndian.PutUint32(e.push[16:], y)
						binary.LittleEndian.PutUint32(e.push[20:], z)
						pushConstants()
						e.batch.CmdDispatch(cmd, n[0], n[1], n[2])
					} else {
						if x == 0 && y == 0 && z == 0 {
							pushConstants()
						}
						if x|y|z == 0 {
							e.batch.CmdDispatch(cmd, n[0], n[1], n[2])
						} else {
							e.batch.CmdDispatchBase(cmd, x, y, z, n[0], n[1], n[2])
						}
					}
				}
			}
		}
	}
	if bindlessUsed {
		e.global = true // the kernel may have written anything the slots point at
	}
	return nil
}
