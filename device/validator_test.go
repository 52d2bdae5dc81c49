package device

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
)

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

func newTestValidator(t *testing.T) (*Validator, *recorder) {
	rec := newRecorder()
	return NewValidator(rec, quietLogger), rec
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		require.NoError(t, err)
		return v
	}
}

func dispatched(rec *recorder) int {
	n := 0
	for _, c := range rec.calls {
		if len(c) > 8 && c[:8] == "dispatch" {
			n++
		}
	}
	return n
}

func TestValidatorUseAfterDestroy(t *testing.T) {
	v, rec := newTestValidator(t)
	h := must[Handle](t)
	s := h(v.CreateStream(StreamCompute))
	buf := h(v.CreateBuffer(BufferDesc{Size: 16, ElemSize: 4}))
	require.NoError(t, v.SetName(buf, "weights"))
	require.NoError(t, v.Dispatch(s, &CommandList{Commands: []Command{&BufferUpload{Buffer: buf, Data: make([]byte, 16)}}}))
	require.NoError(t, v.DestroyBuffer(buf))

	err := v.Dispatch(s, &CommandList{Commands: []Command{&BufferUpload{Buffer: buf, Data: make([]byte, 4)}}})
	require.ErrorIs(t, err, ErrClosed)
	require.Contains(t, err.Error(), `command 0 (buffer upload): validation: buffer #2 ("weights") used after Destroy`)
	require.Equal(t, 1, dispatched(rec), "the bad list never reaches the backend")

	require.ErrorIs(t, v.DestroyBuffer(buf), ErrClosed, "double destroy")
	require.ErrorIs(t, v.SetName(buf, "x"), ErrClosed)
	require.ErrorIs(t, v.Dispatch(Handle(99), &CommandList{}), ErrInvalidArgument, "unknown stream")
}

func TestValidatorWrongKind(t *testing.T) {
	v, _ := newTestValidator(t)
	h := must[Handle](t)
	s := h(v.CreateStream(StreamCompute))
	ev := h(v.CreateEvent())
	err := v.Dispatch(s, &CommandList{Commands: []Command{&BufferDownload{Buffer: ev, Data: make([]byte, 4)}}})
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "handle #2 is a event, not a buffer")
	require.ErrorIs(t, v.DestroyTexture(ev), ErrInvalidArgument)
	require.ErrorIs(t, v.SignalEvent(s, s, 1), ErrInvalidArgument)
}

func TestValidatorCopyStream(t *testing.T) {
	v, rec := newTestValidator(t)
	rec.shaderSig = Signature{Args: []Argument{{Kind: ArgBuffer}}}
	h := must[Handle](t)
	cs := h(v.CreateStream(StreamCopy))
	buf := h(v.CreateBuffer(BufferDesc{Size: 64}))
	sh, _, err := v.CreateShader(ShaderDesc{SPIRV: []uint32{0x07230203}})
	require.NoError(t, err)

	require.NoError(t, v.Dispatch(cs, &CommandList{Commands: []Command{&BufferUpload{Buffer: buf, Data: make([]byte, 64)}}}))
	for _, c := range []Command{
		&ShaderDispatch{Shader: sh, Size: [3]uint32{1, 1, 1}, Args: []Arg{{Kind: ArgBuffer, Handle: buf}}},
		&BindlessUpdate{},
		&Custom{Func: func(uintptr) error { return nil }},
	} {
		err := v.Dispatch(cs, &CommandList{Commands: []Command{c}})
		require.ErrorIs(t, err, ErrInvalidArgument)
		require.Contains(t, err.Error(), "needs a compute stream, stream #1 is a copy stream")
	}
}

