package dsl_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// Callables that take resources: specialised per call, with errors (not
// panics) for the uses that stay unsupported, worded as the Go frontend
// words them (ir.Resource*Msg).

func TestCallableTakesBuffers(t *testing.T) {
	sum := dsl.Callable("sum", func(k *dsl.K, b dsl.Buf[dsl.F32], n dsl.U32) dsl.F32 {
		s := dsl.NewVar(k, dsl.F(0))
		dsl.Range(k, dsl.U(0), n, func(i dsl.U32) { s.Set(s.Get().Add(b.Read(i))) })
		return s.Get()
	})
	f, err := dsl.Kernel1D(64, func(k *dsl.K, x dsl.Buf[dsl.F32], y dsl.BigBuf[dsl.F32], out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		out.Write(i, sum(k, x, i).Add(sum(k, y.Buf, i)).Add(sum(k, x, dsl.U(2))))
	}, "x", "y", "out")
	require.NoError(t, err)
	cs := f.Callees()
	require.Len(t, cs, 2)
	require.Equal(t, "sum<x>", cs[0].Name)
	require.Equal(t, "sum<y>", cs[1].Name)
	require.Len(t, cs[0].Params, 1) // n only: x is the kernel's argument
	// A second kernel gets its own clones of the same callable.
	g, err := dsl.Kernel1D(64, func(k *dsl.K, z dsl.Buf[dsl.F32]) {
		z.Write(dsl.U(0), sum(k, z, dsl.U(3)))
	}, "z")
	require.NoError(t, err)
	require.Equal(t, "sum<z>", g.Callees()[0].Name)
}

func TestCallableResourceErrors(t *testing.T) {
	buf := ir.Buffer(ir.TF32)
	for _, c := range []struct {
		name string
		fn   any
		want string
	}{
		{"returns a buffer", func(k *dsl.K, out dsl.Buf[dsl.F32]) {
			pick := dsl.Callable("pick", func(k *dsl.K, b dsl.Buf[dsl.F32]) dsl.Buf[dsl.F32] { return b })
			pick(k, out)
		}, ir.ResourceResultMsg("callable pick", buf)},
		{"takes a pointer to a buffer", func(k *dsl.K, out dsl.Buf[dsl.F32]) {
			grow := dsl.Callable("grow", func(k *dsl.K, b *dsl.Buf[dsl.F32]) {})
			grow(k, &out)
		}, ir.ResourcePointerMsg("p0", "callable grow", buf)},
		{"uses a kernel's buffer it is not given", func(k *dsl.K, out dsl.Buf[dsl.F32]) {
			peek := dsl.Callable("peek", func(k *dsl.K, i dsl.U32) dsl.F32 { return out.Read(i) })
			out.Write(dsl.U(0), peek(k, dsl.U(1)))
		}, "uses buffer out of kernel, which it does not take: pass it to the callable as a parameter"},
		{"uses a kernel's texture it is not given", func(k *dsl.K, tex dsl.Tex2D, out dsl.Buf[dsl.F32]) {
			peek := dsl.Callable("peek", func(k *dsl.K) dsl.U32 { return tex.Size().X() })
			out.Write(dsl.U(0), dsl.Convert[float32](peek(k)))
		}, "uses texture tex of kernel, which it does not take"},
		{"uses a kernel's value it is not given", func(k *dsl.K, out dsl.Buf[dsl.F32]) {
			x := out.Read(dsl.U(0))
			peek := dsl.Callable("peek", func(k *dsl.K) dsl.F32 { return x.Add(dsl.F(1)) })
			out.Write(dsl.U(0), peek(k))
		}, "peek: variable t1 does not belong to this function: a callable uses only its parameters and its own variables; pass the value as a parameter"},
		{"is given an unbound buffer", func(k *dsl.K, out dsl.Buf[dsl.F32]) {
			first := dsl.Callable("first", func(k *dsl.K, b dsl.Buf[dsl.F32]) dsl.F32 { return b.Read(dsl.U(0)) })
			out.Write(dsl.U(0), first(k, dsl.Buf[dsl.F32]{}))
		}, "argument 1 of callable first is an unbound buffer<f32> (a zero value)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var names []string
			switch c.fn.(type) {
			case func(*dsl.K, dsl.Tex2D, dsl.Buf[dsl.F32]):
				names = []string{"tex", "out"}
			default:
				names = []string{"out"}
			}
			_, err := dsl.Kernel1D(64, c.fn, names...)
			require.ErrorIs(t, err, dsl.ErrDSL)
			require.ErrorContains(t, err, c.want)
		})
	}

	first := dsl.Callable("first", func(k *dsl.K, b dsl.Buf[dsl.F32]) dsl.F32 { return b.Read(dsl.U(0)) })
	// A captured buffer is a kernel argument like the others; a callable
	// takes it as a parameter rather than capturing it.
	host := new(int)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		c := dsl.Capture[dsl.Buf[dsl.F32]](k, host)
		out.Write(dsl.U(0), first(k, c))
	}, "out")
	require.NoError(t, err)
	require.Equal(t, "first<capture1>", f.Callees()[0].Name)
	_, err = dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		grab := dsl.Callable("grab", func(k *dsl.K) dsl.F32 { return dsl.Capture[dsl.Buf[dsl.F32]](k, host).Read(dsl.U(0)) })
		out.Write(dsl.U(0), grab(k))
	}, "out")
	require.ErrorContains(t, err, "only kernels capture resources: capture it in the kernel and pass it to the callable as a parameter")

	// A buffer of another kernel.
	var other dsl.Buf[dsl.F32]
	_, err = dsl.Kernel1D(64, func(k *dsl.K, b dsl.Buf[dsl.F32]) { other = b }, "b")
	require.NoError(t, err)
	_, err = dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) { out.Write(dsl.U(0), first(k, other)) }, "out")
	require.ErrorIs(t, err, dsl.ErrDSL)
	require.ErrorContains(t, err, "argument 1 of callable first is b of kernel, not of kernel")
}

