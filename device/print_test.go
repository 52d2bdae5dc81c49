package device_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/shadercache"
)

// printLog collects what kernels print.
type printLog struct {
	mu     sync.Mutex
	prints []device.KernelPrint
}

func (l *printLog) add(p device.KernelPrint) {
	l.mu.Lock()
	l.prints = append(l.prints, p)
	l.mu.Unlock()
}

func (l *printLog) take() []device.KernelPrint {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.prints
	l.prints = nil
	return p
}

// openPrinting opens the backend under test with prints going to a log.
func openPrinting(t *testing.T, opts ...device.Option) (*device.Device, *printLog) {
	t.Helper()
	log := &printLog{}
	var mu sync.Mutex
	opts = append([]device.Option{device.WithPrint(log.add), device.WithValidation(), device.WithValidationLayer(true),
		device.WithDebug(func(m device.DebugMessage) {
			if m.Severity == device.SeverityError {
				mu.Lock()
				defer mu.Unlock()
				t.Errorf("validation: %s: %s", m.ID, m.Text)
			}
		})}, opts...)
	d, err := device.Open(context.Background(), testBackend(), opts...)
	testenv.Need(t, "Vulkan device", err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d, log
}

// byThread groups prints by thread, each thread's in delivery order.
func byThread(prints []device.KernelPrint) map[[3]uint32][]string {
	m := map[[3]uint32][]string{}
	for _, p := range prints {
		m[p.Thread] = append(m[p.Thread], p.Text)
	}
	return m
}

// Every thread's prints arrive, in its program order, formatted as Go's fmt
// formats the same values; a kernel printing in a loop, scalars of every
// width and vectors.
func TestKernelPrint(t *testing.T) {
	d, log := openPrinting(t)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		x := dsl.Convert[float32](i).Mul(dsl.F(0.25))
		dsl.Range(k, dsl.U(0), dsl.U(3), func(j dsl.U32) {
			k.Printf("i=%d j=%u x=%.3f %g %e hex=%#x\n", i, j, x, x, x, i.Mul(dsl.U(4096)).Add(j))
		})
		k.Printf("v=%v %+v %5.1f neg=%d ok=%t", dsl.V3(x, x.Add(dsl.F(1)), dsl.F(-2)), k.DispatchID(),
			dsl.V2(x, x), dsl.I(-3).Sub(dsl.Convert[int32](i)), i.Lt(dsl.U(10)))
		k.Printf("wide %d %d %.10f", dsl.Convert[int64](i).Sub(dsl.Lit(int64(1)<<40)), dsl.Convert[uint64](i).Add(dsl.Lit(uint64(1)<<63)),
			dsl.Convert[float64](x).Add(dsl.Lit(1e-9)))
		out.Write(i, x)
	}, "out")
	require.NoError(t, err)
	f.Name = "printer"
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	out, err := device.NewBuffer[float32](d, 300)
	require.NoError(t, err)
	defer out.Close()

	const n = 300 // not a multiple of the block: the tail threads print nothing
	run(t, d, k.Dispatch([3]uint32{n}, out))
	prints := log.take()
	require.Len(t, prints, n*5)
	for _, p := range prints {
		require.Equal(t, "printer", p.Kernel)
		require.Zero(t, p.Dropped)
	}
	got := byThread(prints)
	require.Len(t, got, n)
	for i := range uint32(n) {
		x := float32(i) * 0.25
		var want []string
		for j := range uint32(3) {
			want = append(want, fmt.Sprintf("i=%d j=%d x=%.3f %g %e hex=%#x\n", i, j, x, x, x, i*4096+j))
		}
		want = append(want, fmt.Sprintf("v=%v %+v %5.1f neg=%d ok=%t", kernel.Float3{X: x, Y: x + 1, Z: -2},
			kernel.Uint3{X: i}, kernel.Float2{X: x, Y: x}, -3-int32(i), i < 10))
		want = append(want, fmt.Sprintf("wide %d %d %.10f", int64(i)-1<<40, uint64(i)+1<<63, float64(x)+1e-9))
		require.Equal(t, want, got[[3]uint32{i, 0, 0}], "thread %d", i)
	}

	// Two lists in flight at once each deliver their own prints.
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Submit(k.Dispatch([3]uint32{2}, out)))
	require.NoError(t, s.Submit(k.Dispatch([3]uint32{3}, out)))
	require.NoError(t, s.Synchronize(context.Background()))
	require.Len(t, log.take(), 5*5)
}

