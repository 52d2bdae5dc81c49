package cpu_test

import (
	"context"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/kernel"
)

// hostKernel is the IR of kernel name in hostkernels_test.go.
func hostKernel(t testing.TB, name string) *ir.Function {
	t.Helper()
	src, err := os.ReadFile("hostkernels_test.go")
	require.NoError(t, err)
	ks, errs := gokernel.Check("hostkernels_test.go", src)
	require.Empty(t, errs)
	for _, k := range ks {
		if k.Name == name {
			return k.Func
		}
	}
	t.Fatalf("no kernel %s", name)
	return nil
}

// hostFunc makes a device.HostFunc as the launchers lucentc -go writes do:
// bind views the arguments' bytes as the Go parameters and returns the call.
// calls counts its runs.
func hostFunc(block kernel.Uint3, calls *atomic.Int32, bind func(args [][]byte) (func(), error)) device.HostFunc {
	return func(ctx context.Context, size [3]uint32, args [][]byte) error {
		calls.Add(1)
		body, err := bind(args)
		if err != nil {
			return err
		}
		return kernel.Run(ctx, kernel.Grid{Block: block, Size: kernel.Uint3{X: size[0], Y: size[1], Z: size[2]}, SubgroupSize: 1}, body)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var (
	saxpyHost = func(calls *atomic.Int32) device.HostFunc {
		return hostFunc(kernel.Uint3{X: 64, Y: 1, Z: 1}, calls, func(args [][]byte) (func(), error) {
			a, x, y := must(kernel.HostValue[float32](args[0])), must(kernel.HostSlice[float32](args[1])), must(kernel.HostSlice[float32](args[2]))
			return func() { HostSaxpy(a, x, y) }, nil
		})
	}
	mandelHost = func(calls *atomic.Int32) device.HostFunc {
		return hostFunc(kernel.Uint3{X: 16, Y: 16, Z: 1}, calls, func(args [][]byte) (func(), error) {
			w, h, out := must(kernel.HostValue[uint32](args[0])), must(kernel.HostValue[uint32](args[1])), must(kernel.HostSlice[uint32](args[2]))
			return func() { HostMandelbrot(w, h, out) }, nil
		})
	}
	reverseHost = func(calls *atomic.Int32) device.HostFunc {
		return hostFunc(kernel.Uint3{X: 64, Y: 1, Z: 1}, calls, func(args [][]byte) (func(), error) {
			buf := must(kernel.HostSlice[uint32](args[0]))
			return func() { HostReverse(buf) }, nil
		})
	}
	printAssertHost = func(calls *atomic.Int32) device.HostFunc {
		return hostFunc(kernel.Uint3{X: 64, Y: 1, Z: 1}, calls, func(args [][]byte) (func(), error) {
			in := must(kernel.HostSlice[float32](args[0]))
			return func() { HostPrintAssert(in) }, nil
		})
	}
	shiftHost = func(calls *atomic.Int32) device.HostFunc {
		return hostFunc(kernel.Uint3{X: 64, Y: 1, Z: 1}, calls, func(args [][]byte) (func(), error) {
			k, in, out := must(kernel.HostValue[uint32](args[0])), must(kernel.HostSlice[uint32](args[1])), must(kernel.HostSlice[uint32](args[2]))
			return func() { HostShift(k, in, out) }, nil
		})
	}
)

// TestHostFunc: a kernel compiled with its Go function (device.WithHost) runs
// as that function on the cpu backend, through the validation wrapper, and
// gives exactly what the IR path gives for the same kernel.
func TestHostFunc(t *testing.T) {
	d := open(t) // with the validation wrapper
	s := stream(t, d, device.StreamCompute)
	ctx := ctxT(t)
	var calls atomic.Int32

	t.Run("saxpy", func(t *testing.T) {
		calls.Store(0)
		f := hostKernel(t, "HostSaxpy")
		ir, err := device.Compile(d, f)
		require.NoError(t, err)
		defer ir.Close()
		gok, err := device.Compile(d, f, device.WithHost(saxpyHost(&calls)))
		require.NoError(t, err)
		defer gok.Close()
		const n = 1000 // not whole blocks
		xs, ys := make([]float32, n), make([]float32, n)
		for i := range xs {
			xs[i], ys[i] = float32(i)*0.37, float32(3*i+1)
		}
		x, y1, y2 := newBuf(t, d, xs), newBuf(t, d, ys), newBuf(t, d, ys)
		got1, got2 := make([]float32, n), make([]float32, n)
		require.NoError(t, s.Submit(ir.Dispatch([3]uint32{n}, float32(2.5), x, y1), gok.Dispatch([3]uint32{n}, float32(2.5), x, y2),
			y1.Download(got1), y2.Download(got2)))
		require.NoError(t, s.Synchronize(ctx))
		require.Equal(t, int32(1), calls.Load(), "the backend ran the Go function")
		require.Equal(t, got1, got2)
		require.Equal(t, 2.5*xs[7]+ys[7], got2[7])
	})

	t.Run("mandelbrot", func(t *testing.T) {
		calls.Store(0)
		f := hostKernel(t, "HostMandelbrot")
		ir, err := device.Compile(d, f)
		require.NoError(t, err)
		defer ir.Close()
		gok, err := device.Compile(d, f, device.WithHost(mandelHost(&calls)))
		require.NoError(t, err)
		defer gok.Close()
		const w, h = 70, 45
		o1, o2 := newBuf(t, d, make([]uint32, w*h)), newBuf(t, d, make([]uint32, w*h))
		got1, got2 := make([]uint32, w*h), make([]uint32, w*h)
		require.NoError(t, s.Submit(ir.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), o1), gok.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), o2),
			o1.Download(got1), o2.Download(got2)))
		require.NoError(t, s.Synchronize(ctx))
		require.Equal(t, int32(1), calls.Load())
		require.Equal(t, got1, got2)
		require.Contains(t, got2, uint32(256), "points inside the set")
	})

	t.Run("barrier, views, indirect", func(t *testing.T) {
		calls.Store(0)
		f := hostKernel(t, "HostReverse")
		ir, err := device.Compile(d, f)
		require.NoError(t, err)
		defer ir.Close()
		gok, err := device.Compile(d, f, device.WithHost(reverseHost(&calls)))
		require.NoError(t, err)
		defer gok.Close()
		words := make([]uint32, 256)
		for i := range words {
			words[i] = uint32(i * 7)
		}
		b1, b2 := newBuf(t, d, words), newBuf(t, d, words)
		groups := newBuf(t, d, []uint32{2, 1, 1})
		got1, got2 := make([]uint32, 256), make([]uint32, 256)
		require.NoError(t, s.Submit(
			ir.Dispatch([3]uint32{64}, b1), gok.Dispatch([3]uint32{64}, b2), // the first block
			ir.DispatchIndirect(groups.All(), b1.View(128, 128)), gok.DispatchIndirect(groups.All(), b2.View(128, 128)), // the last two
			b1.Download(got1), b2.Download(got2)))
		require.NoError(t, s.Synchronize(ctx))
		require.Equal(t, int32(2), calls.Load())
		require.Equal(t, got1, got2)
		require.Equal(t, words[63], got2[0])
		require.Equal(t, words[64], got2[64], "the second block is untouched")
		require.Equal(t, words[191], got2[128])
	})
}

