package device_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

func TestTimingsRecord(t *testing.T) {
	l := &device.CommandList{}
	l.Add(&device.BufferUpload{}, &device.ShaderDispatch{}, &device.ShaderDispatch{}, &device.BufferDownload{})
	var tm device.Timings
	tm.Reset(l)
	require.Len(t, tm.Commands, 4)
	tm.Commands[1].Kernel, tm.Commands[2].Kernel = "a", "b"
	// Any origin; an instant out of order (the 25 after 30) counts as the one before it.
	tm.Record([]time.Duration{100, 110, 130, 125, 140})
	want := []device.Timing{
		{Index: 0, Command: "buffer upload", Start: 0, Duration: 10},
		{Index: 1, Command: "dispatch", Kernel: "a", Start: 10, Duration: 20},
		{Index: 2, Command: "dispatch", Kernel: "b", Start: 30, Duration: 0},
		{Index: 3, Command: "buffer download", Start: 30, Duration: 10},
	}
	require.Equal(t, want, tm.Commands)
	require.Equal(t, time.Duration(40), tm.Total)
	require.Equal(t, []device.KernelTiming{{Kernel: "a", Count: 1, Total: 20}, {Kernel: "b", Count: 1, Total: 0}}, tm.ByKernel())

	tm.Record([]time.Duration{1, 2}) // the wrong count of instants: nothing changes
	require.Equal(t, want, tm.Commands)

	// Reset reuses the storage.
	tm.Reset(&device.CommandList{Commands: []device.Command{&device.BufferCopy{}}})
	require.Equal(t, []device.Timing{{Index: 0, Command: "buffer copy"}}, tm.Commands)
	require.Zero(t, tm.Total)
	require.Empty(t, tm.ByKernel())
	require.Nil(t, (*device.Timings)(nil).ByKernel())
}

// noTimings is a backend whose device has no timestamps.
type noTimings struct{ device.Interface }

func (n noTimings) Capabilities() device.Capabilities {
	c := n.Interface.Capabilities()
	c.Timings = false
	return c
}

func TestTimedListRefusedWithoutTimestamps(t *testing.T) {
	inner, err := device.Open(context.Background(), "cpu")
	require.NoError(t, err)
	defer inner.Close()
	d := device.NewDevice("untimed", noTimings{inner.Interface()})
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	ran := false
	l := (&device.CommandList{}).OnDone(func() { ran = true })
	err = s.SubmitList(l.Timed(&device.Timings{}))
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "untimed backend")
	require.NoError(t, s.Synchronize(context.Background()))
	require.False(t, ran, "nothing of a refused list runs")
	l.Timings = nil
	require.NoError(t, s.SubmitList(l), "the same list untimed")
	require.NoError(t, s.Synchronize(context.Background()))
	require.True(t, ran)
}

