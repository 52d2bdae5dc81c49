package device_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestDispatchArgErrorsNameKernel hands the backend bad dispatches through
// its Interface (past the typed API's checks): every backend refuses each
// naming the kernel and the argument, in the same words (device.CheckArg's).
// The cpu backend used to name the argument only ("argument 1 (out): ..."),
// in its own words ("2 bytes for f32 of 4"), and ran a buffer of 8-byte
// elements bound to a float32 argument.
func TestDispatchArgErrorsNameKernel(t *testing.T) {
	t.Run("backend", func(t *testing.T) { dispatchArgErrors(t, openDevice(t)) })
	// The validation wrapper's own checks, which come first, name the
	// kernel as well; they named its shader's handle ("shader 6 takes 2
	// argument(s)") or the argument alone.
	t.Run("validated", func(t *testing.T) {
		d, err := device.Open(t.Context(), testBackend(), device.WithValidation())
		testenv.Need(t, "Vulkan device", err)
		t.Cleanup(func() { require.NoError(t, d.Close()) })
		dispatchArgErrors(t, d)
	})
}

func dispatchArgErrors(t *testing.T, d *device.Device) {
	k := compile(t, d, func() (*ir.Function, error) {
		f, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.F32, out dsl.Buf[dsl.F32]) {
			i := k.DispatchID().X()
			k.If(i.Lt(out.Len()), func() { out.Write(i, a) })
		}, "a", "out")
		if f != nil {
			f.Name = "fillWith"
		}
		return f, err
	})
	buf, err := device.NewBuffer[float32](d, 64)
	require.NoError(t, err)
	defer buf.Close()
	wide, err := device.NewBuffer[uint64](d, 32)
	require.NoError(t, err)
	defer wide.Close()
	gone, err := device.NewBuffer[float32](d, 64)
	require.NoError(t, err)
	require.NoError(t, gone.Close())
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()

	one := device.Arg{Kind: device.ArgUniform, Uniform: []byte{0, 0, 0x80, 0x3f}}
	whole := func(h device.Handle) device.Arg {
		return device.Arg{Kind: device.ArgBuffer, Handle: h, Size: device.WholeSize}
	}
	for _, c := range []struct {
		name string
		args []device.Arg
		is   error
		want []string
	}{
		{"count", []device.Arg{one}, device.ErrInvalidArgument,
			[]string{"kernel fillWith takes 2 argument(s), got 1"}},
		{"kind", []device.Arg{one, one}, device.ErrInvalidArgument,
			[]string{"kernel fillWith argument 1 (out): ", "kernel expects a buffer, got a uniform"}},
		{"uniform size", []device.Arg{{Kind: device.ArgUniform, Uniform: []byte{1, 2}}, whole(buf.Handle())}, device.ErrInvalidArgument,
			[]string{"kernel fillWith argument 0 (a): ", "kernel expects a 4-byte uniform, got 2 bytes"}},
		{"range", []device.Arg{one, {Kind: device.ArgBuffer, Handle: buf.Handle(), Offset: 256, Size: 64}}, device.ErrInvalidArgument,
			[]string{"kernel fillWith argument 1 (out): ", "bytes [256, 256+64) out of range of 256-byte buffer"}},
		{"element size", []device.Arg{one, whole(wide.Handle())}, device.ErrInvalidArgument,
			[]string{"kernel fillWith argument 1 (out): ", "kernel expects 4-byte elements", "has 8-byte elements"}},
		{"closed buffer", []device.Arg{one, whole(gone.Handle())}, device.ErrClosed,
			[]string{"kernel fillWith argument 1 (out): ", "closed"}},
		{"not a buffer", []device.Arg{one, whole(s.Handle())}, device.ErrInvalidArgument,
			[]string{"kernel fillWith argument 1 (out): ", "is a stream, not a buffer"}},
	} {
		err := d.Interface().Dispatch(s.Handle(), &device.CommandList{Commands: []device.Command{
			&device.ShaderDispatch{Shader: k.Handle(), Size: [3]uint32{64, 1, 1}, Args: c.args},
		}})
		require.ErrorIs(t, err, c.is, c.name)
		for _, w := range c.want {
			require.ErrorContains(t, err, w, c.name)
		}
		require.NotRegexp(t, `shader \d`, err.Error(), c.name)
	}
	// The stream still runs a good dispatch after the refusals.
	require.NoError(t, s.Submit(k.Dispatch([3]uint32{64}, float32(2), buf)))
	got := make([]float32, 64)
	require.NoError(t, s.Submit(buf.Download(got)))
	require.NoError(t, s.Synchronize(t.Context()))
	for i, v := range got {
		require.Equal(t, float32(2), v, "element %d", i)
	}
}

// TestRunErrorsNameCulprit fails work as it runs, with a checked kernel's
// fault and a Custom command's error: the error names the kernel or the
// command, on every backend, and not the stream's handle (a number the
// program never chose; the stream is the one it synchronised). The cpu
// backend's began "cpu: stream 2199023255554: ".
func TestRunErrorsNameCulprit(t *testing.T) {
	d := openDevice(t)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		out.Write(k.DispatchID().X().Add(dsl.U(1000)), dsl.F(1))
	}, "out")
	require.NoError(t, err)
	f.Name = "writePast"
	k, err := device.Compile(d, f, device.WithChecked())
	require.NoError(t, err)
	defer k.Close()
	buf, err := device.NewBuffer[float32](d, 64)
	require.NoError(t, err)
	defer buf.Close()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	handle := fmt.Sprint(s.Handle())

	require.NoError(t, s.Submit(k.Dispatch([3]uint32{64}, buf)))
	err = s.Synchronize(t.Context())
	var fault *device.KernelFault
	require.ErrorAs(t, err, &fault)
	require.ErrorContains(t, err, "kernel writePast")
	require.ErrorContains(t, err, "argument 0 (out): index 1000 out of range [0, 64)")
	require.NotContains(t, err.Error(), handle)

	err = s.Submit(&device.Custom{Name: "failing", Func: func(uintptr) error { return errors.New("no luck") }})
	if err == nil {
		err = s.Synchronize(t.Context())
	}
	require.ErrorContains(t, err, `custom command "failing": no luck`)
	require.NotContains(t, err.Error(), handle)
}