// K.Printf inside a callable that takes a buffer prints from each clone, on
// every backend, what interp prints.
func TestCallablePrintsWithABuffer(t *testing.T) {
	show := dsl.Callable("show", func(k *dsl.K, b dsl.Buf[dsl.F32], i dsl.U32) {
		y := b.Read(i).Mul(dsl.F(2))
		k.Printf("at %d: %g", i, y)
	})
	const n = 4
	f, err := dsl.Kernel1D(64, func(k *dsl.K, x dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		k.If(i.Lt(dsl.U(n)), func() { show(k, x, i) })
	}, "x")
	require.NoError(t, err)
	require.NoError(t, f.Validate())
	want := map[[3]uint32][]string{}
	for i := range uint32(n) {
		want[[3]uint32{i, 0, 0}] = []string{fmt.Sprintf("at %d: %g", i, float32(i+1))}
	}
	in := []float32{0.5, 1, 1.5, 2}
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			var mu sync.Mutex
			got := map[[3]uint32][]string{}
			d, err := device.Open(context.Background(), backend, device.WithPrint(func(p device.KernelPrint) {
				mu.Lock()
				defer mu.Unlock()
				got[p.Thread] = append(got[p.Thread], p.Text)
			}))
			testenv.Need(t, backend+" device", err)
			defer d.Close()
			k, err := device.Compile(d, f)
			require.NoError(t, err)
			defer k.Close()
			b, err := device.NewBuffer[float32](d, n)
			require.NoError(t, err)
			defer b.Close()
			s, err := d.NewStream(device.StreamCompute)
			require.NoError(t, err)
			defer s.Close()
			require.NoError(t, s.Submit(b.Upload(in), k.Dispatch([3]uint32{64}, b)))
			require.NoError(t, s.Synchronize(context.Background()))
			require.Equal(t, want, got)
		})
	}
}

