package devicetest_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/devicetest"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/kernel/kerneltest"
	kernels "github.com/lucent-gpu/lucent/testdata/gokernel"
)

var corpus = sync.OnceValues(func() (map[string]*gokernel.Kernel, error) {
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel")
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	m := map[string]*gokernel.Kernel{}
	for _, k := range ks {
		m[k.Name] = k
	}
	return m, nil
})

// compiled compiles corpus kernel name on d.
func compiled(t *testing.T, d *device.Device, name string) *device.Shader {
	t.Helper()
	ks, err := corpus()
	require.NoError(t, err)
	k, err := device.Compile(d, ks[name].Func, device.WithKernelName(name))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, k.Close()) })
	return k.Shader
}

func eachBackend(t *testing.T, f func(t *testing.T, d *device.Device)) {
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			d, err := device.Open(context.Background(), backend, device.WithValidation())
			if backend == "vulkan" {
				testenv.Need(t, "Vulkan device", err)
			}
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, d.Close()) }) // after the shaders' cleanups
			f(t, d)
		})
	}
}

// TestCompare runs corpus kernels on each backend and with kernel.Run:
// they agree, and the results of both runs are there to read.
func TestCompare(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *device.Device) {
		ctx := context.Background()
		const n = 1000
		xs, ys := make([]float32, n), make([]float32, n)
		for i := range xs {
			xs[i], ys[i] = float32(i), float32(7*i-3)
		}
		x, y := devicetest.NewBuffer(xs), devicetest.NewBuffer(ys)
		require.NoError(t, devicetest.Compare(ctx, d, compiled(t, d, "Saxpy"), [3]uint32{n, 1, 1}, kernels.Saxpy, 0, float32(3), x, y))
		require.Equal(t, float32(3*10+7*10-3), y.Device()[10])
		require.Equal(t, y.Device(), y.Host())
		require.Equal(t, float32(7*10-3), ys[10], "the caller's slice is not written")

		in := make([]int32, 256)
		for i := range in {
			in[i] = int32(i*37 - 4000)
		}
		out := devicetest.NewBuffer(make([]int32, 256*8))
		require.NoError(t, devicetest.Compare(ctx, d, compiled(t, d, "Corners"), [3]uint32{256, 1, 1}, kernels.Corners, 0, devicetest.NewBuffer(in), out))
	})
}

// saxpyOff is Saxpy but for the elements from 7 on.
func saxpyOff(a float32, x, y []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(y)) {
		y[i] = a*x[i] + y[i]
		if i >= 7 {
			y[i]++
		}
	}
}

// TestCompareReportsFirstDifference: a Go function that is not the
// device's kernel gives the first element that differs, naming the
// argument.
func TestCompareReportsFirstDifference(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *device.Device) {
		xs := make([]float32, 100)
		for i := range xs {
			xs[i] = float32(i)
		}
		err := devicetest.Compare(context.Background(), d, compiled(t, d, "Saxpy"), [3]uint32{100, 1, 1}, saxpyOff, 0,
			float32(2), devicetest.NewBuffer(xs), devicetest.NewBuffer(xs))
		var m *kerneltest.Mismatch
		require.ErrorAs(t, err, &m)
		require.Equal(t, 7, m.Index)
		require.Equal(t, float32(21), m.Got)
		require.Equal(t, float32(22), m.Want)
		require.ErrorIs(t, err, kerneltest.ErrMismatch)
		require.Contains(t, err.Error(), "argument 2 (y): the device's result against kernel.Run's: kerneltest: mismatch: element 7: got 21, want 22")
	})
}

// TestCompareBadArguments: arguments that do not fit the kernel are errors
// naming the argument.
// devBuf is a device buffer holding xs.
func devBuf(t *testing.T, d *device.Device, xs []float32) *device.Buffer[float32] {
	t.Helper()
	b, err := device.NewBufferFrom(d, xs)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

func TestCompareBadArguments(t *testing.T) {
	eachBackend(t, func(t *testing.T, d *device.Device) {
		ctx := context.Background()
		sh := compiled(t, d, "Saxpy")
		xs := []float32{1, 2, 3}
		size := [3]uint32{3, 1, 1}
		for _, c := range []struct {
			name string
			fn   any
			args []any
			want string
		}{
			{"float64 uniform", kernels.Saxpy, []any{2.0, devicetest.NewBuffer(xs), devicetest.NewBuffer(xs)}, "argument 0 (a): float64 for a float32 parameter"},
			{"slice for a buffer", kernels.Saxpy, []any{float32(2), xs, devicetest.NewBuffer(xs)}, "argument 1 (x): a []float32: give a slice's elements as devicetest.NewBuffer(elems)"},
			{"device buffer for a buffer", kernels.Saxpy, []any{float32(2), devBuf(t, d, xs), devicetest.NewBuffer(xs)}, "argument 1 (x): *device.Buffer[float32] for a []float32 parameter: give its elements as devicetest.NewBuffer(elems []float32)"},
			{"wrong element", kernels.Saxpy, []any{float32(2), devicetest.NewBuffer([]int32{1}), devicetest.NewBuffer(xs)}, "argument 1 (x): []int32 for a []float32 parameter"},
			{"nil buffer", kernels.Saxpy, []any{float32(2), (*devicetest.Buffer[float32])(nil), devicetest.NewBuffer(xs)}, "argument 1 (x): nil *Buffer"},
			{"count", kernels.Saxpy, []any{float32(2)}, "1 arguments"},
			{"not a function", 42, []any{float32(2), devicetest.NewBuffer(xs), devicetest.NewBuffer(xs)}, "fn is int"},
		} {
			err := devicetest.Compare(ctx, d, sh, size, c.fn, 0, c.args...)
			require.ErrorIs(t, err, device.ErrInvalidArgument, c.name)
			require.ErrorContains(t, err, c.want, c.name)
		}
	})
}
