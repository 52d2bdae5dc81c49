package vulkan

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// reads is how many downloads of the stream's last list were direct.
func (f *fixture) reads() int {
	s, err := lookupStream(f.d, f.s)
	require.NoError(f.t, err)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc.lastReads
}

func (f *fixture) needReadable() {
	f.t.Helper()
	if !f.d.phys.unified() {
		f.t.Skip("buffers are device-local on this device: every download is staged")
	}
}

// blockWorker submits an empty list whose callback holds the stream's worker
// until the returned function is called: the lists after it complete on the
// host only then, however early the GPU is done with them.
func (f *fixture) blockWorker(s device.Handle) (release func()) {
	f.t.Helper()
	gate, entered := make(chan struct{}), make(chan struct{})
	list := (&device.CommandList{}).Add(&device.BufferCopy{Src: f.buffer(4), Dst: f.buffer(4), Size: 4})
	list.OnDone(func() { close(entered); <-gate })
	require.NoError(f.t, f.d.Dispatch(s, list))
	<-entered
	return func() { close(gate) }
}

// gpuDone waits until the GPU has done every list submitted on stream h,
// whatever the host has completed of them.
func (f *fixture) gpuDone(h device.Handle) {
	f.t.Helper()
	s, err := lookupStream(f.d, h)
	require.NoError(f.t, err)
	s.mu.Lock()
	next := s.next
	s.mu.Unlock()
	ok, err := f.d.waitSemaphore(s.sem, next, 10*time.Second)
	require.NoError(f.t, err)
	require.True(f.t, ok, "the GPU finishes stream %d's lists", h)
}

// TestDirectReads: a download of a host-readable buffer that no later
// command of the list writes is a host read after the list; one followed by
// a write is staged; both see the buffer as the list orders it.
func TestDirectReads(t *testing.T) {
	f := newFixture(t)
	f.needReadable()
	sh, _ := f.shader("add")
	const n = 256
	ba, bb, bc := f.buffer(4*n), f.buffer(4*n), f.buffer(4*n)
	a, b, b2 := f32Seq(n, 1), f32Seq(n, 2), f32Seq(n, -3)
	f.run(&device.BufferUpload{Buffer: ba, Data: bytesOfF32(a)}, &device.BufferUpload{Buffer: bb, Data: bytesOfF32(b)})
	outC, outB, outB2 := make([]byte, 4*n), make([]byte, 4*n), make([]byte, 8)
	f.run(
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgBuffer, Handle: ba, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: bb, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: bc, Size: device.WholeSize},
			{Kind: device.ArgUniform, Uniform: uniform32(n)}, {Kind: device.ArgUniform, Uniform: uniformF(1)},
		}},
		&device.BufferDownload{Buffer: bc, Data: outC},             // direct: written before, not after
		&device.BufferDownload{Buffer: bb, Data: outB},             // staged: the upload below writes bb
		&device.BufferUpload{Buffer: bb, Data: bytesOfF32(b2)},     //
		&device.BufferDownload{Buffer: bb, Offset: 8, Data: outB2}, // direct, after the upload
	)
	require.Equal(t, 2, f.reads())
	c := f32s(outC)
	for i := range c {
		require.Equal(t, a[i]+b[i], c[i], "element %d", i)
	}
	require.Equal(t, b, f32s(outB), "the staged download ran before the upload")
	require.Equal(t, b2[2:4], f32s(outB2))
}