func TestValidatorDispatchArgs(t *testing.T) {
	v, rec := newTestValidator(t)
	rec.shaderSig = saxpySig
	h := must[Handle](t)
	s := h(v.CreateStream(StreamCompute))
	x := h(v.CreateBuffer(BufferDesc{Size: 400, ElemSize: 4}))
	y := h(v.CreateBuffer(BufferDesc{Size: 400, ElemSize: 4}))
	v4 := h(v.CreateBuffer(BufferDesc{Size: 1600, ElemSize: 16}))
	tex := h(v.CreateTexture(TextureDesc{Dim: 2, Format: R32Float, Width: 4, Height: 4, Depth: 1, Levels: 1}))
	sh, sig, err := v.CreateShader(ShaderDesc{SPIRV: []uint32{0x07230203}, Name: "saxpy"})
	require.NoError(t, err)
	require.Equal(t, saxpySig, sig)

	a := Arg{Kind: ArgUniform, Uniform: []byte{0, 0, 0, 0x40}}
	bx := Arg{Kind: ArgBuffer, Handle: x, Size: 400}
	by := Arg{Kind: ArgBuffer, Handle: y, Size: 400}
	run := func(size [3]uint32, args ...Arg) error {
		return v.Dispatch(s, &CommandList{Commands: []Command{&ShaderDispatch{Shader: sh, Size: size, Args: args}}})
	}
	one := [3]uint32{100, 1, 1}
	require.NoError(t, run(one, a, bx, by))
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"count", run(one, a, bx), `shader #6 ("saxpy") takes 3 argument(s), got 2`},
		{"kind", run(one, a, a, by), "argument 1 (x): validation: invalid argument: kernel expects a buffer, got a uniform"},
		{"uniform size", run(one, Arg{Kind: ArgUniform, Uniform: make([]byte, 8)}, bx, by), "argument 0 (a): validation: invalid argument: kernel expects a 4-byte uniform, got 8 bytes"},
		{"element size", run(one, a, bx, Arg{Kind: ArgBuffer, Handle: v4, Size: WholeSize}), "argument 2 (y): validation: invalid argument: kernel expects 4-byte elements, buffer #4 has 16-byte elements"},
		{"range", run(one, a, Arg{Kind: ArgBuffer, Handle: x, Offset: 200, Size: 400}, by), "argument 1 (x): validation: invalid argument: bytes [200, 200+400) out of range of 400-byte buffer #2"},
		{"partial element", run(one, a, Arg{Kind: ArgBuffer, Handle: x, Offset: 2, Size: 8}, by), "not a whole number of 4-byte elements"},
		{"texture for buffer", run(one, a, bx, Arg{Kind: ArgBuffer, Handle: tex, Size: WholeSize}), "argument 2 (y): validation: invalid argument: handle #5 is a texture, not a buffer"},
		{"zero size", run([3]uint32{0, 1, 1}, a, bx, by), "zero dimension"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.ErrorIs(t, c.err, ErrInvalidArgument)
			require.Contains(t, c.err.Error(), c.want)
		})
	}
	require.NoError(t, v.DestroyShader(sh))
	require.ErrorIs(t, run(one, a, bx, by), ErrClosed)
}