// timedDevice opens the backend under test with the validation layer (any
// of its errors fails the test) and, with validate, the validation wrapper.
func timedDevice(t *testing.T, validate bool) *device.Device {
	t.Helper()
	var mu sync.Mutex
	opts := []device.Option{device.WithValidationLayer(true), device.WithDebug(func(m device.DebugMessage) {
		if m.Severity == device.SeverityError {
			mu.Lock()
			defer mu.Unlock()
			t.Errorf("validation: %s: %s", m.ID, m.Text)
		}
	})}
	if validate {
		opts = append(opts, device.WithValidation())
	}
	d, err := device.Open(context.Background(), testBackend(), opts...)
	testenv.Need(t, "Vulkan device", err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	require.True(t, d.Capabilities().Timings, "%s has timestamps", d.Backend())
	return d
}

// timedWork is a list of real work: uploads, saxpy, mandelbrot, saxpy
// again, downloads, with what it must compute.
type timedWork struct {
	cmds                  []device.Command
	wantY, gotY           []float32
	wantMandel, gotMandel []uint32
	close                 func()
	names                 []string // the kernel of each command ("" for others)
	commandKind           []string
}

func newTimedWork(t *testing.T, d *device.Device) *timedWork {
	t.Helper()
	sf, err := programs.Saxpy()
	require.NoError(t, err)
	saxpy, err := device.Compile(d, sf, device.WithKernelName("saxpy"))
	require.NoError(t, err)
	mf, err := programs.Mandelbrot()
	require.NoError(t, err)
	mandel, err := device.Compile(d, mf, device.WithKernelName("mandelbrot"))
	require.NoError(t, err)
	const n, w, h = 1 << 14, 128, 128
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), float32(n-i)
	}
	x, err := device.NewBuffer[float32](d, n)
	require.NoError(t, err)
	y, err := device.NewBuffer[float32](d, n)
	require.NoError(t, err)
	img, err := device.NewBuffer[uint32](d, w*h)
	require.NoError(t, err)
	wk := &timedWork{gotY: make([]float32, n), gotMandel: make([]uint32, w*h), wantMandel: programs.MandelbrotRef(w, h)}
	wk.wantY = append([]float32(nil), ys...)
	programs.SaxpyRef(2, xs, wk.wantY)
	programs.SaxpyRef(2, xs, wk.wantY)
	wk.cmds = []device.Command{
		x.Upload(xs), y.Upload(ys),
		saxpy.Dispatch([3]uint32{n, 1, 1}, float32(2), x, y),
		mandel.Dispatch([3]uint32{w, h, 1}, uint32(w), uint32(h), img),
		saxpy.Dispatch([3]uint32{n, 1, 1}, float32(2), x, y),
		y.Download(wk.gotY), img.Download(wk.gotMandel),
	}
	wk.names = []string{"", "", "saxpy", "mandelbrot", "saxpy", "", ""}
	wk.commandKind = []string{"buffer upload", "buffer upload", "dispatch", "dispatch", "dispatch", "buffer download", "buffer download"}
	wk.close = func() {
		for _, c := range []interface{ Close() error }{x, y, img, saxpy, mandel} {
			require.NoError(t, c.Close())
		}
	}
	return wk
}

// checkMandel compares the image with the CPU's; a fused multiply-add on
// the device may move a pixel on the set's boundary (as in
// TestProgramMandelbrot).
func (wk *timedWork) checkMandel(t *testing.T) {
	t.Helper()
	differ := 0
	for i := range wk.wantMandel {
		if wk.gotMandel[i] != wk.wantMandel[i] {
			differ++
		}
	}
	require.LessOrEqual(t, differ, len(wk.wantMandel)/100, "pixels differing from the CPU: %d of %d", differ, len(wk.wantMandel))
}

// checkTimings holds tm to the invariants of a list's timings: one entry
// per command, in order, named; starts that do not decrease and follow one
// another; durations adding up to Total, no longer than wall.
func checkTimings(t *testing.T, wk *timedWork, tm *device.Timings, wall time.Duration) {
	t.Helper()
	require.Len(t, tm.Commands, len(wk.cmds))
	var sum time.Duration
	for i, c := range tm.Commands {
		require.Equal(t, i, c.Index)
		require.Equal(t, wk.commandKind[i], c.Command, "command %d", i)
		require.Equal(t, wk.names[i], c.Kernel, "command %d", i)
		require.GreaterOrEqual(t, c.Duration, time.Duration(0), "command %d", i)
		if i > 0 {
			prev := tm.Commands[i-1]
			require.GreaterOrEqual(t, c.Start, prev.Start, "command %d starts before command %d", i, i-1)
			require.Equal(t, prev.Start+prev.Duration, c.Start, "command %d starts as command %d ends", i, i-1)
		}
		sum += c.Duration
	}
	require.Zero(t, tm.Commands[0].Start)
	require.Equal(t, tm.Total, sum)
	require.Positive(t, tm.Commands[3].Duration, "mandelbrot on %d×%d pixels takes time", 128, 128)
	require.Positive(t, tm.Commands[2].Duration+tm.Commands[4].Duration, "saxpy takes time")
	// The device's clock and the host's may differ by a little.
	require.LessOrEqual(t, tm.Total, wall+wall/20+time.Millisecond, "device time beyond the list's wall time")
	byKernel := tm.ByKernel()
	require.Len(t, byKernel, 2)
	for _, k := range byKernel {
		switch k.Kernel {
		case "saxpy":
			require.Equal(t, 2, k.Count)
			require.Equal(t, tm.Commands[2].Duration+tm.Commands[4].Duration, k.Total)
		case "mandelbrot":
			require.Equal(t, 1, k.Count)
			require.Equal(t, tm.Commands[3].Duration, k.Total)
		default:
			t.Fatalf("kernel %q", k.Kernel)
		}
	}
}

