package cpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// TestTimedListWithFault: a command that faults ends its list; the timings
// still have an entry per command, the ones left out taking no time.
func TestTimedListWithFault(t *testing.T) {
	d := openPlain(t)
	oob, err := dsl.Kernel1D(64, func(k *dsl.K, src, dst dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		dst.Write(i, src.Read(i.Add(dsl.U(1))))
	}, "src", "dst")
	require.NoError(t, err)
	oob.Name = "shift"
	k, err := device.Compile(d, oob)
	require.NoError(t, err)
	defer k.Close()
	src, dst := upload(t, d, make([]uint32, 100)), upload(t, d, make([]uint32, 100))
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	var tm device.Timings
	l := (&device.CommandList{}).Add(
		k.Dispatch([3]uint32{99}, src, dst),  // in range
		k.Dispatch([3]uint32{100}, src, dst), // reads src[100]: faults
		k.Dispatch([3]uint32{99}, src, dst),  // left out
	).Timed(&tm)
	require.NoError(t, s.SubmitList(l))
	require.ErrorContains(t, s.Synchronize(context.Background()), "kernel shift")
	require.Len(t, tm.Commands, 3)
	for _, c := range tm.Commands {
		require.Equal(t, "shift", c.Kernel)
	}
	require.Positive(t, tm.Commands[0].Duration)
	require.Zero(t, tm.Commands[2].Duration, "the command left out takes no time")
	require.Equal(t, tm.Commands[1].Start+tm.Commands[1].Duration, tm.Commands[2].Start)
	require.Equal(t, tm.Commands[0].Duration+tm.Commands[1].Duration, tm.Total)
}

// BenchmarkTimedList: 1,000 buffer copies of 64 bytes in one list, without
// and with timings (interleaved): the difference is the cost of timing a
// command on the cpu backend (two clock reads).
func BenchmarkTimedList(b *testing.B) {
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(b, err)
	defer d.Close()
	buf, err := device.NewBuffer[byte](d, 128)
	require.NoError(b, err)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(b, err)
	const n = 1000
	list := func(tm *device.Timings) *device.CommandList {
		l := &device.CommandList{Timings: tm}
		for range n {
			l.Add(&device.BufferCopy{Src: buf.Handle(), Dst: buf.Handle(), DstOffset: 64, Size: 64})
		}
		return l
	}
	var tm device.Timings
	off, on := list(nil), list(&tm)
	submit := func(l *device.CommandList) func() {
		return func() {
			require.NoError(b, s.SubmitList(l))
			require.NoError(b, s.Synchronize(context.Background()))
		}
	}
	interleave(b, [2]string{"off", "on"}, [2]func(){submit(off), submit(on)})
	b.ReportMetric(float64(tm.Total.Nanoseconds())/n, "last-ns/command")
}