func TestValidatorRanges(t *testing.T) {
	v, _ := newTestValidator(t)
	h := must[Handle](t)
	s := h(v.CreateStream(StreamCompute))
	buf := h(v.CreateBuffer(BufferDesc{Size: 64}))
	tex := h(v.CreateTexture(TextureDesc{Dim: 2, Format: RGBA8Unorm, Width: 8, Height: 4, Depth: 1, Levels: 2}))
	arr := h(v.CreateBindlessArray(4))
	for _, c := range []struct {
		name string
		cmd  Command
		want string
	}{
		{"upload past end", &BufferUpload{Buffer: buf, Offset: 60, Data: make([]byte, 8)}, "bytes [60, 60+8) out of range of 64-byte buffer #2"},
		{"download offset overflow", &BufferDownload{Buffer: buf, Offset: ^uint64(0), Data: make([]byte, 2)}, "out of range"},
		{"overlapping copy", &BufferCopy{Src: buf, Dst: buf, DstOffset: 8, Size: 16}, "overlapping copy"},
		{"copy destination", &BufferCopy{Src: buf, Dst: buf, DstOffset: 56, Size: 16}, "destination"},
		{"texture level", &TextureUpload{Texture: tex, Region: Region{Level: 2}}, "level 2 of 2-level texture #3"},
		{"texture region", &TextureDownload{Texture: tex, Region: Region{Level: 1, Origin: [3]uint32{2, 0, 0}, Size: [3]uint32{3, 1, 1}}, Data: make([]byte, 12)}, "out of range of level 1 ([4 2 1])"},
		{"texture data size", &TextureUpload{Texture: tex, Data: make([]byte, 100)}, "100 bytes of data for a 128-byte region"},
		{"buffer too small for texture", &TextureToBuffer{Texture: tex, Buffer: buf}, "bytes [0, 0+128) out of range of 64-byte buffer #2"},
		{"bindless slot", &BindlessUpdate{Array: arr, Slots: []BindlessSlot{{Slot: 4, Op: BindlessRemove}}}, "slot 4 of 4-slot bindless array #4"},
		{"bindless buffer range", &BindlessUpdate{Array: arr, Slots: []BindlessSlot{{Slot: 0, Op: BindlessSetBuffer, Buffer: buf, Offset: 32, Size: 64}}}, "slot 0"},
		{"custom without func", &Custom{Name: "clear"}, `custom command "clear" has no Func`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := v.Dispatch(s, &CommandList{Commands: []Command{c.cmd}})
			require.ErrorIs(t, err, ErrInvalidArgument)
			require.Contains(t, err.Error(), c.want)
		})
	}
	require.NoError(t, v.Dispatch(s, &CommandList{Commands: []Command{
		&TextureUpload{Texture: tex, Region: Region{Level: 1}, Data: make([]byte, 32)},
		&TextureToBuffer{Texture: tex, Region: Region{Level: 1}, Buffer: buf, Offset: 32},
		&BufferCopy{Src: buf, Dst: buf, DstOffset: 16, Size: 16},
	}}))
}

func TestValidatorCreateChecks(t *testing.T) {
	v, rec := newTestValidator(t)
	for _, d := range []TextureDesc{
		{Dim: 1, Format: R8Unorm, Width: 1, Height: 1, Depth: 1, Levels: 1},
		{Dim: 2, Format: 0, Width: 1, Height: 1, Depth: 1, Levels: 1},
		{Dim: 2, Format: R8Unorm, Width: 0, Height: 1, Depth: 1, Levels: 1},
		{Dim: 2, Format: R8Unorm, Width: 4, Height: 4, Depth: 2, Levels: 1},
		{Dim: 2, Format: R8Unorm, Width: 4, Height: 4, Depth: 1, Levels: 4},
	} {
		_, err := v.CreateTexture(d)
		require.ErrorIs(t, err, ErrInvalidArgument, "%+v", d)
	}
	_, err := v.CreateBuffer(BufferDesc{})
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, err = v.CreateBuffer(BufferDesc{Size: 10, ElemSize: 4})
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, err = v.CreateStream(StreamKind(7))
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Empty(t, rec.calls, "no bad create reaches the backend")
}

// hazardRig is two compute streams, an event and a buffer.
type hazardRig struct {
	v         *Validator
	a, b, ev  Handle
	buf       Handle
	write     func(s Handle) error
	read      func(s Handle) error
	signal    func(s Handle, val uint64) error
	wait      func(s Handle, val uint64) error
	hostWaitA func() error
}

func newHazardRig(t *testing.T) *hazardRig {
	v, _ := newTestValidator(t)
	h := must[Handle](t)
	r := &hazardRig{v: v}
	r.a = h(v.CreateStream(StreamCompute))
	r.b = h(v.CreateStream(StreamCopy))
	r.ev = h(v.CreateEvent())
	r.buf = h(v.CreateBuffer(BufferDesc{Size: 16}))
	r.write = func(s Handle) error {
		return v.Dispatch(s, &CommandList{Commands: []Command{&BufferUpload{Buffer: r.buf, Data: make([]byte, 16)}}})
	}
	r.read = func(s Handle) error {
		return v.Dispatch(s, &CommandList{Commands: []Command{&BufferDownload{Buffer: r.buf, Data: make([]byte, 16)}}})
	}
	r.signal = func(s Handle, val uint64) error { return v.SignalEvent(r.ev, s, val) }
	r.wait = func(s Handle, val uint64) error { return v.WaitEvent(r.ev, s, val) }
	r.hostWaitA = func() error { return v.SynchronizeStream(context.Background(), r.a) }
	return r
}