// TestHostFuncFault: an index past a buffer's range in a kernel run as
// compiled Go is Go's bounds check panicking a thread; the stream's
// Synchronize returns an error naming the kernel, its position and the
// thread, and the stream and the process go on.
func TestHostFuncFault(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	ctx := ctxT(t)
	var calls atomic.Int32
	k, err := device.Compile(d, hostKernel(t, "HostShift"), device.WithHost(shiftHost(&calls)))
	require.NoError(t, err)
	defer k.Close()
	in, out := newBuf(t, d, make([]uint32, 100)), newBuf(t, d, make([]uint32, 100))
	require.NoError(t, s.Submit(k.Dispatch([3]uint32{100}, uint32(1), in, out)))
	err = s.Synchronize(ctx)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorIs(t, err, kernel.ErrKernelPanic)
	require.Contains(t, err.Error(), "kernel HostShift (hostkernels_test.go:")
	require.Contains(t, err.Error(), "index out of range [100] with length 100")
	require.Contains(t, err.Error(), "dispatch id {99 0 0}")
	require.Equal(t, int32(1), calls.Load())
	// The stream still runs work.
	require.NoError(t, s.Submit(k.Dispatch([3]uint32{100}, uint32(0), in, out)))
	require.NoError(t, s.Synchronize(ctx))
}