// A kernel printing more than the stream's print buffer holds delivers what
// fits and reports how many prints were dropped; nothing faults.
func TestKernelPrintOverflow(t *testing.T) {
	d, log := openPrinting(t, device.WithPrintCapacity(4096))
	skipOn(t, d, "cpu", "prints go straight to the handler, there is no print buffer to fill")
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		k.Printf("%d %d", i, i)
		out.Write(i, i)
	}, "out")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	out, err := device.NewBuffer[uint32](d, 1024)
	require.NoError(t, err)
	defer out.Close()
	dst := make([]uint32, 1024)
	run(t, d, k.Dispatch([3]uint32{1024}, out), out.Download(dst))
	for i, v := range dst {
		require.Equal(t, uint32(i), v)
	}
	prints := log.take()
	var texts, dropped uint64
	for _, p := range prints {
		if p.Dropped > 0 {
			dropped += p.Dropped
			require.Equal(t, "kernel", p.Kernel)
			continue
		}
		texts++
		require.Equal(t, fmt.Sprintf("%d %d", p.Thread[0], p.Thread[0]), p.Text)
	}
	require.Positive(t, texts)
	require.Positive(t, dropped)
	require.Equal(t, uint64(1024), texts+dropped, "every print is delivered or counted")

	// The next list starts with an empty buffer.
	run(t, d, k.Dispatch([3]uint32{10}, out))
	require.Len(t, log.take(), 10)
}

// A kernel's signature lists its print sites; a kernel that never prints
// has none.
func TestKernelSignaturePrints(t *testing.T) {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
		k.Printf("%v %g", k.DispatchID(), dsl.Lit(float64(1)))
	}, "out")
	require.NoError(t, err)
	sig, _, err := device.KernelSignature(f)
	require.NoError(t, err)
	require.Equal(t, []device.PrintSite{{Format: "%v %g", Args: []device.PrintArg{
		{Scalar: device.ScalarUint, ScalarBits: 32, Components: 3}, {Scalar: device.ScalarFloat, ScalarBits: 64, Components: 1}}}}, sig.Prints)
	p, err := sig.Prints[0].PrintStatement()
	require.NoError(t, err)
	require.Equal(t, ir.Vector(ir.TU32, 3), p.Args[0].Type())

	g, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.U32]) {}, "out")
	require.NoError(t, err)
	sig, _, err = device.KernelSignature(g)
	require.NoError(t, err)
	require.Nil(t, sig.Prints)

	_, err = device.PrintSite{Format: "%d", Args: []device.PrintArg{{Scalar: device.ScalarFloat, ScalarBits: 8, Components: 1}}}.PrintStatement()
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = device.PrintSite{Format: "%d", Args: []device.PrintArg{{Scalar: device.ScalarFloat, ScalarBits: 32, Components: 1}}}.PrintStatement()
	require.ErrorIs(t, err, device.ErrInvalidArgument)
}

// A printing kernel saved ahead of time prints once loaded: the saved
// signature keeps its print sites.
func TestKernelPrintAOT(t *testing.T) {
	store, err := shadercache.NewDir(t.TempDir())
	require.NoError(t, err)
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		k.Printf("aot %d", i)
		out.Write(i, i)
	}, "out")
	require.NoError(t, err)
	sig, err := device.SaveKernel(store, "aot-print", f)
	require.NoError(t, err)
	d, log := openPrinting(t)
	k, err := device.LoadKernel(d, store, "aot-print", sig)
	require.NoError(t, err)
	defer k.Close()
	out, err := device.NewBuffer[uint32](d, 3)
	require.NoError(t, err)
	defer out.Close()
	run(t, d, k.Dispatch([3]uint32{3}, out))
	got := byThread(log.take())
	require.Equal(t, map[[3]uint32][]string{{0, 0, 0}: {"aot 0"}, {1, 0, 0}: {"aot 1"}, {2, 0, 0}: {"aot 2"}}, got)
}

// A kernel compiled under another name (WithKernelName) is that name in what
// it prints, in its faults and in its timings, on every backend (the cpu
// backend named the IR function in prints and faults).
func TestKernelNameInPrintsFaultsTimings(t *testing.T) {
	d, log := openPrinting(t)
	f, err := dsl.Kernel1D(4, func(k *dsl.K, x dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		k.Printf("i=%d", i)
		x.Write(i.Add(dsl.U(4)), dsl.F(1))
	})
	require.NoError(t, err)
	k, err := device.Compile(d, f, device.WithKernelName("scatter"), device.WithChecked())
	require.NoError(t, err)
	defer k.Close()
	x, err := device.NewBuffer[float32](d, 4)
	require.NoError(t, err)
	defer x.Close()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	var tm device.Timings
	list := (&device.CommandList{}).Add(k.Dispatch([3]uint32{1}, x))
	if d.Capabilities().Timings {
		list.Timed(&tm)
	}
	require.NoError(t, s.SubmitList(list))
	err = s.Synchronize(context.Background())
	fault := faultOf(t, err, device.FaultBufferIndex, "", "kernel scatter")
	require.Equal(t, "scatter", fault.Kernel)
	prints := log.take()
	require.Len(t, prints, 1)
	require.Equal(t, "scatter", prints[0].Kernel)
	if d.Capabilities().Timings {
		require.Equal(t, "scatter", tm.Commands[0].Kernel)
	}
}