func TestTimedList(t *testing.T) {
	for _, validate := range []bool{false, true} {
		name := "plain"
		if validate {
			name = "validation wrapper"
		}
		t.Run(name, func(t *testing.T) {
			d := timedDevice(t, validate)
			wk := newTimedWork(t, d)
			defer wk.close()
			s, err := d.NewStream(device.StreamCompute)
			require.NoError(t, err)
			defer s.Close()
			var tm device.Timings
			var inCallback []device.Timing
			for round := range 3 { // the same Timings reused, list after list
				l := &device.CommandList{Commands: wk.cmds, Timings: &tm}
				l.OnDone(func() { inCallback = append(inCallback[:0], tm.Commands...) })
				start := time.Now()
				require.NoError(t, s.SubmitList(l))
				require.NoError(t, s.Synchronize(context.Background()))
				wall := time.Since(start)
				checkTimings(t, wk, &tm, wall)
				require.Equal(t, tm.Commands, inCallback, "round %d: the callbacks see the timings", round)
				wk.checkMandel(t)
				require.InDeltaSlice(t, wk.wantY, wk.gotY, 1e-2)
				t.Logf("round %d on %s: %v device, %v wall: %v", round, d.Backend(), tm.Total, wall, tm.ByKernel())
			}
		})
	}
}

// TestTimedListThroughEvent: an event signalled after a timed list (with
// no callbacks or downloads) covers its timings, as it covers downloads.
func TestTimedListThroughEvent(t *testing.T) {
	d := timedDevice(t, false)
	wk := newTimedWork(t, d)
	defer wk.close()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	ev, err := d.NewEvent()
	require.NoError(t, err)
	defer ev.Close()
	run(t, d, wk.cmds[:2]...)                              // the uploads, untimed
	cmds := append([]device.Command(nil), wk.cmds[2:5]...) // the three dispatches only
	var tm device.Timings
	start := time.Now()
	require.NoError(t, s.SubmitList((&device.CommandList{Commands: cmds}).Timed(&tm)))
	require.NoError(t, ev.Signal(s, 1))
	require.NoError(t, ev.Synchronize(context.Background(), 1))
	wall := time.Since(start)
	require.Len(t, tm.Commands, 3)
	require.Equal(t, []string{"saxpy", "mandelbrot", "saxpy"}, []string{tm.Commands[0].Kernel, tm.Commands[1].Kernel, tm.Commands[2].Kernel})
	require.Positive(t, tm.Commands[1].Duration)
	require.LessOrEqual(t, tm.Total, wall+wall/20+time.Millisecond)
	require.NoError(t, s.Synchronize(context.Background()))
}

func TestTimedListWithoutCommands(t *testing.T) {
	d := timedDevice(t, false)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	tm := device.Timings{Commands: []device.Timing{{Index: 7}}, Total: 5}
	done := false
	require.NoError(t, s.SubmitList((&device.CommandList{}).OnDone(func() { done = true }).Timed(&tm)))
	require.NoError(t, s.Synchronize(context.Background()))
	require.True(t, done)
	require.Empty(t, tm.Commands)
	require.Zero(t, tm.Total)
	tm.Total = 5
	require.NoError(t, s.SubmitList((&device.CommandList{}).Timed(&tm)))
	require.Zero(t, tm.Total)
}

// TestTimedListWithNilCommand: a nil command in a list, timed or not,
// handed to a backend directly (not through Submit, which refuses it
// first) is an error naming it, not a panic.
func TestTimedListWithNilCommand(t *testing.T) {
	d := timedDevice(t, false)
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	buf, err := device.NewBuffer[uint32](d, 4)
	require.NoError(t, err)
	defer buf.Close()
	for _, tm := range []*device.Timings{nil, {}} {
		l := &device.CommandList{Commands: []device.Command{buf.Upload([]uint32{1, 2, 3, 4}), nil}, Timings: tm}
		err = d.Interface().Dispatch(s.Handle(), l)
		require.ErrorIs(t, err, device.ErrInvalidArgument, "timed: %v", tm != nil)
		require.ErrorContains(t, err, "command 1")
		require.NoError(t, s.Synchronize(context.Background()))
	}
}