// TestHostFuncPrintAssert: a kernel run as compiled Go prints to the
// device's print handler, and a failed kernel.Assert is the *KernelFault of
// kind FaultAssert the compiled AST gives, as on every backend.
func TestHostFuncPrintAssert(t *testing.T) {
	var mu sync.Mutex
	var prints []device.KernelPrint
	d, err := device.Open(context.Background(), "cpu", device.WithValidation(), device.WithPrint(func(p device.KernelPrint) {
		mu.Lock()
		prints = append(prints, p)
		mu.Unlock()
	}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	s := stream(t, d, device.StreamCompute)
	ctx := ctxT(t)
	var calls atomic.Int32
	f := hostKernel(t, "HostPrintAssert")
	for _, host := range []bool{false, true} {
		prints = nil
		var opts []device.CompileOption
		if host {
			opts = append(opts, device.WithHost(printAssertHost(&calls)))
		}
		k, err := device.Compile(d, f, append(opts, device.WithKernelName("printer"))...)
		require.NoError(t, err)
		in := make([]float32, 128)
		in[1] = 1.5
		buf := newBuf(t, d, in)
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{128}, buf)))
		require.NoError(t, s.Synchronize(ctx), "host %v", host)
		slices.SortFunc(prints, func(a, b device.KernelPrint) int { return int(a.Thread[0]) - int(b.Thread[0]) })
		require.Equal(t, []device.KernelPrint{
			{Kernel: "printer", Thread: [3]uint32{0, 0, 0}, Text: "thread 0 has 0.000000"},
			{Kernel: "printer", Thread: [3]uint32{1, 0, 0}, Text: "thread 1 has 1.500000"},
		}, prints, "host %v: the prints reach the device's handler", host)

		in[70] = -1
		require.NoError(t, s.Submit(buf.Upload(in), k.Dispatch([3]uint32{128}, buf)))
		err = s.Synchronize(ctx)
		var kf *device.KernelFault
		require.ErrorAs(t, err, &kf, "host %v", host)
		require.Equal(t, device.FaultAssert, kf.Kind)
		require.Equal(t, "negative input", kf.Msg)
		require.Equal(t, "printer", kf.Kernel)
		require.Equal(t, [3]uint32{70, 0, 0}, kf.Thread)
		require.Contains(t, kf.Pos, "hostkernels_test.go:")
		require.NoError(t, k.Close())
	}
	require.Equal(t, int32(2), calls.Load(), "the compiled Go ran")
}

// TestHostFuncRefused: a host function needs the kernel it implements, and
// takes buffers and uniforms only.
func TestHostFuncRefused(t *testing.T) {
	d := open(t)
	var calls atomic.Int32
	_, err := d.NewShader(device.ShaderDesc{SPIRV: []uint32{0x07230203, 0, 0, 0, 0}, Host: saxpyHost(&calls), Signature: &device.Signature{}})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.Contains(t, err.Error(), "a host function without the kernel it implements")

	tex := hostTextureKernel(t)
	_, err = device.Compile(d, tex, device.WithHost(saxpyHost(&calls)))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.Contains(t, err.Error(), "a host function takes buffers and uniforms, not the texture")
}

// newBuf makes a buffer holding vals.
func newBuf[T any](t *testing.T, d *device.Device, vals []T) *device.Buffer[T] {
	t.Helper()
	b, err := device.NewBufferFrom(d, vals)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

func hostTextureKernel(t *testing.T) *ir.Function {
	t.Helper()
	f, err := programs.Tonemap()
	require.NoError(t, err)
	return f
}