// TestDirectReadsStagedByEnv: with LUCENT_VULKAN_STAGED_DOWNLOADS=1 every
// download is staged, with the same result.
func TestDirectReadsStagedByEnv(t *testing.T) {
	t.Setenv(EnvStagedDownloads, "1")
	f := newFixture(t)
	buf := f.buffer(64)
	want := bytesOfU32([]uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	got := make([]byte, 64)
	f.run(&device.BufferUpload{Buffer: buf, Data: want}, &device.BufferDownload{Buffer: buf, Data: got})
	require.Zero(t, f.reads())
	require.Equal(t, want, got)
}

// TestDirectReadSettledByLaterWrite: a direct read not yet made on the host
// (the stream's worker is held by an earlier callback) when a later list
// writes the buffer is made by that list before it is submitted, so it
// still sees the data the read's list left. The writer is on the same stream,
// on another stream, or a custom command that may write anything.
func TestDirectReadSettledByLaterWrite(t *testing.T) {
	f := newFixture(t)
	f.needReadable()
	const n = 1024
	other, err := f.d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	defer f.d.DestroyStream(other)
	src := f.buffer(4 * n)
	writers := map[string]func(buf device.Handle) (device.Handle, *device.CommandList){
		"upload, same stream": func(buf device.Handle) (device.Handle, *device.CommandList) {
			return f.s, (&device.CommandList{}).Add(&device.BufferUpload{Buffer: buf, Data: bytesOfF32(f32Seq(n, 9))})
		},
		"copy, other stream": func(buf device.Handle) (device.Handle, *device.CommandList) {
			return other, (&device.CommandList{}).Add(&device.BufferCopy{Src: src, Dst: buf, Size: 4 * n})
		},
		"custom, other stream": func(buf device.Handle) (device.Handle, *device.CommandList) {
			return other, (&device.CommandList{}).Add(&device.Custom{Name: "nothing", Func: func(uintptr) error { return nil }},
				&device.BufferCopy{Src: src, Dst: buf, Size: 4 * n})
		},
	}
	f.run(&device.BufferUpload{Buffer: src, Data: bytesOfF32(f32Seq(n, -1))})
	for name, writer := range writers {
		t.Run(name, func(t *testing.T) {
			buf := f.buffer(4 * n)
			old := f32Seq(n, 1)
			f.run(&device.BufferUpload{Buffer: buf, Data: bytesOfF32(old)})
			release := f.blockWorker(f.s)
			got := make([]byte, 4*n)
			require.NoError(t, f.d.Dispatch(f.s, (&device.CommandList{}).Add(&device.BufferDownload{Buffer: buf, Data: got})))
			require.Equal(t, 1, f.reads())
			ws, list := writer(buf)
			require.NoError(t, f.d.Dispatch(ws, list))
			f.gpuDone(ws) // the write is done; the read's list is not complete on the host
			release()
			require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
			require.Equal(t, old, f32s(got))
		})
	}
}

// TestDirectReadStagedWhileParked: while a stream has parked work (a list
// waiting for an event signal not yet submitted), a download is staged: the
// parked list, encoded before it, may write the buffer once the signal after
// the download is submitted, before the host would have read it.
func TestDirectReadStagedWhileParked(t *testing.T) {
	f := newFixture(t)
	f.needReadable()
	const n = 1024
	buf := f.buffer(4 * n)
	old, fresh := f32Seq(n, 1), f32Seq(n, 5)
	f.run(&device.BufferUpload{Buffer: buf, Data: bytesOfF32(old)})
	ev, err := f.d.CreateEvent()
	require.NoError(t, err)
	defer f.d.DestroyEvent(ev)
	other, err := f.d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	defer f.d.DestroyStream(other)
	require.NoError(t, f.d.WaitEvent(ev, other, 1))
	require.NoError(t, f.d.Dispatch(other, (&device.CommandList{}).Add(&device.BufferUpload{Buffer: buf, Data: bytesOfF32(fresh)})))

	release := f.blockWorker(f.s)
	got := make([]byte, 4*n)
	require.NoError(t, f.d.Dispatch(f.s, (&device.CommandList{}).Add(&device.BufferDownload{Buffer: buf, Data: got})))
	require.Zero(t, f.reads(), "a stream has parked work: staged")
	require.NoError(t, f.d.SignalEvent(ev, f.s, 1))
	require.NoError(t, f.d.SynchronizeStream(context.Background(), other))
	release()
	require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
	require.Equal(t, old, f32s(got))
}

// TestDownloadBigAfterSmall: 16 MiB and then 256 MiB downloads, twice, direct
// and staged, each seeing its own buffer's bytes.
func TestDownloadBigAfterSmall(t *testing.T) {
	for _, staged := range []bool{false, true} {
		name := "direct"
		if staged {
			name = "staged"
			t.Setenv(EnvStagedDownloads, "1")
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			sizes := []int{16 << 20, 256 << 20}
			bufs := make([]device.Handle, len(sizes))
			for i, n := range sizes {
				bufs[i] = f.buffer(uint64(n))
				data := make([]byte, n)
				for j := range data {
					data[j] = byte(j*7 + i)
				}
				f.run(&device.BufferUpload{Buffer: bufs[i], Data: data})
			}
			for round := range 2 {
				for i, n := range sizes {
					got := make([]byte, n)
					f.run(&device.BufferDownload{Buffer: bufs[i], Data: got})
					if f.d.phys.unified() && !staged {
						require.Equal(t, 1, f.reads())
					} else {
						require.Zero(t, f.reads())
					}
					for j := 0; j < n; j += 4093 {
						require.Equal(t, byte(j*7+i), got[j], "round %d, %d MiB, byte %d", round, n>>20, j)
					}
					require.Equal(t, byte((n-1)*7+i), got[n-1])
				}
			}
		})
	}
}
