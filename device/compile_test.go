package device_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// openDevice opens the default device of the backend under test
// (testBackend: Vulkan unless LUCENT_TEST_BACKEND says otherwise) with the
// validation layer on; any validation error fails the test.
func openDevice(t *testing.T) *device.Device {
	t.Helper()
	var mu sync.Mutex
	d, err := device.Open(context.Background(), testBackend(),
		device.WithValidationLayer(true),
		device.WithDebug(func(m device.DebugMessage) {
			if m.Severity == device.SeverityError {
				mu.Lock()
				defer mu.Unlock()
				t.Errorf("validation: %s: %s", m.ID, m.Text)
			}
		}))
	testenv.Need(t, "Vulkan device", err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d
}

// run submits cmds on a fresh compute stream and waits.
func run(t *testing.T, d *device.Device, cmds ...device.Command) {
	t.Helper()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Submit(cmds...))
	require.NoError(t, s.Synchronize(context.Background()))
}

func TestCompileSaxpy(t *testing.T) {
	d := openDevice(t)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		y.Write(i, a.Mul(x.Read(i)).Add(y.Read(i)))
	})
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()

	const n = 1000 // not a multiple of the block: the tail threads return early
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i)*0.5, float32(n-i)
	}
	x, err := device.NewBuffer[float32](d, n)
	require.NoError(t, err)
	defer x.Close()
	y, err := device.NewBuffer[float32](d, n)
	require.NoError(t, err)
	defer y.Close()
	out := make([]float32, n)
	run(t, d, x.Upload(xs), y.Upload(ys), k.Dispatch([3]uint32{n}, float32(3), x, y), y.Download(out))
	for i := range out {
		require.InDelta(t, 3*xs[i]+ys[i], out[i], 1e-3, "element %d", i) // the driver may fuse the multiply-add
	}
}

func TestKernelDispatchRejectsWrongArguments(t *testing.T) {
	d := openDevice(t)
	f, err := programs.Saxpy()
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	x, err := device.NewBuffer[float32](d, 16)
	require.NoError(t, err)
	defer x.Close()
	ints, err := device.NewBuffer[int32](d, 16)
	require.NoError(t, err)
	defer ints.Close()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	cases := map[string]struct {
		args []any
		want string
	}{
		"count":            {[]any{float32(1), x}, "takes 3 argument(s), got 2"},
		"uniform type":     {[]any{int32(1), x, x}, "argument 0 (a)"},
		"buffer element":   {[]any{float32(1), ints, x}, "argument 1 (x)"},
		"value for buffer": {[]any{float32(1), x, float32(2)}, "argument 2 (y)"},
		"buffer for value": {[]any{x, x, x}, "argument 0 (a)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := s.Submit(k.Dispatch([3]uint32{16}, c.args...))
			require.ErrorIs(t, err, device.ErrInvalidArgument)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestCompileCapturesResources(t *testing.T) {
	d := openDevice(t)
	table, err := device.NewBuffer[float32](d, 4)
	require.NoError(t, err)
	defer table.Close()
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		lut := dsl.Capture[dsl.Buf[dsl.F32]](k, table) // a hidden argument
		i := k.DispatchID().X()
		out.Write(i, lut.Read(i.Rem(dsl.U(4))).Mul(dsl.F(10)))
	})
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	out, err := device.NewBuffer[float32](d, 10)
	require.NoError(t, err)
	defer out.Close()
	got := make([]float32, 10)
	run(t, d, table.Upload([]float32{1, 2, 3, 4}), k.Dispatch([3]uint32{10}, out), out.Download(got))
	require.Equal(t, []float32{10, 20, 30, 40, 10, 20, 30, 40, 10, 20}, got)
}

// TestCompileBufferByAddress passes buffers by device address (kernel ABI
// v1's form for buffers past maxStorageBufferRange).
func TestCompileBufferByAddress(t *testing.T) {
	d := openDevice(t)
	if !d.Capabilities().BufferDeviceAddress {
		testenv.Need(t, "buffer device addresses", errUnsupported("BufferDeviceAddress"))
	}
	f, err := programs.SaxpyAddress()
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	sig := k.Signature()
	require.True(t, sig.Args[1].ByAddress)
	const n = 1000
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), 1
	}
	x, y, count := upload(t, d, xs), upload(t, d, ys), upload(t, d, []uint32{0})
	run(t, d, k.Dispatch([3]uint32{n}, float32(2), x, y, count))
	got := download(t, d, y)
	for i := range got {
		require.InDelta(t, 2*xs[i]+1, got[i], 1e-4, "element %d", i)
	}
	require.Equal(t, []uint32{n}, download(t, d, count))
}

func TestKernelWithBarriersNeedsWholeBlocks(t *testing.T) {
	d := openDevice(t)
	f, err := programs.Reduce()
	require.NoError(t, err)
	require.True(t, f.UsesBarrier())
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	in, err := device.NewBuffer[uint32](d, 300)
	require.NoError(t, err)
	defer in.Close()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	err = s.Submit(k.Dispatch([3]uint32{300}, in, in))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "multiple of its block [256 1 1]: dispatch [512 1 1]")
}