func TestValidatorHazards(t *testing.T) {
	t.Run("read after write, no event", func(t *testing.T) {
		r := newHazardRig(t)
		require.NoError(t, r.write(r.a))
		require.NoError(t, r.read(r.a), "same stream is ordered")
		err := r.read(r.b)
		require.ErrorIs(t, err, ErrHazard)
		require.Contains(t, err.Error(), "buffer #4 is read on stream #2 but written on stream #1 with no event in between")
	})
	t.Run("event after the write", func(t *testing.T) {
		r := newHazardRig(t)
		require.NoError(t, r.write(r.a))
		require.NoError(t, r.signal(r.a, 1))
		require.NoError(t, r.wait(r.b, 1))
		require.NoError(t, r.read(r.b))
	})
	t.Run("event before the write", func(t *testing.T) {
		r := newHazardRig(t)
		require.NoError(t, r.signal(r.a, 1))
		require.NoError(t, r.write(r.a))
		require.NoError(t, r.wait(r.b, 1))
		require.ErrorIs(t, r.read(r.b), ErrHazard)
	})
	t.Run("wait for an earlier value", func(t *testing.T) {
		r := newHazardRig(t)
		require.NoError(t, r.signal(r.a, 1))
		require.NoError(t, r.write(r.a))
		require.NoError(t, r.signal(r.a, 2))
		require.NoError(t, r.wait(r.b, 1))
		require.ErrorIs(t, r.read(r.b), ErrHazard)
		require.NoError(t, r.wait(r.b, 2))
		require.NoError(t, r.read(r.b))
	})
	t.Run("host synchronized", func(t *testing.T) {
		r := newHazardRig(t)
		require.NoError(t, r.write(r.a))
		require.NoError(t, r.hostWaitA())
		require.NoError(t, r.read(r.b))
	})
	t.Run("host waited on the event", func(t *testing.T) {
		r := newHazardRig(t)
		require.NoError(t, r.write(r.a))
		require.NoError(t, r.signal(r.a, 5))
		require.NoError(t, r.v.SynchronizeEvent(context.Background(), r.ev, 5))
		require.NoError(t, r.write(r.b))
	})
	t.Run("write after read", func(t *testing.T) {
		r := newHazardRig(t)
		require.NoError(t, r.read(r.a))
		err := r.write(r.b)
		require.ErrorIs(t, err, ErrHazard)
		require.Contains(t, err.Error(), "written on stream #2 while stream #1 may still read it")
	})
	t.Run("ordering is transitive", func(t *testing.T) {
		r := newHazardRig(t)
		h := must[Handle](t)
		c := h(r.v.CreateStream(StreamCompute))
		ev2 := h(r.v.CreateEvent())
		require.NoError(t, r.write(r.a))
		require.NoError(t, r.signal(r.a, 1))
		require.NoError(t, r.wait(r.b, 1))
		require.NoError(t, r.v.SignalEvent(ev2, r.b, 1))
		require.NoError(t, r.v.WaitEvent(ev2, c, 1))
		require.NoError(t, r.read(c))
	})
	t.Run("destroyed stream, its work finished", func(t *testing.T) {
		r := newHazardRig(t)
		require.NoError(t, r.write(r.a))
		require.NoError(t, r.v.DestroyStream(r.a))
		// The recorder completes every event at once: the destroyed
		// stream's work is known finished.
		require.NoError(t, r.read(r.b))
		require.NoError(t, r.write(r.b))
	})
	t.Run("values must increase", func(t *testing.T) {
		r := newHazardRig(t)
		require.NoError(t, r.signal(r.a, 3))
		require.ErrorIs(t, r.signal(r.b, 3), ErrInvalidArgument)
		require.ErrorIs(t, r.signal(r.b, 0), ErrInvalidArgument)
	})
}