// TestCallableRecursionIsAnError: a callable that calls itself, directly
// or through another, makes the kernel's constructor fail naming it (it
// deadlocked while tracing); nested calls that do not recurse still trace.
func TestCallableRecursionIsAnError(t *testing.T) {
	done := make(chan struct{})
	var errs [2]error
	go func() {
		defer close(done)
		var fact func(k *dsl.K, n dsl.U32) dsl.U32
		fact = dsl.Callable("fact", func(k *dsl.K, n dsl.U32) dsl.U32 {
			return dsl.Select(n.Eq(dsl.U(0)), dsl.U(1), n.Mul(fact(k, n.Sub(dsl.U(1)))))
		})
		_, errs[0] = dsl.Kernel1D(64, func(k *dsl.K, y dsl.Buf[dsl.U32]) { y.Write(dsl.U(0), fact(k, dsl.U(5))) })
		var even, odd func(k *dsl.K, n dsl.U32) dsl.Bool
		even = dsl.Callable("even", func(k *dsl.K, n dsl.U32) dsl.Bool { return odd(k, n.Sub(dsl.U(1))) })
		odd = dsl.Callable("odd", func(k *dsl.K, n dsl.U32) dsl.Bool { return even(k, n.Sub(dsl.U(1))) })
		_, errs[1] = dsl.Kernel1D(64, func(k *dsl.K, y dsl.Buf[dsl.U32]) {
			y.Write(dsl.U(0), dsl.Select(even(k, dsl.U(4)), dsl.U(1), dsl.U(0)))
		})
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("tracing a recursive callable did not return")
	}
	require.ErrorIs(t, errs[0], dsl.ErrDSL)
	require.ErrorContains(t, errs[0], "callable fact is called recursively")
	require.ErrorContains(t, errs[1], "callable even is called recursively")

	sq := dsl.Callable("sq", func(k *dsl.K, x dsl.U32) dsl.U32 { return x.Mul(x) })
	quad := dsl.Callable("quad", func(k *dsl.K, x dsl.U32) dsl.U32 { return sq(k, sq(k, x)) })
	_, err := dsl.Kernel1D(64, func(k *dsl.K, y dsl.Buf[dsl.U32]) { y.Write(dsl.U(0), quad(k, sq(k, dsl.U(2)))) })
	require.NoError(t, err)
}

// TestCallableMisuseIsAnError: a callable of the wrong shape, or called
// with a nil *K, fails with a sentence saying so, not a reflect panic.
func TestCallableMisuseIsAnError(t *testing.T) {
	noK := dsl.Callable("noK", func(x dsl.U32) dsl.U32 { return x })
	_, err := dsl.Kernel1D(64, func(k *dsl.K, y dsl.Buf[dsl.U32]) { y.Write(dsl.U(0), noK(dsl.U(1))) })
	require.ErrorContains(t, err, "callable noK is not a func(*dsl.K, params…) with at most one result")
	two := dsl.Callable("two", func(k *dsl.K, x dsl.U32) (dsl.U32, dsl.U32) { return x, x })
	_, err = dsl.Kernel1D(64, func(k *dsl.K, y dsl.Buf[dsl.U32]) { a, _ := two(k, dsl.U(1)); y.Write(dsl.U(0), a) })
	require.ErrorContains(t, err, "callable two is not a func(*dsl.K, params…) with at most one result")
	id := dsl.Callable("id", func(k *dsl.K, x dsl.U32) dsl.U32 { return x })
	require.PanicsWithError(t, "frontend: kernel DSL: callable id called with a nil *dsl.K: call it while tracing, with the kernel's or callable's k", func() { id(nil, dsl.U(1)) })
	_, err = dsl.Kernel1D(64, nil)
	require.ErrorIs(t, err, dsl.ErrDSL)
}
