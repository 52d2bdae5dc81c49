package vulkan

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/stretchr/testify/require"
)

func TestTicksToDuration(t *testing.T) {
	for _, c := range []struct {
		name   string
		t0, t1 uint64
		bits   uint32
		period float64
		want   time.Duration
	}{
		{"nanosecond ticks", 1000, 1250, 64, 1, 250},
		{"a tick of 2.5 ns", 1000, 1004, 64, 2.5, 10},
		{"a tick of 52.08 ns, rounded", 0, 3, 64, 52.08, 156},
		{"36 valid bits: the bits above are not the counter's", 0xdead_0000_0000_0010 | 5, 0xbeef_0000_0000_0010 | 9, 36, 1, 4},
		{"32 valid bits: the counter wraps", 0xffff_fff0, 0x1_0000_0010, 32, 1, 0x20},
		{"64 valid bits: an earlier second stamp is no wrap", 500, 400, 64, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, ticksToDuration(c.t0, c.t1, c.bits, c.period))
		})
	}
}

// stepList is n links of the step chain between a and b, timed into tm.
func stepList(sh, a, b device.Handle, n int, tm *device.Timings) *device.CommandList {
	l := &device.CommandList{Timings: tm}
	for i := range n {
		src, dst := a, b
		if i%2 == 1 {
			src, dst = b, a
		}
		l.Add(&device.ShaderDispatch{Shader: sh, Size: [3]uint32{1024, 1, 1}, Args: stepArgs(src, dst, 1024, 1)})
	}
	return l
}

// TestTimedListsReuseQueryPools: timed lists take a pool from the stream
// and give it back; a longer list takes a larger one; an untimed list takes
// none. The validation layer (on, synchronization validation included) has
// nothing to say about the resets and timestamps.
func TestTimedListsReuseQueryPools(t *testing.T) {
	f := newFixture(t)
	sh, _ := f.shader("step")
	a, b := f.buffer(4*1024), f.buffer(4*1024)
	s, err := lookupStream(f.d, f.s)
	require.NoError(t, err)
	pools := func() []uint32 {
		s.mu.Lock()
		defer s.mu.Unlock()
		var sizes []uint32
		for _, qp := range s.spareQueries {
			sizes = append(sizes, qp.size)
		}
		return sizes
	}
	var tm device.Timings
	for range 5 {
		require.NoError(t, f.d.Dispatch(f.s, stepList(sh, a, b, 3, &tm)))
		require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
		require.Len(t, tm.Commands, 3)
		for i, c := range tm.Commands {
			require.Equal(t, "step", c.Kernel, "command %d", i)
		}
		require.Equal(t, []uint32{minQueries}, pools(), "one pool, reused")
	}
	require.NoError(t, f.d.Dispatch(f.s, stepList(sh, a, b, 100, &tm)))
	require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
	require.Len(t, tm.Commands, 100)
	require.ElementsMatch(t, []uint32{minQueries, 128}, pools(), "101 queries: a pool of 128")
	var sum time.Duration
	for i, c := range tm.Commands {
		require.Equal(t, sum, c.Start, "command %d", i)
		sum += c.Duration
	}
	require.Equal(t, tm.Total, sum)
	require.Positive(t, tm.Total)

	require.NoError(t, f.d.Dispatch(f.s, stepList(sh, a, b, 3, nil)))
	require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
	require.ElementsMatch(t, []uint32{minQueries, 128}, pools(), "an untimed list takes no pool")
	require.Empty(t, formatMessages(f.msgs.take()), "validation errors")
}

// TestTimedListRefusedWithoutTimestamps: on a queue family whose
// timestampValidBits is 0 a timed list is refused, naming the family, and
// nothing of it runs; the stream goes on.
func TestTimedListRefusedWithoutTimestamps(t *testing.T) {
	f := newFixture(t)
	buf := f.buffer(16)
	f.run(&device.BufferUpload{Buffer: buf, Data: []byte{9, 9, 9, 9}})
	s, err := lookupStream(f.d, f.s)
	require.NoError(t, err)
	bits := s.q.timestampBits
	s.q.timestampBits = 0
	ran := false
	l := (&device.CommandList{Timings: &device.Timings{}}).
		Add(&device.BufferUpload{Buffer: buf, Data: []byte{1, 2, 3, 4}}).
		OnDone(func() { ran = true })
	err = f.d.Dispatch(f.s, l)
	s.q.timestampBits = bits
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "timestampValidBits is 0")
	out := make([]byte, 4)
	f.run(&device.BufferDownload{Buffer: buf, Data: out})
	require.Equal(t, []byte{9, 9, 9, 9}, out, "the refused upload did not run")
	require.False(t, ran, "the refused list's callback did not run")
	l.Timings = nil
	f.run(l.Commands...)
	f.run(&device.BufferDownload{Buffer: buf, Data: out})
	require.Equal(t, []byte{1, 2, 3, 4}, out)
}

// BenchmarkTimedChain is BenchmarkDispatchChain (10,000 dependent empty
// dispatches in one list) without and with timings, the two lists run
// alternately on one stream so that both see the same load: the medians per
// dispatch, and their difference, the cost of a timestamp per command
// (docs/PERFORMANCE.md, GPU timings).
func BenchmarkTimedChain(b *testing.B) {
	f := benchFixture(b)
	sh := f.mustShader(b, "empty")
	buf := f.mustBuffer(b, 256)
	var tm device.Timings
	off, on := &device.CommandList{}, &device.CommandList{Timings: &tm}
	for range chainLength {
		c := &device.ShaderDispatch{Shader: sh, Size: [3]uint32{64, 1, 1}, Args: []device.Arg{{Kind: device.ArgBuffer, Handle: buf, Size: device.WholeSize}}}
		off.Add(c)
		on.Add(c)
	}
	f.submitWait(b, off)
	f.submitWait(b, on)
	var offs, ons, gpus []time.Duration
	for b.Loop() {
		start := time.Now()
		f.submitWait(b, off)
		offs = append(offs, time.Since(start))
		start = time.Now()
		f.submitWait(b, on)
		ons = append(ons, time.Since(start))
		gpus = append(gpus, tm.Total)
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds()) / chainLength
	}
	mOff, mOn := med(offs), med(ons)
	b.ReportMetric(mOff, "off-ns/dispatch")
	b.ReportMetric(mOn, "on-ns/dispatch")
	b.ReportMetric(mOn-mOff, "timing-ns/dispatch")
	b.ReportMetric(med(gpus), "gpu-ns/dispatch")
}