func TestValidatorLeaks(t *testing.T) {
	v, rec := newTestValidator(t)
	h := must[Handle](t)
	s := h(v.CreateStream(StreamCompute))
	buf := h(v.CreateBuffer(BufferDesc{Size: 4}))
	require.NoError(t, v.SetName(buf, "scratch"))
	require.NoError(t, v.DestroyStream(s))
	err := v.Close()
	require.ErrorIs(t, err, ErrLeaked)
	var le *LeakError
	require.True(t, errors.As(err, &le))
	require.Equal(t, []Leak{{Handle: buf, Kind: KindBuffer, Name: "scratch"}}, le.Leaks)
	require.Contains(t, err.Error(), `1 resource(s) leaked: buffer #2 ("scratch")`)
	require.True(t, rec.closed)
	require.NoError(t, v.Close(), "second Close")
	_, err = v.CreateBuffer(BufferDesc{Size: 4})
	require.ErrorIs(t, err, ErrClosed)
}

func TestDeviceCloseReleasesAndReportsLeaks(t *testing.T) {
	rec := newRecorder()
	dev := NewDevice("recorder", rec, WithValidation(), WithLogger(quietLogger))
	_, err := NewBuffer[float32](dev, 8)
	require.NoError(t, err)
	kept, err := NewBuffer[uint32](dev, 8)
	require.NoError(t, err)
	_, err = dev.NewStream(StreamCompute)
	require.NoError(t, err)
	require.NoError(t, kept.Close())
	require.NoError(t, kept.Close(), "Close is idempotent")

	err = dev.Close()
	require.ErrorIs(t, err, ErrLeaked)
	require.Contains(t, err.Error(), "2 resource(s) leaked: buffer #1, stream #3")
	require.Empty(t, rec.live, "Device.Close released everything")
	require.True(t, rec.closed)
	require.NoError(t, dev.Close())
	_, err = NewBuffer[float32](dev, 8)
	require.ErrorIs(t, err, ErrClosed)
}

func TestValidatorConcurrent(t *testing.T) {
	v, _ := newTestValidator(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := v.CreateStream(StreamCompute)
			if err != nil {
				errs <- err
				return
			}
			for i := range 50 {
				b, err := v.CreateBuffer(BufferDesc{Size: 64})
				if err == nil {
					err = v.SetName(b, fmt.Sprintf("g%d-%d", g, i))
				}
				if err == nil {
					err = v.Dispatch(s, &CommandList{Commands: []Command{&BufferUpload{Buffer: b, Data: make([]byte, 64)}}})
				}
				if err == nil {
					err = v.DestroyBuffer(b)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- v.DestroyStream(s)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Empty(t, v.Leaks())
	require.NoError(t, v.Close())
}

// TestValidatorHostFunc: the wrapper hands a kernel's host function on to
// the backend, and refuses one without the kernel it implements.
func TestValidatorHostFunc(t *testing.T) {
	v, rec := newTestValidator(t)
	called := false
	host := HostFunc(func(context.Context, [3]uint32, [][]byte) error { called = true; return nil })
	_, _, err := v.CreateShader(ShaderDesc{SPIRV: []uint32{0x07230203}, Host: host})
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "a host function without the kernel it implements")

	f, err := dsl.Kernel1D(64, func(k *dsl.K, x dsl.Buf[dsl.F32]) {
		x.Write(k.DispatchID().X(), dsl.F(1))
	})
	require.NoError(t, err)
	sig, _, err := KernelSignature(f)
	require.NoError(t, err)
	_, _, err = v.CreateShader(ShaderDesc{Kernel: f, Signature: &sig, Host: host})
	require.NoError(t, err)
	require.NotNil(t, rec.lastShader.Host, "the backend got the host function")
	require.NoError(t, rec.lastShader.Host(context.Background(), [3]uint32{1, 1, 1}, nil))
	require.True(t, called)
}
