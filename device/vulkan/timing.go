package vulkan

// Timed command lists (device.CommandList.Timings). A timed list of n
// commands takes a timestamp query pool of at least n+1 queries from its
// stream, resets it at the top of its command buffer, and writes query 0
// before the first command and query i+1 after command i, each at
// ALL_COMMANDS (written once everything recorded before it has finished).
// When the submission completes on the host, before its callbacks, the n+1
// ticks are read back (without waiting: the timeline says the GPU is done),
// turned into nanoseconds with the device's timestampPeriod, modulo the
// queue family's timestampValidBits, and handed to Timings.Record; the pool
// goes back to the stream for the next timed list.
//
// An untimed list pays one nil check per command.

import (
	"math"
	"time"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// queryPool is a timestamp query pool of a stream.
type queryPool struct {
	pool vk.QueryPool
	size uint32
}

// minQueries is the smallest pool made: a list of up to 63 commands.
const minQueries = 64

// timestamps returns a pool of at least n queries, reused from the stream's
// spares or made; s.mu held.
func (s *stream) timestamps(n uint32) (*queryPool, error) {
	for i, qp := range s.spareQueries {
		if qp.size >= n {
			last := len(s.spareQueries) - 1
			s.spareQueries[i] = s.spareQueries[last]
			s.spareQueries[last] = nil
			s.spareQueries = s.spareQueries[:last]
			return qp, nil
		}
	}
	size := uint32(minQueries)
	for size < n {
		size *= 2
	}
	ci := vk.QueryPoolCreateInfo{SType: vk.STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, QueryType: vk.QUERY_TYPE_TIMESTAMP, QueryCount: size}
	qp := &queryPool{size: size}
	if err := check("vkCreateQueryPool", s.d.fn.CreateQueryPool(s.d.vk, &ci, nil, &qp.pool)); err != nil {
		return nil, err
	}
	return qp, nil
}

// releaseQueries gives a submission's pool back to the stream; s.mu held.
func (s *stream) releaseQueries(sub *submission) {
	if sub.queries != nil {
		s.spareQueries = append(s.spareQueries, sub.queries)
		sub.queries = nil
	}
	sub.timings = nil
}

// destroyQueries releases the stream's pools (the stream is idle).
func (s *stream) destroyQueries() {
	for _, qp := range s.spareQueries {
		s.d.fn.DestroyQueryPool(s.d.vk, qp.pool, nil)
	}
	s.spareQueries = nil
}

// beginTimings starts timing list (list.Timings not nil): it refuses a
// queue without timestamps, takes a pool, resets it and writes the first
// timestamp.
func (e *encoder) beginTimings(list *device.CommandList) error {
	s := e.s
	if s.q.timestampBits == 0 {
		return unsupportedf("timed command list: queue family %d of %s has no timestamps (timestampValidBits is 0)", s.q.family, e.d.phys.name())
	}
	n := uint32(len(list.Commands)) + 1
	qp, err := s.timestamps(n)
	if err != nil {
		return err
	}
	e.sub.queries, e.sub.timings = qp, list.Timings
	list.Timings.Reset(list)
	e.batch.CmdResetQueryPool(e.cmd, qp.pool, 0, n)
	e.batch.CmdWriteTimestamp2(e.cmd, stageAll, qp.pool, 0)
	return nil
}

// timestamp writes the timestamp after command i of a timed list.
func (e *encoder) timestamp(i int) {
	e.batch.CmdWriteTimestamp2(e.cmd, stageAll, e.sub.queries.pool, uint32(i+1))
}

// kernelName names the kernel of dispatch i of a timed list.
func (e *encoder) kernelName(sh *shader) {
	if t := e.sub.timings; t != nil && e.index < len(t.Commands) {
		t.Commands[e.index].Kernel = sh.kernel
	}
}

// recordTimings reads a completed timed submission's timestamps into its
// Timings; procMu held. A stream that failed (the GPU never ran the list)
// leaves them at zero.
func (s *stream) recordTimings(sub *submission) {
	t, qp := sub.timings, sub.queries
	n := len(t.Commands) + 1
	if cap(s.ticks) < n {
		s.ticks = make([]uint64, n)
	}
	s.ticks = s.ticks[:n]
	clear(s.ticks)
	if s.failed.Load() == nil {
		r := s.d.fn.GetQueryPoolResults(s.d.vk, qp.pool, 0, uint32(n), uintptr(8*n), unsafe.Pointer(&s.ticks[0]), 8, vk.QUERY_RESULT_64_BIT)
		if r != vk.SUCCESS {
			clear(s.ticks) // NOT_READY cannot happen after the timeline was reached; a lost device can
		}
	}
	s.stamps = s.stamps[:0]
	period := float64(s.d.phys.props.Limits.TimestampPeriod)
	var at time.Duration
	s.stamps = append(s.stamps, 0)
	for i := 1; i < n; i++ {
		at += ticksToDuration(s.ticks[i-1], s.ticks[i], s.q.timestampBits, period)
		s.stamps = append(s.stamps, at)
	}
	t.Record(s.stamps)
}

// ticksToDuration converts the time from timestamp t0 to timestamp t1 to a
// duration: only the low validBits of a timestamp count (the counter wraps
// there, so t1 may read less than t0), and a tick lasts period nanoseconds.
// With all 64 bits valid a t1 below t0 cannot be a wrap and counts as 0.
func ticksToDuration(t0, t1 uint64, validBits uint32, period float64) time.Duration {
	delta := t1 - t0
	if validBits < 64 {
		delta &= 1<<validBits - 1
	} else if t1 < t0 {
		delta = 0
	}
	return time.Duration(math.Round(float64(delta) * period))
}
